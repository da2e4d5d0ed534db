package fakeupstream_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/fakeupstream"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

func recording(t *testing.T, name string) fakeupstream.Chunks {
	t.Helper()
	d := fixtures.SharedDir(filepath.Join("..", ".."))
	if _, err := os.Stat(filepath.Join(d, "corpus")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("no shared corpus at %s (set SHARED_DIR)", d)
	}
	c, err := fakeupstream.ReadChunks(filepath.Join(d, "corpus", "chat-sse", name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func post(t *testing.T, h http.Handler, body string) (int, []byte) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

const (
	user      = `{"role":"user","content":"Weather in San Francisco?"}`
	toolTurn  = `{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{}"}}]%s}`
	toolReply = `{"role":"tool","tool_call_id":"call_1","content":"sunny"}`
)

func request(extra, reasoning string) string {
	return `{"model":"deepseek-reasoner","messages":[` + user + `,` + fmt.Sprintf(toolTurn, reasoning) + `,` + toolReply + `]` + extra + `}`
}

// The rule, as each provider words it: a tool turn without
// reasoning_content is refused in thinking mode; an empty one passes, and
// so does any tool turn with thinking disabled.
func TestThinkingRule(t *testing.T) {
	text := recording(t, "vercel-deepseek-reasoning.jsonl")
	for _, c := range []struct {
		name   string
		up     func() *fakeupstream.Thinking
		body   string
		status int
		want   string // the whole error body (or a part of it: not starting with "{"), or "" for an answer
	}{
		{"deepseek without", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request("", ""), 400,
			"{\"error\":{\"message\":\"The `reasoning_content` in the thinking mode must be passed back to the API.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request_error\"}}"},
		{"deepseek empty", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request("", `,"reasoning_content":""`), 200, ""},
		{"deepseek null", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request("", `,"reasoning_content":null`), 400, "must be passed back"},
		{"deepseek thinking disabled", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request(`,"thinking":{"type":"disabled"}`, ""), 200, ""},
		{"deepseek thinking enabled", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request(`,"thinking":{"type":"enabled"}`, ""), 400, "must be passed back"},
		{"deepseek logprobs", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request(`,"logprobs":true,"top_logprobs":2`, `,"reasoning_content":"r"`), 400, "logprobs is not supported in thinking mode"},
		{"deepseek logprobs without thinking", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request(`,"logprobs":true,"thinking":{"type":"disabled"}`, ""), 200, ""},
		{"kimi without", func() *fakeupstream.Thinking { return fakeupstream.Kimi(text) }, request("", ""), 400,
			`{"error":{"message":"thinking is enabled but reasoning_content is missing in assistant tool call message at index 1","type":"invalid_request_error"}}`},
		{"kimi with", func() *fakeupstream.Thinking { return fakeupstream.Kimi(text) }, request("", `,"reasoning_content":"r"`), 200, ""},
		// Stricter than the providers: what neither the dialect nor
		// OpenAI's spec documents is refused (OpenRouter's field here).
		{"deepseek reasoning_details", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, request("", `,"reasoning_content":"r","reasoning_details":[]`), 400, "messages[1].reasoning_details: unknown field"},
		{"not json", func() *fakeupstream.Thinking { return fakeupstream.DeepSeek(text) }, `{"model":`, 400, "not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := c.up()
			status, body := post(t, up, c.body)
			whole := strings.HasPrefix(c.want, "{")
			if status != c.status || whole && string(body) != c.want || !whole && !bytes.Contains(body, []byte(c.want)) {
				t.Fatalf("%d %s, want %d %s", status, body, c.status, c.want)
			}
			if status == 200 && !bytes.Contains(body, []byte(`"object":"chat.completion"`)) {
				t.Errorf("not a chat completion: %s", body)
			}
			if status == 400 && !json.Valid(body) {
				t.Errorf("the refusal is not JSON: %s", body)
			}
			if r := up.Requests(); len(r) != 1 || string(r[0]) != c.body {
				t.Errorf("recorded %q", r)
			}
		})
	}
}

// The script plays turn by turn (the number of assistant messages), the
// last recording once it runs out; streamed, the recording's chunks are
// the events, byte for byte, then [DONE]; not streamed, the completion
// they add up to.
func TestThinkingAnswers(t *testing.T) {
	call := recording(t, "vercel-deepseek-tool-call.jsonl")
	text := recording(t, "vercel-deepseek-reasoning.jsonl")
	up := fakeupstream.DeepSeek(call, text)

	status, body := post(t, up, `{"model":"deepseek-reasoner","stream":true,"messages":[`+user+`]}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	var events [][]byte
	for rd := sse.NewReader(bytes.NewReader(body)); rd.Next(); {
		events = append(events, append([]byte(nil), rd.Event().Data...))
	}
	if len(events) != len(call)+1 || string(events[len(events)-1]) != "[DONE]" {
		t.Fatalf("%d events, want %d chunks and [DONE]", len(events), len(call))
	}
	for i, c := range call {
		if !bytes.Equal(events[i], c) {
			t.Fatalf("event %d: %s, want %s", i, events[i], c)
		}
	}

	for _, c := range []struct {
		body, finish, content, args string
		rec                         fakeupstream.Chunks
	}{
		{`{"model":"deepseek-reasoner","messages":[` + user + `]}`, "tool_calls", "", `{"location": "San Francisco"}`, call},
		{request("", `,"reasoning_content":""`), "stop", "", "", text},
		{`{"model":"deepseek-reasoner","messages":[` + user + `,{"role":"assistant","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":"c"},` + user + `]}`, "stop", "", "", text},
	} {
		status, body := post(t, up, c.body)
		var got struct {
			Object  string `json:"object"`
			Choices []struct {
				Message struct {
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
					ToolCalls        []struct {
						ID       string `json:"id"`
						Function struct {
							Name, Arguments string
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(body, &got); status != 200 || err != nil || len(got.Choices) != 1 {
			t.Fatalf("%d %s", status, body)
		}
		m := got.Choices[0].Message
		if got.Object != "chat.completion" || got.Choices[0].FinishReason != c.finish || m.ReasoningContent != c.rec.ReasoningContent() || got.Usage.TotalTokens == 0 {
			t.Errorf("%s", body)
		}
		if c.args != "" && (len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != c.args || m.ToolCalls[0].Function.Name != "weather" || m.ToolCalls[0].ID == "") {
			t.Errorf("the tool call: %s", body)
		}
		if c.args == "" && (len(m.ToolCalls) != 0 || m.Content == "") {
			t.Errorf("the text answer: %s", body)
		}
	}
}

// A substituted tool call keeps the recording's reasoning and other
// chunks byte for byte.
func TestWithToolCall(t *testing.T) {
	call := recording(t, "vercel-deepseek-tool-call.jsonl")
	got, err := call.WithToolCall("call_x", "exec_command", `{"cmd":"echo hi"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got.ReasoningContent() != call.ReasoningContent() {
		t.Errorf("the reasoning changed")
	}
	var comp struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Name, Arguments string
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(got.Completion(), &comp); err != nil {
		t.Fatal(err)
	}
	tc := comp.Choices[0].Message.ToolCalls
	if len(tc) != 1 || tc[0].ID != "call_x" || tc[0].Function.Name != "exec_command" || tc[0].Function.Arguments != `{"cmd":"echo hi"}` {
		t.Errorf("%+v", tc)
	}
	kept := 0
	for _, c := range got {
		for _, o := range call {
			if bytes.Equal(c, o) {
				kept++
				break
			}
		}
	}
	if kept != len(got)-2 { // the call's opening and its one arguments delta are new
		t.Errorf("%d of %d chunks kept as recorded", kept, len(got))
	}
	text := recording(t, "vercel-deepseek-reasoning.jsonl")
	if _, err := text.WithToolCall("", "x", "{}"); err == nil {
		t.Error("a recording without a tool call took one")
	}
}

// The documented roles are the fake's own: a developer message is refused
// whatever the dialect's shape table says.
func TestThinkingRoles(t *testing.T) {
	for _, u := range []*fakeupstream.Thinking{fakeupstream.DeepSeek(), fakeupstream.Kimi()} {
		srv := httptest.NewServer(u)
		resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"developer","content":"x"},{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "messages[0].role: unknown variant `developer`") {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	}
}
