package translate

import (
	"errors"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/mapping"
)

// Event is one Responses stream event: its type and its JSON. Data is
// valid until the translator's next call.
type Event struct {
	Type string
	Data []byte
}

// AppendSSE appends events as Server-Sent Events (event: and data: lines).
func AppendSSE(dst []byte, events []Event) []byte {
	for _, e := range events {
		dst = sse.AppendEvent(dst, e.Type, e.Data)
	}
	return dst
}

// phase is where a stream is.
type phase uint8

const (
	phaseNew       phase = iota // nothing emitted
	phaseStreaming              // response.created and response.in_progress emitted
	phaseDone                   // the terminal event emitted: nothing follows
)

// ChatToResponses translates one chat completion stream into a Responses
// stream. It is per stream and not safe for concurrent use:
//
//	t := NewChatToResponses(req, opts)
//	events := t.Start()
//	for each chunk's data { events = t.Next(data) }   // [DONE] ends it
//	events = t.Finish()          // or t.Fail(err) if the upstream broke off
//
// Each call returns the events its input makes, at once; memory grows
// with the output only, and a chunk costs the same whatever the size of
// the request. A stream always ends with exactly one terminal event
// (response.completed, response.incomplete or response.failed).
type ChatToResponses interface {
	// ID is the Response's id.
	ID() string
	// Start emits response.created and response.in_progress (Next does
	// if Start was not called).
	Start() []Event
	// Next translates one chunk's data (the JSON of an SSE data line; the
	// caller stops at [DONE]). A chunk that is not JSON fails the response.
	Next(data []byte) []Event
	// Finish ends the stream: open items are closed, then the terminal
	// event. A stream that never said how it finished (no finish_reason)
	// fails, as one cut off does.
	Finish() []Event
	// Fail ends the stream on an upstream failure (a read error, a cut):
	// open items are closed, then response.failed carrying err (an
	// *APIError's code and message, or server_error).
	Fail(err error) []Event
	// Abandon ends a stream nobody reads any more (the client went
	// away): open items are closed and the Response, status cancelled, is
	// handed to Options.Commit and returned. No event: there is no one to
	// send it to.
	Abandon() []byte
	// Warnings lists what the upstream's answer had that the Response
	// could not carry (the terminal response lists them too).
	Warnings() []mapping.Warning
	// Release gives back the buffer the events of the last call are in:
	// they must not be used after it. A stream held open between two
	// chunks then holds none (the next call takes one from a pool). The
	// terminal batch is not given back: its Response is the translator's
	// (Abandon returns it), and its events stay readable. Calling it is
	// optional.
	Release()
	// Reset readies the translator for another stream, answering req,
	// keeping the memory the last one grew (its text, arguments, events):
	// a gateway that reuses translators makes no garbage per stream. The
	// last stream's events, Response and warnings must not be used after
	// it.
	Reset(req *Request, opts Options)
	// Upstream is what the upstream's first chunk said of itself that the
	// Response has no place for (the gateway logs it).
	Upstream() Upstream
}

// translator is the state of one stream (or one chat completion).
type translator struct {
	req    *Request
	opts   Options
	reply  mapping.Reply
	doc    codec.Doc
	chunk  codec.Root
	body   codec.Root
	phase  phase
	seq    int64
	resp   response
	items  []*item
	cur    *item // the open message or reasoning item, nil if none
	calls  []*item
	finish mapping.Finish
	fail   *APIError
	cancel bool // Abandon: the Response is cancelled
	sawFin bool
	sawDet bool // reasoning_details carried reasoning text: reasoning strings repeat it
	// the upstream's id, model, provider and system_fingerprint (JSON
	// strings, in the arena), noted from its first chunk (Upstream)
	noted    bool
	upstream [4][]byte

	// A built-in call keeps its place (output_index) from when it is named,
	// but is added when its arguments are whole: while one waits, the
	// events of what comes after it are held (unnumbered), and go out
	// after it.
	waiting int         // built-in calls named, not yet added
	holding bool        // events are held
	held    []byte      // held events' JSON after their sequence_number
	heldEv  []heldEvent // held events, in order
	heldOut int         // heldEv[:heldOut] went out

	lp, lpEv []byte // log probabilities of the text that follows (Logprobs), comma-separated

	stream  bool    // emit events (false: a non-stream response)
	buf     []byte  // the events' data
	bufp    *[]byte // what buf came in from the pool (Release)
	marks   []mark  // where each event of the call starts in buf
	events  []Event // returned, reused
	final   []byte  // the terminal Response, in buf
	scratch []byte
	// arena holds what items keep (their finished JSON, call ids, names):
	// appended to, never rewritten while they live, reused by the next
	// conversion. A slice taken from it stays valid when it grows (the
	// old array stays behind it).
	arena []byte
	// every item and part made, for the next conversion to reuse
	allItems []*item
	allParts []*part
	nItems   int
	nParts   int
}

type mark struct {
	typ        string
	start, end int
	held       bool // not numbered yet: moved to held at end
}

type heldEvent struct {
	typ        string
	start, end int // in held
}

// NewChatToResponses returns the translator of one stream answering req.
func NewChatToResponses(req *Request, opts Options) ChatToResponses {
	return newTranslator(req, opts, true)
}

func newTranslator(req *Request, opts Options, stream bool) *translator {
	t := &translator{}
	t.reset(req, opts, stream)
	return t
}

// Reset is reset for another stream.
func (t *translator) Reset(req *Request, opts Options) { t.reset(req, opts, true) }

// reset readies t for another response, keeping its memory.
func (t *translator) reset(req *Request, opts Options, stream bool) {
	t.req, t.opts, t.stream = req, opts, stream
	t.chunk, _ = codec.OpenRouter.Payload(codec.ChatChunk)
	t.body, _ = codec.OpenRouter.Payload(codec.ChatBody)
	// The mapping's extras (a chunk's provider) are read as it says, not
	// found unknown in every chunk.
	if stream {
		t.doc.Quiet(mapping.ChunkExtra)
	} else {
		t.doc.Quiet(mapping.BodyExtra)
	}
	// A stream's chunks are alike: each read against the one before's
	// skeleton (codec/skeleton.go).
	t.doc.Skeletons(stream)
	t.reply.Reset()
	t.reply.SetLogprobs(req.Logprobs)
	t.lp, t.lpEv = t.lp[:0], t.lpEv[:0]
	t.phase, t.seq = phaseNew, 0
	t.items, t.calls, t.cur = t.items[:0], t.calls[:0], nil
	t.nItems, t.nParts = 0, 0
	t.finish, t.fail, t.cancel, t.sawFin, t.sawDet = mapping.Finish{}, nil, false, false, false
	t.noted, t.upstream = false, [4][]byte{}
	t.waiting, t.holding, t.held, t.heldEv, t.heldOut = 0, false, t.held[:0], t.heldEv[:0], 0
	t.buf, t.marks, t.final, t.arena = t.buf[:0], t.marks[:0], nil, t.arena[:0]
	t.resp = response{id: opts.ids().NewID("resp"), createdAt: opts.now(), status: "in_progress"}
}

// ID is the Response's id.
func (t *translator) ID() string { return t.resp.id }

// Start emits response.created and response.in_progress (once; Next does
// it if it was not called).
func (t *translator) Start() []Event {
	t.begin()
	t.start()
	return t.flush()
}

func (t *translator) start() {
	if t.phase != phaseNew {
		return
	}
	t.phase = phaseStreaming
	for _, typ := range [...]string{"response.created", "response.in_progress"} {
		t.event(typ)
		t.buf = append(t.buf, `,"response":`...)
		t.buf = t.req.appendResponse(t.buf, &t.resp)
		t.end()
	}
}

// Next translates one chunk's data (the JSON of an SSE data line; the
// caller stops at [DONE]). A chunk that is not JSON fails the response.
func (t *translator) Next(data []byte) []Event {
	t.begin()
	if t.phase == phaseDone {
		return t.flush()
	}
	t.start()
	if err := t.doc.Decode(t.chunk, data); err != nil {
		t.failWith(&APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream sent a chunk that is not JSON: " + err.Error()})
		return t.flush()
	}
	if !t.noted {
		t.note(t.doc.Value())
	}
	t.reply.Chunk(&t.doc, t)
	t.strayLogprobs()
	if t.fail != nil {
		t.terminal()
	}
	return t.flush()
}

// Finish ends the stream: open items are closed, then the terminal event.
// A stream that never said how it finished (no finish_reason) fails, as
// one cut off does.
func (t *translator) Finish() []Event {
	t.begin()
	if t.phase != phaseDone {
		t.start()
		if !t.sawFin && t.fail == nil {
			t.fail = &APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream stream ended before it said how the response finished"}
		}
		t.terminal()
	}
	return t.flush()
}

// Fail ends the stream on an upstream failure (a read error, a cut): open
// items are closed, then response.failed carrying err.
func (t *translator) Fail(err error) []Event {
	t.begin()
	if t.phase != phaseDone {
		t.start()
		var ae *APIError
		if !errors.As(err, &ae) {
			ae = &APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream stream broke off: " + err.Error()}
		}
		t.failWith(ae)
	}
	return t.flush()
}

// Abandon ends a stream nobody reads any more: see ChatToResponses.
func (t *translator) Abandon() []byte {
	t.begin()
	if t.phase == phaseDone {
		return t.final
	}
	t.start()
	t.cancel = true
	t.terminal()
	t.begin() // its events go nowhere
	return t.final
}

func (t *translator) failWith(e *APIError) {
	if t.fail == nil {
		t.fail = e
	}
	t.terminal()
}

// Warnings lists what the upstream's answer had that the Response could
// not carry (also in the terminal response).
func (t *translator) Warnings() []mapping.Warning { return t.reply.Warnings() }

// terminal closes every open item and emits the one terminal event.
func (t *translator) terminal() {
	if t.phase == phaseDone {
		return
	}
	t.settle(true)
	t.closeCur()
	for _, c := range t.calls {
		t.closeCall(c)
	}
	r := &t.resp
	r.items = t.items
	start := len(t.arena)
	t.arena = t.reply.AppendUsage(t.arena)
	r.usage = t.kept(start)
	r.serviceTier = t.reply.ServiceTier()
	typ := "response.completed"
	switch {
	case t.cancel:
		r.status, typ = "cancelled", "response.failed" // the event is not sent
	case t.fail != nil:
		r.status, typ = "failed", "response.failed"
		r.errJSON = t.fail.Redacted(t.opts.Redact).AppendResponseError(nil)
	case t.finish.Status == "failed":
		r.status, typ = "failed", "response.failed"
		r.errJSON = (&APIError{Status: 502, Type: "server_error", Message: "the upstream stopped with finish_reason error"}).AppendResponseError(nil)
	case t.finish.Status == "incomplete":
		r.status, typ = "incomplete", "response.incomplete"
		r.incomplete = t.finish.Reason
	default:
		r.status = "completed"
		r.completedAt = t.opts.now()
	}
	if !t.reply.HasUsage() && r.status == "completed" {
		t.reply.Warn("usage", "the upstream reported no usage; the counts are 0")
	}
	r.warnings = t.reply.Warnings()
	t.phase = phaseDone
	t.event(typ)
	t.buf = append(t.buf, `,"response":`...)
	start = len(t.buf)
	t.buf = t.req.appendResponse(t.buf, r)
	t.final = t.buf[start:len(t.buf):len(t.buf)]
	t.end()
	if t.opts.Commit == nil {
		return
	}
	err := t.opts.Commit(t.final)
	if err == nil || t.cancel || r.status == "failed" {
		return // a failure stays the failure it was; a cancelled response has no one to tell
	}
	// Not committed: the response fails with the reason instead (and is
	// not committed again).
	ae, ok := err.(*APIError)
	if !ok {
		ae = &APIError{Status: 503, Type: "server_error", Code: "server_error", Message: err.Error()}
	}
	m := t.marks[len(t.marks)-1]
	t.buf, t.marks = t.buf[:m.start], t.marks[:len(t.marks)-1]
	t.seq--
	r.status, r.completedAt, r.incomplete, r.unstored = "failed", 0, "", true
	r.errJSON = ae.AppendResponseError(nil)
	t.event("response.failed")
	t.buf = append(t.buf, `,"response":`...)
	start = len(t.buf)
	t.buf = t.req.appendResponse(t.buf, r)
	t.final = t.buf[start:len(t.buf):len(t.buf)]
	t.end()
}

// The one place that numbers events: event starts one, end closes it.

func (t *translator) event(typ string) {
	t.marks = append(t.marks, mark{typ: typ, start: len(t.buf), held: t.holding})
	t.buf = append(t.buf, `{"type":"`...)
	t.buf = append(t.buf, typ...)
	t.buf = append(t.buf, `","sequence_number":`...)
	if t.holding {
		return // numbered when it goes out (release)
	}
	t.buf = codec.AppendInt(t.buf, t.seq)
	t.seq++
}

func (t *translator) end() {
	t.buf = append(t.buf, '}')
	m := &t.marks[len(t.marks)-1]
	m.end = len(t.buf)
	if m.held {
		rest := m.start + len(`{"type":"","sequence_number":`) + len(m.typ)
		start := len(t.held)
		t.held = append(t.held, t.buf[rest:m.end]...)
		t.heldEv = append(t.heldEv, heldEvent{typ: m.typ, start: start, end: len(t.held)})
		t.buf, t.marks = t.buf[:m.start], t.marks[:len(t.marks)-1]
	}
}

// release sends the held events before the n-th, numbered.
func (t *translator) release(n int) {
	for _, h := range t.heldEv[t.heldOut:n] {
		t.event(h.typ)
		t.buf = append(t.buf, t.held[h.start:h.end]...) // with its }
		t.marks[len(t.marks)-1].end = len(t.buf)
	}
	t.heldOut = max(t.heldOut, n)
}

// begin starts a call's batch of events.
func (t *translator) begin() {
	if t.buf == nil && t.stream {
		t.bufp = eventBufs.get()
		t.buf = *t.bufp
	}
	t.buf, t.marks = t.buf[:0], t.marks[:0]
}

func (t *translator) Release() {
	// The terminal Response (Abandon's answer) is in buf: it stays.
	if !t.stream || t.final != nil || t.bufp == nil {
		return
	}
	*t.bufp = t.buf // as grown
	eventBufs.put(t.bufp)
	t.buf, t.bufp = nil, nil
	t.events = t.events[:0]
}

// flush returns the batch.
func (t *translator) flush() []Event {
	t.events = t.events[:0]
	if !t.stream {
		return nil
	}
	for _, m := range t.marks {
		t.events = append(t.events, Event{Type: m.typ, Data: t.buf[m.start:m.end:m.end]})
	}
	return t.events
}

// itemEvent starts an event about an item: item_id and output_index.
func (t *translator) itemEvent(typ string, it *item) {
	t.event(typ)
	t.itemFields(it)
}

func (t *translator) itemFields(it *item) {
	t.buf = append(t.buf, `,"item_id":`...)
	t.buf = codec.AppendString(t.buf, it.id)
	t.buf = append(t.buf, `,"output_index":`...)
	t.buf = codec.AppendInt(t.buf, int64(it.index))
}

// deltaEvent starts a delta event of an item (p nil) or of one of its
// parts, up to its delta's value. What follows the sequence number is the
// same in every delta of the item or part (item_id, output_index,
// content_index or summary_index): the first writes it, the next copy it
// (head).
func (t *translator) deltaEvent(typ string, it *item, p *part) {
	t.event(typ)
	head := &it.head
	if p != nil {
		head = &p.head
	}
	if len(*head) > 0 {
		t.buf = append(t.buf, *head...)
		return
	}
	start := len(t.buf)
	t.itemFields(it)
	if p != nil {
		t.indexField(p)
	}
	t.buf = append(t.buf, `,"delta":`...)
	*head = append(*head, t.buf[start:]...)
}
