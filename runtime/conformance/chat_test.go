package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// chunk is a chat.completion.chunk of stream "chatcmpl-1" with these
// choices (JSON array elements) and extra top-level members.
func chunk(choices string, extra ...string) string {
	s := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[` + choices + `]`
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

// delta is choice i's delta, finish_reason null.
func delta(i int, d string) string {
	return fmt.Sprintf(`{"index":%d,"delta":%s,"finish_reason":null}`, i, d)
}

func finish(i int, reason string) string {
	return fmt.Sprintf(`{"index":%d,"delta":{},"finish_reason":%q}`, i, reason)
}

const usage = `"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`

func call(i int, id, name, args string) string {
	return fmt.Sprintf(`{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}`, i, id, name, args)
}

func args(i int, a string) string {
	return fmt.Sprintf(`{"index":%d,"function":{"arguments":%q}}`, i, a)
}

func tools(calls ...string) string { return `{"tool_calls":[` + strings.Join(calls, ",") + `]}` }

// chatStreams are synthetic streams that follow every rule.
func chatStreams() map[string][]string {
	return map[string][]string{
		"text": {
			chunk(delta(0, `{"role":"assistant","content":""}`)),
			chunk(delta(0, `{"content":"Hello"}`)),
			chunk(delta(0, `{"content":", world"}`)),
			chunk(finish(0, "stop")),
			chunk(``, usage),
			"[DONE]",
		},
		"tool calls": {
			chunk(delta(0, `{"role":"assistant","content":null}`)),
			chunk(delta(0, tools(call(0, "call_a", "get_weather", "")))),
			chunk(delta(0, tools(args(0, `{"city":`)))),
			chunk(delta(0, tools(args(0, `"Paris"}`)))),
			chunk(delta(0, tools(call(1, "call_b", "get_time", `{}`)))),
			chunk(finish(0, "tool_calls"), usage),
			"[DONE]",
		},
		"openrouter usage after finish": {
			chunk(delta(0, `{"role":"assistant","content":"","reasoning":"think"}`), `"provider":"P"`),
			chunk(delta(0, `{"role":"assistant","content":"4"}`), `"provider":"P"`),
			chunk(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop","native_finish_reason":"stop"}`, `"provider":"P"`),
			chunk(delta(0, `{"role":"assistant","content":""}`), `"provider":"P"`, usage),
			"[DONE]",
		},
		"two choices": {
			chunk(delta(0, `{"role":"assistant","content":"a"}`)),
			chunk(delta(1, `{"role":"assistant","content":"b"}`)),
			chunk(finish(1, "length")),
			chunk(finish(0, "stop")),
			"[DONE]",
		},
		"error at the end": {
			chunk(delta(0, `{"role":"assistant","content":"par"}`)),
			chunk(`{"index":0,"delta":{"content":""},"finish_reason":"error"}`, `"error":{"code":502,"message":"upstream failed"}`),
			"[DONE]",
		},
	}
}

func TestChatConformant(t *testing.T) {
	for name, s := range chatStreams() {
		if fs := CheckChat(bytesOf(s)); len(fs) > 0 {
			t.Errorf("%s: %v", name, fs)
		}
	}
}

func bytesOf(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i, c := range s {
		out[i] = []byte(c)
	}
	return out
}

// Each rule is caught: a conformant stream broken in one way gets a
// finding of that rule and class.
func TestChatEachRuleCaught(t *testing.T) {
	s := chatStreams()
	text, calls, errEnd := s["text"], s["tool calls"], s["error at the end"]
	with := func(base []string, i int, c ...string) []string { // replace chunk i by c…
		return slices.Concat(base[:i:i], c, base[i+1:])
	}
	for _, c := range []struct {
		rule, name string
		class      Class
		stream     []string
	}{
		{"json", "not JSON", Violation, with(text, 1, `{"id":`)},
		{"chunk-object", "an array", Violation, with(text, 1, `[1]`)},
		{"chunk-object", "object chat.completion", Violation, with(text, 1, strings.Replace(text[1], `.chunk"`, `"`, 1))},
		{"schema", "created a string", Violation, with(text, 1, strings.Replace(text[1], `1767225600`, `"now"`, 1))},
		{"schema", "a choice without delta", Violation, with(text, 1, chunk(`{"index":0,"finish_reason":null}`))},
		{"chunk-identity", "the id changes", Violation, with(text, 2, strings.Replace(text[2], "chatcmpl-1", "chatcmpl-2", 1))},
		{"chunk-identity", "the model changes", Violation, with(text, 2, strings.Replace(text[2], `"m"`, `"n"`, 1))},
		{"chunk-identity", "created goes back", Violation, with(text, 2, strings.Replace(text[2], `1767225600`, `1767225599`, 1))},
		{"choice-index", "a choice without index", Violation, with(text, 1, chunk(`{"delta":{"content":"x"},"finish_reason":null}`))},
		{"choice-index", "a choice twice in a chunk", Violation, with(text, 1, chunk(delta(0, `{"content":"x"}`)+","+delta(0, `{"content":"y"}`)))},
		{"choice-index", "choice 0 never streamed", Violation, []string{chunk(delta(1, `{"role":"assistant","content":"b"}`)), chunk(finish(1, "stop")), "[DONE]"}},
		{"role", "no role on the first delta", Violation, with(text, 0, chunk(delta(0, `{"content":""}`)))},
		{"role", "content before the role", Violation, with(text, 0, chunk(delta(0, `{"content":"Hi"}`)), chunk(delta(0, `{"role":"assistant"}`)))},
		{"role", "role user", Violation, with(text, 1, chunk(delta(0, `{"role":"user","content":"Hello"}`)))},
		{"tool-call", "a call without id", Violation, with(calls, 1, chunk(delta(0, tools(call(0, "", "get_weather", "")))))},
		{"tool-call", "a call without name", Violation, with(calls, 1, chunk(delta(0, tools(call(0, "call_a", "", "")))))},
		{"tool-call", "a call without type", Violation, with(calls, 1, chunk(delta(0, tools(`{"index":0,"id":"call_a","function":{"name":"get_weather","arguments":""}}`))))},
		{"tool-call", "type custom", Violation, with(calls, 1, chunk(delta(0, tools(`{"index":0,"id":"call_a","type":"custom","function":{"name":"get_weather","arguments":""}}`))))},
		{"tool-call", "a later delta with a new id", Violation, with(calls, 2, chunk(delta(0, tools(call(0, "call_z", "get_weather", `{"city":`)))))},
		{"tool-call", "a later delta with a new name", Violation, with(calls, 2, chunk(delta(0, tools(call(0, "call_a", "get_time", `{"city":`)))))},
		{"tool-call", "two calls with one id", Violation, with(calls, 4, chunk(delta(0, tools(call(1, "call_a", "get_time", `{}`)))))},
		{"tool-call-index", "a call without index", Violation, with(calls, 2, chunk(delta(0, tools(`{"function":{"arguments":"{}"}}`))))},
		{"tool-call-index", "calls out of order", Violation, with(calls, 1, chunk(delta(0, tools(call(1, "call_b", "get_time", `{}`)))), chunk(delta(0, tools(call(0, "call_a", "get_weather", "")))))},
		{"tool-call-gap", "call index 0 skipped", Warning, []string{calls[0], chunk(delta(0, tools(call(1, "call_a", "get_weather", "")))), chunk(delta(0, tools(args(1, "{}")))), chunk(finish(0, "tool_calls")), "[DONE]"}},
		{"finish-reason", "an unknown finish_reason", Violation, with(text, 3, chunk(finish(0, "done")))},
		{"finish-reason", "two finish reasons", Violation, with(text, 3, chunk(finish(0, "stop")), chunk(finish(0, "stop")))},
		{"finish-reason", "no finish_reason", Violation, with(text, 3)},
		{"after-finish", "content after the finish", Violation, with(text, 4, chunk(delta(0, `{"content":"more"}`)), text[4])},
		{"after-finish", "a tool call after the finish", Violation, with(calls, 5, chunk(finish(0, "tool_calls")), chunk(delta(0, tools(args(0, "}")))), chunk(``, usage))},
		{"finish-tool-calls", "tool_calls with no call", Warning, with(text, 3, chunk(finish(0, "tool_calls")))},
		{"usage", "usage before content", Violation, with(text, 1, chunk(delta(0, `{"content":"Hello"}`), usage))},
		{"usage", "usage before the finish", Violation, with(text, 3, chunk(``, usage), chunk(finish(0, "stop")))},
		{"usage", "total not prompt + completion", Violation, with(text, 4, chunk(``, `"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":16}`))},
		{"error", "a chunk after the error chunk", Violation, with(errEnd, 2, chunk(delta(0, `{"content":"x"}`)), "[DONE]")},
		{"error", "finish_reason error without an error", Violation, with(errEnd, 1, chunk(`{"index":0,"delta":{},"finish_reason":"error"}`))},
		{"done", "no [DONE]", Violation, text[:len(text)-1]},
		{"done", "a chunk after [DONE]", Violation, append(slices.Clone(text), chunk(``, usage))},
		{"done", "[DONE] twice", Violation, append(slices.Clone(text), "[DONE]")},
		{"done", "no chunks", Violation, nil},
		{"done", "no choices", Violation, []string{chunk(``, usage), "[DONE]"}},
	} {
		fs := CheckChat(bytesOf(c.stream))
		i := slices.IndexFunc(fs, func(f Finding) bool { return f.Rule == c.rule && f.Class == c.class })
		if i < 0 {
			t.Errorf("%s: no %s %s finding: %v", c.name, c.rule, c.class, fs)
			continue
		}
		if c.class == Violation && Violations(fs) == 0 || c.class == Warning && Violations(fs) > 0 {
			t.Errorf("%s: %v", c.name, fs)
		}
	}
}

// CheckChatStream reads SSE (comments skipped, [DONE] required) and JSON
// lines (a recording of the chunks: [DONE] optional).
func TestCheckChatStream(t *testing.T) {
	text := chatStreams()["text"]
	var sse, lines strings.Builder
	sse.WriteString(": OPENROUTER PROCESSING\n\n")
	for _, c := range text {
		fmt.Fprintf(&sse, "data: %s\n\n", c)
		if c != "[DONE]" {
			lines.WriteString(c + "\n")
		}
	}
	for name, c := range map[string]struct {
		in         string
		conformant bool
		events     int
	}{
		"sse":                     {sse.String(), true, len(text)},
		"sse without [DONE]":      {strings.TrimSuffix(sse.String(), "data: [DONE]\n\n"), false, len(text) - 1},
		"json lines":              {lines.String(), true, len(text) - 1},
		"json lines with [DONE]":  {lines.String() + "[DONE]\n", true, len(text)},
		"json lines, a bad chunk": {lines.String() + chunk(delta(0, `{"content":"late"}`)) + "\n", false, len(text)},
	} {
		rep, err := CheckChatStream(strings.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep.Conformant != c.conformant || rep.Events != c.events {
			t.Errorf("%s: conformant %v, %d events, want %v, %d: %v", name, rep.Conformant, rep.Events, c.conformant, c.events, rep.Findings)
		}
	}
	if _, err := CheckChatStream(strings.NewReader("hello")); err == nil {
		t.Error("neither SSE nor JSON lines: no error")
	}
}

// The streaming form reports a finding at the chunk that breaks a rule,
// as it arrives.
func TestChatCheckerLive(t *testing.T) {
	c := NewChatChecker()
	if fs := c.Chunk([]byte(chunk(delta(0, `{"role":"assistant","content":"a"}`)))); len(fs) != 0 {
		t.Fatal(fs)
	}
	fs := c.Chunk([]byte(chunk(delta(0, `{"content":"b"}`), usage)))
	if len(fs) != 0 {
		t.Fatal(fs)
	}
	fs = c.Chunk([]byte(chunk(finish(0, "stop"))))
	if len(fs) != 1 || fs[0].Rule != "usage" || fs[0].Event != 2 {
		t.Fatalf("%v", fs)
	}
	if fs := c.Finish(); Violations(fs) != 2 { // usage, no [DONE]
		t.Errorf("%v", fs)
	}
}
