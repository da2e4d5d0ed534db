package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/fakeupstream"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
)

// codexHistory is the body of Codex's recorded second turn: its
// instructions as developer messages, an exec_command call with OpenAI's
// call_… id and its output, web search among its tools.
func codexHistory(t *testing.T) []byte {
	t.Helper()
	return codexRequest(t, "codex-0.169.0-gpt-5.1-fallback-turn2-after-exec_command.json")
}

// codexRequest is the body of a recorded request of
// ../shared/corpus/requests.
func codexRequest(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusRequests(), name))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Body
}

func corpusRequests() string {
	wd, _ := os.Getwd()
	return filepath.Join(fixtures.SharedDir(filepath.Join(wd, "..", "..")), "corpus", "requests")
}

// Every recorded Codex request, sent to Mistral through the gateway, is
// one Mistral takes.
func TestMistralTakesCodexRequests(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(corpusRequests(), "codex-*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no recorded Codex requests (%v)", err)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			fake, url := mistralGateway(t, mapping.Mistral)
			resp, err := http.Post(url+"/v1/responses", "application/json", bytes.NewReader(codexRequest(t, filepath.Base(name))))
			if err != nil {
				t.Fatal(err)
			}
			evs := readAllEvents(t, resp)
			got := fake.Received()
			if len(got) != 1 || got[0].Status != http.StatusOK {
				t.Fatalf("Mistral would refuse it: %+v", got)
			}
			if fs := conformance.Check(evs); conformance.Violations(fs) > 0 {
				t.Fatalf("the stream breaks the checker: %v", fs)
			}
		})
	}
}

// readAllEvents reads a streamed response's events to its end.
func readAllEvents(t *testing.T, resp *http.Response) [][]byte {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var evs [][]byte
	rd := sse.NewReader(resp.Body)
	for rd.Next() {
		evs = append(evs, append([]byte(nil), rd.Event().Data...))
	}
	return evs
}

// mistralGateway is the gateway over a fake Mistral, speaking d.
func mistralGateway(t *testing.T, d mapping.Dialect) (*fakeupstream.Mistral, string) {
	t.Helper()
	fake := &fakeupstream.Mistral{}
	up := httptest.NewServer(fake)
	t.Cleanup(up.Close)
	gw := httptest.NewServer(gateway.New(gateway.Config{
		Upstream: gateway.Upstream{BaseURL: up.URL, Dialect: d},
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	}))
	t.Cleanup(gw.Close)
	return fake, gw.URL
}

// Codex's history replayed through the gateway to Mistral: the request
// Mistral gets has only fields it knows, and the exec_command call and its
// output go with one id of 9 letters and digits; the answer streams back
// as a conformant Responses stream, and not streamed as a Response.
func TestMistralReplaysCodexHistory(t *testing.T) {
	body := codexHistory(t)
	var callID string
	var item struct {
		Input []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &item); err != nil {
		t.Fatal(err)
	}
	for _, it := range item.Input {
		if it.Type == "function_call" {
			callID = it.CallID
		}
	}
	if fakeupstream.MistralID(callID) {
		t.Fatalf("the recorded call id %q fits Mistral's shape: the replay proves nothing", callID)
	}
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "no stream"}[stream], func(t *testing.T) {
			fake, url := mistralGateway(t, mapping.Mistral)
			req := body
			if !stream {
				req = bytes.Replace(body, []byte(`"stream": true`), []byte(`"stream": false`), 1)
				if bytes.Equal(req, body) {
					t.Fatal("the recording's stream flag was not found")
				}
			}
			resp, err := http.Post(url+"/v1/responses", "application/json", bytes.NewReader(req))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := fake.Received()
			if len(got) != 1 {
				t.Fatalf("the fake got %d requests", len(got))
			}
			if got[0].Status != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("Mistral would refuse the request: %d %s\nthe client got %d %s", got[0].Status, got[0].Refusal, resp.StatusCode, b)
			}
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			var sent struct {
				Messages []struct {
					Role       string `json:"role"`
					ToolCallID string `json:"tool_call_id"`
					ToolCalls  []struct {
						ID string `json:"id"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(got[0].Body, &sent); err != nil {
				t.Fatal(err)
			}
			var calls, outputs []string
			for _, m := range sent.Messages {
				for _, tc := range m.ToolCalls {
					calls = append(calls, tc.ID)
				}
				if m.Role == "tool" {
					outputs = append(outputs, m.ToolCallID)
				}
			}
			if len(calls) != 1 || len(outputs) != 1 || calls[0] != outputs[0] || !fakeupstream.MistralID(calls[0]) {
				t.Fatalf("the call went as %q and its output as %q", calls, outputs)
			}
			if stream {
				evs := readAllEvents(t, resp)
				if fs := conformance.Check(evs); conformance.Violations(fs) > 0 {
					t.Fatalf("the stream breaks the checker: %v", fs)
				}
				if last := evs[len(evs)-1]; !bytes.Contains(last, []byte(`"type":"response.completed"`)) || !bytes.Contains(last, []byte(fakeupstream.DefaultMistralText)) {
					t.Fatalf("last event %s", last)
				}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			var r struct {
				Status     string `json:"status"`
				OutputText string `json:"output_text"`
				Output     []struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"output"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.Status != "completed" || !bytes.Contains(b, []byte(fakeupstream.DefaultMistralText)) {
				t.Fatalf("response %s", b)
			}
		})
	}
}

// The same history sent in OpenAI's dialect is refused by Mistral, and the
// client gets Mistral's reason as an OpenAI error: what the mistral
// dialect is for. Codex's request is refused for its fields; a history
// with nothing Mistral lacks but OpenAI's call id, for the id.
func TestMistralRefusesOpenAIDialect(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   []byte
		status int
		says   string
	}{
		{"codex", codexHistory(t), 422, "Extra inputs are not permitted"},
		{"call id", []byte(`{"model":"mistral-small-latest","input":[{"role":"user","content":"ls"},` +
			`{"type":"function_call","call_id":"call_HkqzyQeJ2h0Ww8WJ9Ewz3Atn","name":"f","arguments":"{}"},` +
			`{"type":"function_call_output","call_id":"call_HkqzyQeJ2h0Ww8WJ9Ewz3Atn","output":"ok"}],` +
			`"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}}}]}`),
			400, "Tool call id was call_HkqzyQeJ2h0Ww8WJ9Ewz3Atn but must be a-z, A-Z, 0-9, with a length of 9."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range []mapping.Dialect{mapping.OpenAI, mapping.Mistral} {
				fake, url := mistralGateway(t, d)
				resp, err := http.Post(url+"/v1/responses", "application/json", bytes.NewReader(tc.body))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got := fake.Received()
				if len(got) != 1 {
					t.Fatalf("%s: the fake got %d requests", d, len(got))
				}
				if d == mapping.Mistral {
					if got[0].Status != http.StatusOK || resp.StatusCode != http.StatusOK {
						t.Errorf("mistral: the fake answered %d %s; the client got %d", got[0].Status, got[0].Refusal, resp.StatusCode)
					}
					continue
				}
				if got[0].Status != tc.status {
					t.Fatalf("the fake answered %d, want %d: %s", got[0].Status, tc.status, got[0].Refusal)
				}
				if resp.StatusCode != http.StatusBadRequest {
					t.Errorf("status %d for the upstream's %d", resp.StatusCode, got[0].Status)
				}
				var e struct {
					Error struct {
						Message string `json:"message"`
						Type    string `json:"type"`
					} `json:"error"`
				}
				if err := json.Unmarshal(b, &e); err != nil || e.Error.Type != "invalid_request_error" {
					t.Fatalf("not an OpenAI error (%v): %s", err, b)
				}
				if !strings.Contains(e.Error.Message, tc.says) {
					t.Errorf("the message %q does not say %q", e.Error.Message, tc.says)
				}
			}
		})
	}
}

// A call Mistral makes goes back to it with Mistral's own id, unchanged,
// on the call and on its output.
func TestMistralOwnCallIDRoundTrip(t *testing.T) {
	fake, url := mistralGateway(t, mapping.Mistral)
	fake.Answers = []fakeupstream.MistralAnswer{{Calls: []fakeupstream.MistralCall{{Name: "f", Arguments: `{"path":"."}`}}}}
	const tools = `"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]`
	resp, err := http.Post(url+"/v1/responses", "application/json", strings.NewReader(`{"model":"mistral-small-latest","input":"ls",`+tools+`}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var r struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(b, &r); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var call struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
	}
	for _, it := range r.Output {
		if err := json.Unmarshal(it, &call); err == nil && call.Type == "function_call" {
			break
		}
	}
	if call.Type != "function_call" || !fakeupstream.MistralID(call.CallID) {
		t.Fatalf("no call of Mistral's in %s", b)
	}
	var in bytes.Buffer
	in.WriteString(`{"model":"mistral-small-latest",` + tools + `,"input":[{"role":"user","content":"ls"}`)
	for _, it := range r.Output {
		in.WriteByte(',')
		in.Write(it)
	}
	in.WriteString(`,{"type":"function_call_output","call_id":"` + call.CallID + `","output":"a b c"}]}`)
	resp, err = http.Post(url+"/v1/responses", "application/json", &in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	got := fake.Received()
	if len(got) != 2 || got[1].Status != http.StatusOK || resp.StatusCode != http.StatusOK {
		t.Fatalf("second turn: %d %s", resp.StatusCode, b)
	}
	if n := bytes.Count(got[1].Body, []byte(`"`+call.CallID+`"`)); n != 2 {
		t.Errorf("Mistral's id %s is in the second request %d times, want 2 (the call, its output):\n%s", call.CallID, n, got[1].Body)
	}
}
