package reverse

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
)

// TestMangled: recorded streams truncated, reordered, with events cut,
// duplicated or of unknown types never panic, and always end in one
// finish or error: a chat stream that ends with [DONE], or an error
// before the first byte.
func TestMangled(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir(t), "*.jsonl"))
	rng := rand.New(rand.NewPCG(1, 2))
	unknown := []byte(`{"type":"response.future_thing.delta","output_index":0,"delta":"x"}`)
	for _, f := range files {
		evs := events(t, f)
		for round := 0; round < 30; round++ {
			var m [][]byte
			for _, e := range evs {
				switch rng.IntN(12) {
				case 0: // drop
				case 1:
					m = append(m, e, e)
				case 2:
					m = append(m, e[:rng.IntN(len(e))]) // truncated JSON
				case 3:
					m = append(m, unknown, e)
				default:
					m = append(m, e)
				}
			}
			if round%3 == 0 {
				rng.Shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] })
			}
			if round%5 == 0 && len(m) > 0 {
				m = m[:rng.IntN(len(m))] // cut off
			}
			out, c := chat(m)
			if c.Err() != nil {
				if len(out) != 0 {
					t.Fatalf("%s: bytes and an error before them", f)
				}
				continue
			}
			if !bytes.HasSuffix(out, []byte("data: [DONE]\n\n")) {
				t.Fatalf("%s round %d: no [DONE] at the end", f, round)
			}
			r := sse.NewReader(bytes.NewReader(out))
			finishes := 0
			for r.Next() {
				if bytes.Contains(r.Event().Data, []byte(`"finish_reason":"`)) {
					finishes++
				}
			}
			if finishes != 1 {
				t.Fatalf("%s round %d: %d finish reasons", f, round, finishes)
			}
		}
	}
}

// TestUnknownEvents: events of unknown types between the events of a
// stream change nothing.
func TestUnknownEvents(t *testing.T) {
	evs := events(t, filepath.Join(corpusDir(t), "vercel-azure-tool-call.1.jsonl"))
	want, _ := chat(evs)
	var m [][]byte
	for _, e := range evs {
		m = append(m, []byte(`{"type":"response.brand_new","output_index":0,"item":{"type":"x"}}`), []byte(`{"no_type":1}`), e)
	}
	got, _ := chat(m)
	if !bytes.Equal(got, want) {
		t.Fatalf("unknown events changed the stream:\n%s\nwant\n%s", got, want)
	}
}

// TestClaimedIndex: an output_index far beyond the output is skipped, not
// a reason to grow.
func TestClaimedIndex(t *testing.T) {
	var p Parser
	p.Next([]byte(`{"type":"response.created","response":{"id":"r"}}`))
	if parts := p.Next([]byte(`{"type":"response.output_text.delta","output_index":100000000,"delta":"x"}`)); len(parts) != 0 || len(p.items) != 0 {
		t.Fatalf("a claimed index made %d parts, %d items", len(parts), len(p.items))
	}
	if parts := p.Next([]byte(`{"type":"response.output_text.delta","output_index":3,"delta":"x"}`)); len(parts) != 2 {
		t.Fatalf("a near index: %d parts", len(parts))
	}
}

// FuzzParser: any sequence of events (one a line) never panics, and the
// chat stream ends in [DONE] or an error before its first byte.
func FuzzParser(f *testing.F) {
	for _, name := range []string{"vercel-azure-tool-call.1.jsonl", "vercel-openai-custom-tool.1.jsonl", "vercel-openai-reasoning-encrypted-content.1.part0.jsonl"} {
		evs := events(f, filepath.Join(corpusDir(f), name))
		f.Add(bytes.Join(evs, []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, c := chat(bytes.Split(data, []byte("\n")))
		if c.Err() == nil && !bytes.HasSuffix(out, []byte("data: [DONE]\n\n")) {
			t.Fatalf("no [DONE]: %s", out)
		}
		if c.Err() != nil && len(out) != 0 {
			t.Fatalf("bytes before an error that had none")
		}
	})
}
