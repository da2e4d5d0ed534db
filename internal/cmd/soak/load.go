package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/runtime/conformance"
)

// load drives streams: through the gateway (POST /v1/responses, stream),
// and direct to the upstream (POST /chat/completions) for the baseline,
// with one HTTP client for both.
type load struct {
	client          *http.Client
	gateway, direct string // the gateway's /v1 and the upstream's root
	relay           string // the upstream's root through a bare TCP relay (relay.go)
	chunks          int
	cancel, fault   float64 // the shares of the gateway's streams cancelled and faulted
	// ramp spreads the workers' first streams over it, so that streams
	// tick at every phase of the upstream's pause, not all at once.
	ramp    time.Duration
	stop    atomic.Bool
	measure atomic.Bool // record only when set (after the ramp)
}

// tally is what one worker measured (merged at the end: no lock per
// chunk). Latencies are in ns, clamped to 4.29 s.
type tally struct {
	gwChunk, directChunk, relayChunk []uint32 // upstream write → client read, per chunk
	gwTTFB, directTTFB, relayTTFB    []uint32 // request → first content (a delta; a chunk)
	completed, direct                int64    // whole streams (gateway; direct and relayed)
	cancelled                        int64    // streams the client cancelled
	faultsAsDocumented               int64    // injected faults with their documented outcome
	unexpected                       int64    // anything else: the errors that count
	samples                          []string // the first few unexpected errors
}

func ns(d time.Duration) uint32 {
	if d < 0 {
		return 0
	}
	return uint32(min(d, time.Duration(^uint32(0))))
}

func (t *tally) bad(format string, args ...any) {
	t.unexpected++
	if len(t.samples) < 5 {
		t.samples = append(t.samples, fmt.Sprintf(format, args...))
	}
}

func (t *tally) merge(o *tally) {
	t.gwChunk = append(t.gwChunk, o.gwChunk...)
	t.directChunk = append(t.directChunk, o.directChunk...)
	t.gwTTFB = append(t.gwTTFB, o.gwTTFB...)
	t.directTTFB = append(t.directTTFB, o.directTTFB...)
	t.relayChunk = append(t.relayChunk, o.relayChunk...)
	t.relayTTFB = append(t.relayTTFB, o.relayTTFB...)
	t.completed += o.completed
	t.direct += o.direct
	t.cancelled += o.cancelled
	t.faultsAsDocumented += o.faultsAsDocumented
	t.unexpected += o.unexpected
	for _, s := range o.samples {
		if len(t.samples) < 20 {
			t.samples = append(t.samples, s)
		}
	}
}

// run runs gw workers on the gateway, direct workers on the upstream and
// relayed through the relay until stop, and returns what they measured.
func (l *load) run(seed uint64, gw, direct, relayed int) *tally {
	var wg sync.WaitGroup
	tallies := make([]*tally, gw+direct+relayed)
	for w := range gw + direct + relayed {
		tallies[w] = &tally{}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			time.Sleep(time.Duration(rng.Int64N(int64(l.ramp) + 1)))
			for !l.stop.Load() {
				if !l.measure.Load() {
					tallies[w] = &tally{} // what the ramp measured is not kept
				}
				switch t := tallies[w]; {
				case w < gw:
					l.viaGateway(t, rng)
				case w < gw+direct:
					l.toUpstream(t, l.direct, &t.directChunk, &t.directTTFB)
				default:
					l.toUpstream(t, l.relay, &t.relayChunk, &t.relayTTFB)
				}
			}
		})
	}
	wg.Wait()
	all := &tally{}
	for _, t := range tallies {
		all.merge(t)
	}
	return all
}

// stamp reads the chunk's write time (the digits after key in data) and
// returns how long ago that was.
func stamp(data []byte, key string, now time.Time) (time.Duration, bool) {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return 0, false
	}
	var n int64
	for _, c := range data[i+len(key):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	return now.Sub(time.Unix(0, n)), n > 0
}

// viaGateway makes one streamed response through the gateway: a normal
// one, one the client cancels after a random number of deltas, or one
// whose upstream fails (a fault of faults); every event goes through the
// conformance checker.
func (l *load) viaGateway(t *tally, rng *rand.Rand) {
	input, cancelAt := "soak", -1
	var fault = -1
	switch r := rng.Float64(); {
	case r < l.fault:
		fault = rng.IntN(len(faults))
		input += " fault=" + faults[fault].name
	case r < l.fault+l.cancel:
		cancelAt = 1 + rng.IntN(l.chunks)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	resp, err := postJSON(ctx, l.client, l.gateway+"/responses", `{"model":"m","input":"`+input+`","stream":true}`)
	if err != nil {
		t.bad("gateway: %v", err)
		return
	}
	defer resp.Body.Close()
	if fault >= 0 && !faults[fault].failed {
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == faults[fault].status && bytes.HasPrefix(b, []byte(`{"error":`)) {
			t.faultsAsDocumented++
		} else {
			t.bad("fault %s: %d %.200s", faults[fault].name, resp.StatusCode, b)
		}
		return
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.bad("gateway: %d %.200s", resp.StatusCode, b)
		return
	}
	g := readGateway(resp.Body, func(e sse.Event, n int, now time.Time) bool {
		if n == 1 { // the first content, as direct: like for like
			t.gwTTFB = append(t.gwTTFB, ns(now.Sub(start)))
		}
		if d, ok := stamp(e.Data, `"delta":"`, now); ok {
			t.gwChunk = append(t.gwChunk, ns(d))
		}
		return n != cancelAt
	})
	if g.violation != nil {
		t.bad("%v", g.violation)
	}
	switch {
	case g.deltas == cancelAt:
		cancel()
		t.cancelled++
	case fault >= 0 && g.terminal == "response.failed":
		t.faultsAsDocumented++
	case fault < 0 && g.terminal == "response.completed" && g.deltas == l.chunks:
		t.completed++
	default:
		t.bad("gateway stream (fault %d): %d deltas, terminal %q, %v", fault, g.deltas, g.terminal, g.err)
	}
}

// postJSON posts body to url with ctx.
func postJSON(ctx context.Context, client *http.Client, url, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return client.Do(req)
}

// gatewayStream is what readGateway read of a Responses stream.
type gatewayStream struct {
	deltas    int
	terminal  string // the terminal event's type ("" if none came)
	violation error  // the first the conformance checker found
	err       error  // reading
}

// readGateway reads a Responses stream through the conformance checker,
// to its end or until onDelta, given each output_text delta (its number
// from 1, and when it was read), returns false.
func readGateway(body io.Reader, onDelta func(e sse.Event, n int, now time.Time) bool) gatewayStream {
	var g gatewayStream
	c := conformance.NewChecker()
	rd := sse.NewReader(body)
	for rd.Next() {
		now := time.Now()
		e := rd.Event()
		if fs := c.SSE(e); conformance.Violations(fs) > 0 && g.violation == nil {
			g.violation = fmt.Errorf("conformance: %v", fs)
		}
		switch e.Type {
		case "response.output_text.delta":
			g.deltas++
			if !onDelta(e, g.deltas, now) {
				return g
			}
		case "response.completed", "response.failed", "response.incomplete":
			g.terminal = e.Type
		}
	}
	if fs := c.Finish(); conformance.Violations(fs) > 0 && g.violation == nil {
		g.violation = fmt.Errorf("conformance at the end: %v", fs)
	}
	g.err = rd.Err()
	return g
}

// toUpstream makes one streamed chat completion to the upstream at root
// (direct, or through the relay), recording into chunks and ttfb.
func (l *load) toUpstream(t *tally, root string, chunkLat, ttfb *[]uint32) {
	start := time.Now()
	resp, err := postJSON(context.Background(), l.client, root+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"soak"}],"stream":true}`)
	if err != nil {
		t.bad("direct: %v", err)
		return
	}
	defer resp.Body.Close()
	rd := sse.NewReader(resp.Body)
	chunks := 0
	for rd.Next() {
		now := time.Now()
		if chunks == 0 {
			*ttfb = append(*ttfb, ns(now.Sub(start)))
		}
		if d, ok := stamp(rd.Event().Data, `"content":"`, now); ok {
			*chunkLat = append(*chunkLat, ns(d))
			chunks++
		}
	}
	if chunks != l.chunks || rd.Err() != nil {
		t.bad("direct: %d chunks, %v", chunks, rd.Err())
		return
	}
	t.direct++
}
