package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain runs the test binary as the relay when asked (relay.go).
func TestMain(m *testing.M) {
	relayMain()
	os.Exit(m.Run())
}

// A short soak on each store (PostgreSQL with TRANSPONDER_TEST_PG): the
// real binary, streams cancelled and faulted at high rates so that each
// outcome comes up; every stream's outcome is the documented one, every
// event passes the conformance checker, and the figures are there.
func TestSoakSmoke(t *testing.T) {
	stores := []string{"sqlite"}
	if os.Getenv("TRANSPONDER_TEST_PG") != "" {
		stores = append(stores, "postgres")
	} else if os.Getenv("CI") != "" {
		t.Fatal("CI is set but TRANSPONDER_TEST_PG is not")
	}
	out := filepath.Join(t.TempDir(), "soak.json")
	c := config{duration: 3 * time.Second, warmup: time.Second, streams: 40, direct: 4, relayed: 4, chunks: 10, every: 20 * time.Millisecond,
		cancel: 0.25, fault: 0.25, stores: stores, out: out}
	if err := soak(c); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rs []result
	if err := json.Unmarshal(data, &rs); err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(stores) {
		t.Fatalf("%d results for %v", len(rs), stores)
	}
	for _, r := range rs {
		if r.Unexpected != 0 || r.Completed == 0 || r.Cancelled == 0 || r.Faults == 0 || r.Chunks == 0 || r.DirectChunks == 0 || r.RelayChunks == 0 {
			t.Errorf("%s: %+v", r.Store, r)
		}
		if r.Chunk["gateway_p50"] <= 0 || r.Chunk["in_gateway_p99"] <= 0 || r.TTFB["gateway_p50"] <= 0 {
			t.Errorf("%s: latencies missing: %v %v", r.Store, r.Chunk, r.TTFB)
		}
		// Held open, a stream costs the gateway some KB: not nothing (its
		// connections' buffers alone are 12 KB), not a leak's worth.
		if r.HeldPerStream < 10<<10 || r.HeldPerStream > 200<<10 || r.HeldBase <= 0 {
			t.Errorf("%s: heap per held stream %.0f bytes (over %d)", r.Store, r.HeldPerStream, r.HeldBase)
		}
		if !strings.Contains(strings.Join(stores, ","), r.Store) {
			t.Errorf("a result for %s", r.Store)
		}
	}
}
