package gateway_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/runtime/gateway"
)

// BenchmarkLoad: streams through the gateway on loopback from a fast local
// upstream (a 100-chunk text stream, each chunk written and flushed on its
// own), with 1, 100 and 1,000 streams in flight. The load generator, the
// gateway and the upstream share the machine's cores, so end-to-end times
// mostly measure the scheduler; the latency the gateway adds is measured
// in-process, from an upstream chunk's arrival to the flush of its events
// (Config.Observe): p50-µs and p99-µs per chunk. streams/s is the
// throughput. gw-heap-B/stream is the gateway's heap per stream held open
// mid-stream: the heap in use with the streams held through the gateway,
// less the same streams held direct to the upstream (the client's and the
// upstream's side of a stream are in both).
//
//	go test -run '^$' -bench BenchmarkLoad -benchtime 2000x ./runtime/gateway
func BenchmarkLoad(b *testing.B) {
	for _, c := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("streams=%d", c), func(b *testing.B) { load(b, c) })
	}
}

// loadStream is the upstream's stream: 100 text chunks, a finish, usage.
var loadStream = func() [][]byte {
	var out [][]byte
	out = append(out, []byte(": OPENROUTER PROCESSING\n\n"))
	for i := range 100 {
		out = append(out, []byte("data: "+textChunk(fmt.Sprintf(" word%d", i))+"\n\n"))
	}
	out = append(out, []byte("data: "+stopChunk+"\n\n"), []byte("data: [DONE]\n\n"))
	return out
}()

// fastUpstream streams loadStream; with hold, it stops after the first
// chunk until hold is closed.
type fastUpstream struct{ hold chan struct{} }

func (u *fastUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for i, c := range loadStream {
		if _, err := w.Write(c); err != nil {
			return
		}
		_ = rc.Flush()
		if i == 1 && u.hold != nil {
			select {
			case <-u.hold:
			case <-r.Context().Done():
				return
			}
		}
	}
}

// latencies collects Observe's durations.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

func (l *latencies) quantile(q float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	slices.Sort(l.d)
	return l.d[min(len(l.d)-1, int(q*float64(len(l.d))))]
}

func loadStack(b testing.TB, c int, up http.Handler, lat *latencies) (*httptest.Server, *http.Client) {
	b.Helper()
	gw, _, client := loadStackUp(b, c, up, lat)
	return gw, client
}

// loadStackUp is loadStack with the upstream's server: the gateway talks
// to it on its default transport, as `transponder serve` does.
func loadStackUp(b testing.TB, c int, up http.Handler, lat *latencies) (gw, upSrv *httptest.Server, client *http.Client) {
	b.Helper()
	upSrv = httptest.NewServer(up)
	b.Cleanup(upSrv.Close)
	cfg := gateway.Config{
		Upstream:      gateway.Upstream{BaseURL: upSrv.URL},
		MaxConcurrent: 2 * c,
		Log:           slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if lat != nil {
		cfg.Observe = lat.add
	}
	gw = httptest.NewServer(gateway.New(cfg))
	b.Cleanup(gw.Close)
	client = &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * c, MaxIdleConnsPerHost: 2 * c}}
	return gw, upSrv, client
}

const loadRequest = `{"model":"m","input":"hi","stream":true}`

func load(b *testing.B, c int) {
	lat := &latencies{}
	gw, client := loadStack(b, c, &fastUpstream{}, lat)
	// Each client reads its bodies into a buffer of its own, kept from one
	// stream to the next: a body read into new memory each time was most
	// of what the benchmark allocated (62 KB a stream), and the collections
	// it caused stopped the gateway's goroutines too, in its p99 — which a
	// client in a process of its own does not do.
	one := func(body *bytes.Buffer) error {
		resp, err := client.Post(gw.URL+"/v1/responses", "application/json", strings.NewReader(loadRequest))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body.Reset()
		if _, err := body.ReadFrom(resp.Body); err != nil {
			return err
		}
		if !bytes.Contains(body.Bytes(), []byte("event: response.completed")) {
			return fmt.Errorf("no response.completed: %d %.300s", resp.StatusCode, body.Bytes())
		}
		return nil
	}
	if err := one(new(bytes.Buffer)); err != nil { // warm: connections, pools
		b.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // the warm-up's last Observe
	lat.mu.Lock()
	lat.d = make([]time.Duration, 0, b.N*len(loadStream)) // no growing while measured
	lat.mu.Unlock()
	var next atomic.Int64
	var failMu sync.Mutex
	var failed error
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body bytes.Buffer
			for next.Add(1) <= int64(b.N) {
				if err := one(&body); err != nil {
					failMu.Lock()
					failed = err
					failMu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if failed != nil {
		b.Fatal(failed)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "streams/s")
	b.ReportMetric(float64(lat.quantile(0.50).Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat.quantile(0.99).Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(heldHeap(b, c), "gw-heap-B/stream")
}

// heldHeap opens c streams whose upstream holds after its first chunk,
// through the gateway and then direct to the upstream, and returns the
// difference of the heap in use per stream while they are all open: the
// gateway's part.
func heldHeap(b *testing.B, c int) float64 {
	hold := make(chan struct{})
	gw, up, client := loadStackUp(b, c, &fastUpstream{hold: hold}, nil)
	via := heapHeld(b, c, hold, func() (*http.Response, error) {
		return client.Post(gw.URL+"/v1/responses", "application/json", strings.NewReader(loadRequest))
	})
	hold = make(chan struct{})
	up.Config.Handler = &fastUpstream{hold: hold}
	direct := heapHeld(b, c, hold, func() (*http.Response, error) {
		return client.Post(up.URL+"/chat/completions", "application/json", strings.NewReader(loadRequest))
	})
	return via - direct
}

// heapHeld opens c streams with open, waits until each has sent a byte,
// and returns the heap in use per stream while they are all held (then
// releases them with hold).
func heapHeld(b *testing.B, c int, hold chan struct{}, open func() (*http.Response, error)) float64 {
	// Twice: what the pools held (a sync.Pool outlives one GC) is gone.
	runtime.GC()
	runtime.GC()
	var before, during runtime.MemStats
	runtime.ReadMemStats(&before)
	var opened, done sync.WaitGroup
	opened.Add(c)
	done.Add(c)
	var failed atomic.Value
	for range c {
		go func() {
			defer done.Done()
			resp, err := open()
			if err != nil {
				failed.Store(err)
				opened.Done()
				return
			}
			defer resp.Body.Close()
			buf := make([]byte, 1)
			_, _ = resp.Body.Read(buf) // the stream has started
			opened.Done()
			_, _ = io.Copy(io.Discard, resp.Body)
		}()
	}
	opened.Wait()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&during)
	close(hold)
	done.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	return float64(int64(during.HeapInuse)-int64(before.HeapInuse)) / float64(c)
}
