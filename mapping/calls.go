package mapping

// The call and output items: each call a tool call of its turn's assistant
// message (history.go), each output a tool message; client-executed
// tools' calls as calls of the functions their tools became (virtual.go).

import (
	"strconv"

	"github.com/transponder-dev/transponder/codec"
)

// call adds a tool call to the open assistant message (opening one after
// the outputs of the last turn): its id is the item's call_id.
func (c *conv) call(dst codec.Ref, v codec.Value, path string) codec.Ref {
	c.item(dst, v, path)
	idv := v.Get("call_id")
	id, _ := idv.Str()
	if id == "" {
		c.fail(&Error{Message: "a call needs a call_id", Param: path + ".call_id", Code: "missing_required_parameter"})
	}
	if _, seen := c.h.state[id]; seen {
		c.fail(&Error{Message: "call_id " + strconv.Quote(id) + " is used by an earlier call", Param: path + ".call_id", Code: "invalid_value"})
	}
	m := c.assistant()
	if c.h.calls < 0 {
		c.h.calls = c.b.ArrayLit(m, "tool_calls")
	}
	c.h.setState(id, callPending)
	c.h.group = append(c.h.group, pendingCall{id, path})
	tc := c.b.AppendObject(c.h.calls)
	if up := c.callID(id); up != id {
		c.b.SetStringLit(tc, "id", up)
	} else {
		c.b.SetLit(tc, "id", idv.Raw())
	}
	c.caller(v, path)
	return tc
}

// callFunction adds a call of a function (its name is the caller's to set)
// and returns the function object.
func (c *conv) callFunction(dst codec.Ref, v codec.Value, path string) codec.Ref {
	tc := c.call(dst, v, path)
	c.b.SetJSONLit(tc, "type", `"function"`)
	return c.b.ObjectLit(tc, "function")
}

// caller warns for a call or output made by OpenAI's programmatic tool
// calling: chat calls and answers tools directly.
func (c *conv) caller(v codec.Value, path string) {
	if t, _ := v.Get("caller").Get("type").Str(); t != "" && t != "direct" {
		c.warn(path+".caller", "chat tools are called directly; the "+t+" caller is not carried")
	}
}

// functionCall: a tool call of the turn's assistant message; a namespaced
// call under its function's upstream name.
//
//transponder:transform object -> object
func functionCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	fn := c.callFunction(dst, v, path)
	if ns, ok := v.Get("namespace").Str(); ok {
		name, _ := v.Get("name").Str()
		c.b.SetStringLit(fn, "name", c.upstreamName("function", ns, name))
	} else {
		c.b.SetLit(fn, "name", v.Get("name").Raw())
	}
	c.b.SetLit(fn, "arguments", v.Get("arguments").Raw())
}

// upstreamName is the name a tool of the request has upstream (a
// namespace's tool not offered in this request gets the name it would).
func (c *conv) upstreamName(typ, ns, name string) string {
	if t, ok := c.tools.find(typ, ns, name); ok {
		return t.Name
	}
	if ns == "" {
		return name
	}
	// A tool of the history the request no longer offers: named as it would
	// be, among the others.
	t, _ := c.tools.addNamespaced(VirtualTool{Type: typ, Namespace: ns, ToolName: name, Custom: typ == "custom" && c.custom()})
	return t.Name
}

// customToolCall: for OpenRouter a call of the function the custom tool
// became, with arguments {"input": …}; for OpenAI a custom tool call.
//
//transponder:transform object -> object
func customToolCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	name, _ := v.Get("name").Str()
	ns, _ := v.Get("namespace").Str()
	name = c.upstreamName("custom", ns, name)
	input := v.Get("input")
	if c.custom() {
		tc := c.call(dst, v, path)
		c.b.SetJSONLit(tc, "type", `"custom"`)
		ct := c.b.ObjectLit(tc, "custom")
		c.b.SetStringLit(ct, "name", name)
		c.b.SetLit(ct, "input", input.Raw())
		return
	}
	fn := c.callFunction(dst, v, path)
	c.b.SetStringLit(fn, "name", name)
	c.b.SetLit(fn, "arguments", c.arguments(`{"input":`, input.Raw(), `}`))
}

// arguments is a JSON string holding the JSON text pre+raw+post.
func (c *conv) arguments(pre string, raw []byte, post string) []byte {
	c.scratch = append(append(append(c.scratch[:0], pre...), raw...), post...)
	return c.b.Bytes(codec.AppendString(c.scratchOut[:0], string(c.scratch)))
}

// localShellCall: a call of the function local_shell; the action's fields
// but its type are the arguments.
//
//transponder:transform object -> object
func localShellCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	fn := c.callFunction(dst, v, path)
	c.b.SetJSONLit(fn, "name", `"local_shell"`)
	var args []byte
	args = append(args, '{')
	for k, m := range v.Get("action").Members() {
		if k.Is("type") {
			continue
		}
		if len(args) > 1 {
			args = append(args, ',')
		}
		args = append(append(append(args, '"'), k.Raw()...), `":`...)
		args = append(args, m.Raw()...)
	}
	args = append(args, '}')
	c.b.SetLit(fn, "arguments", c.arguments("", args, ""))
}

// shellCall: a call of the function shell; the action is the arguments.
//
//transponder:transform object -> object
func shellCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	fn := c.callFunction(dst, v, path)
	c.b.SetJSONLit(fn, "name", `"shell"`)
	c.b.SetLit(fn, "arguments", c.arguments("", v.Get("action").Raw(), ""))
	if e := v.Get("environment"); present(e) {
		c.warn(path+".environment", "the client runs the commands; the environment is not carried")
	}
}

// applyPatchCall: a call of the function apply_patch; the operation is
// the arguments.
//
//transponder:transform object -> object
func applyPatchCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	fn := c.callFunction(dst, v, path)
	c.b.SetJSONLit(fn, "name", `"apply_patch"`)
	c.b.SetLit(fn, "arguments", c.arguments("", v.Get("operation").Raw(), ""))
}

// toolSearchCall: a call of the function tool_search (a client search);
// a search OpenAI ran is left out with its output.
//
//transponder:transform object -> object
func toolSearchCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	if e, _ := v.Get("execution").Str(); e == "server" {
		c.item(dst, v, path)
		c.warn(path, "OpenAI ran this tool search; chat has no record of a server tool's call")
		return
	}
	fn := c.callFunction(dst, v, path)
	c.b.SetJSONLit(fn, "name", `"tool_search"`)
	args := v.Get("arguments")
	switch args.Kind() {
	case codec.String:
		c.b.SetLit(fn, "arguments", args.Raw())
	case codec.Invalid, codec.Null:
		c.b.SetJSONLit(fn, "arguments", `"{}"`)
	default:
		c.b.SetLit(fn, "arguments", c.arguments("", args.Raw(), ""))
	}
}

// callOutput: the output of a call, as a tool message right after its
// assistant message.
//
//transponder:transform object -> object
func callOutput(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	_, _, typ := c.tag(v)
	c.output(dst, v, path, typ)
}

// toolSearchOutput: a tool message naming the tools the search loaded,
// which join the request's tools (offered when the request is done). The
// output of a search OpenAI ran is left out with its call.
//
//transponder:transform object -> object
func toolSearchOutput(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	if e, _ := v.Get("execution").Str(); e == "server" {
		c.h.pos = v.Offset()
		c.warn(path, "OpenAI ran this tool search; its tools are not loaded upstream")
		return
	}
	c.output(dst, v, path, "tool_search_output")
}

// additionalTools: the tools join the request's tools.
//
//transponder:transform object -> object
func additionalTools(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	c.loadTools(v.Get("tools"), path+".tools")
}

// output converts an output where it is in the input, unless it was
// moved up to its call already.
func (c *conv) output(dst codec.Ref, v codec.Value, path, typ string) {
	c.h.msgs = dst
	c.h.pos = v.Offset()
	c.h.leading = false
	if c.h.moved[v.Offset()] {
		return
	}
	id := outputCallID(v, typ)
	switch c.h.state[id] {
	case 0:
		c.fail(&Error{Message: "No tool call found for " + typ + " with call_id " + id + ".", Param: path, Code: "invalid_value"})
		return
	case callAnswered:
		c.fail(&Error{Message: "call " + id + " has an output already", Param: path, Code: "invalid_value"})
		return
	}
	c.h.setState(id, callAnswered)
	// The turn is over: a call after this output is another assistant
	// message.
	c.closeAssistant()
	c.toolMessage(dst, v, path, typ, id)
}

// toolMessage appends the tool message of an output.
func (c *conv) toolMessage(msgs codec.Ref, v codec.Value, path, typ, id string) {
	c.caller(v, path)
	m := c.b.AppendObject(msgs)
	c.b.SetJSONLit(m, "role", `"tool"`)
	c.b.SetStringLit(m, "tool_call_id", c.callID(id))
	out := v.Get("output")
	switch typ {
	case "shell_call_output":
		// stdout, stderr and the outcome of each command, as JSON text.
		c.b.SetLit(m, "content", c.arguments("", out.Raw(), ""))
		if x := v.Get("max_output_length"); present(x) {
			c.warn(path+".max_output_length", "chat has no output length setting; left out")
		}
		return
	case "apply_patch_call_output":
		if st := v.Get("status"); out.Kind() != codec.String && st.Kind() == codec.String {
			out = st
		}
		if out.Kind() == codec.String {
			c.b.SetLit(m, "content", out.Raw())
		} else {
			c.b.SetJSONLit(m, "content", `""`)
		}
		return
	case "tool_search_output":
		tools := v.Get("tools")
		c.loadTools(tools, path+".tools")
		c.b.SetLit(m, "content", c.loadedNames(tools))
		return
	}
	switch {
	case out.Kind() == codec.String:
		c.b.SetLit(m, "content", out.Raw())
	case !present(out):
		c.b.SetJSONLit(m, "content", `""`)
	default:
		if text, ok := c.textOnly(out, fieldPath{path, "output"}); ok {
			c.b.SetLit(m, "content", c.b.Quote(text))
		} else if c.opts.Dialect.base() == OpenAI {
			c.b.SetLit(m, "content", c.b.Quote(c.texts(out, fieldPath{path, "output"})))
		} else {
			c.content(m, "tool", out, fieldPath{path, "output"})
		}
	}
}

// loadedNames is the text of a tool search's tool message: the upstream
// names of the tools it loaded, as a JSON object.
func (c *conv) loadedNames(tools codec.Value) []byte {
	b := append(c.scratch[:0], `{"loaded_tools":[`...)
	n := 0
	for _, t := range tools.Elems() {
		typ, _ := t.Get("type").Str()
		name, _ := t.Get("name").Str()
		switch typ {
		case "function", "custom":
		case "local_shell", "shell", "apply_patch", "tool_search":
			name = typ
		case "namespace":
			for _, f := range t.Get("tools").Elems() {
				fn, _ := f.Get("name").Str()
				ft, _ := f.Get("type").Str()
				if n > 0 {
					b = append(b, ',')
				}
				b = codec.AppendString(b, c.upstreamName(ft, name, fn))
				n++
			}
			continue
		default:
			continue // not offered (offerLoaded warns)
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = codec.AppendString(b, name)
		n++
	}
	c.scratch = append(b, "]}"...)
	return c.b.Bytes(codec.AppendString(c.scratchOut[:0], string(c.scratch)))
}
