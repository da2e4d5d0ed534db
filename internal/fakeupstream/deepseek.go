package fakeupstream

// DeepSeek's and Kimi's thinking-mode rule: an assistant message with
// tool calls must carry its turn's reasoning_content, or the request is
// refused. Both providers stream their reasoning as delta.reasoning_content
// and want it back the same way; only their error differs.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/chatsum"
)

// Chunks is a recorded chat stream: its chunks, one JSON object each, as
// the provider sent them.
type Chunks [][]byte

// ReadChunks reads a recording of one chunk per line, without SSE framing
// (the corpus's chat-sse/*.jsonl).
func ReadChunks(path string) (Chunks, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out Chunks
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if !json.Valid(b) {
			return nil, fmt.Errorf("fakeupstream: %s:%d: not a JSON chunk", path, line)
		}
		out = append(out, append([]byte(nil), b...))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("fakeupstream: %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("fakeupstream: %s: no chunks", path)
	}
	return out, nil
}

// SSE is the stream as the provider frames it: each chunk an event
// ("data: …" and a blank line), then "data: [DONE]".
func (c Chunks) SSE() []byte {
	var b bytes.Buffer
	for _, ch := range c {
		b.WriteString("data: ")
		b.Write(ch)
		b.WriteString("\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// chunk is what the accumulator reads of a chunk.
type chunk struct {
	ID                string          `json:"id"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Usage             json.RawMessage `json:"usage"`
	Choices           []struct {
		Delta struct {
			Content          *string    `json:"content"`
			ReasoningContent *string    `json:"reasoning_content"`
			ToolCalls        []callPart `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

type callPart struct {
	Index int64  `json:"index"`
	ID    string `json:"id,omitempty"`
	Type  string `json:"type,omitempty"`
	Fn    struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ReasoningContent is the stream's reasoning_content deltas joined: the
// text the provider wants back on the turn's assistant message.
func (c Chunks) ReasoningContent() string {
	var b strings.Builder
	for _, raw := range c {
		var ch chunk
		if json.Unmarshal(raw, &ch) != nil {
			continue
		}
		for _, x := range ch.Choices {
			if x.Delta.ReasoningContent != nil {
				b.WriteString(*x.Delta.ReasoningContent)
			}
		}
	}
	return b.String()
}

// Completion is the chat.completion (not streamed) the chunks add up to,
// in DeepSeek's shape: the message's content, reasoning_content and tool
// calls (by index, their arguments joined), the finish reason and usage.
func (c Chunks) Completion() []byte {
	s := chatsum.Add(c)
	type message struct {
		Role             string          `json:"role"`
		Content          string          `json:"content"`
		ReasoningContent *string         `json:"reasoning_content,omitempty"`
		ToolCalls        []*chatsum.Call `json:"tool_calls,omitempty"`
	}
	msg := message{Role: "assistant", Content: s.Content, ToolCalls: s.Calls}
	if s.ReasoningContent != "" {
		msg.ReasoningContent = &s.ReasoningContent
	}
	usage := s.Usage
	if usage == nil {
		usage = json.RawMessage("null")
	}
	out := struct {
		ID                string          `json:"id"`
		Object            string          `json:"object"`
		Created           int64           `json:"created"`
		Model             string          `json:"model"`
		Choices           []any           `json:"choices"`
		Usage             json.RawMessage `json:"usage"`
		SystemFingerprint string          `json:"system_fingerprint"`
	}{ID: s.ID, Object: "chat.completion", Created: s.Created, Model: s.Model, SystemFingerprint: s.SystemFingerprint, Usage: usage,
		Choices: []any{struct {
			Index        int             `json:"index"`
			Message      message         `json:"message"`
			Logprobs     json.RawMessage `json:"logprobs"`
			FinishReason string          `json:"finish_reason"`
		}{Message: msg, Logprobs: json.RawMessage("null"), FinishReason: s.Finish}},
	}
	b, _ := json.Marshal(out) // plain data: cannot fail
	return b
}

// WithToolCall is the recording with its first tool call made another:
// the delta that opens the call gets id (unless empty) and name, the
// first arguments delta gets all of arguments, and the call's further
// arguments deltas are left out. Every other chunk, the reasoning among
// them, stays byte for byte. For a test whose client has other tools than
// the recording's (Codex's exec_command for a recorded weather call).
func (c Chunks) WithToolCall(id, name, arguments string) (Chunks, error) {
	var out Chunks
	opened, argued := false, false
	for _, raw := range c {
		var ch map[string]json.RawMessage
		var parsed chunk
		if json.Unmarshal(raw, &ch) != nil || json.Unmarshal(raw, &parsed) != nil ||
			len(parsed.Choices) != 1 || len(parsed.Choices[0].Delta.ToolCalls) != 1 || parsed.Choices[0].Delta.ToolCalls[0].Index != 0 {
			out = append(out, raw)
			continue
		}
		p := parsed.Choices[0].Delta.ToolCalls[0]
		switch {
		case p.ID != "" || p.Fn.Name != "":
			opened = true
			if id != "" {
				p.ID = id
			}
			p.Fn.Name = name
			if p.Fn.Arguments != "" {
				p.Fn.Arguments, argued = arguments, true
			}
		case !argued:
			p.Fn.Arguments, argued = arguments, true
		default:
			continue // the rest of the recorded arguments
		}
		var choices []map[string]json.RawMessage
		if err := json.Unmarshal(ch["choices"], &choices); err != nil {
			return nil, err
		}
		var delta map[string]json.RawMessage
		if err := json.Unmarshal(choices[0]["delta"], &delta); err != nil {
			return nil, err
		}
		delta["tool_calls"], _ = json.Marshal([]callPart{p})
		choices[0]["delta"], _ = json.Marshal(delta)
		ch["choices"], _ = json.Marshal(choices)
		b, err := json.Marshal(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if !opened || !argued {
		return nil, fmt.Errorf("fakeupstream: the recording has no tool call to substitute")
	}
	return out, nil
}

// Thinking is a fake upstream of a provider whose thinking mode wants its
// reasoning back (DeepSeek, Kimi). It refuses, as the provider does:
//
//   - a body that is not JSON;
//   - in thinking mode (on unless the request has thinking.type
//     "disabled"), an assistant message with tool_calls whose
//     reasoning_content is absent or null (an empty string passes: both
//     providers accept it);
//   - for DeepSeek, logprobs or top_logprobs in thinking mode.
//
// and, stricter than the provider, a request that does not fit the
// dialect's documented request shape (codec's table of its overlay over
// OpenAI's spec): a field neither documents, a type tag or value of the
// wrong kind, a missing required field. Those refusals are the fake's
// wording. The rest it answers from its script, streamed (SSE) or not.
type Thinking struct {
	name    string
	shape   *codec.Dialect
	missing func(index int) (status int, body []byte)
	extra   func(req codec.Value) string
	script  []Chunks

	mu       sync.Mutex
	requests [][]byte
}

// DeepSeekMissingReasoning is DeepSeek's error message for a thinking-mode
// tool turn replayed without its reasoning_content
// (https://api-docs.deepseek.com/guides/thinking_mode, tool calls).
const DeepSeekMissingReasoning = "The `reasoning_content` in the thinking mode must be passed back to the API."

// DeepSeek is a fake of DeepSeek's API (api.deepseek.com), playing script
// turn by turn.
func DeepSeek(script ...Chunks) *Thinking {
	return &Thinking{
		name: "deepseek", shape: codec.DeepSeek, script: script,
		missing: func(int) (int, []byte) {
			return http.StatusBadRequest, errorBody(DeepSeekMissingReasoning, `"type":"invalid_request_error","param":null,"code":"invalid_request_error"`)
		},
		// https://api-docs.deepseek.com/guides/reasoning_model: in
		// thinking mode logprobs and top_logprobs are not supported, and
		// setting them is an error.
		extra: func(req codec.Value) string {
			for _, k := range []string{"logprobs", "top_logprobs"} {
				if v := req.Get(k); v.Kind() != codec.Invalid && v.Kind() != codec.Null && !(k == "logprobs" && string(v.Raw()) == "false") {
					return k + " is not supported in thinking mode"
				}
			}
			return ""
		},
	}
}

// KimiMissingReasoning is Moonshot's error message for a thinking-mode
// tool turn replayed without its reasoning_content, %d the message's
// index in messages
// (https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model).
const KimiMissingReasoning = "thinking is enabled but reasoning_content is missing in assistant tool call message at index %d"

// Kimi is a fake of Moonshot's Kimi API (api.moonshot.ai) for its
// thinking models, playing script turn by turn.
func Kimi(script ...Chunks) *Thinking {
	return &Thinking{
		name: "kimi", shape: codec.Kimi, script: script,
		missing: func(i int) (int, []byte) {
			return http.StatusBadRequest, errorBody(fmt.Sprintf(KimiMissingReasoning, i), `"type":"invalid_request_error"`)
		},
	}
}

func errorBody(msg, rest string) []byte {
	m, _ := json.Marshal(msg)
	return []byte(`{"error":{"message":` + string(m) + `,` + rest + `}}`)
}

// Requests are the bodies of the requests the fake got, refused ones
// included, in order.
func (u *Thinking) Requests() [][]byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([][]byte(nil), u.requests...)
}

// ServeHTTP answers POST …/chat/completions.
func (u *Thinking) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		refuse(w, http.StatusNotFound, errorBody("the "+u.name+" fake serves POST /chat/completions", `"type":"invalid_request_error"`))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	u.mu.Lock()
	u.requests = append(u.requests, body)
	u.mu.Unlock()
	// The roles the providers document, written here rather than read
	// from the dialect's shape (the converter's own table would hide its
	// mistakes): system, user, assistant and tool.
	if v, ok := codec.Parse(body); ok {
		for i, m := range v.Get("messages").Elems() {
			switch role, _ := m.Get("role").Str(); role {
			case "system", "user", "assistant", "tool":
			default:
				refuse(w, http.StatusUnprocessableEntity, errorBody(fmt.Sprintf("messages[%d].role: unknown variant `%s`, expected one of `system`, `user`, `assistant`, `tool`", i, role), `"type":"invalid_request_error"`))
				return
			}
		}
	}
	var doc codec.Doc
	root, _ := u.shape.Payload(codec.ChatRequest)
	if err := doc.Decode(root, body); err != nil {
		refuse(w, http.StatusBadRequest, errorBody("the request is not JSON: "+err.Error(), `"type":"invalid_request_error"`))
		return
	}
	for _, f := range doc.Findings() {
		if f.Kind == codec.ExtraField {
			continue // the documented shape allows it
		}
		refuse(w, http.StatusBadRequest, errorBody(fmt.Sprintf("%s: %s %s is not in %s's request", f.Path(), f.Kind, f.Name(), u.name), `"type":"invalid_request_error"`))
		return
	}
	req, _ := codec.Parse(body)
	thinking := true
	if t, _ := req.Get("thinking").Get("type").Str(); t == "disabled" {
		thinking = false
	}
	turn := 0
	for i, m := range req.Get("messages").Elems() {
		if role, _ := m.Get("role").Str(); role != "assistant" {
			continue
		}
		turn++
		if !thinking || !hasElems(m.Get("tool_calls")) {
			continue
		}
		if rc := m.Get("reasoning_content"); rc.Kind() != codec.String {
			status, b := u.missing(i)
			refuse(w, status, b)
			return
		}
	}
	if thinking && u.extra != nil {
		if msg := u.extra(req); msg != "" {
			refuse(w, http.StatusBadRequest, errorBody(msg, `"type":"invalid_request_error"`))
			return
		}
	}
	if len(u.script) == 0 {
		refuse(w, http.StatusInternalServerError, errorBody("the "+u.name+" fake has no script", `"type":"server_error"`))
		return
	}
	rec := u.script[min(turn, len(u.script)-1)]
	if stream, _ := req.Get("stream").Bool(); !stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(rec.Completion())
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for _, ev := range bytes.SplitAfter(rec.SSE(), []byte("\n\n")) {
		if len(ev) == 0 {
			continue
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

func refuse(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func hasElems(v codec.Value) bool {
	for range v.Elems() {
		return true
	}
	return false
}
