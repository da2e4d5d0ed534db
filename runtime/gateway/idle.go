package gateway

import (
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// Silences: an upstream that stops sending, and a client that stops
// reading, are each given StreamIdle. Neither touches a timer per chunk:
// moving a timer (or a connection's deadline, which is one) for every
// chunk was a tenth of what a chunk cost the gateway under load, and most
// of its p99.

// idleWatch ends a read silent for longer than idle: once no byte came for
// idle, it closes the body and says so (Silent). Each read stores when it
// returned; the timer, set for idle after the last time it fired, finds
// the read later than that and waits the rest, so a silence is measured
// exactly.
type idleWatch struct {
	idle    time.Duration
	start   time.Time    // what last is measured from (monotonic)
	last    atomic.Int64 // when a read last returned, from start
	silent  atomic.Bool
	stopped atomic.Bool
	t       *time.Timer
	end     func()
}

// watchIdle starts watching; end is called (once, from the timer's
// goroutine) when a silence reaches idle.
func watchIdle(idle time.Duration, end func()) *idleWatch {
	w := &idleWatch{idle: idle, start: time.Now(), end: end}
	w.t = time.AfterFunc(time.Duration(1<<62), w.fire)
	w.t.Reset(idle) // after w.t is set: fire reads it
	return w
}

func (w *idleWatch) fire() {
	if w.stopped.Load() {
		return
	}
	since := time.Since(w.start) - time.Duration(w.last.Load())
	if since < w.idle {
		w.t.Reset(w.idle - since)
		return
	}
	w.silent.Store(true)
	w.end()
}

// Stop ends the watch.
func (w *idleWatch) Stop() {
	w.stopped.Store(true)
	w.t.Stop()
}

// Silent reports whether a silence ended the read.
func (w *idleWatch) Silent() bool { return w.silent.Load() }

// Reader is r with its reads watched.
func (w *idleWatch) Reader(r io.Reader) io.Reader { return idleReader{r, w} }

type idleReader struct {
	r io.Reader
	w *idleWatch
}

func (r idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.w.last.Store(int64(time.Since(r.w.start)))
	return n, err
}

// writeDeadline gives each write to a client at least 7/8 of idle, and at
// most idle, to be taken: the connection's deadline moves only when less
// than 7/8 of idle is left of it (8 times per idle at most).
type writeDeadline struct {
	rc    *http.ResponseController
	idle  time.Duration
	until time.Time
}

// before is called before each write.
func (d *writeDeadline) before() {
	now := time.Now()
	if d.until.Sub(now) < d.idle-d.idle/8 {
		d.until = now.Add(d.idle)
		_ = d.rc.SetWriteDeadline(d.until)
	}
}
