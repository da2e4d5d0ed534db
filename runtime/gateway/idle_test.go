package gateway

import (
	"io"
	"strings"
	"testing"
	"time"
)

// dripReader returns a byte each time it is read, after a pause.
type dripReader struct{ pause time.Duration }

func (d dripReader) Read(p []byte) (int, error) {
	time.Sleep(d.pause)
	p[0] = 'x'
	return 1, nil
}

// A read silent for idle is ended, never sooner than idle after its last
// byte; a drip faster than idle is no silence, however long it lasts,
// though reads do not move the timer.
func TestIdleWatch(t *testing.T) {
	const idle = 200 * time.Millisecond
	ended := make(chan time.Time, 1)
	w := watchIdle(idle, func() { ended <- time.Now() })
	r := w.Reader(dripReader{idle / 10})
	buf := make([]byte, 1)
	deadline := time.Now().Add(3 * idle)
	var last time.Time
	for time.Now().Before(deadline) {
		if _, err := r.Read(buf); err != nil {
			t.Fatal(err)
		}
		last = time.Now()
		select {
		case <-ended:
			t.Fatalf("a drip of a byte every %s ended as a silence of %s", idle/10, idle)
		default:
		}
	}
	select {
	case at := <-ended:
		// (last is taken just after the read stored its time: a few µs of
		// slack)
		if gap := at.Sub(last); gap < idle-time.Millisecond {
			t.Errorf("ended %s after the last byte, before the silence was %s", gap, idle)
		}
		if !w.Silent() {
			t.Error("ended, not Silent")
		}
	case <-time.After(20 * idle):
		t.Fatal("a silence was never ended")
	}

	// Stopped, it ends nothing.
	w = watchIdle(idle, func() { ended <- time.Now() })
	_, _ = io.ReadAll(w.Reader(strings.NewReader("abc")))
	w.Stop()
	select {
	case <-ended:
		t.Error("a stopped watch ended a read")
	case <-time.After(3 * idle):
	}
}
