package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/transponder-dev/transponder/codec/sse"
)

// heldHeap is the gateway's heap per open stream at rest: n streams held
// open mid-stream (the upstream pauses after half its chunks), the
// gateway's heap collected before they open and while they are held (its
// /debug/pprof/heap?gc=1 collects first), the difference per stream.
// Every connection of the run is closed first, so that the held streams'
// connections are theirs. Then the streams finish, each checked to its
// end. profile, when set, gets the gateway's heap profile while they are
// held.
func (g *gateway) heldHeap(client *http.Client, tr *http.Transport, up *http.Server, u *upstream, n, chunks int, profile string) (per float64, base, during sample, err error) {
	tr.CloseIdleConnections()
	up.SetKeepAlivesEnabled(false) // closes the upstream's idle connections
	up.SetKeepAlivesEnabled(true)
	time.Sleep(time.Second) // the gateway sees them closed
	if base, err = g.collected(client, ""); err != nil {
		return 0, base, during, err
	}
	release := u.holdAll()
	var opened, done sync.WaitGroup
	opened.Add(n)
	errs := make(chan error, n)
	for range n {
		done.Go(func() {
			if err := heldStream(client, g.base, chunks, opened.Done); err != nil {
				errs <- err
			}
		})
	}
	if !waitTimeout(&opened, 2*time.Minute) {
		release()
		return 0, base, during, fmt.Errorf("the held streams did not all open within 2 minutes")
	}
	during, err = g.collected(client, profile)
	release()
	done.Wait()
	close(errs)
	for e := range errs {
		return 0, base, during, e
	}
	if err != nil {
		return 0, base, during, err
	}
	return float64(during.HeapLive-base.HeapLive) / float64(n), base, during, nil
}

// waitTimeout waits for wg, or d; it reports whether wg was done.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// collected has the gateway collect its heap, twice (what its pools
// hold outlives one collection), saving its profile to file when set,
// and returns its state after.
func (g *gateway) collected(client *http.Client, file string) (sample, error) {
	if g.pprof == "" {
		return sample{}, fmt.Errorf("the gateway serves no profiles (-debug-listen)")
	}
	var prof []byte
	for range 2 {
		resp, err := client.Get(g.pprof + "heap?gc=1")
		if err != nil {
			return sample{}, err
		}
		prof, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return sample{}, fmt.Errorf("heap profile: %d %v", resp.StatusCode, err)
		}
	}
	if file != "" {
		if err := os.WriteFile(file, prof, 0o644); err != nil {
			return sample{}, err
		}
	}
	return g.take(client, time.Now())
}

// heldStream makes one stream the upstream holds: opened is called once
// half its deltas arrived; it is read to its end (response.completed,
// every delta, every event conformant).
func heldStream(client *http.Client, base string, chunks int, opened func()) error {
	once := sync.OnceFunc(opened)
	defer once()
	resp, err := postJSON(context.Background(), client, base+"/responses", `{"model":"m","input":"soak hold","stream":true}`)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("held stream: %d %.200s", resp.StatusCode, b)
	}
	g := readGateway(resp.Body, func(_ sse.Event, n int, _ time.Time) bool {
		if n == chunks/2 {
			once()
		}
		return true
	})
	switch {
	case g.violation != nil:
		return fmt.Errorf("held stream: %w", g.violation)
	case g.terminal != "response.completed" || g.deltas != chunks || g.err != nil:
		return fmt.Errorf("held stream: %d deltas, terminal %q, %v", g.deltas, g.terminal, g.err)
	}
	return nil
}

// holdAll makes the streams asked to hold ("hold" in their input) pause
// after half their chunks until release is called.
func (u *upstream) holdAll() (release func()) {
	ch := make(chan struct{})
	u.mu.Lock()
	u.release = ch
	u.mu.Unlock()
	return sync.OnceFunc(func() { close(ch) })
}

// holding is the channel a held stream waits on (closed: no hold).
func (u *upstream) holding(body []byte) chan struct{} {
	if !bytes.Contains(body, []byte("soak hold")) {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.release
}
