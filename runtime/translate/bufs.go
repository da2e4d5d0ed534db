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
