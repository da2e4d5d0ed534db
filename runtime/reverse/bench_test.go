package reverse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

// BenchmarkStream: ../shared/bench/f_responses_stream.sse (509 events)
// → chat chunk SSE (impl=chat) and → parts only (impl=parts), beside the
// same-run tight baseline (impl=baseline: one jsontext.Decoder and one
// bytes.Reader reused, every token of every event read until StackDepth
// is 0, and the event's data copied). The events are split out of the SSE
// beforehand for all; ns/op and allocs/op are per stream.
func BenchmarkStream(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures.SharedDir(filepath.Join("..", "..")), "bench", "f_responses_stream.sse"))
	if err != nil {
		b.Fatal(err)
	}
	var evs [][]byte
	rd := sse.NewReader(bytes.NewReader(data))
	for rd.Next() {
		if e := rd.Event(); !e.Done() {
			evs = append(evs, append([]byte(nil), e.Data...))
		}
	}
	b.Run("impl=baseline", func(b *testing.B) {
		var bl fixtures.Baseline
		out := make([]byte, 0, 1<<20)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			out = out[:0]
			for _, e := range evs {
				if err := bl.Tokenize(e); err != nil {
					b.Fatal(err)
				}
				out = append(out, e...)
			}
		}
	})
	b.Run("impl=parts", func(b *testing.B) {
		var p Parser
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			p.Reset()
			for _, e := range evs {
				p.Next(e)
			}
			p.Finish()
		}
	})
	b.Run("impl=chat", func(b *testing.B) {
		out := make([]byte, 0, 1<<20)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			c := NewChatStream(opts())
			out = out[:0]
			for _, e := range evs {
				out = append(out, c.Next(e)...)
			}
			out = append(out, c.Finish()...)
		}
	})
}

// TestSteadyStateAllocs: a text delta event costs no allocation once the
// stream is under way.
func TestSteadyStateAllocs(t *testing.T) {
	c := NewChatStream(opts())
	for _, e := range midStreamError[:3] {
		c.Next(e)
	}
	ev := []byte(`{"type":"response.output_text.delta","sequence_number":9,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Some words, \"quoted\".","logprobs":[],"obfuscation":"abc"}`)
	if n := testing.AllocsPerRun(200, func() { c.Next(ev) }); n != 0 {
		t.Fatalf("a text delta allocates %v times", n)
	}
}
