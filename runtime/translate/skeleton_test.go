package translate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/internal/fixtures"
)

// A stream's translator reads its chunks against skeletons
// (codec/skeleton.go): the events are byte for byte those of a translator
// whose chunks are each decoded whole — every recorded chat stream and the
// bench stream, for a request with tools and encrypted reasoning and one
// without — and pass the conformance checker.
func TestSkeletonsChangeNoEvent(t *testing.T) {
	ps, err := fixtures.Corpus(shared(t))
	if err != nil {
		t.Fatal(err)
	}
	var streams [][][]byte
	for _, f := range fixtures.ByFile(ps) {
		if strings.HasPrefix(f.Name, "chat-sse/") {
			streams = append(streams, f.Payloads)
		}
	}
	_, bench := benchStream(t)
	streams = append(streams, bench)
	reqs := []*Request{
		request(t, `{"model":"m","input":"hi"}`),
		request(t, `{"model":"m","input":"hi","include":["reasoning.encrypted_content","message.output_text.logprobs"],"tools":[`+
			`{"type":"function","name":"get_weather","parameters":{"type":"object"}},`+
			`{"type":"function","name":"get_time","parameters":{"type":"object"}}]}`),
	}
	// translate returns the stream's SSE, how many chunks were read
	// against a skeleton, and the events' data (for the checker).
	translate := func(req *Request, chunks [][]byte, skeletons bool) ([]byte, int, [][]byte) {
		ids := &SeqIDs{}
		tr := NewChatToResponses(req, Options{IDs: ids, Clock: clock}).(*translator)
		tr.doc.Skeletons(skeletons)
		var out []byte
		var data [][]byte
		add := func(evs []Event) {
			out = AppendSSE(out, evs)
			for _, e := range evs {
				data = append(data, bytes.Clone(e.Data))
			}
		}
		add(tr.Start())
		for _, c := range chunks {
			add(tr.Next(bytes.Clone(c)))
		}
		add(tr.Finish())
		return out, tr.doc.SkeletonHits(), data
	}
	hits, chunks := 0, 0
	for _, req := range reqs {
		for i, s := range streams {
			with, n, events := translate(req, s, true)
			checkStream(t, events)
			without, _, _ := translate(req, s, false)
			if !bytes.Equal(with, without) {
				t.Errorf("stream %d: with skeletons\n%s\nwithout\n%s", i, with, without)
			}
			hits, chunks = hits+n, chunks+len(s)
		}
	}
	if hits < chunks/2 {
		t.Errorf("%d of %d chunks read against a skeleton", hits, chunks)
	}
	t.Logf("%d of %d chunks read against a skeleton", hits, chunks)
}
