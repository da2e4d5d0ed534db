package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
)

// The upstream's content logprobs reach the output_text part (LogProb,
// with bytes) and each output_text.delta (ResponseLogProb) when the
// request's include asks for message.output_text.logprobs; without it, as
// OpenAI, the part's logprobs are [] (and nothing is warned: the client
// did not ask), stream or not.
func TestLogprobsByInclude(t *testing.T) {
	up, _ := os.ReadFile("testdata/logprobs/upstream.sse")
	chunks := sseData(t, up)
	body, _ := os.ReadFile("testdata/logprobs/upstream.json")
	for _, c := range []struct {
		req    string
		tokens int
	}{
		{`{"model":"m","input":"hi","include":["message.output_text.logprobs"],"top_logprobs":2}`, 4},
		{`{"model":"m","input":"hi","top_logprobs":2}`, 0},
	} {
		req := request(t, c.req)
		ev := stream(t, req, chunks, nil)
		deltas := 0
		for _, e := range ev {
			var d struct {
				Type     string
				Logprobs []struct{ Token string }
			}
			_ = json.Unmarshal(e, &d)
			if d.Type == "response.output_text.delta" {
				deltas += len(d.Logprobs)
			}
		}
		resp, warns, err := ChatToResponse(req, body, Options{IDs: &SeqIDs{}, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][]byte{terminalResponse(t, ev), resp} {
			var x struct {
				Output []struct {
					Content []struct {
						Logprobs []struct {
							Token string
							Bytes []int
						}
					}
				}
			}
			if err := json.Unmarshal(r, &x); err != nil {
				t.Fatal(err)
			}
			lps := x.Output[0].Content[0].Logprobs
			if len(lps) != c.tokens || c.tokens > 0 && fmt.Sprint(lps[3].Bytes) != "[32 195 169 33]" { // null upstream: " é!" in UTF-8
				t.Errorf("%s: part logprobs %+v, want %d", c.req, lps, c.tokens)
			}
		}
		if deltas != c.tokens || len(warns) != 0 {
			t.Errorf("%s: %d logprobs in the deltas, want %d; warnings %v", c.req, deltas, c.tokens, warns)
		}
	}
}

func sseData(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	rd := sse.NewReader(bytes.NewReader(b))
	for rd.Next() {
		if e := rd.Event(); !e.Done() {
			out = append(out, append([]byte(nil), e.Data...))
		}
	}
	return out
}
