package translate

import (
	"bytes"
	"strconv"
	"strings"

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
	case codec.Object, codec.Array:
		s = codec.AppendString(nil, string(args.Raw())) // arguments sent as JSON, not as its text
	}
	if len(s) <= 2 {
		return
	}
	if !c.open && c.done == nil && c.kind != kBuiltin {
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
		return
	}
	pending := c.args
	c.args = nil
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
		if t.stream {
			t.itemEvent("response.function_call_arguments.delta", c)
			t.buf = append(append(t.buf, `,"delta":`...), s...)
			t.end()
		}
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

// builtin makes a built-in call's item from its arguments (false: they do
// not fit, and the call became a function_call, already done).
func (t *translator) builtin(c *item) bool {
	args, _ := codec.Unquote(append(append([]byte{'"'}, c.args...), '"'))
	v, ok := codec.Parse([]byte(args))
	if !ok || !fits(c.tool.Type, v) {
		t.reply.Warn(t.callPath(c)+".function.arguments", "the arguments of a "+c.tool.Type+" call do not make its "+actionOf[c.tool.Type]+"; kept as a function_call")
		c.kind, c.offered = kFunction, false
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

// inputScanner streams a custom tool's input out of the pieces of its
// call's arguments, {"input": "…"}: the string's content, still escaped,
// goes out as it comes, an escape sequence split between pieces held
// back until it is whole. Arguments of another shape become the input
// whole (with a warning); members after input are left out (with a
// warning).
type inputScanner struct {
	raw     bool   // the upstream called a custom tool: the arguments are the input
	state   uint8  // see below
	pending []byte // decoded argument bytes not yet judged (before the value, or an escape)
	out     []byte // the input, escaped, as emitted so far
	tail    []byte // what finish emitted
	key     []byte
	warning string
	esc     []byte // an escape sequence in progress (inside the input string)
}

const (
	sStart  = iota // before {
	sKey           // in the first key
	sColon         // after the key
	sValue         // before the value
	sString        // inside the input string
	sAfter         // after it
	sWhole         // the arguments are the input
	sExtra         // members after the input
)

// feed takes a piece of the arguments (the content of a JSON string,
// escaped once: the arguments' own JSON).
func (s *inputScanner) feed(piece []byte) {
	if s.raw {
		s.out = append(s.out, piece...)
		return
	}
	// The arguments' text is the piece unescaped; the input's content is
	// that text's string content, which is valid JSON string content as
	// it stands.
	text, ok := codec.Unquote(append(append([]byte{'"'}, piece...), '"'))
	if !ok {
		text = string(piece)
	}
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch s.state {
		case sStart, sKey, sColon, sValue:
			s.pending = append(s.pending, ch)
			s.prefix(ch)
		case sString:
			s.inString(ch)
		case sAfter:
			if ch == '}' || isSpace(ch) {
				continue
			}
			s.state = sExtra
		case sWhole:
			s.out = appendEscaped(s.out, ch)
		}
	}
}

// prefix judges a byte before the input's value.
func (s *inputScanner) prefix(ch byte) {
	if isSpace(ch) && (s.state != sKey || len(s.key) == 0) {
		return
	}
	switch s.state {
	case sStart:
		if ch == '{' {
			s.state = sKey
			return
		}
	case sKey:
		if len(s.key) == 0 && ch != '"' {
			break
		}
		s.key = append(s.key, ch)
		if len(s.key) > 1 && ch == '"' && s.key[len(s.key)-2] != '\\' {
			if string(s.key) == `"input"` {
				s.state = sColon
				return
			}
			break
		}
		if len(s.key) <= len(`"input"`) {
			return
		}
	case sColon:
		if ch == ':' {
			s.state = sValue
			return
		}
	case sValue:
		if ch == '"' {
			s.state, s.pending = sString, s.pending[:0]
			return
		}
	}
	s.whole()
}

// whole gives up on {"input": …}: the arguments so far are the input.
func (s *inputScanner) whole() {
	s.state = sWhole
	s.warning = `the arguments of a custom tool call were not {"input": "…"}; the whole arguments are the input`
	for _, ch := range s.pending {
		s.out = appendEscaped(s.out, ch)
	}
	s.pending = s.pending[:0]
}

// inString takes a byte of the input string's content. An escape is
// held back until it is whole (a surrogate pair: both halves, so a delta
// never splits a character); a backslash that starts no escape is text.
func (s *inputScanner) inString(ch byte) {
	if len(s.esc) == 0 {
		switch ch {
		case '\\':
			s.esc = append(s.esc, ch)
		case '"':
			s.state = sAfter
		default:
			s.out = appendEscaped(s.out, ch)
		}
		return
	}
	s.esc = append(s.esc, ch)
	n := escLen(s.esc)
	if n == 0 {
		return // it may still grow
	}
	var buf [12]byte
	var rest []byte
	if n < 0 { // not an escape: the backslash is text, what follows is read again
		s.out = append(s.out, '\\', '\\')
		rest = append(buf[:0], s.esc[1:]...)
	} else {
		s.out = append(s.out, s.esc[:n]...)
		rest = append(buf[:0], s.esc[n:]...)
	}
	s.esc = s.esc[:0]
	for _, c := range rest {
		s.inString(c)
	}
}

// escLen says how long the escape e starts with is: 0 if it may still
// grow, -1 if e starts none.
func escLen(e []byte) int {
	if len(e) < 2 {
		return 0
	}
	if e[1] != 'u' {
		if strings.IndexByte(`"\/bfnrt`, e[1]) >= 0 {
			return 2
		}
		return -1
	}
	for i := 2; i < len(e) && i < 6; i++ {
		if !isHex(e[i]) {
			return -1
		}
	}
	if len(e) < 6 {
		return 0
	}
	if e[2]|0x20 != 'd' || strings.IndexByte("89abAB", e[3]) < 0 {
		return 6 // not a high surrogate
	}
	if len(e) > 6 && e[6] != '\\' || len(e) > 7 && e[7] != 'u' {
		return 6
	}
	for i := 8; i < len(e) && i < 12; i++ {
		if !isHex(e[i]) {
			return 6
		}
	}
	if len(e) < 12 {
		return 0
	}
	return 12
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }

// finish ends the arguments.
func (s *inputScanner) finish() {
	mark := len(s.out)
	switch s.state {
	case sStart, sKey, sColon, sValue:
		if len(s.pending) > 0 {
			s.whole()
		}
	case sString:
		s.warning = `the arguments of a custom tool call end inside the input string`
		s.esc = s.esc[:0]
	case sExtra:
		s.warning = `the arguments of a custom tool call have members besides input; left out`
	}
	s.tail = s.out[mark:]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// appendEscaped appends a byte of text as JSON string content (bytes of
// UTF-8 sequences as they are).
func appendEscaped(dst []byte, ch byte) []byte {
	switch {
	case ch == '"' || ch == '\\':
		return append(dst, '\\', ch)
	case ch < 0x20:
		switch ch {
		case '\n':
			return append(dst, '\\', 'n')
		case '\t':
			return append(dst, '\\', 't')
		case '\r':
			return append(dst, '\\', 'r')
		}
		return append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[ch>>4], "0123456789abcdef"[ch&15])
	}
	return append(dst, ch)
}

// actionOf names what a built-in call's arguments make.
var actionOf = map[string]string{"local_shell": "action", "shell": "action", "apply_patch": "operation", "tool_search": "arguments (an object)"}

// fits reports whether a built-in call's arguments make its action or
// operation as the Responses API has it.
func fits(typ string, v codec.Value) bool {
	if v.Kind() != codec.Object {
		return false
	}
	switch typ {
	case "local_shell":
		return allStrings(v.Get("command"))
	case "shell":
		return !v.Get("commands").Exists() || allStrings(v.Get("commands"))
	case "apply_patch":
		path := v.Get("path").Kind() == codec.String
		switch op, _ := v.Get("type").Str(); op {
		case "create_file", "update_file":
			return path && v.Get("diff").Kind() == codec.String
		case "delete_file":
			return path
		}
		return false
	}
	return true
}

// allStrings reports whether v is an array of strings.
func allStrings(v codec.Value) bool {
	if v.Kind() != codec.Array {
		return false
	}
	for _, e := range v.Elems() {
		if e.Kind() != codec.String {
			return false
		}
	}
	return true
}

// appendOr appends v, or def if v is absent.
func appendOr(dst []byte, v codec.Value, def string) []byte {
	if v.Exists() {
		return append(dst, v.Raw()...)
	}
	return append(dst, def...)
}
