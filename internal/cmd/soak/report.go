package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// result is one store's figures.
type result struct {
	Store          string  `json:"store"`
	Streams        int     `json:"streams"`
	DirectStreams  int     `json:"direct_streams"`
	RelayedStreams int     `json:"relayed_streams"`
	Seconds        float64 `json:"seconds"`
	StreamsPerSec  float64 `json:"streams_per_s"` // through the gateway: whole, cancelled and faulted
	Completed      int64   `json:"completed"`
	Cancelled      int64   `json:"cancelled"`
	Faults         int64   `json:"faults_as_documented"`
	Unexpected     int64   `json:"unexpected_errors"`
	Samples        []string
	Chunks         int64              `json:"chunks_via_gateway"`
	DirectChunks   int64              `json:"chunks_direct"`
	RelayChunks    int64              `json:"chunks_relayed"`
	Chunk          map[string]float64 `json:"chunk_latency_us"` // p50/p99/p99.9: gateway, direct, added
	TTFB           map[string]float64 `json:"ttfb_us"`
	HeapPerStream  float64            `json:"heap_per_stream_bytes"`      // under load: the median over the samples
	HeldPerStream  float64            `json:"held_heap_per_stream_bytes"` // held open, collected (held.go)
	HeldBase       int64              `json:"held_base_heap_live_bytes"`
	HeldLive       int64              `json:"held_heap_live_bytes"`
	HeldProfile    string             `json:"held_heap_profile,omitempty"`
	BaseHeapLive   int64              `json:"base_heap_live_bytes"`
	BaseRSS        int64              `json:"base_rss_bytes"`
	RSSFirst       int64              `json:"rss_first_minute_bytes"` // the highest in the run's first minute
	RSSLast        int64              `json:"rss_last_minute_bytes"`  // the highest in its last minute
	GatewaySamples []sample           `json:"samples"`
}

// pct is the q quantile of sorted ns, in µs.
func pct(sorted []uint32, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[int(q*float64(len(sorted)-1))]) / 1e3
}

func (c config) figures(st string, t *tally, elapsed time.Duration, base sample, ss []sample) *result {
	for _, s := range [][]uint32{t.gwChunk, t.directChunk, t.relayChunk, t.gwTTFB, t.directTTFB, t.relayTTFB} {
		slices.Sort(s)
	}
	r := &result{
		Store: st, Streams: c.streams, DirectStreams: c.direct, RelayedStreams: c.relayed, Seconds: elapsed.Seconds(),
		Completed: t.completed, Cancelled: t.cancelled, Faults: t.faultsAsDocumented, Unexpected: t.unexpected, Samples: t.samples,
		Chunks: int64(len(t.gwChunk)), DirectChunks: int64(len(t.directChunk)), RelayChunks: int64(len(t.relayChunk)),
		Chunk: map[string]float64{}, TTFB: map[string]float64{},
		BaseHeapLive: base.HeapLive, BaseRSS: base.RSS, GatewaySamples: ss,
	}
	r.StreamsPerSec = float64(t.completed+t.cancelled+t.faultsAsDocumented+t.unexpected) / elapsed.Seconds()
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}, {"p99.9", 0.999}} {
		for _, m := range []struct {
			m                 map[string]float64
			gw, direct, relay []uint32
		}{{r.Chunk, t.gwChunk, t.directChunk, t.relayChunk}, {r.TTFB, t.gwTTFB, t.directTTFB, t.relayTTFB}} {
			g, d := pct(m.gw, q.q), pct(m.direct, q.q)
			m.m["gateway_"+q.name], m.m["direct_"+q.name], m.m["added_"+q.name] = g, d, g-d
			if len(m.relay) > 0 {
				rl := pct(m.relay, q.q)
				m.m["relay_"+q.name], m.m["relay_added_"+q.name], m.m["beyond_relay_"+q.name] = rl, rl-d, g-rl
			}
		}
	}
	var per []float64
	for _, s := range ss {
		if n := s.Active - base.Active; n >= int64(c.streams)/2 && s.HeapLive > 0 {
			per = append(per, float64(s.HeapLive-base.HeapLive)/float64(n))
		}
		if s.At <= 60 {
			r.RSSFirst = max(r.RSSFirst, s.RSS)
		}
		if s.At >= elapsed.Seconds()-60 {
			r.RSSLast = max(r.RSSLast, s.RSS)
		}
	}
	if len(per) > 0 {
		slices.Sort(per)
		r.HeapPerStream = per[len(per)/2]
	}
	return r
}

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "\n## %s: %d streams through the gateway (+%d direct, +%d through the relay), %.0f s\n\n", r.Store, r.Streams, r.DirectStreams, r.RelayedStreams, r.Seconds)
	fmt.Fprintf(w, "| | |\n|---|---|\n")
	fmt.Fprintf(w, "| streams/s through the gateway | %.0f (%d whole, %d cancelled, %d faults as documented) |\n", r.StreamsPerSec, r.Completed, r.Cancelled, r.Faults)
	fmt.Fprintf(w, "| errors other than the injected | %d |\n", r.Unexpected)
	fmt.Fprintf(w, "| chunks read | %d through the gateway, %d direct, %d through the relay |\n", r.Chunks, r.DirectChunks, r.RelayChunks)
	if r.HeldPerStream > 0 {
		fmt.Fprintf(w, "| **gateway heap per open stream** | %.1f KB (%d streams held open mid-stream on connections of their own, the heap collected: %.1f MB live over %.1f MB without them) |\n", r.HeldPerStream/1024, r.Streams, float64(r.HeldLive)/(1<<20), float64(r.HeldBase)/(1<<20))
	}
	if r.HeapPerStream > 0 {
		fmt.Fprintf(w, "| gateway heap per open stream, under load | %.1f KB (its heap marked live by its last GC, over its baseline of %.1f MB, per stream open beyond the baseline's: the median of the samples; a GC under load also marks what is allocated while it runs) |\n", r.HeapPerStream/1024, float64(r.BaseHeapLive)/(1<<20))
	}
	if len(r.GatewaySamples) > 0 {
		fmt.Fprintf(w, "| gateway RSS | %.0f MB at rest; highest %.0f MB in the run's first minute, %.0f MB in its last |\n", float64(r.BaseRSS)/(1<<20), float64(r.RSSFirst)/(1<<20), float64(r.RSSLast)/(1<<20))
	}
	fmt.Fprintf(w, "\n| µs | p50 | p99 | p99.9 |\n|---|---|---|---|\n")
	for _, row := range []struct {
		name string
		m    map[string]float64
		k    string
	}{
		{"chunk, through the gateway", r.Chunk, "gateway_"}, {"chunk, direct", r.Chunk, "direct_"}, {"**chunk, added by the gateway**", r.Chunk, "added_"},
		{"chunk, through a bare TCP relay (a process that only forwards bytes)", r.Chunk, "relay_"},
		{"chunk, added by the relay: any hop through another process", r.Chunk, "relay_added_"},
		{"chunk, added by the gateway beyond the relay's", r.Chunk, "beyond_relay_"},
		{"chunk, inside the gateway (its histogram: arrival → flush)", r.Chunk, "in_gateway_"},
		{"first content (a delta), through the gateway", r.TTFB, "gateway_"}, {"first content (a chunk), direct", r.TTFB, "direct_"}, {"**first content, added**", r.TTFB, "added_"},
		{"first content, through the relay", r.TTFB, "relay_"}, {"first content, added by the relay", r.TTFB, "relay_added_"},
		{"first content, added by the gateway beyond the relay's", r.TTFB, "beyond_relay_"},
	} {
		if _, ok := row.m[row.k+"p50"]; !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f |\n", row.name, row.m[row.k+"p50"], row.m[row.k+"p99"], row.m[row.k+"p99.9"])
	}
	fmt.Fprintf(w, "\nThe gateway's RSS over the run (MB, every 5 s): ")
	for i, s := range r.GatewaySamples {
		if i > 0 {
			fmt.Fprint(w, " ")
		}
		fmt.Fprintf(w, "%.0f", float64(s.RSS)/(1<<20))
	}
	fmt.Fprintln(w)
	for _, s := range r.Samples {
		fmt.Fprintln(w, "unexpected:", s)
	}
}
