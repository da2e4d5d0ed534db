package mapping

// The reduction of a Responses input array to chat messages: the
// transforms of the input item entries of mapping/responses_chat.yaml and
// the state they share.
//
// Rules (checked by the golden cases and TestHistoryProperties):
//   - Items become messages in their order. An assistant turn — reasoning,
//     an assistant message, calls, until a tool output or another role's
//     message — is ONE chat assistant message: reasoning_details in order,
//     content, tool_calls (parallel calls together). A second assistant
//     message, or reasoning after the turn's text but before any call,
//     starts another one.
//     Calls are linked to outputs by call_id, never by id.
//   - Every call's output follows its assistant message as a tool message
//     before anything else: an output that comes later in the input is
//     moved up (and not repeated where it was). A call without output
//     anywhere, an output without a call before it, a second output of a
//     call and two calls of one call_id are errors.

import (
	"errors"
	"strconv"

	"github.com/transponder-dev/transponder/codec"
)

type callState uint8

const (
	callPending callState = iota + 1
	callAnswered
)

type pendingCall struct {
	id, path string
}

// history is the state of one input array's reduction.
type history struct {
	msgs    codec.Ref // the messages array
	asst    codec.Ref // the open assistant message (-1: none)
	text    bool      // asst has content
	calls   codec.Ref // asst's tool_calls (-1: none)
	details codec.Ref // asst's reasoning_details (-1: none)
	// group are the calls of the last assistant message with calls; their
	// outputs come next.
	group   []pendingCall
	state   map[string]callState // every call so far, by call_id
	pos     int                  // the offset of the item being converted
	leading bool                 // Merge: still in the leading system and developer messages
	// ahead indexes the outputs by call_id (made when a call's output is not
	// where it should be); moved are the offsets of those converted ahead.
	ahead   map[string][]aheadOutput
	indexed bool
	moved   map[int]bool
	offer   []pendingTool // tools that input items load, offered in finish
}

// pendingTool is a loaded tool to offer: a tool, or a namespace's (ns).
type pendingTool struct {
	t        codec.Value
	path, ns string
}

type aheadOutput struct {
	v    codec.Value
	i    int
	typ  string
	path string
}

func (h *history) reset() {
	h.msgs, h.asst, h.calls, h.details = -1, -1, -1, -1
	h.text = false
	h.group = h.group[:0]
	if h.state == nil {
		h.state = map[string]callState{}
	}
	clear(h.state)
	h.pos = 0
	h.leading = true
	clear(h.ahead)
	h.indexed = false
	clear(h.moved)
	h.offer = h.offer[:0]
}

// item starts the conversion of an item (any item but an output).
func (c *conv) item(dst codec.Ref, v codec.Value) {
	c.h.msgs = dst
	c.h.pos = v.Offset()
	c.h.leading = false
}

// endTurn closes the open assistant message and settles the last group of
// calls: each call without its output yet gets it now, from later in the
// input, or the request is refused.
func (c *conv) endTurn() {
	c.closeAssistant()
	for _, p := range c.h.group {
		if c.h.state[p.id] == callAnswered {
			continue
		}
		out, ok := c.outputAhead(p.id)
		if !ok {
			c.fail(&Error{Message: "No tool output found for function call " + p.id + ".", Param: p.path, Code: "invalid_value"})
			return
		}
		if c.h.moved == nil {
			c.h.moved = map[int]bool{}
		}
		c.h.moved[out.v.Offset()] = true
		c.h.state[p.id] = callAnswered
		c.toolMessage(c.h.msgs, out.v, out.path, out.typ, p.id)
	}
	c.h.group = c.h.group[:0]
}

// closeAssistant closes the open assistant message; one left with neither
// content, refusal nor calls (only reasoning, or parts all left out) gets
// an empty content, which every upstream takes.
func (c *conv) closeAssistant() {
	if m := c.h.asst; m >= 0 && c.h.calls < 0 && !c.b.Has(m, "content") && !c.b.Has(m, "refusal") {
		c.b.SetJSON(m, "content", `""`)
	}
	c.h.asst, c.h.calls, c.h.details, c.h.text = -1, -1, -1, false
}

// outputAhead finds the first output of call id after the current item.
func (c *conv) outputAhead(id string) (aheadOutput, bool) {
	if !c.h.indexed {
		c.h.indexed = true
		if c.h.ahead == nil {
			c.h.ahead = map[string][]aheadOutput{}
		}
		for i, it := range c.top.input.Elems() {
			_, _, typ := c.tag(it)
			if !isOutput(typ) {
				continue
			}
			id := outputCallID(it, typ)
			c.h.ahead[id] = append(c.h.ahead[id], aheadOutput{it, i, typ, at("input", i, "")})
		}
	}
	for _, o := range c.h.ahead[id] {
		if o.v.Offset() > c.h.pos && !c.h.moved[o.v.Offset()] {
			return o, true
		}
	}
	return aheadOutput{}, false
}

func isOutput(typ string) bool {
	switch typ {
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "shell_call_output", "apply_patch_call_output", "tool_search_output":
		return true
	}
	return false
}

// outputCallID is the call an output answers: call_id (a local shell
// output's is its id when it has no call_id).
func outputCallID(v codec.Value, typ string) string {
	id, ok := v.Get("call_id").Str()
	if !ok && typ == "local_shell_call_output" {
		id, _ = v.Get("id").Str()
	}
	return id
}

// assistant is the open assistant message, opened (after the last turn)
// if there is none.
func (c *conv) assistant() codec.Ref {
	if c.h.asst < 0 {
		c.endTurn()
		c.h.asst = c.b.AppendObject(c.h.msgs)
		c.b.SetJSON(c.h.asst, "role", `"assistant"`)
	}
	return c.h.asst
}

// userInput: input as a string is one user message.
//
//transponder:transform string -> object
func userInput(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	m := c.b.AppendObject(dst)
	c.b.SetJSON(m, "role", `"user"`)
	c.b.Set(m, "content", v.Raw())
}

// message: a message item of any role. An assistant message joins the
// open assistant message unless that has content already.
//
//transponder:transform object -> object
func message(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	leading := c.h.leading
	c.item(dst, v)
	role, _ := v.Get("role").Str()
	content := v.Get("content")
	if role == "assistant" {
		if c.h.text {
			c.endTurn() // a second assistant message is a message of its own
		}
		m := c.assistant()
		c.h.text = true
		c.assistantContent(m, content, path+".content")
		if ph := v.Get("phase"); present(ph) {
			c.warn(path+".phase", "chat messages have no phase; left out")
		}
		return
	}
	c.endTurn()
	if leading && (role == "system" || role == "developer") && c.opts.System == Merge {
		if text, ok := c.textOnly(content, path+".content"); ok {
			c.mergeSystem(dst, text)
			c.h.leading = true
			return
		}
	}
	m := c.b.AppendObject(dst)
	c.b.SetString(m, "role", role)
	c.content(m, role, content, path+".content")
}

// call adds a tool call to the open assistant message (opening one after
// the outputs of the last turn): its id is the item's call_id.
func (c *conv) call(dst codec.Ref, v codec.Value, path string) codec.Ref {
	c.item(dst, v)
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
		c.h.calls = c.b.Array(m, "tool_calls")
	}
	c.h.state[id] = callPending
	c.h.group = append(c.h.group, pendingCall{id, path})
	tc := c.b.AppendObject(c.h.calls)
	c.b.Set(tc, "id", idv.Raw())
	return tc
}

// functionCall: a tool call of the turn's assistant message; a namespaced
// call under its function's upstream name.
//
//transponder:transform object -> object
func functionCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.call(dst, v, path)
	c.b.SetJSON(tc, "type", `"function"`)
	fn := c.b.Object(tc, "function")
	if ns, ok := v.Get("namespace").Str(); ok {
		name, _ := v.Get("name").Str()
		c.b.SetString(fn, "name", c.upstreamName("function", ns, name))
	} else {
		c.b.Set(fn, "name", v.Get("name").Raw())
	}
	c.b.Set(fn, "arguments", v.Get("arguments").Raw())
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
	t, _ := c.tools.addNamespaced(VirtualTool{Type: typ, Namespace: ns, ToolName: name, Custom: typ == "custom" && c.opts.Dialect == OpenAI})
	return t.Name
}

// customToolCall: for OpenRouter a call of the function the custom tool
// became, with arguments {"input": …}; for OpenAI a custom tool call.
//
//transponder:transform object -> object
func customToolCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.call(dst, v, path)
	name, _ := v.Get("name").Str()
	ns, _ := v.Get("namespace").Str()
	name = c.upstreamName("custom", ns, name)
	input := v.Get("input")
	if c.opts.Dialect == OpenAI {
		c.b.SetJSON(tc, "type", `"custom"`)
		ct := c.b.Object(tc, "custom")
		c.b.SetString(ct, "name", name)
		c.b.Set(ct, "input", input.Raw())
		return
	}
	c.b.SetJSON(tc, "type", `"function"`)
	fn := c.b.Object(tc, "function")
	c.b.SetString(fn, "name", name)
	c.b.Set(fn, "arguments", c.arguments(`{"input":`, input.Raw(), `}`))
}

// arguments is a JSON string holding the JSON text pre+raw+post.
func (c *conv) arguments(pre string, raw []byte, post string) []byte {
	c.scratch = append(append(append(c.scratch[:0], pre...), raw...), post...)
	return c.b.Bytes(appendJSONString(c.scratchOut[:0], c.scratch))
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst, s []byte) []byte {
	return codec.AppendString(dst, string(s))
}

// localShellCall: a call of the function local_shell; the action's fields
// but its type are the arguments.
//
//transponder:transform object -> object
func localShellCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.call(dst, v, path)
	c.b.SetJSON(tc, "type", `"function"`)
	fn := c.b.Object(tc, "function")
	c.b.SetJSON(fn, "name", `"local_shell"`)
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
	c.b.Set(fn, "arguments", c.arguments("", args, ""))
}

// shellCall: a call of the function shell; the action is the arguments.
//
//transponder:transform object -> object
func shellCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.call(dst, v, path)
	c.b.SetJSON(tc, "type", `"function"`)
	fn := c.b.Object(tc, "function")
	c.b.SetJSON(fn, "name", `"shell"`)
	c.b.Set(fn, "arguments", c.arguments("", v.Get("action").Raw(), ""))
	if e := v.Get("environment"); present(e) {
		c.warn(path+".environment", "the client runs the commands; the environment is not carried")
	}
}

// applyPatchCall: a call of the function apply_patch; the operation is
// the arguments.
//
//transponder:transform object -> object
func applyPatchCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.call(dst, v, path)
	c.b.SetJSON(tc, "type", `"function"`)
	fn := c.b.Object(tc, "function")
	c.b.SetJSON(fn, "name", `"apply_patch"`)
	c.b.Set(fn, "arguments", c.arguments("", v.Get("operation").Raw(), ""))
}

// toolSearchCall: a call of the function tool_search (a client search);
// a search OpenAI ran is left out with its output.
//
//transponder:transform object -> object
func toolSearchCall(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	if e, _ := v.Get("execution").Str(); e == "server" {
		c.item(dst, v)
		c.warn(path, "OpenAI ran this tool search; chat has no record of a server tool's call")
		return
	}
	tc := c.call(dst, v, path)
	c.b.SetJSON(tc, "type", `"function"`)
	fn := c.b.Object(tc, "function")
	c.b.SetJSON(fn, "name", `"tool_search"`)
	args := v.Get("arguments")
	switch args.Kind() {
	case codec.String:
		c.b.Set(fn, "arguments", args.Raw())
	case codec.Invalid, codec.Null:
		c.b.SetJSON(fn, "arguments", `"{}"`)
	default:
		c.b.Set(fn, "arguments", c.arguments("", args.Raw(), ""))
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
	if !c.inGroup(id) {
		// The call's turn was settled without this output: impossible, as
		// settling takes the outputs from ahead; kept as a guard.
		c.fail(&Error{Message: "the output of call " + id + " comes after another turn", Param: path, Code: "invalid_value"})
		return
	}
	c.h.state[id] = callAnswered
	// The turn is over: a call after this output is another assistant
	// message.
	c.closeAssistant()
	c.toolMessage(dst, v, path, typ, id)
}

func (c *conv) inGroup(id string) bool {
	for _, p := range c.h.group {
		if p.id == id {
			return true
		}
	}
	return false
}

// toolMessage appends the tool message of an output.
func (c *conv) toolMessage(msgs codec.Ref, v codec.Value, path, typ, id string) {
	m := c.b.AppendObject(msgs)
	c.b.SetJSON(m, "role", `"tool"`)
	c.b.SetString(m, "tool_call_id", id)
	out := v.Get("output")
	switch typ {
	case "shell_call_output":
		// stdout, stderr and the outcome of each command, as JSON text.
		c.b.Set(m, "content", c.arguments("", out.Raw(), ""))
		if x := v.Get("max_output_length"); present(x) {
			c.warn(path+".max_output_length", "chat has no output length setting; left out")
		}
		return
	case "apply_patch_call_output":
		if st := v.Get("status"); out.Kind() != codec.String && st.Kind() == codec.String {
			out = st
		}
		if out.Kind() == codec.String {
			c.b.Set(m, "content", out.Raw())
		} else {
			c.b.SetJSON(m, "content", `""`)
		}
		return
	case "tool_search_output":
		tools := v.Get("tools")
		c.loadTools(tools, path+".tools")
		c.b.Set(m, "content", c.loadedNames(tools))
		return
	}
	switch {
	case out.Kind() == codec.String:
		c.b.Set(m, "content", out.Raw())
	case !present(out):
		c.b.SetJSON(m, "content", `""`)
	default:
		if text, ok := c.textOnly(out, path+".output"); ok {
			c.b.Set(m, "content", c.b.Bytes(quoteRaw(text)))
		} else if c.opts.Dialect == OpenAI {
			c.b.Set(m, "content", c.b.Bytes(quoteRaw(c.texts(out, path+".output"))))
		} else {
			c.content(m, "tool", out, path+".output")
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
	return c.b.Bytes(appendJSONString(c.scratchOut[:0], c.scratch))
}

// settle ends the input: the last turn's calls get their outputs.
func (c *conv) settle() {
	if c.h.msgs < 0 {
		return
	}
	c.h.pos = int(^uint(0) >> 1)
	c.endTurn()
}

// resolveReferences rewrites the request with its item_reference items
// replaced by the items Options.Items gives (nil if there are none).
func (c *conv) resolveReferences(v codec.Value) ([]byte, error) {
	var b codec.Builder
	b.Reset()
	changed := false
	for k, m := range v.Members() {
		if !k.Is("input") {
			b.Set(codec.Top, k.String(), m.Raw())
			continue
		}
		arr := b.Array(codec.Top, "input")
		for i, it := range m.Elems() {
			if _, _, typ := c.tag(it); typ != "item_reference" {
				b.AppendRaw(arr, it.Raw())
				continue
			}
			id, _ := it.Get("id").Str()
			p := at("input", i, "id")
			if c.opts.Items == nil {
				return nil, &Error{Message: "Item with id " + strconv.Quote(id) + " not found: this converter has no items to resolve item_reference with.", Param: p, Code: "invalid_value"}
			}
			item, err := c.opts.Items(id)
			if errors.Is(err, ErrItemNotFound) {
				return nil, &Error{Message: "Item with id " + strconv.Quote(id) + " not found.", Param: p, Code: "invalid_value"}
			}
			if err != nil {
				return nil, err
			}
			ref, ok := codec.Parse(item)
			if typ, _ := ref.Get("type").Str(); !ok || ref.Kind() != codec.Object || typ == "item_reference" || typ == "" && !ref.Get("role").Exists() {
				return nil, &Error{Message: "the item of id " + strconv.Quote(id) + " is not an input item", Param: p, Code: "invalid_value"}
			}
			b.AppendRaw(arr, item)
			changed = true
		}
	}
	if !changed {
		return nil, nil
	}
	return b.AppendJSON(nil), nil
}
