package reverse

import (
	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// Kind is what a Part is.
type Kind uint8

// The kinds of parts. Byte fields of a Part (ID, Delta, Input, Raw, …) are
// valid until the Parser's next call: a consumer copies what it keeps.
const (
	// KindStart: the response began (response.created): ID (the
	// response's id), Model, Created.
	KindStart Kind = iota + 1
	// KindTextStart, KindTextDelta, KindTextEnd: an output message's
	// text, Index its output_index, ID its stable id (the first id the
	// upstream gave the item), Delta a piece of the text as a JSON
	// string's contents, escaped as the upstream sent it; Raw the delta's
	// log probabilities (a JSON array, the chat form's logprobs.content
	// entries), nil when it has none.
	KindTextStart
	KindTextDelta
	KindTextEnd
	// KindRefusalDelta: a piece of a message's refusal (Delta, escaped).
	KindRefusalDelta
	// KindReasoningStart, KindReasoningDelta, KindReasoningEnd: one
	// summary part of a reasoning item (Summary true; Sub its
	// summary_index) or its reasoning text (Summary false; Sub its
	// content_index). ID is the reasoning item's id.
	KindReasoningStart
	KindReasoningDelta
	KindReasoningEnd
	// KindReasoningDone: the reasoning item is whole; Raw is its
	// encrypted_content as a JSON string, nil when it has none.
	KindReasoningDone
	// KindToolInputStart, KindToolInputDelta, KindToolInputEnd: a call's
	// input streaming, keyed by Index (output_index): ID the call_id,
	// Name, Tool; Delta a piece of the input's JSON text, as a JSON
	// string's contents (escaped) — for a custom tool the input text is
	// {"input": …}, for a built-in its action (operation for apply_patch).
	KindToolInputStart
	KindToolInputDelta
	KindToolInputEnd
	// KindToolCall: a call is whole: ID, Name, Tool, Input (its JSON text
	// as a JSON string's contents, escaped). Provider is true for a call
	// the provider ran (web_search, file_search, code_interpreter): ID is
	// then the item's id, and a KindToolResult follows.
	KindToolCall
	// KindToolResult: what a provider-executed call gave: Raw is the whole
	// output item.
	KindToolResult
	// KindSource: an annotation of the text at Index (Raw, the annotation
	// object: url_citation, file_citation, container_file_citation, …).
	KindSource
	// KindItem: an output item no other part covers (image_generation_call,
	// mcp_call, an unknown type): Raw is the whole item.
	KindItem
	// KindFinish: the response ended: Status (completed, incomplete),
	// Reason (incomplete_details.reason), Usage. Nothing follows.
	KindFinish
	// KindError: the response failed (an error event, response.failed, a
	// stream that ended before its terminal event, an event that is not
	// JSON): Err. Nothing follows.
	KindError
)

var kindNames = [...]string{"", "start", "text-start", "text-delta", "text-end", "refusal-delta",
	"reasoning-start", "reasoning-delta", "reasoning-end", "reasoning-done",
	"tool-input-start", "tool-input-delta", "tool-input-end", "tool-call", "tool-result",
	"source", "item", "finish", "error"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Tool is the kind of tool a call is of.
type Tool uint8

// The tools.
const (
	ToolFunction Tool = iota + 1
	ToolCustom
	ToolApplyPatch // client-executed built-ins: calls a chat client runs
	ToolShell
	ToolLocalShell
	ToolWebSearch // provider-executed
	ToolFileSearch
	ToolCodeInterpreter
)

// Usage is a response's token usage.
type Usage struct {
	Present         bool // the response said
	InputTokens     int64
	CachedTokens    int64 // input_tokens_details.cached_tokens
	OutputTokens    int64
	ReasoningTokens int64 // output_tokens_details.reasoning_tokens
	TotalTokens     int64
}

// Part is one typed piece of a response. See Kind for which fields each
// kind sets.
type Part struct {
	Kind     Kind
	Index    int // the output item's output_index
	Sub      int // reasoning: the summary (or content) index
	Summary  bool
	Provider bool
	Tool     Tool
	ID       []byte
	Name     []byte
	Delta    []byte
	Input    []byte
	Raw      []byte
	Model    []byte
	Created  int64
	Status   []byte
	Reason   []byte
	Usage    Usage
	Err      *translate.APIError
}

type itemKind uint8

const (
	itemNone itemKind = iota
	itemMessage
	itemReasoning
	itemCall     // function, custom, client-executed built-in
	itemProvider // provider-executed
	itemOther
)

// item is the state of one output item, by output_index.
type item struct {
	kind      itemKind
	tool      Tool
	id        []byte // stable: the first id seen (arena)
	callID    []byte // arena
	name      []byte // arena
	open      bool   // text, reasoning or tool input open
	deltas    bool   // a delta came (text, tool input)
	refusal   bool   // a refusal delta came
	sources   bool   // an annotation event came
	sub       int    // the open reasoning index
	summary   bool   // the open reasoning index is a summary's
	subDeltas bool   // the open reasoning index had deltas
	reasoned  bool   // any reasoning text came
	done      bool
}

// maxSkip bounds output_index: items come in order, so an index more
// than maxSkip beyond the items seen is not an output the parser keeps
// state for (its events are skipped), and memory follows the output, not
// the numbers an upstream claims.
const maxSkip = 64

// Parser turns one Responses event stream into Parts. It is per stream
// and not safe for concurrent use; Reset makes it ready for another.
//
//	var p reverse.Parser
//	for each event's data { parts := p.Next(data) }
//	parts := p.Finish() // the stream ended (nothing if it had finished)
type Parser struct {
	doc     codec.Doc
	items   []item
	parts   []Part
	buf     []byte // this call's built bytes (escaped inputs)
	arena   []byte // what items keep (ids, names), for the stream
	started bool
	done    bool
}

// Reset makes p ready for another stream, keeping its memory.
func (p *Parser) Reset() {
	*p = Parser{doc: p.doc, items: p.items[:0], parts: p.parts[:0], buf: p.buf[:0], arena: p.arena[:0]}
}

// Done reports whether the response finished (a KindFinish or KindError
// part was made).
func (p *Parser) Done() bool { return p.done }

// event is the members of one event the parser reads.
type event struct {
	typ        []byte
	index      int
	hasIndex   bool
	sub        int
	hasSub     bool
	itemID     []byte
	delta      codec.Value
	item       codec.Value
	response   codec.Value
	annotation codec.Value
	err        codec.Value
	text       codec.Value // arguments, text, input of the .done events
	logprobs   codec.Value
	whole      codec.Value
}

// Next reads one event's data (the JSON of an SSE data line) and returns
// the parts it makes, valid until the next call. Events after the end of
// the response, and events of unknown types, make none.
func (p *Parser) Next(data []byte) []Part {
	p.parts = p.parts[:0]
	p.buf = p.buf[:0]
	if p.done {
		return nil
	}
	v, ok := p.doc.Parse(data)
	if !ok || v.Kind() != codec.Object {
		p.closeAll()
		p.fail(&translate.APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream sent a stream event that is not a JSON object"})
		return p.parts
	}
	var e event
	e.whole = v
	summary := false
	for k, m := range v.Members() {
		switch string(k.Raw()) {
		case "type":
			e.typ = contents(m)
		case "output_index":
			e.index, e.hasIndex = atoi(m)
		case "summary_index":
			e.sub, e.hasSub = atoi(m)
			summary = true
		case "content_index":
			if !summary {
				e.sub, e.hasSub = atoi(m)
			}
		case "item_id":
			e.itemID = contents(m)
		case "delta":
			e.delta = m
		case "item":
			e.item = m
		case "response":
			e.response = m
		case "annotation":
			e.annotation = m
		case "error":
			e.err = m
		case "arguments", "text", "input", "refusal":
			e.text = m
		case "logprobs":
			e.logprobs = m
		}
	}
	p.event(&e)
	return p.parts
}

// Finish ends the stream: a response that did not finish fails (its open
// parts are closed first). It returns the parts that makes, nothing if the
// response had finished.
func (p *Parser) Finish() []Part {
	p.parts = p.parts[:0]
	p.buf = p.buf[:0]
	if p.done {
		return nil
	}
	p.closeAll()
	p.fail(&translate.APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream stream ended before the response finished"})
	return p.parts
}

func (p *Parser) event(e *event) {
	switch string(e.typ) {
	case "response.created", "response.in_progress", "response.queued":
		p.start(e.response)
	case "response.output_item.added":
		if it := p.at(e); it != nil {
			p.added(it, e)
		}
	case "response.output_text.delta":
		if it := p.at(e); it != nil {
			p.textDelta(it, e, contents(e.delta))
		}
	case "response.output_text.done":
		if it := p.at(e); it != nil && !it.deltas {
			p.textDelta(it, e, contents(e.text))
		}
	case "response.refusal.delta", "response.refusal.done":
		if it := p.at(e); it != nil {
			d := contents(e.delta)
			if e.typ[len(e.typ)-1] == 'e' { // done
				if it.refusal {
					return
				}
				d = contents(e.text)
			}
			p.refusal(it, e, d)
		}
	case "response.output_text.annotation.added":
		if it := p.at(e); it != nil && e.annotation.Exists() {
			it.sources = true
			p.message(it, e)
			p.emit(Part{Kind: KindSource, Index: e.index, ID: it.id, Raw: e.annotation.Raw()})
		}
	case "response.reasoning_summary_part.added":
		if it := p.at(e); it != nil {
			p.reasoningOpen(it, e, true)
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if it := p.at(e); it != nil {
			p.reasoningOpen(it, e, e.typ[len("response.reasoning_")] == 's')
			it.subDeltas, it.reasoned = true, true
			p.emit(Part{Kind: KindReasoningDelta, Index: e.index, Sub: it.sub, Summary: it.summary, ID: it.id, Delta: contents(e.delta)})
		}
	case "response.reasoning_summary_text.done", "response.reasoning_text.done":
		if it := p.at(e); it != nil {
			p.reasoningOpen(it, e, e.typ[len("response.reasoning_")] == 's')
			if !it.subDeltas {
				if t := contents(e.text); len(t) > 0 {
					it.subDeltas, it.reasoned = true, true
					p.emit(Part{Kind: KindReasoningDelta, Index: e.index, Sub: it.sub, Summary: it.summary, ID: it.id, Delta: t})
				}
			}
		}
	case "response.reasoning_summary_part.done":
		if it := p.at(e); it != nil && it.kind == itemReasoning {
			p.reasoningClose(it, e.index)
		}
	case "response.function_call_arguments.delta":
		// A call not announced (no output_item.added: no call_id, no name)
		// is streamed whole when its item is done.
		if it := p.at(e); it != nil && (it.open || it.callID != nil) {
			p.callStart(it, e, ToolFunction)
			it.deltas = true
			p.emit(Part{Kind: KindToolInputDelta, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: contents(e.delta)})
		}
	case "response.function_call_arguments.done":
		if it := p.at(e); it != nil && !it.deltas && (it.open || it.callID != nil) {
			p.callStart(it, e, ToolFunction)
			if t := contents(e.text); len(t) > 0 {
				it.deltas = true
				p.emit(Part{Kind: KindToolInputDelta, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: t})
			}
		}
	case "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done":
		if it := p.at(e); it != nil {
			d := contents(e.delta)
			if e.typ[len(e.typ)-1] == 'e' { // done
				if it.deltas {
					return
				}
				d = contents(e.text)
			}
			p.callStart(it, e, ToolCustom)
			it.deltas = true
			start := len(p.buf)
			p.buf = appendEscaped(p.buf, d)
			p.emit(Part{Kind: KindToolInputDelta, Index: e.index, ID: it.callID, Name: it.name, Tool: it.tool, Delta: p.buf[start:len(p.buf):len(p.buf)]})
		}
	case "response.output_item.done":
		if it := p.at(e); it != nil && !it.done {
			p.itemDone(it, e)
		}
	case "response.completed", "response.incomplete":
		p.start(e.response)
		p.closeAll()
		r := e.response
		pt := Part{Kind: KindFinish, Status: contents(r.Get("status")), Reason: contents(r.Get("incomplete_details").Get("reason"))}
		if len(pt.Status) == 0 {
			pt.Status = e.typ[len("response."):]
		}
		pt.Usage = usageOf(r.Get("usage"))
		p.emit(pt)
		p.done = true
	case "response.failed":
		p.start(e.response)
		p.closeAll()
		errObj := e.response.Get("error")
		if errObj.Kind() != codec.Object {
			errObj = e.whole
		}
		p.fail(translate.StreamError(errObj))
	case "error":
		p.closeAll()
		errObj := e.err
		if errObj.Kind() != codec.Object {
			errObj = e.whole // {"type":"error","code":…,"message":…,"param":…}
		}
		p.fail(translate.StreamError(errObj))
	}
}

func (p *Parser) emit(pt Part) { p.parts = append(p.parts, pt) }

func (p *Parser) fail(err *translate.APIError) {
	p.emit(Part{Kind: KindError, Err: err})
	p.done = true
}

func (p *Parser) start(r codec.Value) {
	if p.started {
		return
	}
	p.started = true
	created, _ := atoi(r.Get("created_at"))
	p.emit(Part{Kind: KindStart, ID: contents(r.Get("id")), Model: contents(r.Get("model")), Created: int64(created)})
}

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
		p.emit(Part{Kind: KindReasoningDone, Index: e.index, ID: it.id, Raw: raw})
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
			us.CachedTokens = int64(c)
		case "output_tokens_details":
			r, _ := atoi(m.Get("reasoning_tokens"))
			us.ReasoningTokens = int64(r)
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
