package translate

import (
	"io"
	"sync"
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
