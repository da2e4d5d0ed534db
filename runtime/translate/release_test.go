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

// A translator given back to a StreamPool keeps nothing of its stream but
// memory (not its last chunk, request, options or warnings), and one that
// grew past maxPooledStream, a reasoning detail's data included, is not
// kept. A request that does not include reasoning.encrypted_content has
// no use for the details' data (encrypted_content replays them): its
// stream keeps none.
func TestStreamPoolKeeps(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi","include":["reasoning.encrypted_content"]}`)
	detail := func(data string) string {
		return `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"` + data + `","index":0}]},"finish_reason":null}]}`
	}
	runReq := func(req *Request, data string) *translator {
		tr := NewChatToResponses(req, Options{IDs: &SeqIDs{}, Clock: clock, Commit: func([]byte) error { return nil }})
		tr.Start()
		for range 4 {
			tr.Next([]byte(detail(data)))
		}
		tr.Next([]byte(`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}],"unknown_field":1}`))
		tr.Finish()
		return tr.(*translator)
	}
	run := func(data string) *translator { return runReq(req, data) }
	small := run("c21hbGw=")
	if n := small.retained(); n > maxPooledStream {
		t.Fatalf("a small stream retains %d bytes", n)
	}
	var pool StreamPool
	pool.Put(small)
	if small.req != nil || small.opts.Commit != nil || small.doc.Bytes() != nil || len(small.Warnings()) > 0 || len(small.doc.Findings()) > 0 {
		t.Errorf("a pooled translator keeps its stream's request, options, chunk or warnings")
	}
	big := run(string(bytes.Repeat([]byte("QUJD"), maxPooledStream/4/4+1))) // four pieces of a detail's data, joined
	if n := big.retained(); n <= maxPooledStream {
		t.Errorf("a stream with %d bytes of reasoning details retains %d", maxPooledStream+16, n)
	}
	plain := runReq(request(t, `{"model":"m","input":"hi"}`), string(bytes.Repeat([]byte("QUJD"), maxPooledStream/4/4+1)))
	if n := plain.retained(); n > maxPooledStream/16 {
		t.Errorf("a stream of a request without encrypted_content retains %d bytes of reasoning details", n)
	}
}
