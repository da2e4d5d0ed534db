package mapping_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
)

// TestReverseChatProperties takes random chat requests (system, developer
// and user messages with text and image parts, assistant messages with
// text and parallel function and custom tool calls, their tool messages
// in any order, function and custom tools with schemas in odd spacing,
// every tool_choice shape, every response_format) through a Responses
// request and back — ChatToResponses, then ResponsesToChat, in the same
// dialect — and checks that the chat request that comes back has:
//
//  1. no error from either conversion, and JSON;
//  2. the same messages: roles, texts and image parts, in order;
//  3. the same tool calls (ids, names, arguments or input, verbatim) and
//     tool messages (call ids and contents), each right after its call;
//  4. the same tools: names, descriptions, strict, parameters byte for
//     byte, custom tools' formats;
//  5. the same tool_choice and response_format (json_schema's schema byte
//     for byte).
//
// The documented losses, normalized away before comparing: plain text as
// response_format is chat's default and comes back absent; an image's
// detail absent comes back "auto"; a tool without strict comes back strict
// false, one without parameters with an empty object schema; OpenRouter's
// chat has no custom tools and no allowed_tools (the forward direction
// narrows the tools instead), so its requests have neither.
func TestReverseChatProperties(t *testing.T) {
	for _, d := range []mapping.Dialect{mapping.OpenRouter, mapping.OpenAI} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(20261124, 7+uint64(d)))
			for n := range 1000 {
				g := &chatGen{r: r, custom: d == mapping.OpenAI}
				body := g.request()
				resp, _, err := mapping.ChatToResponses(body, mapping.ReverseOptions{Dialect: d})
				if err != nil {
					t.Fatalf("request %d: the reverse conversion refused it: %v\n%s", n, err, body)
				}
				back, _, err := mapping.ResponsesToChat(resp, mapping.Options{Dialect: d})
				if err != nil {
					t.Fatalf("request %d: the forward conversion refused it: %v\n%s\n%s", n, err, body, resp)
				}
				want, got := chatSummary(t, body), chatSummary(t, back)
				if i := firstDiff(want, got); i >= 0 {
					t.Fatalf("request %d: line %d differs\nwant %s\n got %s\nrequest %s\nresponses %s\nback %s", n, i, at(want, i), at(got, i), body, resp, back)
				}
			}
		})
	}
}

type chatGen struct {
	r      *rand.Rand
	n      int
	custom bool     // custom tools and calls
	fns    []string // function tool names
	cts    []string // custom tool names
}

func (g *chatGen) text(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d%s", prefix, g.n, textTails[g.r.IntN(len(textTails))])
}

// request is a random valid chat request.
func (g *chatGen) request() []byte {
	kv := []any{"model", "gpt-5"}
	var tools []any
	for range g.r.IntN(4) {
		g.n++
		name := fmt.Sprintf("fn_%d", g.n)
		g.fns = append(g.fns, name)
		fn := []any{"name", name}
		if g.r.IntN(2) == 0 {
			fn = append(fn, "description", g.text("does "))
		}
		switch g.r.IntN(3) {
		case 0:
			fn = append(fn, "parameters", json.RawMessage(fmt.Sprintf(`{ "type" : "object","properties":{"q%d":{"type":"string","enum":["a","b"]}},"required":["q%d"] }`, g.n, g.n)))
		case 1:
			fn = append(fn, "parameters", json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","minimum":1.50}},"additionalProperties":false}`))
		}
		if g.r.IntN(2) == 0 {
			fn = append(fn, "strict", g.r.IntN(2) == 0)
		}
		tools = append(tools, obj("type", "function", "function", obj(fn...)))
	}
	if g.custom {
		for range g.r.IntN(3) {
			g.n++
			name := fmt.Sprintf("ct_%d", g.n)
			g.cts = append(g.cts, name)
			ct := []any{"name", name}
			switch g.r.IntN(3) {
			case 0:
				ct = append(ct, "format", obj("type", "text"))
			case 1:
				ct = append(ct, "format", obj("type", "grammar", "grammar", obj("definition", `start: "x" | "y"`, "syntax", "lark")))
			}
			tools = append(tools, obj("type", "custom", "custom", obj(ct...)))
		}
	}
	var msgs []any
	if g.r.IntN(2) == 0 {
		msgs = append(msgs, obj("role", "system", "content", g.text("sys ")))
	}
	msgs = append(msgs, g.user())
	for range g.r.IntN(6) {
		switch g.r.IntN(4) {
		case 0:
			msgs = append(msgs, g.user())
		case 1:
			msgs = append(msgs, obj("role", "developer", "content", g.text("dev ")))
		default:
			msgs = append(msgs, g.assistant()...)
			msgs = append(msgs, g.user())
		}
	}
	kv = append(kv, "messages", msgs)
	if tools != nil {
		kv = append(kv, "tools", tools)
		if c := g.toolChoice(); c != nil {
			kv = append(kv, "tool_choice", c)
		}
	}
	switch g.r.IntN(4) {
	case 1:
		kv = append(kv, "response_format", obj("type", "text"))
	case 2:
		kv = append(kv, "response_format", obj("type", "json_object"))
	case 3:
		js := []any{"name", "answer_" + fmt.Sprint(g.n), "schema", json.RawMessage(`{"type":"object", "properties":{"a":{"type":"integer"}},"required":["a"]}`)}
		if g.r.IntN(2) == 0 {
			js = append(js, "strict", true, "description", g.text("an answer "))
		}
		kv = append(kv, "response_format", obj("type", "json_schema", "json_schema", obj(js...)))
	}
	return obj(kv...)
}

func (g *chatGen) user() json.RawMessage {
	if g.r.IntN(2) == 0 {
		return obj("role", "user", "content", g.text("u "))
	}
	var parts []any
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(3) {
		case 0:
			img := []any{"url", fmt.Sprintf("https://example.com/%d.png", g.n)}
			if g.r.IntN(2) == 0 {
				img[1] = "data:image/png;base64,iVBORw0KGgo="
			}
			if g.r.IntN(2) == 0 {
				img = append(img, "detail", []string{"low", "high", "auto"}[g.r.IntN(3)])
			}
			parts = append(parts, obj("type", "image_url", "image_url", obj(img...)))
		default:
			parts = append(parts, obj("type", "text", "text", g.text("part ")))
		}
	}
	return obj("role", "user", "content", parts)
}

// assistant is an assistant message, with parallel calls of the tools
// and their tool messages in a random order.
func (g *chatGen) assistant() []any {
	kv := []any{"role", "assistant"}
	var calls []any
	var ids []string
	if len(g.fns)+len(g.cts) > 0 {
		for range g.r.IntN(4) {
			g.n++
			id := fmt.Sprintf("call_%d", g.n)
			if g.r.IntN(3) == 0 {
				id = fmt.Sprintf(`toolu_01%d"é`, g.n)
			}
			ids = append(ids, id)
			if i := g.r.IntN(len(g.fns) + len(g.cts)); i < len(g.fns) {
				calls = append(calls, obj("id", id, "type", "function", "function", obj("name", g.fns[i], "arguments", fmt.Sprintf(`{"q": %q, "n":1.50}`, g.text("arg ")))))
			} else {
				calls = append(calls, obj("id", id, "type", "custom", "custom", obj("name", g.cts[i-len(g.fns)], "input", g.text("*** input "))))
			}
		}
	}
	if calls == nil || g.r.IntN(2) == 0 {
		kv = append(kv, "content", g.text("a "))
	} else if g.r.IntN(2) == 0 {
		kv = append(kv, "content", nil)
	}
	if calls != nil {
		kv = append(kv, "tool_calls", calls)
	}
	out := []any{obj(kv...)}
	for _, i := range g.r.Perm(len(ids)) {
		var content any = g.text("out ")
		if g.r.IntN(3) == 0 {
			content = []any{obj("type", "text", "text", g.text("out part "))}
		}
		out = append(out, obj("role", "tool", "tool_call_id", ids[i], "content", content))
	}
	return out
}

func (g *chatGen) toolChoice() any {
	switch g.r.IntN(6) {
	case 0:
		return nil
	case 1:
		return []string{"none", "auto", "required"}[g.r.IntN(3)]
	case 2:
		if len(g.fns) > 0 {
			return obj("type", "function", "function", obj("name", g.fns[g.r.IntN(len(g.fns))]))
		}
	case 3:
		if len(g.cts) > 0 {
			return obj("type", "custom", "custom", obj("name", g.cts[g.r.IntN(len(g.cts))]))
		}
	case 4:
		if !g.custom {
			break // OpenRouter has no allowed_tools: the forward direction narrows tools instead
		}
		var tools []any
		for _, f := range g.fns {
			if g.r.IntN(2) == 0 {
				tools = append(tools, obj("type", "function", "function", obj("name", f)))
			}
		}
		for _, c := range g.cts {
			if g.r.IntN(2) == 0 {
				tools = append(tools, obj("type", "custom", "custom", obj("name", c)))
			}
		}
		if tools != nil {
			return obj("type", "allowed_tools", "allowed_tools", obj("mode", []string{"auto", "required"}[g.r.IntN(2)], "tools", tools))
		}
	}
	return "auto"
}

// chatSummary is what the round trip keeps of a chat request, one line
// per thing, the documented losses normalized.
func chatSummary(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []chatToolCall  `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
				Strict      bool            `json:"strict"`
			} `json:"function"`
			Custom json.RawMessage `json:"custom"`
		} `json:"tools"`
		ToolChoice     json.RawMessage `json:"tool_choice"`
		ResponseFormat json.RawMessage `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, m := range req.Messages {
		switch {
		case m.Role == "tool":
			add("tool %q: %s", m.ToolCallID, contentSummary(m.Content))
		default:
			add("%s: %s", m.Role, contentSummary(m.Content))
		}
		for _, c := range m.ToolCalls {
			if c.Function != nil {
				add("  call %q %s %q", c.ID, c.Function.Name, c.Function.Arguments)
			}
			if c.Custom != nil {
				add("  custom call %q %s %q", c.ID, c.Custom.Name, c.Custom.Input)
			}
		}
	}
	for _, tl := range req.Tools {
		if tl.Function != nil {
			params := string(tl.Function.Parameters)
			if params == "" {
				params = `{"type":"object","properties":{}}`
			}
			add("tool %s %q strict=%v %s", tl.Function.Name, tl.Function.Description, tl.Function.Strict, params)
		}
		if tl.Custom != nil {
			add("custom tool %s", compact(tl.Custom))
		}
	}
	add("tool_choice %s", compact(req.ToolChoice))
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Strict      bool            `json:"strict"`
			Schema      json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	json.Unmarshal(req.ResponseFormat, &rf)
	if rf.Type == "text" {
		rf.Type = "" // chat's default
	}
	add("response_format %s", rf.Type)
	if js := rf.JSONSchema; js != nil {
		add("  json_schema %s %q strict=%v %s", js.Name, js.Description, js.Strict, js.Schema)
	}
	return out
}

// contentSummary is a message content's parts: a string is one text part.
func contentSummary(raw json.RawMessage) string {
	var s *string
	if json.Unmarshal(raw, &s) == nil {
		if s == nil || *s == "" {
			return "(none)"
		}
		return fmt.Sprintf("text %q", *s)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
	}
	json.Unmarshal(raw, &parts)
	if len(raw) == 0 {
		return "(none)"
	}
	var b []string
	for _, p := range parts {
		if p.Type == "image_url" {
			if p.ImageURL.Detail == "" {
				p.ImageURL.Detail = "auto"
			}
			b = append(b, fmt.Sprintf("image %s %s", p.ImageURL.URL, p.ImageURL.Detail))
			continue
		}
		b = append(b, fmt.Sprintf("%s %q", p.Type, p.Text))
	}
	return strings.Join(b, ", ")
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) > 0 {
		json.Compact(&b, raw)
	}
	return b.String()
}

func firstDiff(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	if !slices.Equal(a, b) {
		return 0
	}
	return -1
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(nothing)"
}
