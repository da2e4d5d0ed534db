package fakeupstream

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/transponder-dev/transponder/codec"
)

// Mistral is a fake of Mistral's chat API (POST …/chat/completions) that
// refuses what Mistral documents it refuses, with Mistral's error bodies:
//
//   - 422 {"detail":[…]} (FastAPI's validation error) for any field Mistral
//     does not know, at the top of the request, on a message of its role, a
//     content part, a tool call, a tool or the tool choice
//     ("extra_forbidden": "Extra inputs are not permitted"), and for a
//     message role or part type it does not have ("union_tag_invalid");
//   - 400 {"object":"error",…} for a tool-call id (an assistant message's
//     tool_calls[].id, a tool message's tool_call_id) that is not 9 ASCII
//     letters and digits, and for a tool message whose tool_call_id is no
//     earlier assistant message's call.
//
// The validation errors come first, as Mistral's do. A request it takes
// gets a small Mistral-shaped chat completion, streamed (SSE, then
// [DONE]) if the request says stream: the next of Answers, else a text
// answer. Every request is recorded. It is safe for concurrent use; its
// answers are deterministic (fixed created time, counted ids).
type Mistral struct {
	// Answers are the answers given, in order, to the requests taken;
	// after the last, each answer is DefaultMistralText.
	Answers []MistralAnswer
	// Model is the model answers name (default the request's).
	Model string

	mu       sync.Mutex
	received []MistralRequest
	taken    int
}

// MistralAnswer is a scripted answer: text, or calls of tools (each given
// a Mistral id of 9 letters and digits).
type MistralAnswer struct {
	Text  string
	Calls []MistralCall
}

// MistralCall is a tool call an answer makes; its arguments are JSON text.
type MistralCall struct {
	Name, Arguments string
}

// MistralRequest is a request the fake received, the status it answered
// and, if it refused it, the body of the refusal.
type MistralRequest struct {
	Body    []byte
	Status  int
	Refusal []byte
}

// DefaultMistralText is the answer once the scripted ones are used up.
const DefaultMistralText = "Hello from the fake Mistral upstream."

// Received are the requests received so far, in order.
func (m *Mistral) Received() []MistralRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]MistralRequest(nil), m.received...)
}

// Mistral's request, as its API reference lists it
// (https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post).
var (
	mistralTop = []string{"model", "messages", "temperature", "top_p", "max_tokens", "stream", "stop", "random_seed", "response_format", "tools", "tool_choice", "presence_penalty", "frequency_penalty", "n", "prediction", "parallel_tool_calls", "prompt_mode", "safe_prompt", "reasoning_effort"}
	// mistralRoles are the fields of a message of each role.
	mistralRoles = map[string][]string{
		"system":    {"role", "content"},
		"user":      {"role", "content"},
		"assistant": {"role", "content", "tool_calls", "prefix"},
		"tool":      {"role", "content", "tool_call_id", "name"},
	}
	mistralRoleTags = "'system', 'user', 'assistant', 'tool'"
	// mistralParts are the fields of a content part of each type.
	mistralParts = map[string][]string{
		"text":         {"type", "text"},
		"image_url":    {"type", "image_url"},
		"document_url": {"type", "document_url", "document_name"},
		"input_audio":  {"type", "input_audio"},
		"file":         {"type", "file_id"},
		"thinking":     {"type", "thinking", "closed"},
	}
	mistralPartTags = "'text', 'image_url', 'document_url', 'input_audio', 'file', 'thinking'"
	mistralToolCall = []string{"id", "type", "function", "index"}
	mistralCallFn   = []string{"name", "arguments"}
	mistralTool     = []string{"type", "function"}
	mistralToolFn   = []string{"name", "description", "strict", "parameters"}
	mistralChoice   = []string{"type", "function"}
	mistralChoiceFn = []string{"name"}
)

// mistralIssue is an entry of a 422's detail.
type mistralIssue struct {
	Type  string          `json:"type"`
	Loc   []any           `json:"loc"`
	Msg   string          `json:"msg"`
	Input json.RawMessage `json:"input"`
}

func (m *Mistral) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	status, refusal := m.check(r, body)
	m.mu.Lock()
	m.received = append(m.received, MistralRequest{Body: body, Status: status, Refusal: refusal})
	n := m.taken
	if status == http.StatusOK {
		m.taken++
	}
	m.mu.Unlock()
	if status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(refusal)
		return
	}
	req, _ := codec.Parse(body)
	m.answer(w, req, n, len(body))
}

// mistralCreated is the created time of every answer (deterministic).
const mistralCreated = 1767225600

// answer writes the n-th answer to the request req (promptBytes long).
func (m *Mistral) answer(w http.ResponseWriter, req codec.Value, n, promptBytes int) {
	a := MistralAnswer{Text: DefaultMistralText}
	if n < len(m.Answers) {
		a = m.Answers[n]
	}
	model := m.Model
	if model == "" {
		model, _ = req.Get("model").Str()
	}
	id := fmt.Sprintf("%032x", n+1)
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
		Index    int    `json:"index"`
	}
	var calls []call
	for i, c := range a.Calls {
		calls = append(calls, call{ID: mistralCallID(n, i), Type: "function", Function: fn(c), Index: i})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	completion := len(a.Text)/4 + 1
	for _, c := range a.Calls {
		completion += (len(c.Name) + len(c.Arguments)) / 4
	}
	type usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	used := &usage{promptBytes / 4, completion, promptBytes/4 + completion}
	if stream, _ := req.Get("stream").Bool(); !stream {
		type message struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []call `json:"tool_calls"` // null without calls
			Prefix    bool   `json:"prefix"`
		}
		type choice struct {
			Index        int     `json:"index"`
			Message      message `json:"message"`
			FinishReason string  `json:"finish_reason"`
		}
		b, _ := json.Marshal(struct {
			ID      string   `json:"id"`
			Object  string   `json:"object"`
			Model   string   `json:"model"`
			Created int64    `json:"created"`
			Usage   *usage   `json:"usage"`
			Choices []choice `json:"choices"`
		}{id, "chat.completion", model, mistralCreated, used, []choice{{0, message{"assistant", a.Text, calls, false}, finish}}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	type delta struct {
		Role      string  `json:"role,omitempty"`
		Content   *string `json:"content,omitempty"`
		ToolCalls []call  `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"` // null until the last chunk
	}
	chunk := func(d delta, finish *string, u *usage) {
		b, _ := json.Marshal(struct {
			ID      string   `json:"id"`
			Object  string   `json:"object"`
			Created int64    `json:"created"`
			Model   string   `json:"model"`
			Choices []choice `json:"choices"`
			Usage   *usage   `json:"usage,omitempty"`
		}{id, "chat.completion.chunk", mistralCreated, model, []choice{{0, d, finish}}, u})
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
		_ = http.NewResponseController(w).Flush()
	}
	text := func(s string) *string { return &s }
	chunk(delta{Role: "assistant", Content: text("")}, nil, nil)
	// The text in two pieces, as a stream has it.
	if a.Text != "" {
		cut := strings.IndexByte(a.Text, ' ') + 1
		if cut <= 0 {
			cut = len(a.Text)
		}
		for _, piece := range []string{a.Text[:cut], a.Text[cut:]} {
			if piece != "" {
				chunk(delta{Content: text(piece)}, nil, nil)
			}
		}
	}
	if len(calls) > 0 {
		chunk(delta{ToolCalls: calls}, nil, nil)
	}
	chunk(delta{Content: text("")}, &finish, used)
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

// mistralCallID is the id of the i-th call of the n-th answer: 9 letters
// and digits, as Mistral's are.
func mistralCallID(n, i int) string {
	const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	x := uint64(n)<<16 | uint64(i)
	x = x*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	var b [9]byte
	for j := range b {
		b[j] = alnum[x%62]
		x /= 62
	}
	return string(b[:])
}

// check checks a request: 200, or the status and body of the refusal.
func (m *Mistral) check(r *http.Request, body []byte) (int, []byte) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		return http.StatusNotFound, []byte(`{"detail":"Not Found"}`)
	}
	req, ok := codec.Parse(body)
	if !ok || req.Kind() != codec.Object {
		return http.StatusUnprocessableEntity, []byte(`{"detail":[{"type":"json_invalid","loc":["body",0],"msg":"JSON decode error","input":{}}]}`)
	}
	if issues := mistralValidate(req); len(issues) > 0 {
		b, _ := json.Marshal(struct {
			Detail []mistralIssue `json:"detail"`
		}{issues})
		return http.StatusUnprocessableEntity, b
	}
	if msg := mistralToolIDs(req); msg != "" {
		b, _ := json.Marshal(struct {
			Object  string  `json:"object"`
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		}{"error", msg, "invalid_request_error", nil, nil})
		return http.StatusBadRequest, b
	}
	return http.StatusOK, nil
}

// extra adds an extra_forbidden issue for each member of v not in known.
func extra(issues []mistralIssue, v codec.Value, loc []any, known []string) []mistralIssue {
	for k, f := range v.Members() {
		name := k.String()
		if !contains(known, name) {
			issues = append(issues, mistralIssue{Type: "extra_forbidden", Loc: append(append([]any(nil), loc...), name), Msg: "Extra inputs are not permitted", Input: f.Raw()})
		}
	}
	return issues
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mistralValidate is the 422's detail: every field Mistral does not know,
// every role and part type it does not have.
func mistralValidate(req codec.Value) []mistralIssue {
	issues := extra(nil, req, []any{"body"}, mistralTop)
	for i, msg := range req.Get("messages").Elems() {
		loc := []any{"body", "messages", i}
		role, _ := msg.Get("role").Str()
		fields, ok := mistralRoles[role]
		if !ok {
			issues = append(issues, mistralIssue{Type: "union_tag_invalid", Loc: loc, Msg: fmt.Sprintf("Input tag '%s' found using 'role' does not match any of the expected tags: %s", role, mistralRoleTags), Input: msg.Raw()})
			continue
		}
		loc = append(loc, role)
		issues = extra(issues, msg, loc, fields)
		for j, part := range msg.Get("content").Elems() {
			ploc := append(append([]any(nil), loc...), "content", j)
			typ, _ := part.Get("type").Str()
			pf, ok := mistralParts[typ]
			if !ok {
				issues = append(issues, mistralIssue{Type: "union_tag_invalid", Loc: ploc, Msg: fmt.Sprintf("Input tag '%s' found using 'type' does not match any of the expected tags: %s", typ, mistralPartTags), Input: part.Raw()})
				continue
			}
			issues = extra(issues, part, append(ploc, typ), pf)
		}
		for j, tc := range msg.Get("tool_calls").Elems() {
			tloc := append(append([]any(nil), loc...), "tool_calls", j)
			issues = extra(issues, tc, tloc, mistralToolCall)
			issues = extra(issues, tc.Get("function"), append(tloc, "function"), mistralCallFn)
		}
	}
	for i, t := range req.Get("tools").Elems() {
		loc := []any{"body", "tools", i}
		issues = extra(issues, t, loc, mistralTool)
		issues = extra(issues, t.Get("function"), append(loc, "function"), mistralToolFn)
	}
	if tc := req.Get("tool_choice"); tc.Kind() == codec.Object {
		issues = extra(issues, tc, []any{"body", "tool_choice"}, mistralChoice)
		issues = extra(issues, tc.Get("function"), []any{"body", "tool_choice", "function"}, mistralChoiceFn)
	}
	return issues
}

// mistralToolIDs is the message of the 400 for the first tool-call id
// Mistral refuses ("" if none).
func mistralToolIDs(req codec.Value) string {
	calls := map[string]bool{}
	for _, msg := range req.Get("messages").Elems() {
		for _, tc := range msg.Get("tool_calls").Elems() {
			id, _ := tc.Get("id").Str()
			if !MistralID(id) {
				return "Tool call id was " + id + " but must be a-z, A-Z, 0-9, with a length of 9."
			}
			calls[id] = true
		}
		if role, _ := msg.Get("role").Str(); role == "tool" {
			id, _ := msg.Get("tool_call_id").Str()
			if !MistralID(id) {
				return "Tool call id was " + id + " but must be a-z, A-Z, 0-9, with a length of 9."
			}
			if !calls[id] {
				return "Unexpected tool call id " + id + " in tool results."
			}
		}
	}
	return ""
}

// MistralID reports whether id is what Mistral takes as a tool-call id:
// 9 ASCII letters and digits.
func MistralID(id string) bool {
	if len(id) != 9 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if b := id[i]; !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9') {
			return false
		}
	}
	return true
}
