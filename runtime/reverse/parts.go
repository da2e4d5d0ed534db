package reverse

import (
	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/runtime/translate"
)

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
		pt := Part{Kind: KindFinish, Status: contents(r.Get("status")), Reason: contents(r.Get("incomplete_details").Get("reason")), Raw: contents(r.Get("service_tier"))}
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
