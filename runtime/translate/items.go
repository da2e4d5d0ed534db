package translate

import (
	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
)

// The output items, as the upstream's content arrives (mapping.Output).

type itemKind uint8

const (
	kMessage itemKind = iota
	kReasoning
	kFunction // function_call: arguments streamed
	kCustom   // custom_tool_call: input streamed
	kBuiltin  // local_shell, shell, apply_patch, tool_search: made whole at the end
)

type item struct {
	kind  itemKind
	index int // output_index
	id    string
	open  bool
	done  []byte // the finished item's JSON (nil for a completion's message: appendItem writes it)
	// a built-in call named, its place kept, not added yet; heldAt: the
	// held events then (those after it wait for it)
	reserved bool
	heldAt   int

	// message and reasoning: the parts, in order
	parts []*part
	last  *part // the part deltas go to

	// reasoning: the details, merged
	details []*detail

	// calls
	chat     int64 // the chat index
	callID   []byte
	name     []byte // as the upstream named it
	tool     mapping.VirtualTool
	offered  bool
	args     []byte // the arguments JSON string's content, escaped as received
	sawArgs  bool   // the upstream sent arguments (a string, even empty)
	started  bool   // a function call's first arguments delta went out (blank ones are held back)
	fellBack bool   // a built-in call whose arguments made no action: a function_call
	input    inputScanner
	head     []byte // its delta events' fields (deltaEvent)
}

type part struct {
	typ     string  // output_text, refusal, summary_text, reasoning_text
	ev      *partEv // its events
	index   int     // content_index or summary_index
	detail  int64   // reasoning: the detail it streams (-1: the reasoning strings)
	text    []byte  // escaped, as received
	anns    []byte  // output_text: annotations, comma-separated
	lp      []byte  // output_text: LogProb objects, comma-separated
	lpEv    []byte  // output_text: the same as ResponseLogProb objects (the done event's)
	nAnns   int
	isClose bool
	head    []byte // its delta events' fields (deltaEvent)
}

// detail is a reasoning detail, merged from its pieces.
type detail struct {
	index   int64 // its index member (-1: none)
	raw     []byte
	pieces  int
	members []member
	// skel is the last piece merged with its one string that joins (at
	// cat, members[catM]) emptied; skelOK says it is one. A piece that is
	// skel with other contents there (a stream's pieces of a detail are
	// mostly so) is merged by appending them: what merge does to it, as
	// merging the last piece's other members again changes nothing.
	skel      []byte
	cat, catM int
	skelOK    bool
}

type member struct {
	key    []byte // raw, without its quotes
	val    []byte
	concat bool // a string whose pieces join (text, summary, data)
}

// grow appends piece to buf. A completion's pieces come whole from its
// body, which outlives the conversion: the first is taken as it is
// (capped: a second is appended to a copy). A stream's chunks do not
// outlive Next: their pieces are copied (appendDoubling).
func (t *translator) grow(buf, piece []byte) []byte {
	if buf == nil && !t.stream {
		return piece[:len(piece):len(piece)]
	}
	return appendDoubling(buf, piece)
}

// appendDoubling appends piece to buf, doubling buf's capacity when it
// is full. append's own growth slows to 1.25× past 256 bytes: a text
// that a stream brings a few bytes at a time would be allocated ~5 times
// its length over the stream, not 2 — and a stream's garbage sets how
// often the collector runs, with its write barriers, under every stream.
func appendDoubling(buf, piece []byte) []byte {
	if n := len(buf) + len(piece); n > cap(buf) {
		nb := make([]byte, len(buf), max(2*cap(buf), n, 64))
		copy(nb, buf)
		buf = nb
	}
	return append(buf, piece...)
}

// closeCur closes the open message or reasoning item.
func (t *translator) closeCur() {
	it := t.cur
	if it == nil {
		return
	}
	t.cur = nil
	t.closeParts(it)
	switch it.kind {
	case kMessage:
		// A completion's message is written into its Response from its
		// parts (appendItem): its text is copied once.
		if t.stream {
			start := len(t.arena)
			t.arena = appendMessage(t.arena, it)
			it.done = t.kept(start)
		}
	case kReasoning:
		it.done = t.reasoningItem(it)
	}
	t.itemDone(it)
}

// appendMessage appends a message item, completed, made of its parts.
func appendMessage(dst []byte, it *item) []byte {
	dst = append(dst, `{"id":`...)
	dst = codec.AppendString(dst, it.id)
	dst = append(dst, `,"type":"message","status":"completed","role":"assistant","content":[`...)
	for i, p := range it.parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendPart(dst, p)
	}
	return append(dst, "]}"...)
}

// appendItem appends an item, done.
func appendItem(dst []byte, it *item) []byte {
	if it.done == nil && it.kind == kMessage {
		return appendMessage(dst, it)
	}
	return append(dst, it.done...)
}

func (t *translator) itemDone(it *item) {
	it.open = false
	if !t.stream {
		return
	}
	t.event("response.output_item.done")
	t.buf = append(t.buf, `,"output_index":`...)
	t.buf = codec.AppendInt(t.buf, int64(it.index))
	t.buf = append(t.buf, `,"item":`...)
	t.buf = append(t.buf, it.done...)
	t.end()
}

// addItem opens an item: output_item.added with its opening JSON.
func (t *translator) addItem(it *item, added []byte) {
	if it.reserved { // a built-in call, in its place
		it.reserved = false
		t.waiting--
	} else {
		it.index = len(t.items)
		t.items = append(t.items, it)
	}
	it.open = true
	if !t.stream {
		return
	}
	t.event("response.output_item.added")
	t.buf = append(t.buf, `,"output_index":`...)
	t.buf = codec.AppendInt(t.buf, int64(it.index))
	t.buf = append(t.buf, `,"item":`...)
	t.buf = append(t.buf, added...)
	t.end()
}

// current returns the open item of kind (message or reasoning), closing
// another and opening one as needed.
func (t *translator) current(kind itemKind) *item {
	if t.cur != nil && t.cur.kind == kind {
		return t.cur
	}
	t.settle(false)
	t.closeCur()
	it := t.newItem(kind)
	switch kind {
	case kMessage:
		it.id = t.opts.ids().NewID("msg")
		t.addItem(it, t.jsonf(`{"id":`, it.id, `,"type":"message","status":"in_progress","role":"assistant","content":[]}`))
	case kReasoning:
		it.id = t.opts.ids().NewID("rs")
		t.addItem(it, t.jsonf(`{"id":`, it.id, `,"type":"reasoning","summary":[]}`))
	}
	t.cur = it
	return it
}

// jsonf is a + the JSON string s + b, in scratch memory.
func (t *translator) jsonf(a, s, b string) []byte {
	t.scratch = append(codec.AppendString(append(t.scratch[:0], a...), s), b...)
	return t.scratch
}

// partOf returns the item's part of typ (for reasoning, of detail d),
// adding it (and closing the part before it) if it is not the last.
func (t *translator) partOf(it *item, typ string, d int64) *part {
	if p := it.last; p != nil && p.typ == typ && p.detail == d {
		return p
	}
	if it.kind == kMessage {
		t.closeParts(it)
	} else {
		for _, p := range it.parts { // a reasoning item's parts stay open
			if p.typ == typ && p.detail == d {
				it.last = p
				return p
			}
		}
	}
	p := t.newPart()
	p.typ, p.detail, p.ev = typ, d, partEvents(typ)
	for _, q := range it.parts {
		if (q.typ == "summary_text") == (typ == "summary_text") {
			p.index++
		}
	}
	it.parts, it.last = append(it.parts, p), p
	if t.stream {
		t.itemEvent(p.ev.added, it)
		t.indexField(p)
		t.buf = append(t.buf, `,"part":`...)
		t.buf = appendPart(t.buf, p)
		t.end()
	}
	return p
}

func (t *translator) indexField(p *part) {
	if p.typ == "summary_text" {
		t.buf = append(t.buf, `,"summary_index":`...)
	} else {
		t.buf = append(t.buf, `,"content_index":`...)
	}
	t.buf = codec.AppendInt(t.buf, int64(p.index))
}

func appendPart(dst []byte, p *part) []byte {
	dst = append(append(append(dst, `{"type":"`...), p.typ...), '"')
	dst = append(append(append(append(dst, `,"`...), p.ev.field...), `":"`...), p.text...)
	dst = append(dst, '"')
	if p.typ == "output_text" {
		dst = append(append(append(dst, `,"annotations":[`...), p.anns...), `],"logprobs":[`...)
		dst = append(append(dst, p.lp...), ']')
	}
	return append(dst, '}')
}

// closeParts closes every open part of an item.
func (t *translator) closeParts(it *item) {
	for _, p := range it.parts {
		t.closePart(it, p)
	}
	it.last = nil
}

type partEv struct{ added, delta, done, partDone, field string }

// The events of each part type and its text's field (partEvents).
var (
	outputTextEv    = partEv{"response.content_part.added", "response.output_text.delta", "response.output_text.done", "response.content_part.done", "text"}
	refusalEv       = partEv{"response.content_part.added", "response.refusal.delta", "response.refusal.done", "response.content_part.done", "refusal"}
	reasoningTextEv = partEv{"response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.done", "response.content_part.done", "text"}
	summaryTextEv   = partEv{"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "text"}
)

// partEvents names the events of a part type (nil for none): a switch,
// not a map (a hash per part).
func partEvents(typ string) *partEv {
	switch typ {
	case "output_text":
		return &outputTextEv
	case "refusal":
		return &refusalEv
	case "reasoning_text":
		return &reasoningTextEv
	case "summary_text":
		return &summaryTextEv
	}
	return nil
}

func (t *translator) closePart(it *item, p *part) {
	if p.isClose {
		return
	}
	p.isClose = true
	if !t.stream {
		return
	}
	ev := p.ev
	t.itemEvent(ev.done, it)
	t.indexField(p)
	t.buf = append(append(append(append(t.buf, `,"`...), ev.field...), `":"`...), p.text...)
	t.buf = append(t.buf, '"')
	if p.typ == "output_text" {
		t.buf = append(append(append(t.buf, `,"logprobs":[`...), p.lpEv...), ']')
	}
	t.end()
	t.itemEvent(ev.partDone, it)
	t.indexField(p)
	t.buf = append(t.buf, `,"part":`...)
	t.buf = appendPart(t.buf, p)
	t.end()
}

// delta appends a piece of text (a JSON string) to a part and emits its
// delta event.
func (t *translator) delta(it *item, p *part, s []byte) {
	p.text = t.grow(p.text, s[1:len(s)-1])
	lp := p.typ == "output_text" && len(t.lp) > 0 // this text's log probabilities
	if lp {
		p.lp = appendList(p.lp, t.lp)
		p.lpEv = appendList(p.lpEv, t.lpEv)
	}
	if t.stream {
		t.deltaEvent(p.ev.delta, it, p)
		t.buf = append(t.buf, s...)
		switch {
		case lp:
			t.buf = append(append(append(t.buf, `,"logprobs":[`...), t.lpEv...), ']')
		case p.typ == "output_text":
			t.buf = append(t.buf, `,"logprobs":[]`...)
		}
		t.end()
	}
	if lp {
		t.lp, t.lpEv = t.lp[:0], t.lpEv[:0]
	}
}

// appendList appends a comma-separated list to another.
func appendList(dst, list []byte) []byte {
	if len(dst) > 0 {
		dst = append(dst, ',')
	}
	return append(dst, list...)
}

// Logprobs are the log probabilities of the text that follows (the
// chunk's, or the completion's): its delta carries them, its part keeps
// them.
func (t *translator) Logprobs(part, event []byte) {
	t.lp = appendList(t.lp, part)
	t.lpEv = appendList(t.lpEv, event)
}

// strayLogprobs warns of log probabilities no text followed (in their
// chunk or completion).
func (t *translator) strayLogprobs() {
	if len(t.lp) > 0 {
		t.reply.Warn("choices[0].logprobs.content", "log probabilities with no text after them; left out")
		t.lp, t.lpEv = t.lp[:0], t.lpEv[:0]
	}
}

// Text is a piece of the message's text.
func (t *translator) Text(s codec.Value) {
	it := t.current(kMessage)
	t.delta(it, t.partOf(it, "output_text", -1), s.Raw())
}

// Refusal is a piece of the message's refusal.
func (t *translator) Refusal(s codec.Value) {
	it := t.current(kMessage)
	t.delta(it, t.partOf(it, "refusal", -1), s.Raw())
}

// Annotation annotates the message's text.
func (t *translator) Annotation(a []byte) {
	it := t.current(kMessage)
	p := it.last
	if p == nil || p.typ != "output_text" {
		p = t.partOf(it, "output_text", -1)
	}
	if p.nAnns > 0 {
		p.anns = append(p.anns, ',')
	}
	p.anns = append(p.anns, a...)
	if t.stream {
		t.itemEvent("response.output_text.annotation.added", it)
		t.indexField(p)
		t.buf = append(t.buf, `,"annotation_index":`...)
		t.buf = codec.AppendInt(t.buf, int64(p.nAnns))
		t.buf = append(append(t.buf, `,"annotation":`...), a...)
		t.end()
	}
	p.nAnns++
}

// Finished is the upstream's finish reason (the first one counts).
func (t *translator) Finished(f mapping.Finish) {
	if !t.sawFin {
		t.sawFin, t.finish = true, f
	}
}

// Failed is a mid-stream error: the response fails with it, even after a
// finish reason.
func (t *translator) Failed(e codec.Value) {
	if t.fail == nil {
		t.fail = StreamError(e)
	}
}
