package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	"github.com/transponder-dev/transponder/runtime/store"
)

// The proof that a dialect is needed and that the data-driven one works:
// a three-turn tool loop through the gateway, over fakes of DeepSeek and
// Kimi that refuse, as those providers do, a thinking-mode tool turn
// replayed without its reasoning_content (internal/fakeupstream). The
// client acts as Codex does: it replays the output items it got, with its
// tool outputs, and asks for reasoning.encrypted_content (store:false),
// or chains by previous_response_id (store:true).

// deepseekScript is the fake's answers, from DeepSeek's recorded streams
// (../shared/corpus/chat-sse): a tool call, the same turn again with
// another call id and arguments (the recording has one tool turn; its
// reasoning chunks stay as recorded), then reasoning and a text answer.
// It also returns the reasoning DeepSeek wants back on each tool turn.
func deepseekScript(t *testing.T) (script []fakeupstream.Chunks, toolReasoning string) {
	t.Helper()
	d := fixtures.SharedDir(filepath.Join("..", ".."))
	dir := filepath.Join(d, "corpus", "chat-sse")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("no shared corpus at %s (set SHARED_DIR)", d)
	}
	call, err := fakeupstream.ReadChunks(filepath.Join(dir, "vercel-deepseek-tool-call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := call.WithToolCall("call_01_fakeupstreamSecondCall", "weather", `{"location":"Paris"}`)
	if err != nil {
		t.Fatal(err)
	}
	text, err := fakeupstream.ReadChunks(filepath.Join(dir, "vercel-deepseek-reasoning.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if call.ReasoningContent() == "" || text.ReasoningContent() == "" {
		t.Fatal("the recordings have no reasoning_content")
	}
	return []fakeupstream.Chunks{call, again, text}, call.ReasoningContent()
}

const loopTool = `{"type":"function","name":"weather","description":"The weather in a location","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}`

// loopOpts is how the client runs the loop.
type loopOpts struct {
	stream  bool
	stored  bool // store:true and previous_response_id; else store:false and the whole input replayed
	include bool // include reasoning.encrypted_content (the Transponder blob); else the reasoning comes back as reasoning_text
}

// turnResult is one turn as the client saw it.
type turnResult struct {
	status int
	body   []byte // the Response (streamed: the terminal event's), or the error body
}

// runLoop runs up to three turns of the tool loop against the gateway at
// url, stopping at the first turn that fails. Every Response and stream
// the gateway emits must pass the conformance checker.
func runLoop(t *testing.T, url string, o loopOpts) []turnResult {
	t.Helper()
	input := []json.RawMessage{json.RawMessage(`{"type":"message","role":"user","content":"What is the weather in San Francisco, then in Paris?"}`)}
	var out []turnResult
	prev := ""
	for turn := 1; turn <= 3; turn++ {
		req := map[string]any{"model": "deepseek-reasoner", "tools": []json.RawMessage{json.RawMessage(loopTool)}, "stream": o.stream, "store": o.stored}
		if o.include {
			req["include"] = []string{"reasoning.encrypted_content"}
		}
		if o.stored && prev != "" {
			req["previous_response_id"] = prev
			req["input"] = input[len(input)-1:] // the tool output only
		} else {
			req["input"] = input
		}
		body, _ := json.Marshal(req)
		resp, got := do(t, url, "", string(body))
		r := turnResult{status: resp.StatusCode, body: got}
		if resp.StatusCode != 200 {
			out = append(out, r)
			return out
		}
		if o.stream {
			var events [][]byte
			for rd := sse.NewReader(bytes.NewReader(got)); rd.Next(); {
				events = append(events, append([]byte(nil), rd.Event().Data...))
			}
			if fs := conformance.Check(events); conformance.Violations(fs) > 0 {
				t.Fatalf("turn %d: the stream breaks the checker: %v", turn, fs)
			}
			r.body = terminal(t, events)
		} else if fs := conformance.CheckResponse(got); conformance.Violations(fs) > 0 {
			t.Fatalf("turn %d: the Response breaks the checker: %v", turn, fs)
		}
		out = append(out, r)
		var res struct {
			ID     string            `json:"id"`
			Status string            `json:"status"`
			Output []json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(r.body, &res); err != nil || res.Status != "completed" {
			t.Fatalf("turn %d: %s", turn, r.body)
		}
		prev = res.ID
		calls := 0
		for _, it := range res.Output {
			var head struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			}
			_ = json.Unmarshal(it, &head)
			input = append(input, it)
			if head.Type == "function_call" {
				calls++
				input = append(input, json.RawMessage(fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":"sunny, 21 C"}`, head.CallID)))
			}
		}
		if calls == 0 {
			break
		}
	}
	return out
}

// toolTurns are the assistant messages with tool calls of a chat request.
func toolTurns(t *testing.T, body []byte) []map[string]json.RawMessage {
	t.Helper()
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	for _, m := range req.Messages {
		if string(m["role"]) == `"assistant"` && len(m["tool_calls"]) > 0 && string(m["tool_calls"]) != "null" {
			out = append(out, m)
		}
	}
	return out
}

// thinkingUpstream is a fake of the dialect's provider.
func thinkingUpstream(d mapping.Dialect, script []fakeupstream.Chunks) *fakeupstream.Thinking {
	if d == mapping.Kimi {
		return fakeupstream.Kimi(script...)
	}
	return fakeupstream.DeepSeek(script...)
}

// With its dialect, the loop completes on DeepSeek and on Kimi however the
// client runs it, and every tool turn goes back with the reasoning the
// provider gave for it, byte for byte: from the Transponder blob, from
// the reasoning_text of an item without one, or from the stored chain.
func TestDialectThinkingToolLoop(t *testing.T) {
	script, reasoning := deepseekScript(t)
	want, _ := json.Marshal(reasoning)
	for _, d := range []mapping.Dialect{mapping.Deepseek, mapping.Kimi} {
		for _, c := range []struct {
			name string
			o    loopOpts
		}{
			{"streamed, store false, encrypted content", loopOpts{stream: true, include: true}},
			{"not streamed, store false, encrypted content", loopOpts{include: true}},
			{"streamed, store false, reasoning text", loopOpts{stream: true}},
			{"streamed, stored chain", loopOpts{stream: true, stored: true, include: true}},
			{"not streamed, stored chain", loopOpts{stored: true}},
		} {
			t.Run(d.String()+"/"+c.name, func(t *testing.T) {
				up := thinkingUpstream(d, script)
				cfg := gateway.Config{Upstream: gateway.Upstream{Dialect: d}}
				if c.o.stored {
					cfg.Store = openStore(t, store.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "store.db")})
				}
				s := newStack(t, up, cfg)
				turns := runLoop(t, s.gw.URL, c.o)
				if len(turns) != 3 {
					t.Fatalf("%d turns, want 3; the last: %d %s", len(turns), turns[len(turns)-1].status, turns[len(turns)-1].body)
				}
				for i, r := range turns {
					if r.status != 200 {
						t.Fatalf("turn %d: %d %s", i+1, r.status, r.body)
					}
				}
				var last struct {
					Output []struct {
						Type    string `json:"type"`
						Content []struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"output"`
				}
				_ = json.Unmarshal(turns[2].body, &last)
				if n := len(last.Output); n == 0 || last.Output[n-1].Type != "message" || len(last.Output[n-1].Content) == 0 || last.Output[n-1].Content[0].Text == "" {
					t.Errorf("turn 3 is not the recorded text answer: %s", turns[2].body)
				}
				reqs := up.Requests()
				if len(reqs) != 3 {
					t.Fatalf("the upstream got %d requests, want 3", len(reqs))
				}
				for i, body := range reqs {
					tt := toolTurns(t, body)
					if len(tt) != i {
						t.Fatalf("request %d has %d assistant tool turns, want %d: %s", i+1, len(tt), i, body)
					}
					for j, m := range tt {
						if !bytes.Equal(m["reasoning_content"], want) {
							t.Errorf("request %d, tool turn %d: reasoning_content %s, want the recorded %s", i+1, j+1, m["reasoning_content"], want)
						}
					}
				}
			})
		}
	}
}

// The same loop with the OpenAI dialect (what any OpenAI-compatible
// endpoint gets): the reasoning is not carried back, DeepSeek refuses
// turn 2, and the client gets that refusal as an OpenAI error.
func TestDialectOpenAIRefusedByDeepSeek(t *testing.T) {
	script, _ := deepseekScript(t)
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			up := fakeupstream.DeepSeek(script...)
			s := newStack(t, up, gateway.Config{Upstream: gateway.Upstream{Dialect: mapping.OpenAI}})
			turns := runLoop(t, s.gw.URL, loopOpts{stream: stream, include: true})
			if len(turns) != 2 || turns[0].status != 200 {
				t.Fatalf("%d turns (want 2: the second refused): %+v", len(turns), turns)
			}
			r := turns[1]
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(r.body, &e); err != nil || r.status != 400 || e.Error.Type != "invalid_request_error" ||
				!strings.Contains(e.Error.Message, fakeupstream.DeepSeekMissingReasoning) {
				t.Errorf("turn 2: %d %s, want DeepSeek's 400 as an OpenAI error", r.status, r.body)
			}
			if tt := toolTurns(t, up.Requests()[1]); len(tt) != 1 || tt[0]["reasoning_content"] != nil {
				t.Errorf("the OpenAI dialect's turn 2 upstream: %s", up.Requests()[1])
			}
		})
	}
}
