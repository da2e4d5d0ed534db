// Package replay is an upstream that answers POST /chat/completions from
// recorded chat streams (testdata/*.sse, embedded; OpenRouter's shape):
// what the gateway talks to when no upstream key is configured, so that any
// client completes a turn offline, and what the tests script.
//
// Which recording answers a request (the rule, in order):
//
//  1. the last user message's text contains "#replay:NAME": NAME;
//  2. else the script (Script; `transponder serve -replay a,b,…` or
//     TRANSPONDER_REPLAY): its N-th name, N being the number of assistant
//     messages in the request (the turns the model has taken: an agent's
//     tool loop asks again after each call), the last name once N runs
//     past the end;
//  3. the default script is "text": a plain text answer.
//
// So `-replay exec_command,text` has a client run exec_command, then get
// a text answer. A streamed request gets the recording as it is, event by
// event (keep-alive comments included); one not streamed gets the chat
// completion the chunks add up to.
package replay

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/chatsum"
)

//go:embed testdata/*.sse
var recordings embed.FS

// Names lists the recordings.
func Names() []string {
	entries, _ := recordings.ReadDir("testdata")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".sse"))
	}
	return out
}

// Upstream answers chat completions from the recordings.
type Upstream struct {
	script []string
	recs   map[string][]byte
	// Delay, if set, is slept between events (a slow upstream).
	Delay time.Duration
}

// New returns a replay upstream playing script (nil: the default, "text").
func New(script []string) (*Upstream, error) {
	u := &Upstream{script: script, recs: map[string][]byte{}}
	if len(u.script) == 0 {
		u.script = []string{"text"}
	}
	for _, n := range Names() {
		data, err := recordings.ReadFile(path.Join("testdata", n+".sse"))
		if err != nil {
			return nil, err
		}
		u.recs[n] = data
	}
	for _, n := range u.script {
		if _, ok := u.recs[n]; !ok {
			return nil, fmt.Errorf("replay: no recording %q (there are: %s)", n, strings.Join(Names(), ", "))
		}
	}
	return u, nil
}

// Script is the names the upstream plays, turn by turn.
func (u *Upstream) Script() []string { return slices.Clone(u.script) }

// ServeHTTP answers POST …/chat/completions.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"code":404,"message":"the replay upstream serves POST /chat/completions"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, ok := codec.Parse(body)
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"code":400,"message":"the request is not JSON"}}`))
		return
	}
	name, err := u.choose(req)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		msg, _ := json.Marshal(err.Error())
		_, _ = fmt.Fprintf(w, `{"error":{"code":400,"message":%s}}`, msg)
		return
	}
	w.Header().Set("X-Replay-Recording", name)
	rec := u.recs[name]
	if stream, _ := req.Get("stream").Bool(); !stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(Completion(rec))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for _, ev := range bytes.SplitAfter(rec, []byte("\n\n")) {
		if len(ev) == 0 {
			continue
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		_ = rc.Flush()
		if u.Delay > 0 {
			select {
			case <-time.After(u.Delay):
			case <-r.Context().Done():
				return
			}
		}
	}
}

// choose picks the recording of a chat request (the rule on the package).
func (u *Upstream) choose(req codec.Value) (string, error) {
	turns, lastUser := 0, ""
	for _, m := range req.Get("messages").Elems() {
		switch role, _ := m.Get("role").Str(); role {
		case "assistant":
			turns++
		case "user":
			lastUser = text(m.Get("content"))
		}
	}
	if _, after, ok := strings.Cut(lastUser, "#replay:"); ok {
		name := after
		if i := strings.IndexFunc(after, func(r rune) bool { return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }); i >= 0 {
			name = after[:i]
		}
		if _, ok := u.recs[name]; !ok {
			return "", fmt.Errorf("replay: no recording %q (there are: %s)", name, strings.Join(Names(), ", "))
		}
		return name, nil
	}
	return u.script[min(turns, len(u.script)-1)], nil
}

// text is a message content's text (a string, or its text parts joined).
func text(c codec.Value) string {
	if s, ok := c.Str(); ok {
		return s
	}
	var b strings.Builder
	for _, p := range c.Elems() {
		if s, ok := p.Get("text").Str(); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

// Completion is the chat completion a recorded stream adds up to, in
// OpenRouter's shape: its content, reasoning (reasoning, reasoning_content,
// reasoning details), tool calls (by index, their arguments joined), finish
// reason and usage.
func Completion(rec []byte) []byte {
	var chunks [][]byte
	rd := sse.NewReader(bytes.NewReader(rec))
	for rd.Next() {
		e := rd.Event()
		if e.Done() {
			break
		}
		chunks = append(chunks, append([]byte(nil), e.Data...))
	}
	s := chatsum.Add(chunks)
	type message struct {
		Role             string            `json:"role"`
		Content          string            `json:"content"`
		Reasoning        string            `json:"reasoning,omitempty"`
		ReasoningContent string            `json:"reasoning_content,omitempty"`
		ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
		ToolCalls        []*chatsum.Call   `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index              int             `json:"index"`
		Message            message         `json:"message"`
		FinishReason       string          `json:"finish_reason"`
		NativeFinishReason string          `json:"native_finish_reason"`
		Logprobs           json.RawMessage `json:"logprobs"`
	}
	out := struct {
		ID       string          `json:"id"`
		Object   string          `json:"object"`
		Created  int64           `json:"created"`
		Model    string          `json:"model"`
		Provider string          `json:"provider"`
		Choices  []choice        `json:"choices"`
		Usage    json.RawMessage `json:"usage,omitempty"`
	}{
		ID: s.ID, Object: "chat.completion", Created: s.Created, Model: s.Model, Provider: s.Provider, Usage: s.Usage,
		Choices: []choice{{Message: message{Role: "assistant", Content: s.Content, Reasoning: s.Reasoning, ReasoningContent: s.ReasoningContent,
			ReasoningDetails: s.ReasoningDetails, ToolCalls: s.Calls}, FinishReason: s.Finish, NativeFinishReason: s.Finish, Logprobs: json.RawMessage("null")}},
	}
	b, _ := json.Marshal(out) // plain data: cannot fail
	return b
}
