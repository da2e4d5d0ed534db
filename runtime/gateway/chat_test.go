package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// The reverse direction over a fake Responses upstream that replays the
// recorded Responses streams of ../shared/corpus/responses-sse/ (a
// request's last message containing "#rec:NAME" picks vercel-NAME.1.jsonl;
// else the upstream's next name): streamed as SSE, or, not streamed, the
// terminal event's Response.

type responsesReplay struct {
	t    *testing.T
	dir  string
	mu   sync.Mutex
	next []string
	reqs [][]byte
}

func newResponsesReplay(t *testing.T, next ...string) *responsesReplay {
	wd, _ := os.Getwd()
	return &responsesReplay{t: t, dir: filepath.Join(fixtures.SharedDir(filepath.Join(wd, "..", "..")), "corpus", "responses-sse"), next: next}
}

func (u *responsesReplay) requests() [][]byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([][]byte(nil), u.reqs...)
}

func (u *responsesReplay) events(name string) [][]byte {
	data, err := os.ReadFile(filepath.Join(u.dir, "vercel-"+name+".jsonl"))
	if err != nil {
		u.t.Errorf("recording %s: %v", name, err)
		return nil
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

func (u *responsesReplay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	name := ""
	if _, after, ok := strings.Cut(string(body), "#rec:"); ok {
		name, _, _ = strings.Cut(after, `"`)
	}
	u.mu.Lock()
	u.reqs = append(u.reqs, body)
	if name == "" && len(u.next) > 0 {
		name, u.next = u.next[0], u.next[1:]
	}
	u.mu.Unlock()
	events := u.events(name)
	if len(events) == 0 {
		http.Error(w, `{"error":{"message":"no recording `+name+`","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	var req struct{ Stream bool }
	_ = json.Unmarshal(body, &req)
	if !req.Stream {
		var last struct{ Response json.RawMessage }
		_ = json.Unmarshal(events[len(events)-1], &last)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(last.Response)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		var h struct{ Type string }
		_ = json.Unmarshal(e, &h)
		_, _ = io.WriteString(w, "event: "+h.Type+"\ndata: ")
		_, _ = w.Write(e)
		_, _ = io.WriteString(w, "\n\n")
	}
}

// chatStack is a gateway whose Responses upstream replays recordings.
type chatStack struct {
	up     *responsesReplay
	url    string
	client openai.Client
}

func newChatStack(t *testing.T, next ...string) *chatStack {
	up := newResponsesReplay(t, next...)
	rsrv := httptest.NewServer(up)
	t.Cleanup(rsrv.Close)
	s := newStack(t, http.NotFoundHandler(), gateway.Config{ResponsesUpstream: gateway.Upstream{BaseURL: rsrv.URL + "/v1", Dialect: mapping.OpenAI}, IDs: &translate.SeqIDs{}})
	return &chatStack{up: up, url: s.gw.URL, client: openai.NewClient(option.WithBaseURL(s.gw.URL+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))}
}

// chatSSE posts a streamed chat request and returns its chunks (the data
// lines, [DONE] included), checked by the chat stream checker.
func (c *chatStack) chatSSE(t *testing.T, body string) [][]byte {
	t.Helper()
	resp, err := http.Post(c.url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var chunks [][]byte
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			chunks = append(chunks, []byte(d))
		}
	}
	if fs := conformance.CheckChat(chunks); conformance.Violations(fs) > 0 {
		t.Fatalf("the chat stream breaks the checker: %v", fs)
	}
	return chunks
}

// terminalText is the text of a recording's terminal Response.
func (u *responsesReplay) terminalText(name string) string {
	evs := u.events(name)
	var last struct {
		Response struct {
			Output []struct {
				Type    string
				Content []struct{ Type, Text string }
			}
		}
	}
	_ = json.Unmarshal(evs[len(evs)-1], &last)
	var parts []string
	for _, o := range last.Response.Output {
		for _, c := range o.Content {
			if o.Type == "message" && c.Type == "output_text" {
				parts = append(parts, c.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// openai-go's chat completions against the reverse route: not streamed,
// streamed (accumulated; the stream passes the chat checker), and a tool
// loop over two turns whose second Responses request holds the call and
// its output as items — no role "tool", the system message an input
// item, flat tools, store false.
func TestChatCompletionsSDK(t *testing.T) {
	ctx := context.Background()
	t.Run("not streamed", func(t *testing.T) {
		c := newChatStack(t, "azure-text.1")
		r, err := c.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-5.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		if want := c.up.terminalText("azure-text.1"); r.Choices[0].Message.Content != want || r.Choices[0].FinishReason != "stop" || r.Usage.TotalTokens == 0 {
			t.Fatalf("%q (want %q) %s %+v", r.Choices[0].Message.Content, want, r.Choices[0].FinishReason, r.Usage)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		c := newChatStack(t, "azure-text.1", "azure-text.1")
		st := c.client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "gpt-5.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
		var acc openai.ChatCompletionAccumulator
		for st.Next() {
			acc.AddChunk(st.Current())
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		if want := c.up.terminalText("azure-text.1"); acc.Choices[0].Message.Content != want || acc.Choices[0].FinishReason != "stop" {
			t.Fatalf("%q (want %q) %s", acc.Choices[0].Message.Content, want, acc.Choices[0].FinishReason)
		}
		c.chatSSE(t, `{"model":"gpt-5.1","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	})
	t.Run("tool loop", func(t *testing.T) {
		c := newChatStack(t, "azure-tool-call.1", "azure-text.1")
		tools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "weather", Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}}})}
		msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Weather in Berlin?")}
		r1, err := c.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-5.1", Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if len(r1.Choices[0].Message.ToolCalls) != 1 || r1.Choices[0].FinishReason != "tool_calls" {
			t.Fatalf("turn 1: %s", r1.RawJSON())
		}
		call := r1.Choices[0].Message.ToolCalls[0]
		msgs = append(msgs, r1.Choices[0].Message.ToParam(), openai.ToolMessage(`{"temperature":21}`, call.ID))
		r2, err := c.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-5.1", Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if r2.Choices[0].Message.Content == "" {
			t.Fatalf("turn 2: %s", r2.RawJSON())
		}
		reqs := c.up.requests()
		var second struct {
			Input []map[string]any
			Tools []map[string]any
			Store *bool
		}
		if err := json.Unmarshal(reqs[1], &second); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, it := range second.Input {
			if it["role"] == "tool" {
				t.Fatalf("a role tool item reached the Responses input: %s", reqs[1])
			}
			typ, _ := it["type"].(string)
			if typ == "" || typ == "message" {
				typ = "message:" + it["role"].(string)
			}
			types = append(types, typ)
		}
		if got := strings.Join(types, ","); got != "message:system,message:user,function_call,function_call_output" {
			t.Fatalf("turn 2's input: %s\n%s", got, reqs[1])
		}
		if second.Input[2]["call_id"] != call.ID || second.Input[3]["call_id"] != call.ID || second.Input[2]["name"] != "weather" {
			t.Fatalf("the call and its output do not pair: %s", reqs[1])
		}
		if len(second.Tools) != 1 || second.Tools[0]["type"] != "function" || second.Tools[0]["name"] != "weather" || second.Store == nil || *second.Store {
			t.Fatalf("tools flat and store false: %s", reqs[1])
		}
	})
}

// Every recorded Responses stream, through the reverse route: a chat
// stream that passes the chat checker (an error recording ends in the
// error chunk), never a 500.
func TestChatCorpusStreams(t *testing.T) {
	c := newChatStack(t)
	names, _ := filepath.Glob(filepath.Join(c.up.dir, "vercel-*.jsonl"))
	if len(names) == 0 {
		t.Fatal("no recordings")
	}
	for _, p := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "vercel-"), ".jsonl")
		t.Run(name, func(t *testing.T) {
			c.up.mu.Lock()
			c.up.next = []string{name}
			c.up.mu.Unlock()
			resp, err := http.Post(c.url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 {
				if resp.StatusCode >= 500 && resp.StatusCode != 502 && resp.StatusCode != 503 || !bytes.Contains(body, []byte(`"error"`)) {
					t.Fatalf("%d %s", resp.StatusCode, body)
				}
				return // failed before the first byte: the status and error
			}
			var chunks [][]byte
			for _, l := range strings.Split(string(body), "\n") {
				if d, ok := strings.CutPrefix(l, "data: "); ok {
					chunks = append(chunks, []byte(d))
				}
			}
			if fs := conformance.CheckChat(chunks); conformance.Violations(fs) > 0 {
				t.Fatalf("the chat stream breaks the checker: %v\n%s", fs, body)
			}
		})
	}
}

// The official Node SDK's chat completions against the reverse route
// (e2e/node/chat.test.mjs): create, streamed and not; the strict
// stream() helper over a tool call; runTools over a tool loop, whose
// second Responses request holds the call and its output.
func TestNodeSDKChat(t *testing.T) {
	dir := filepath.Join("..", "..", "e2e", "node")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or the openai package is missing (make node-deps): %v %v", err, serr)
		}
		t.Skip("node or e2e/node/node_modules missing: run make node-deps")
	}
	c := newChatStack(t, "azure-tool-call.1", "azure-text.1") // runTools' two turns
	cmd := exec.Command(node, "--test", "chat.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+c.url+"/v1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test chat.test.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	// runTools' second request: the call and its output as items.
	found := false
	for _, b := range c.up.requests() {
		s := string(b)
		if strings.Contains(s, `"type":"function_call_output"`) && strings.Contains(s, `"type":"function_call"`) && !strings.Contains(s, `"role":"tool"`) {
			found = true
		}
	}
	if !found {
		t.Fatal("no Responses request carried the tool loop as items (did runTools run?)")
	}
}
