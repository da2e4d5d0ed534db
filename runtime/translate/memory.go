package translate

// Memory: the buffers a stream gives back between chunks (bufs), the
// translators and Requests a gateway reuses (StreamPool, RequestPool),
// and what a translator keeps from one response to the next (items,
// parts, arena).

import (
	"io"
	"sync"
	"unsafe"

	"github.com/transponder-dev/transponder/mapping"
)

// bufs pools byte buffers: what a stream would otherwise hold between
// two chunks (its events' buffer, Release; the one they are framed in,
// WriteSSE). One grown past maxPooled (by a large chunk) is left to the
// collector.
type bufs struct{ p sync.Pool }

const maxPooled = 64 << 10

func (b *bufs) get() *[]byte {
	if p, ok := b.p.Get().(*[]byte); ok {
		return p
	}
	return new([]byte)
}

func (b *bufs) put(p *[]byte) {
	if cap(*p) <= maxPooled {
		*p = (*p)[:0]
		b.p.Put(p)
	}
}

var eventBufs, frameBufs bufs

// WriteSSE writes events as AppendSSE frames them, in one Write, framed
// in a buffer from a pool: nothing is held once it returns.
func WriteSSE(w io.Writer, events []Event) error {
	p := frameBufs.get()
	*p = AppendSSE(*p, events)
	_, err := w.Write(*p)
	frameBufs.put(p)
	return err
}

// StreamPool keeps stream translators for reuse (Reset): a gateway that
// takes one per stream and puts it back when the stream is over makes no
// garbage for its streams' text, arguments and events. One that holds
// more than maxPooledStream (a long answer) is left to the collector.
type StreamPool struct{ p sync.Pool }

const maxPooledStream = 1 << 20

// Get returns a translator of a stream answering req: one put back
// before, reset, or a new one.
func (p *StreamPool) Get(req *Request, opts Options) ChatToResponses {
	if t, ok := p.p.Get().(*translator); ok {
		t.Reset(req, opts)
		return t
	}
	return NewChatToResponses(req, opts)
}

// Put gives t back once nothing uses it or what it returned (its events,
// its Response).
func (p *StreamPool) Put(t ChatToResponses) {
	if x, ok := t.(*translator); ok && x.retained() <= maxPooledStream {
		// What the stream referred to is not kept: its request, options
		// (Commit's closure), last chunk (the upstream reader's buffer).
		x.req, x.opts = nil, Options{}
		x.doc.Release()
		x.reply.Reset()
		x.fail = nil
		p.p.Put(x)
	}
}

// RequestPool keeps Requests for reuse: what a Response echoes of a
// Codex request (its instructions, its tools) is tens of KB, which
// RequestOf renders into memory of its own, an allocation the size of the
// echo per request; a gateway that takes its Requests here (Of) and puts
// each back when its answer is written (Put) renders them into memory it
// had. One whose echo is larger than maxPooledRequest is left to the
// collector. The zero RequestPool is ready; it is safe for concurrent use.
type RequestPool struct{ p sync.Pool }

const maxPooledRequest = 1 << 20

// Of is RequestOf(cv), in the memory of a Request put back before if
// there is one.
func (p *RequestPool) Of(cv *mapping.Converter) *Request {
	r, ok := p.p.Get().(*Request)
	if !ok {
		r = new(Request)
	}
	r.readFrom(cv)
	return r
}

// Put gives r back once nothing uses it: the translators and Responders
// it was given are done (their events and Responses are theirs, not r's).
func (p *RequestPool) Put(r *Request) {
	if cap(r.echo.json) <= maxPooledRequest {
		p.p.Put(r)
	}
}

// What a translator keeps from one response to the next: its items,
// parts and arena.

// next is the next of the values a translator made (*n of all in use),
// one of a previous conversion's or a new one, for the caller to reset.
func next[T any](all *[]*T, n *int) *T {
	if *n == len(*all) {
		*all = append(*all, new(T))
	}
	v := (*all)[*n]
	*n++
	return v
}

// newItem is a zero item of kind (one of a previous conversion's, reused).
func (t *translator) newItem(kind itemKind) *item {
	it := next(&t.allItems, &t.nItems)
	if t.stream {
		// The buffers a stream filled (copies of its chunks' pieces) are
		// reused: another stream's text grows in them, not in new memory.
		*it = item{kind: kind, parts: it.parts[:0], args: it.args[:0], details: it.details[:0], head: it.head[:0]}
	} else {
		// A completion's pieces may be its body's: only the list of its
		// parts (pointers to the translator's) is kept.
		*it = item{kind: kind, parts: it.parts[:0]}
	}
	return it
}

// retained is about how many bytes t keeps for reuse: its buffers, its
// items' and parts' (the codec Doc's and the reply's, sized by a chunk,
// not counted).
func (t *translator) retained() int {
	n := cap(t.buf) + cap(t.arena) + cap(t.held) + cap(t.scratch) + cap(t.lp) + cap(t.lpEv)
	n += cap(t.marks)*int(unsafe.Sizeof(mark{})) + cap(t.heldEv)*int(unsafe.Sizeof(heldEvent{})) + cap(t.events)*int(unsafe.Sizeof(Event{}))
	for _, it := range t.allItems {
		n += cap(it.args) + cap(it.head)
		for _, d := range it.details[:cap(it.details)] {
			if d != nil {
				n += d.retained()
			}
		}
	}
	for _, p := range t.allParts {
		n += cap(p.text) + cap(p.anns) + cap(p.lp) + cap(p.lpEv) + cap(p.head)
	}
	return n
}

// newPart is a zero part (one of a previous conversion's, reused; a
// stream's with its buffers, as newItem).
func (t *translator) newPart() *part {
	p := next(&t.allParts, &t.nParts)
	if t.stream {
		*p = part{text: p.text[:0], anns: p.anns[:0], lp: p.lp[:0], lpEv: p.lpEv[:0], head: p.head[:0]}
	} else {
		*p = part{}
	}
	return p
}

// kept returns what was appended to the arena since start, capped so
// that later appends do not reach it.
func (t *translator) kept(start int) []byte {
	n := len(t.arena)
	return t.arena[start:n:n]
}

// keep copies b into the arena.
func (t *translator) keep(b []byte) []byte {
	start := len(t.arena)
	t.arena = append(t.arena, b...)
	return t.kept(start)
}
