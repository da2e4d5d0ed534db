package translate

import (
	"bytes"
	"strconv"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
)

// Tool calls, restored to the Responses items of the client's tools
// through the request's ToolMap: function_call (arguments streamed),
// custom_tool_call (input streamed out of {"input": …}), and the
// built-ins (local_shell, shell, apply_patch, tool_search), whose action
// or operation is the whole arguments: made when the stream ends.

// ToolCall is a tool call or a piece of one.
func (t *translator) ToolCall(index int, id, name, args codec.Value, custom bool) {
	var c *item
	for _, x := range t.calls {
		if x.chat == int64(index) {
			c = x
		}
	}
	if c == nil {
		t.settle(false)
		t.closeCur()
		c = t.newItem(kFunction)
		c.chat = int64(index)
		t.calls = append(t.calls, c)
	}
	if c.callID == nil && id.Kind() == codec.String {
		c.callID = t.keep(id.Raw())
	}
	if c.name == nil && name.Kind() == codec.String && len(name.Raw()) > 2 {
		c.name = t.keep(name.Raw())
		t.openCall(c, custom)
	}
	var s []byte
	switch args.Kind() {
	case codec.String:
		s = args.Raw()
		c.sawArgs = true
	case codec.Object, codec.Array:
		s = codec.AppendString(nil, string(args.Raw())) // arguments sent as JSON, not as its text
		c.sawArgs = true
	}
	if len(s) <= 2 {
		return
	}
	if c.done != nil { // a built-in call made when the next began, its action whole
		if !codec.Blank(s[1 : len(s)-1]) {
			reason := "arguments after the call was done; left out"
			if c.kind == kBuiltin {
				reason = "arguments after the " + c.tool.Type + " call was made (when the next call began, its arguments made its " + actionOf[c.tool.Type] + "); left out"
			}
			t.reply.Warn(t.callPath(c)+".function.arguments", reason)
		}
		return
	}
	if !c.open && c.kind != kBuiltin {
		// arguments before the name: kept until the call can be opened
		c.args = append(c.args, s[1:len(s)-1]...)
		return
	}
	t.callArgs(c, s)
}

// openCall names a call's item by its tool and emits output_item.added
// (built-ins wait for their arguments).
func (t *translator) openCall(c *item, custom bool) {
	var vt mapping.VirtualTool
	var ok bool
	if raw := c.name[1 : len(c.name)-1]; bytes.IndexByte(raw, '\\') < 0 {
		vt, ok = t.req.Tools.LookupBytes(raw)
	} else {
		name, _ := codec.Unquote(c.name)
		vt, ok = t.req.Tools.Lookup(name)
	}
	c.tool, c.offered = vt, ok
	if c.callID == nil {
		start := len(t.arena)
		t.arena = codec.AppendString(t.arena, t.opts.ids().NewID("call"))
		c.callID = t.kept(start)
	}
	switch {
	case !ok:
		name, _ := codec.Unquote(c.name)
		t.reply.Warn(t.callPath(c), "a call of "+strconv.Quote(name)+", a tool the request did not offer; kept as a function_call")
		c.kind = kFunction
	case vt.Type == "custom":
		c.kind = kCustom
		c.input.raw = vt.Custom || custom
	case vt.Type == "function":
		c.kind = kFunction
	default:
		c.kind = kBuiltin
		// its place: where it was named (added when its arguments are whole)
		c.index, c.reserved, c.heldAt = len(t.items), true, len(t.heldEv)
		t.items = append(t.items, c)
		t.waiting++
		t.holding = t.stream
		return
	}
	pending := c.args
	c.args = c.args[:0] // (pending is copied before they grow again)
	if c.kind == kCustom {
		c.id = t.opts.ids().NewID("ctc")
		t.addItem(c, t.addedCall(c, ""))
	} else {
		c.id = t.opts.ids().NewID("fc")
		t.addItem(c, t.addedCall(c, "in_progress"))
	}
	if len(pending) > 0 {
		t.callArgs(c, append(append([]byte{'"'}, pending...), '"'))
	}
}

func (t *translator) callPath(c *item) string {
	return t.msgPath() + ".tool_calls[" + strconv.FormatInt(c.chat, 10) + "]"
}

// msgPath is where the upstream's message is: a chunk's delta, or a chat
// completion's message.
func (t *translator) msgPath() string {
	if t.stream {
		return "choices[0].delta"
	}
	return "choices[0].message"
}

// callArgs takes a piece of a call's arguments (a JSON string).
func (t *translator) callArgs(c *item, s []byte) {
	switch c.kind {
	case kBuiltin:
		c.args = t.grow(c.args, s[1:len(s)-1])
	case kFunction:
		c.args = t.grow(c.args, s[1:len(s)-1])
		if !t.stream {
			return
		}
		if !c.started {
			if codec.Blank(c.args) {
				return // held back: arguments that stay blank become {} (closeCall)
			}
			c.started = true
			s = c.args // with the blank pieces held back, if any
			t.deltaEvent("response.function_call_arguments.delta", c, nil)
			t.buf = append(append(append(t.buf, '"'), s...), '"')
			t.end()
			return
		}
		t.deltaEvent("response.function_call_arguments.delta", c, nil)
		t.buf = append(t.buf, s...)
		t.end()
	case kCustom:
		mark := len(c.input.out)
		c.input.feed(s[1 : len(s)-1])
		if d := c.input.out[mark:]; len(d) > 0 && t.stream {
			t.itemEvent("response.custom_tool_call_input.delta", c)
			t.buf = append(append(append(t.buf, `,"delta":"`...), d...), '"')
			t.end()
		}
	}
}

// addedCall is a call's item as output_item.added shows it (nil when
// not streaming: nothing shows it), in scratch memory.
func (t *translator) addedCall(c *item, status string) []byte {
	if !t.stream {
		return nil
	}
	t.scratch = t.callJSON(t.scratch[:0], c, status, nil)
	return t.scratch
}

// callJSON writes a function_call or custom_tool_call item (status ""
// for a custom one, which has none; text: its arguments or input).
func (t *translator) callJSON(dst []byte, c *item, status string, text []byte) []byte {
	typ := "function_call"
	if c.kind == kCustom {
		typ = "custom_tool_call"
	}
	dst = append(dst, `{"id":`...)
	dst = codec.AppendString(dst, c.id)
	dst = append(append(append(dst, `,"type":"`...), typ...), '"')
	if status != "" {
		dst = append(append(append(dst, `,"status":"`...), status...), '"')
	}
	if c.kind == kCustom {
		dst = append(append(append(dst, `,"input":"`...), text...), '"')
	} else {
		dst = append(append(append(dst, `,"arguments":"`...), text...), '"')
	}
	dst = append(append(dst, `,"call_id":`...), c.callID...)
	dst = append(dst, `,"name":`...)
	dst = t.appendName(dst, c)
	if c.offered && c.tool.Namespace != "" {
		dst = append(dst, `,"namespace":`...)
		dst = codec.AppendString(dst, c.tool.Namespace)
	}
	return append(dst, '}')
}

// appendName writes the name of a call's tool in the request.
func (t *translator) appendName(dst []byte, c *item) []byte {
	if c.offered && c.tool.ToolName != "" {
		return codec.AppendString(dst, c.tool.ToolName)
	}
	return append(dst, c.name...)
}

// closeCall finishes a call: its done events and item.
func (t *translator) closeCall(c *item) {
	if c.done != nil {
		return
	}
	if c.name == nil { // never named: a function call of no known tool
		c.name = []byte(`""`)
		t.reply.Warn(t.callPath(c), "a tool call without a name")
		t.openCall(c, false)
	}
	switch c.kind {
	case kFunction:
		if codec.Blank(c.args) {
			t.noArgs(c)
			if t.stream {
				t.itemEvent("response.function_call_arguments.delta", c)
				t.buf = append(t.buf, `,"delta":"{}"`...)
				t.end()
			}
		} else if !c.fellBack && !t.validArgs(c.args) {
			t.reply.Warn(t.callPath(c)+".function.arguments", "the arguments are not valid JSON; kept as sent")
		}
		if t.stream {
			t.itemEvent("response.function_call_arguments.done", c)
			t.buf = append(append(append(t.buf, `,"arguments":"`...), c.args...), '"')
			t.buf = append(t.buf, `,"name":`...)
			t.buf = t.appendName(t.buf, c)
			t.end()
		}
		start := len(t.arena)
		t.arena = t.callJSON(t.arena, c, "completed", c.args)
		c.done = t.kept(start)
	case kCustom:
		if c.input.raw && !c.sawArgs {
			t.reply.Warn(t.callPath(c)+".custom.input", "a custom tool call without input; its input is empty")
		}
		c.input.finish()
		if d := c.input.tail; len(d) > 0 && t.stream {
			t.itemEvent("response.custom_tool_call_input.delta", c)
			t.buf = append(append(append(t.buf, `,"delta":"`...), d...), '"')
			t.end()
		}
		if c.input.warning != "" {
			t.reply.Warn(t.callPath(c)+".function.arguments", c.input.warning)
		}
		if t.stream {
			t.itemEvent("response.custom_tool_call_input.done", c)
			t.buf = append(append(append(t.buf, `,"input":"`...), c.input.out...), '"')
			t.end()
		}
		start := len(t.arena)
		t.arena = t.callJSON(t.arena, c, "", c.input.out)
		c.done = t.kept(start)
	case kBuiltin:
		if !t.builtin(c) {
			return
		}
		t.addItem(c, c.done)
	}
	t.itemDone(c)
}

// settle makes the built-in calls that wait, in their order, while
// their arguments make their action (end: all of them), each after the
// events held before it was named; when none waits, the held events go
// out. JSON alone is not enough: a prefix may be JSON (a {} placeholder,
// a number) and the rest still to come.
func (t *translator) settle(end bool) {
	if t.waiting == 0 {
		return
	}
	for _, it := range t.items {
		if !it.reserved {
			continue
		}
		if !end && !t.makesAction(it) {
			t.holding = t.stream
			return
		}
		t.holding = false
		t.release(it.heldAt)
		t.closeCall(it)
	}
	t.holding = false
	t.release(len(t.heldEv))
	t.held, t.heldEv, t.heldOut = t.held[:0], t.heldEv[:0], 0
}

// builtin makes a built-in call's item from its arguments (false: they do
// not fit, and the call became a function_call, already done).
func (t *translator) builtin(c *item) bool {
	if codec.Blank(c.args) {
		t.noArgs(c)
	}
	args, _ := codec.Unquote(append(append([]byte{'"'}, c.args...), '"'))
	v, ok := codec.Parse([]byte(args))
	if !ok || !fits(c.tool.Type, v) {
		t.reply.Warn(t.callPath(c)+".function.arguments", "the arguments of a "+c.tool.Type+" call do not make its "+actionOf[c.tool.Type]+"; kept as a function_call")
		c.kind, c.offered, c.fellBack = kFunction, false, true
		c.id = t.opts.ids().NewID("fc")
		t.addItem(c, t.addedCall(c, "in_progress"))
		args := c.args
		c.args = nil
		t.callArgs(c, append(append([]byte{'"'}, args...), '"'))
		t.closeCall(c)
		return false
	}
	var b []byte
	put := func(prefix string, typ string) {
		c.id = t.opts.ids().NewID(prefix)
		b = append(b, `{"id":`...)
		b = codec.AppendString(b, c.id)
		b = append(append(append(b, `,"type":"`...), typ...), `","status":"completed","call_id":`...)
		b = append(b, c.callID...)
	}
	switch c.tool.Type {
	case "local_shell":
		put("lsc", "local_shell_call")
		b = append(b, `,"action":{"type":"exec"`...)
		env := false
		for k, m := range v.Members() {
			if k.Is("type") {
				continue
			}
			env = env || k.Is("env")
			b = append(append(append(b, ',', '"'), k.Raw()...), '"', ':')
			b = append(b, m.Raw()...)
		}
		if !env {
			b = append(b, `,"env":{}`...)
		}
		b = append(b, '}')
	case "shell":
		put("sh", "shell_call")
		b = append(b, `,"action":{"commands":`...)
		b = appendOr(b, v.Get("commands"), "[]")
		b = append(b, `,"timeout_ms":`...)
		b = appendOr(b, v.Get("timeout_ms"), "null")
		b = append(b, `,"max_output_length":`...)
		b = appendOr(b, v.Get("max_output_length"), "null")
		b = append(b, `},"environment":null`...)
	case "apply_patch":
		put("apc", "apply_patch_call")
		b = append(append(b, `,"operation":`...), v.Raw()...)
	case "tool_search":
		put("tsc", "tool_search_call")
		b = append(append(b, `,"execution":"client","arguments":`...), v.Raw()...)
	}
	c.done = append(b, '}')
	return true
}

// noArgs makes the arguments of a call that has none (absent, null, empty
// or blank: Claude's calls of tools without parameters) {}, as OpenAI's
// always are JSON (clients parse them), with a warning.
func (t *translator) noArgs(c *item) {
	t.reply.Warn(t.callPath(c)+".function.arguments", "a tool call without arguments (absent, null or blank); taken as {}")
	c.args = []byte("{}")
}

// validArgs reports whether the content of a JSON string (escaped) is
// JSON text (unescaped in scratch memory: no allocation).
func (t *translator) validArgs(s []byte) bool {
	var ok bool
	t.scratch, ok = codec.AppendUnquoted(t.scratch[:0], s)
	return ok && codec.Valid(t.scratch)
}

// makesAction reports whether a built-in call's arguments so far are a
// JSON object that makes its action (as builtin will find).
func (t *translator) makesAction(c *item) bool {
	var ok bool
	t.scratch, ok = codec.AppendUnquoted(t.scratch[:0], c.args)
	if !ok {
		return false
	}
	v, ok := codec.Parse(t.scratch)
	return ok && fits(c.tool.Type, v)
}
