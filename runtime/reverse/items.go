package reverse

// The Parser's work on output items: finding an event's item, its id and
// kind, its text, reasoning and call parts, and its end.

import "github.com/transponder-dev/transponder/codec"

// at is the item the event is about: by output_index, else by item_id
// among the items; nil if neither finds one.
func (p *Parser) at(e *event) *item {
	if !p.started {
		p.start(codec.Value{})
	}
	if !e.hasIndex {
		if len(e.itemID) == 0 {
			return nil
		}
		for i := range p.items {
			if string(p.items[i].id) == string(e.itemID) {
				e.index, e.hasIndex = i, true
				return &p.items[i]
			}
		}
		return nil
	}
	if e.index < 0 || e.index > len(p.items)+maxSkip {
		return nil
	}
	for len(p.items) <= e.index {
		p.items = append(p.items, item{})
	}
	it := &p.items[e.index]
	if it.id == nil {
		id := e.itemID
		if e.item.Exists() {
			if s := contents(e.item.Get("id")); len(s) > 0 {
				id = s
			}
		}
		if len(id) > 0 {
			it.id = p.keep(id)
		}
	}
	return it
}

// keep copies b into the arena; the slice stays valid for the stream.
func (p *Parser) keep(b []byte) []byte {
	start := len(p.arena)
	p.arena = append(p.arena, b...)
	return p.arena[start:len(p.arena):len(p.arena)]
}

// idFor gives an item without an id one: "item_" and its index.
func (p *Parser) idFor(it *item, index int) {
	if it.id == nil {
		start := len(p.arena)
		p.arena = appendInt(append(p.arena, "item_"...), int64(index))
		it.id = p.arena[start:len(p.arena):len(p.arena)]
	}
}

var builtinNames = map[string]Tool{
	"function_call":         ToolFunction,
	"custom_tool_call":      ToolCustom,
	"apply_patch_call":      ToolApplyPatch,
	"shell_call":            ToolShell,
	"local_shell_call":      ToolLocalShell,
	"web_search_call":       ToolWebSearch,
	"file_search_call":      ToolFileSearch,
	"code_interpreter_call": ToolCodeInterpreter,
}

var toolNames = [...]string{ToolApplyPatch: "apply_patch", ToolShell: "shell", ToolLocalShell: "local_shell",
	ToolWebSearch: "web_search", ToolFileSearch: "file_search", ToolCodeInterpreter: "code_interpreter"}

// classify sets the item's kind from an output item's type (once).
func (p *Parser) classify(it *item, v codec.Value) {
	if it.kind != itemNone {
		return
	}
	typ := contents(v.Get("type"))
	switch string(typ) {
	case "message":
		it.kind = itemMessage
	case "reasoning":
		it.kind = itemReasoning
	default:
		tool, ok := builtinNames[string(typ)]
		switch {
		case !ok:
			it.kind = itemOther
		case tool >= ToolWebSearch:
			it.kind, it.tool = itemProvider, tool
		default:
			it.kind, it.tool = itemCall, tool
		}
	}
}

func (p *Parser) added(it *item, e *event) {
	p.classify(it, e.item)
	if it.kind == itemCall {
		p.callFields(it, e.item)
		if len(it.callID) > 0 || it.tool <= ToolCustom {
			p.callStart(it, e, it.tool)
		}
	}
}

// callFields keeps a call's call_id and name from its item.
func (p *Parser) callFields(it *item, v codec.Value) {
	if it.callID == nil {
		if s := contents(v.Get("call_id")); len(s) > 0 {
			it.callID = p.keep(s)
		}
	}
	if it.name == nil {
		if it.tool >= ToolApplyPatch {
			it.name = []byte(toolNames[it.tool])
		} else if s := contents(v.Get("name")); len(s) > 0 {
			it.name = p.keep(s)
		}
	}
}

// callStart opens a call's input (once): its start part, and for a custom
// tool the {"input":" that its text goes into.
func (p *Parser) callStart(it *item, e *event, tool Tool) {
	if it.kind == itemNone {
		it.kind, it.tool = itemCall, tool
	}
	if it.open || it.done || it.kind != itemCall {
		return
	}
	if it.callID == nil {
		p.idFor(it, e.index)
		it.callID = it.id
	}
	it.open = true
	p.emit(Part{Kind: KindToolInputStart, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool})
	if it.tool == ToolCustom {
		p.emit(Part{Kind: KindToolInputDelta, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: []byte(`{\"input\":\"`)})
	}
}

// message makes the item a message with an id and its text open.
func (p *Parser) message(it *item, e *event) {
	if it.kind == itemNone {
		it.kind = itemMessage
	}
	p.idFor(it, e.index)
	if !it.open {
		it.open = true
		p.emit(Part{Kind: KindTextStart, Index: e.index, ID: it.id})
	}
}

func (p *Parser) textDelta(it *item, e *event, d []byte) {
	if len(d) == 0 || it.done {
		return
	}
	p.message(it, e)
	it.deltas = true
	p.emit(Part{Kind: KindTextDelta, Index: e.index, ID: it.id, Delta: d, Raw: logprobs(e.logprobs)})
}

// logprobs is a non-empty logprobs array's JSON, else nil.
func logprobs(v codec.Value) []byte {
	if v.Kind() != codec.Array || len(v.Raw()) <= 2 {
		return nil
	}
	for range v.Elems() {
		return v.Raw()
	}
	return nil
}

func (p *Parser) refusal(it *item, e *event, d []byte) {
	if len(d) == 0 || it.done {
		return
	}
	if it.kind == itemNone {
		it.kind = itemMessage
	}
	p.idFor(it, e.index)
	it.refusal = true
	p.emit(Part{Kind: KindRefusalDelta, Index: e.index, ID: it.id, Delta: d})
}

// reasoningOpen opens the reasoning index the event is about, closing
// another open one.
func (p *Parser) reasoningOpen(it *item, e *event, summary bool) {
	if it.kind == itemNone {
		it.kind = itemReasoning
	}
	if it.kind != itemReasoning || it.done {
		return
	}
	p.idFor(it, e.index)
	if it.open && it.sub == e.sub && it.summary == summary {
		return
	}
	p.reasoningClose(it, e.index)
	it.open, it.sub, it.summary, it.subDeltas = true, e.sub, summary, false
	p.emit(Part{Kind: KindReasoningStart, Index: e.index, Sub: e.sub, Summary: summary, ID: it.id})
}

func (p *Parser) reasoningClose(it *item, index int) {
	if it.open {
		it.open = false
		p.emit(Part{Kind: KindReasoningEnd, Index: index, Sub: it.sub, Summary: it.summary, ID: it.id})
	}
}

// close closes what the item has open.
func (p *Parser) close(it *item, index int) {
	if !it.open {
		return
	}
	switch it.kind {
	case itemMessage:
		it.open = false
		p.emit(Part{Kind: KindTextEnd, Index: index, ID: it.id})
	case itemReasoning:
		p.reasoningClose(it, index)
	case itemCall:
		it.open = false
		if it.tool == ToolCustom {
			p.emit(Part{Kind: KindToolInputDelta, Index: index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: []byte(`\"}`)})
		}
		p.emit(Part{Kind: KindToolInputEnd, Index: index, ID: it.callID, Name: it.name, Tool: it.tool})
	}
}

func (p *Parser) closeAll() {
	for i := range p.items {
		p.close(&p.items[i], i)
	}
}

// itemDone finishes an item from its whole form: what its deltas did not
// carry comes from it.
func (p *Parser) itemDone(it *item, e *event) {
	v := e.item
	p.classify(it, v)
	switch it.kind {
	case itemMessage:
		if !it.deltas || !it.sources || !it.refusal {
			for _, c := range v.Get("content").Elems() {
				switch string(contents(c.Get("type"))) {
				case "output_text":
					if !it.deltas {
						e.logprobs = c.Get("logprobs")
						p.textDelta(it, e, contents(c.Get("text")))
					}
					if !it.sources {
						for _, a := range c.Get("annotations").Elems() {
							p.message(it, e)
							p.emit(Part{Kind: KindSource, Index: e.index, ID: it.id, Raw: a.Raw()})
						}
					}
				case "refusal":
					if !it.refusal {
						p.refusal(it, e, contents(c.Get("refusal")))
					}
				}
			}
		}
		p.close(it, e.index)
	case itemReasoning:
		p.idFor(it, e.index)
		if !it.reasoned {
			for i, s := range v.Get("summary").Elems() {
				if t := contents(s.Get("text")); len(t) > 0 {
					e.sub = i
					p.reasoningOpen(it, e, true)
					p.emit(Part{Kind: KindReasoningDelta, Index: e.index, Sub: i, Summary: true, ID: it.id, Delta: t})
				}
			}
			for i, s := range v.Get("content").Elems() {
				if t := contents(s.Get("text")); len(t) > 0 && string(contents(s.Get("type"))) == "reasoning_text" {
					e.sub = i
					p.reasoningOpen(it, e, false)
					p.emit(Part{Kind: KindReasoningDelta, Index: e.index, Sub: i, ID: it.id, Delta: t})
				}
			}
		}
		p.close(it, e.index)
		enc := v.Get("encrypted_content")
		var raw []byte
		if enc.Kind() == codec.String {
			raw = enc.Raw()
		}
		done := Part{Kind: KindReasoningDone, Index: e.index, ID: it.id, Raw: raw}
		if f := v.Get("format"); f.Kind() == codec.String {
			done.Format = f.Raw()
		}
		if sig := v.Get("signature"); sig.Kind() == codec.String {
			done.Signature = sig.Raw()
		}
		p.emit(done)
	case itemCall:
		p.callFields(it, v)
		p.callStart(it, e, it.tool)
		start := len(p.buf)
		switch it.tool {
		case ToolFunction:
			args := contents(v.Get("arguments"))
			if !it.deltas && len(args) > 0 {
				p.emit(Part{Kind: KindToolInputDelta, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: args})
			}
			p.buf = append(p.buf, args...)
		case ToolCustom:
			in := v.Get("input")
			if !it.deltas && in.Kind() == codec.String {
				p.buf = appendEscaped(p.buf, contents(in))
				p.emit(Part{Kind: KindToolInputDelta, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: p.buf[start:len(p.buf):len(p.buf)]})
				start = len(p.buf)
			}
			p.buf = append(p.buf, `{\"input\":`...)
			if in.Kind() == codec.String {
				p.buf = appendEscaped(p.buf, in.Raw())
			} else {
				p.buf = append(p.buf, `\"\"`...)
			}
			p.buf = append(p.buf, '}')
		default:
			action := v.Get("action")
			if it.tool == ToolApplyPatch {
				action = v.Get("operation")
			}
			if action.Exists() {
				p.buf = appendEscaped(p.buf, action.Raw())
			} else {
				p.buf = append(p.buf, "{}"...)
			}
			p.emit(Part{Kind: KindToolInputDelta, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: p.buf[start:len(p.buf):len(p.buf)]})
		}
		input := p.buf[start:len(p.buf):len(p.buf)]
		p.close(it, e.index)
		p.emit(Part{Kind: KindToolCall, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Input: input})
	case itemProvider:
		p.idFor(it, e.index)
		name := []byte(toolNames[it.tool])
		start := len(p.buf)
		switch it.tool {
		case ToolWebSearch:
			if a := v.Get("action"); a.Exists() {
				p.buf = appendEscaped(p.buf, a.Raw())
			} else {
				p.buf = append(p.buf, "{}"...)
			}
		case ToolFileSearch:
			p.buf = append(p.buf, `{\"queries\":`...)
			p.buf = appendEscapedOr(p.buf, v.Get("queries"), "[]")
			p.buf = append(p.buf, '}')
		case ToolCodeInterpreter:
			p.buf = append(p.buf, `{\"code\":`...)
			p.buf = appendEscapedOr(p.buf, v.Get("code"), `\"\"`)
			p.buf = append(p.buf, `,\"container_id\":`...)
			p.buf = appendEscapedOr(p.buf, v.Get("container_id"), "null")
			p.buf = append(p.buf, '}')
		}
		p.emit(Part{Kind: KindToolCall, Provider: true, Index: e.index, ID: it.id, Name: name, Tool: it.tool, Input: p.buf[start:len(p.buf):len(p.buf)]})
		p.emit(Part{Kind: KindToolResult, Provider: true, Index: e.index, ID: it.id, Name: name, Tool: it.tool, Raw: v.Raw()})
	default:
		if v.Exists() {
			p.emit(Part{Kind: KindItem, Index: e.index, ID: it.id, Raw: v.Raw()})
		}
	}
	it.done = true
}

func appendEscapedOr(dst []byte, v codec.Value, or string) []byte {
	if !v.Exists() || v.Kind() == codec.Null {
		return append(dst, or...)
	}
	return appendEscaped(dst, v.Raw())
}

func usageOf(u codec.Value) Usage {
	if u.Kind() != codec.Object {
		return Usage{}
	}
	var us Usage
	us.Present = true
	for k, m := range u.Members() {
		n, _ := atoi(m)
		switch string(k.Raw()) {
		case "input_tokens":
			us.InputTokens = int64(n)
		case "output_tokens":
			us.OutputTokens = int64(n)
		case "total_tokens":
			us.TotalTokens = int64(n)
		case "input_tokens_details":
			c, _ := atoi(m.Get("cached_tokens"))
			w, _ := atoi(m.Get("cache_write_tokens"))
			us.CachedTokens, us.CacheWrite = int64(c), int64(w)
		case "output_tokens_details":
			r, _ := atoi(m.Get("reasoning_tokens"))
			us.ReasoningTokens = int64(r)
		case "cost":
			us.Cost, _ = m.Float()
		}
	}
	if us.TotalTokens == 0 {
		us.TotalTokens = us.InputTokens + us.OutputTokens
	}
	return us
}

// contents is a string value's contents, escaped as in the payload; nil
// for another kind.
func contents(v codec.Value) []byte {
	if v.Kind() != codec.String {
		return nil
	}
	r := v.Raw()
	return r[1 : len(r)-1 : len(r)-1]
}

// atoi reads a non-negative integer value (ok false for anything else).
func atoi(v codec.Value) (int, bool) {
	if v.Kind() != codec.Number {
		return 0, false
	}
	r := v.Raw()
	n := 0
	for _, c := range r {
		if c < '0' || c > '9' || n > 1<<40 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func appendInt(dst []byte, n int64) []byte {
	if n < 0 {
		dst = append(dst, '-')
		n = -n
	}
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}

const hexDigits = "0123456789abcdef"

// appendEscaped appends b (JSON text, or a JSON string's escaped contents)
// escaped once more as a JSON string's contents: quotes, backslashes and
// control characters.
func appendEscaped(dst, b []byte) []byte {
	start := 0
	for i, c := range b {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, b[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	return append(dst, b[start:]...)
}
