package translate

import (
	"bytes"
	"testing"
)

// Release after every call changes nothing in the stream, and between two
// calls the translator holds no event buffer; the Response handed to
// Commit and Abandon's answer stay whole.
func TestRelease(t *testing.T) {
	_, chunks := benchStream(t)
	req := request(t, `{"model":"m","input":"hi","instructions":"be brief","tools":[`+
		`{"type":"function","name":"get_weather","parameters":{"type":"object"}},`+
		`{"type":"function","name":"get_time","parameters":{"type":"object"}}]}`)
	run := func(release bool, cut int) (out, committed, abandoned []byte) {
		opts := Options{IDs: &SeqIDs{}, Clock: clock, Commit: func(b []byte) error { committed = append([]byte(nil), b...); return nil }}
		tr := NewChatToResponses(req, opts)
		step := func(evs []Event) {
			out = AppendSSE(out, evs)
			if release {
				tr.Release()
				if x := tr.(*translator); x.buf != nil && x.final == nil { // the terminal Response stays
					t.Fatalf("released, the translator still holds %d bytes", cap(x.buf))
				}
			}
		}
		step(tr.Start())
		for i, c := range chunks {
			if i == cut {
				return out, committed, tr.Abandon()
			}
			step(tr.Next(c))
		}
		step(tr.Finish())
		return out, committed, tr.Abandon()
	}
	for _, cut := range []int{-1, 7, len(chunks) / 2} {
		kept, keptCommit, keptAbandon := run(false, cut)
		released, relCommit, relAbandon := run(true, cut)
		if !bytes.Equal(kept, released) {
			t.Fatalf("cut %d: the stream differs with Release", cut)
		}
		if !bytes.Equal(keptCommit, relCommit) || !bytes.Equal(keptAbandon, relAbandon) || len(relCommit) == 0 || !bytes.Equal(relCommit, relAbandon) {
			t.Fatalf("cut %d: the committed Response differs with Release:\n%s\n%s", cut, keptCommit, relCommit)
		}
	}
}
