package translate

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/conformance"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var clock = func() time.Time { return time.Unix(1767225600, 0) }

// request converts a Responses request and returns what translating its
// answer needs.
func request(t testing.TB, body string) *Request {
	t.Helper()
	var cv mapping.Converter
	if _, _, err := cv.ResponsesToChat(nil, []byte(body), mapping.Options{}); err != nil {
		t.Fatalf("request: %v", err)
	}
	r := RequestOf(&cv)
	// The library's other way, parsing the body again, reads the same.
	tm := cv.ToolMap()
	parsed, err := NewRequest([]byte(body), tm.Clone())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, parsed) {
		t.Fatalf("request: RequestOf and NewRequest differ:\n%+v\n%+v", r, parsed)
	}
	return r
}

// stream translates chunks and returns the events, checked: the stream
// must pass the conformance checker.
func stream(t testing.TB, req *Request, chunks [][]byte, cut error) [][]byte {
	t.Helper()
	tr := NewChatToResponses(req, Options{IDs: &SeqIDs{}, Clock: clock})
	var out [][]byte
	add := func(evs []Event) {
		for _, e := range evs {
			if !json.Valid(e.Data) {
				t.Fatalf("event %s is not JSON: %s", e.Type, e.Data)
			}
			out = append(out, append([]byte(nil), e.Data...))
		}
	}
	add(tr.Start())
	for _, c := range chunks {
		add(tr.Next(c))
	}
	if cut != nil {
		add(tr.Fail(cut))
	} else {
		add(tr.Finish())
	}
	add(tr.Finish()) // nothing after the terminal event
	add(tr.Next([]byte(`{"choices":[{"delta":{"content":"late"}}]}`)))
	checkStream(t, out)
	return out
}

// checkStream fails the test unless the events pass the checker (warnings
// about types newer than the spec aside).
func checkStream(t testing.TB, events [][]byte) {
	t.Helper()
	fs := conformance.Check(events)
	if conformance.Violations(fs) > 0 {
		var b strings.Builder
		for _, e := range events {
			b.Write(e)
			b.WriteByte('\n')
		}
		t.Fatalf("the stream breaks the checker: %v\n%s", fs, b.String())
	}
	term := terminalResponse(t, events)
	if fs := conformance.CheckResponse(term); conformance.Violations(fs) > 0 {
		t.Fatalf("terminal response: %v\n%s", fs, term)
	}
}

func terminalResponse(t testing.TB, events [][]byte) []byte {
	t.Helper()
	var e struct {
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(events[len(events)-1], &e); err != nil {
		t.Fatal(err)
	}
	return e.Response
}

func shared(t testing.TB) string {
	t.Helper()
	wd, _ := os.Getwd()
	return fixtures.SharedDir(filepath.Join(wd, "..", ".."))
}

// Every recorded chat stream, translated, passes the checker; its text,
// reasoning and calls arrive in the terminal response.
func TestCorpusStreams(t *testing.T) {
	ps, err := fixtures.Corpus(shared(t))
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, `{"model":"m","input":"hi","include":["reasoning.encrypted_content"],"tools":[`+
		`{"type":"function","name":"weather","parameters":{"type":"object"}},`+
		`{"type":"function","name":"get_weather","parameters":{"type":"object"}},`+
		`{"type":"function","name":"getWeather","parameters":{"type":"object"}},`+
		`{"type":"function","name":"calculator","parameters":{"type":"object"}}]}`)
	n := 0
	for _, f := range fixtures.ByFile(ps) {
		if !strings.HasPrefix(f.Name, "chat-sse/") {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			events := stream(t, req, f.Payloads, nil)
			var r struct {
				Status string
				Output []struct {
					Type    string
					Content []struct{ Text string }
					Summary []struct{ Text string }
					Name    string
				}
				Usage struct {
					InputTokens int `json:"input_tokens"`
				}
				Warnings []mapping.Warning `json:"transponder_warnings"`
			}
			if err := json.Unmarshal(terminalResponse(t, events), &r); err != nil {
				t.Fatal(err)
			}
			if r.Status != "completed" || len(r.Output) == 0 {
				t.Fatalf("status %s, %d items", r.Status, len(r.Output))
			}
			reported := false
			for _, c := range f.Payloads {
				reported = reported || strings.Contains(string(c), `"prompt_tokens"`)
			}
			if reported && r.Usage.InputTokens == 0 {
				t.Errorf("usage lost: %s", terminalResponse(t, events))
			}
			if !reported && !slices.ContainsFunc(r.Warnings, func(w mapping.Warning) bool { return w.Path == "usage" }) {
				t.Errorf("no usage and no warning: %+v", r.Warnings)
			}
			want := upstreamText(t, f.Payloads)
			var got string
			for _, it := range r.Output {
				if it.Type == "message" {
					for _, c := range it.Content {
						got += c.Text
					}
				}
			}
			if got != want {
				t.Errorf("text %q, upstream sent %q", got, want)
			}
		})
	}
	if n < 10 {
		t.Fatalf("%d recorded streams", n)
	}
}

// upstreamText joins the content deltas of a chat stream.
func upstreamText(t testing.TB, chunks [][]byte) string {
	var s string
	for _, c := range chunks {
		var ch struct {
			Choices []struct {
				Delta struct{ Content *string }
			}
		}
		if err := json.Unmarshal(c, &ch); err != nil {
			t.Fatal(err)
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != nil {
				s += *c.Delta.Content
			}
		}
	}
	return s
}

// A server sending one reasoning text as both reasoning and
// reasoning_content (vLLM while it renamed the field) gives it once; two
// different texts keep the first, with a warning.
func TestReasoningFieldsTwice(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi"}`)
	chunk := func(delta string) []byte {
		return []byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`)
	}
	end := []byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	for _, c := range []struct {
		name, a, b, want string
		warned           bool
	}{
		{"same", "think", "think", "think.", false},
		{"different", "think", "other", "think.", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			events := stream(t, req, [][]byte{
				chunk(`{"role":"assistant","reasoning":"` + c.a + `","reasoning_content":"` + c.b + `"}`),
				chunk(`{"reasoning":".","reasoning_content":"."}`),
				chunk(`{"content":"ok"}`), end}, nil)
			var r struct {
				Output []struct {
					Type    string
					Content []struct{ Text string }
				}
				Warnings []mapping.Warning `json:"transponder_warnings"`
			}
			if err := json.Unmarshal(terminalResponse(t, events), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Output) == 0 || r.Output[0].Type != "reasoning" || len(r.Output[0].Content) != 1 || r.Output[0].Content[0].Text != c.want {
				t.Errorf("reasoning %+v, want %q once", r.Output, c.want)
			}
			warned := slices.ContainsFunc(r.Warnings, func(w mapping.Warning) bool { return strings.Contains(w.Reason, "second reasoning text") })
			if warned != c.warned {
				t.Errorf("warned %v, want %v: %+v", warned, c.warned, r.Warnings)
			}
		})
	}
}
