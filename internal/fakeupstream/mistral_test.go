package fakeupstream

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func postMistral(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The fake refuses what Mistral refuses, with Mistral's bodies, and takes
// what it takes.
func TestMistralRefusals(t *testing.T) {
	fake := &Mistral{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	const tools = `"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"},"strict":false}}]`
	for _, tc := range []struct {
		name, body string
		status     int
		want       string // the exact body, for a refusal
	}{
		{"ok", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"D681PevKs","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"D681PevKs","name":"f","content":"ok"}],` + tools + `,"tool_choice":{"type":"function","function":{"name":"f"}},"random_seed":1,"safe_prompt":false}`,
			200, ""},
		{"foreign call id", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_abc","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_abc","content":"ok"}]}`,
			400, `{"object":"error","message":"Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_request_error","param":null,"code":null}`},
		{"foreign output id", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"abc-defgh","content":"ok"}]}`,
			400, `{"object":"error","message":"Tool call id was abc-defgh but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_request_error","param":null,"code":null}`},
		{"output of no call", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"D681PevKs","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"XXXXXXXXX","content":"ok"}]}`,
			400, `{"object":"error","message":"Unexpected tool call id XXXXXXXXX in tool results.","type":"invalid_request_error","param":null,"code":null}`},
		{"extra fields at every depth", `{"model":"m","stream_options":{"include_usage":true},"messages":[{"role":"user","content":[{"type":"text","text":"hi","prompt_cache_breakpoint":{}}],"name":"u"},` +
			`{"role":"assistant","refusal":"no","tool_calls":[{"id":"D681PevKs","type":"function","function":{"name":"f","arguments":"{}","x":1}}]},{"role":"tool","tool_call_id":"D681PevKs","content":"ok"}],` +
			`"tools":[{"type":"function","function":{"name":"f","parameters":{}},"cache_control":{}}]}`,
			422, `{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}},` +
				`{"type":"extra_forbidden","loc":["body","messages",0,"user","name"],"msg":"Extra inputs are not permitted","input":"u"},` +
				`{"type":"extra_forbidden","loc":["body","messages",0,"user","content",0,"text","prompt_cache_breakpoint"],"msg":"Extra inputs are not permitted","input":{}},` +
				`{"type":"extra_forbidden","loc":["body","messages",1,"assistant","refusal"],"msg":"Extra inputs are not permitted","input":"no"},` +
				`{"type":"extra_forbidden","loc":["body","messages",1,"assistant","tool_calls",0,"function","x"],"msg":"Extra inputs are not permitted","input":1},` +
				`{"type":"extra_forbidden","loc":["body","tools",0,"cache_control"],"msg":"Extra inputs are not permitted","input":{}}]}`},
		{"developer role", `{"model":"m","messages":[{"role":"developer","content":"d"},{"role":"user","content":"hi"}]}`,
			422, `{"detail":[{"type":"union_tag_invalid","loc":["body","messages",0],"msg":"Input tag 'developer' found using 'role' does not match any of the expected tags: 'system', 'user', 'assistant', 'tool'","input":{"role":"developer","content":"d"}}]}`},
		// Validation comes first, as Mistral's does.
		{"extra field and foreign id", `{"model":"m","user":"u","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_abc","content":"ok"}]}`,
			422, `{"detail":[{"type":"extra_forbidden","loc":["body","user"],"msg":"Extra inputs are not permitted","input":"u"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postMistral(t, srv.URL, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if tc.want != "" && body != tc.want {
				t.Errorf("body\n%s\nwant\n%s", body, tc.want)
			}
			got := fake.Received()
			if last := got[len(got)-1]; string(last.Body) != tc.body || last.Status != status {
				t.Errorf("recorded %d %s", last.Status, last.Body)
			}
		})
	}
}

// Its answers: scripted tool calls with ids of Mistral's shape, the same
// every run; text; streamed as chunks ending in [DONE].
func TestMistralAnswers(t *testing.T) {
	run := func() (string, string, string) {
		fake := &Mistral{Answers: []MistralAnswer{{Calls: []MistralCall{{Name: "f", Arguments: `{"a":1}`}, {Name: "g", Arguments: `{}`}}}}}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		const req = `{"model":"mistral-small-latest","messages":[{"role":"user","content":"hi"}]}`
		_, calls := postMistral(t, srv.URL, req)
		_, text := postMistral(t, srv.URL, req)
		_, stream := postMistral(t, srv.URL, `{"model":"mistral-small-latest","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
		return calls, text, stream
	}
	calls, text, stream := run()
	var c struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(calls), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Choices) != 1 || c.Choices[0].FinishReason != "tool_calls" || len(c.Choices[0].Message.ToolCalls) != 2 {
		t.Fatalf("calls answer %s", calls)
	}
	if a, b := c.Choices[0].Message.ToolCalls[0].ID, c.Choices[0].Message.ToolCalls[1].ID; !MistralID(a) || !MistralID(b) || a == b {
		t.Errorf("call ids %q %q", a, b)
	}
	if !strings.Contains(text, `"content":"`+DefaultMistralText+`"`) || !strings.Contains(text, `"finish_reason":"stop"`) {
		t.Errorf("text answer %s", text)
	}
	var joined strings.Builder
	sc := bufio.NewScanner(strings.NewReader(stream))
	var last string
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		last = line
		if line == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(line), &ch); err != nil {
			t.Fatalf("chunk %s: %v", line, err)
		}
		joined.WriteString(ch.Choices[0].Delta.Content)
	}
	if joined.String() != DefaultMistralText || last != "[DONE]" {
		t.Errorf("stream gave %q, ending %q", joined.String(), last)
	}
	if c2, t2, s2 := run(); c2 != calls || t2 != text || s2 != stream {
		t.Error("the answers differ from one run to the next")
	}
}
