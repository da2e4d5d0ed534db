package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/conformance"
)

// callsRequest offers a tool of each kind the translator restores.
const callsRequest = `{"model":"m","input":"hi","tools":[` +
	`{"type":"function","name":"f","parameters":{"type":"object"}},{"type":"custom","name":"c"},` +
	`{"type":"local_shell"},{"type":"shell"},{"type":"apply_patch"},{"type":"tool_search","execution":"client"}]}`

// callEnds answers one call (of name, its function member the JSON fn) as
// a stream, as a chat completion, and both.
func callEnds(t *testing.T, req *Request, fn string) (terminal, resp []byte, warns []mapping.Warning) {
	t.Helper()
	chunk := `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"toolu_1","type":"function","function":` + fn + `}]}}]}`
	fin := `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	ev := stream(t, req, [][]byte{[]byte(chunk), []byte(fin)}, nil) // passes the checker
	terminal = terminalResponse(t, ev)
	body := `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
		`"tool_calls":[{"id":"toolu_1","type":"function","function":` + fn + `}]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	resp, warns, err := ChatToResponse(req, []byte(body), Options{IDs: &SeqIDs{}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if fs := conformance.CheckResponse(resp); conformance.Violations(fs) > 0 {
		t.Fatalf("response: %v\n%s", fs, resp)
	}
	term := bytes.ReplaceAll(terminal, []byte(`].delta.`), []byte(`].message.`))
	if fs := conformance.CompareResponses(term, resp); len(fs) > 0 {
		t.Errorf("the stream's terminal response and the Response differ: %v\n%s\n%s", fs, term, resp)
	}
	return terminal, resp, warns
}

// A call without arguments (Claude through Vertex sends no arguments key
// for a tool without parameters), or with null, empty or blank ones,
// gets arguments {} — OpenAI's are always JSON, and the SDKs parse them —
// with a warning naming the upstream's field; in a stream, one
// arguments delta {} before the done. What "no arguments" makes of each
// virtualized tool: a custom tool's input is empty; a shell, local_shell
// or apply_patch call has no action, so it stays a function_call (with
// arguments {}), warned, as malformed arguments do; a tool_search call
// searches with {}. Never an empty arguments string, never an empty
// action.
func TestCallWithoutArguments(t *testing.T) {
	req := request(t, callsRequest)
	for _, args := range []string{``, `,"arguments":null`, `,"arguments":""`, `,"arguments":" \n\t"`} {
		for _, c := range []struct {
			name, typ, field, want string
		}{
			{"f", "function_call", "arguments", "{}"},
			{"c", "custom_tool_call", "input", ""},
			{"shell", "function_call", "arguments", "{}"},
			{"local_shell", "function_call", "arguments", "{}"},
			{"apply_patch", "function_call", "arguments", "{}"},
			{"tool_search", "tool_search_call", "arguments", "{}"},
		} {
			t.Run(c.name+args, func(t *testing.T) {
				term, resp, warns := callEnds(t, req, `{"name":"`+c.name+`"`+args+`}`)
				var r struct{ Output []map[string]any }
				if err := json.Unmarshal(resp, &r); err != nil || len(r.Output) != 1 {
					t.Fatalf("%v: %s", err, resp)
				}
				it := r.Output[0]
				got := it[c.field]
				if m, ok := got.(map[string]any); ok { // tool_search's arguments: an object
					b, _ := json.Marshal(m)
					got = string(b)
				}
				if it["type"] != c.typ || got != c.want {
					t.Errorf("%v %s %#v, want %s %q", it["type"], c.field, got, c.typ, c.want)
				}
				if !hasWarning(warns, "choices[0].message.tool_calls[0].", "without arguments") {
					t.Errorf("no warning of the missing arguments: %v", warns)
				}
				if !bytes.Contains(term, []byte(`"path":"choices[0].delta.tool_calls[0].`)) {
					t.Errorf("the stream's warnings do not name the delta: %s", term)
				}
			})
		}
	}
}

// In a stream, blank arguments are held back, and the call's one delta is
// {}; arguments that begin blank and go on are sent whole, the blank
// kept (the done equals the deltas joined: the checker).
func TestBlankArgumentsStream(t *testing.T) {
	req := request(t, callsRequest)
	for _, c := range []struct {
		pieces []string
		deltas string
	}{
		{[]string{" ", "\n"}, `["{}"]`},
		{[]string{" ", `{"a":1}`}, `[" {\"a\":1}"]`},
		{[]string{"", "{", "}"}, `["{","}"]`},
	} {
		chunks := [][]byte{[]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t0","type":"function","function":{"name":"f"}}]}}]}`)}
		for _, p := range c.pieces {
			chunks = append(chunks, []byte(argsChunk(p)))
		}
		chunks = append(chunks, []byte(stopChunk))
		var deltas []string
		for _, e := range stream(t, req, chunks, nil) {
			var d struct{ Type, Delta string }
			_ = json.Unmarshal(e, &d)
			if d.Type == "response.function_call_arguments.delta" {
				deltas = append(deltas, d.Delta)
			}
		}
		if b, _ := json.Marshal(deltas); string(b) != c.deltas {
			t.Errorf("%q: deltas %s, want %s", c.pieces, b, c.deltas)
		}
	}
}

// Arguments that are not JSON are kept as sent, with a warning; a
// shell or local_shell call whose command list is empty makes no action:
// a function_call, warned.
func TestArgumentsNotJSON(t *testing.T) {
	req := request(t, callsRequest)
	for _, c := range []struct{ fn, typ, warn string }{
		{`{"name":"f","arguments":"{\"a\":"}`, "function_call", "not valid JSON"},
		{`{"name":"f","arguments":"{\"a\":\"\\u0022\"}"}`, "function_call", ""},
		{`{"name":"shell","arguments":"{}"}`, "function_call", "do not make its action"},
		{`{"name":"shell","arguments":"{\"commands\":[]}"}`, "function_call", "do not make its action"},
		{`{"name":"local_shell","arguments":"{\"command\":[]}"}`, "function_call", "do not make its action"},
	} {
		_, resp, warns := callEnds(t, req, c.fn)
		var r struct {
			Output []struct{ Type, Arguments string }
		}
		if err := json.Unmarshal(resp, &r); err != nil {
			t.Fatal(err)
		}
		var sent struct{ Arguments string }
		_ = json.Unmarshal([]byte(c.fn), &sent)
		if r.Output[0].Type != c.typ || r.Output[0].Arguments != sent.Arguments {
			t.Errorf("%s: %+v", c.fn, r.Output[0])
		}
		if got := hasWarning(warns, "choices[0].message.tool_calls[0].function.arguments", c.warn); got != (c.warn != "") {
			t.Errorf("%s: warnings %v, want one saying %q", c.fn, warns, c.warn)
		}
	}
}

func hasWarning(ws []mapping.Warning, path, reason string) bool {
	for _, w := range ws {
		if strings.HasPrefix(w.Path, path) && strings.Contains(w.Reason, reason) {
			return true
		}
	}
	return false
}

// Parallel calls of functions and virtualized tools come out in the
// upstream's order — in output, in the stream's output_index — whether
// each call streams whole before the next (a built-in call then goes out
// as soon as the next begins) or their pieces interleave (what comes
// after a built-in call waits for it), streamed or not.
func TestMixedCallsKeepUpstreamOrder(t *testing.T) {
	req := request(t, callsRequest)
	type call struct{ id, name, args string }
	calls := []call{
		{"c0", "f", `{"a":1}`},
		{"c1", "shell", `{"commands":["ls"]}`},
		{"c2", "f", `{"b":2}`},
		{"c3", "apply_patch", `{"type":"delete_file","path":"x"}`},
		{"c4", "c", `{"input":"hi"}`},
		{"c5", "local_shell", `{"command":["pwd"]}`},
	}
	piece := func(i int, args string) string {
		a, _ := json.Marshal(args)
		return `{"index":` + strconv.Itoa(i) + `,"function":{"arguments":` + string(a) + `}}`
	}
	open := func(i int) string {
		return `{"index":` + strconv.Itoa(i) + `,"id":"` + calls[i].id + `","type":"function","function":{"name":"` + calls[i].name + `","arguments":""}}`
	}
	chunk := func(tcs ...string) []byte {
		return []byte(`{"choices":[{"index":0,"delta":{"tool_calls":[` + strings.Join(tcs, ",") + `]}}]}`)
	}
	fin := []byte(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	var sequential, interleaved [][]byte
	for i, c := range calls {
		half := len(c.args) / 2
		sequential = append(sequential, chunk(open(i)), chunk(piece(i, c.args[:half])), chunk(piece(i, c.args[half:])))
	}
	for i := range calls {
		interleaved = append(interleaved, chunk(open(i), piece(i, calls[i].args[:3])))
	}
	for i := len(calls) - 1; i >= 0; i-- {
		interleaved = append(interleaved, chunk(piece(i, calls[i].args[3:])))
	}
	want := []string{"function_call c0", "shell_call c1", "function_call c2", "apply_patch_call c3", "custom_tool_call c4", "local_shell_call c5"}
	order := func(output []json.RawMessage) []string {
		var got []string
		for _, o := range output {
			var it struct {
				Type   string
				CallID string `json:"call_id"`
			}
			_ = json.Unmarshal(o, &it)
			got = append(got, it.Type+" "+it.CallID)
		}
		return got
	}
	for name, chunks := range map[string][][]byte{"sequential": sequential, "interleaved": interleaved} {
		ev := stream(t, req, append(chunks, fin), nil) // passes the checker
		var added []string
		for _, e := range ev {
			var a struct {
				Type  string
				Index int `json:"output_index"`
				Item  json.RawMessage
			}
			_ = json.Unmarshal(e, &a)
			if a.Type == "response.output_item.added" {
				if got := order([]json.RawMessage{a.Item}); a.Index >= len(want) || got[0] != want[a.Index] {
					t.Errorf("%s: %v added at output_index %d", name, got, a.Index)
				}
				added = append(added, order([]json.RawMessage{a.Item})...)
			}
		}
		var r struct{ Output []json.RawMessage }
		if err := json.Unmarshal(terminalResponse(t, ev), &r); err != nil {
			t.Fatal(err)
		}
		if got := order(r.Output); fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(added) != fmt.Sprint(want) {
			t.Errorf("%s: output %v, added %v, want %v", name, got, added, want)
		}
	}
	var msg []string
	for _, c := range calls {
		a, _ := json.Marshal(c.args)
		msg = append(msg, `{"id":"`+c.id+`","type":"function","function":{"name":"`+c.name+`","arguments":`+string(a)+`}}`)
	}
	body := `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` + strings.Join(msg, ",") + `]}}]}`
	resp, _, err := ChatToResponse(req, []byte(body), Options{IDs: &SeqIDs{}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Output []json.RawMessage }
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatal(err)
	}
	if got := order(r.Output); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("not streamed: output %v, want %v", got, want)
	}
}

// A built-in call goes out when the next call begins only if what it has
// so far makes its action: a prefix that is JSON but not that — a {}
// placeholder, a number — waits, so the arguments that follow are kept
// (here they make no action: the whole text, as sent, is a function_call,
// warned), never cut off where the next call began. Streamed, through
// the checker, with the call after it in its place. A call already made
// (a tool_search takes {}) leaves later arguments out, and says so.
func TestBuiltinPrefixIsNotWhole(t *testing.T) {
	req := request(t, callsRequest)
	for _, c := range []struct{ name, first, rest, typ, warn string }{
		{"shell", `{}`, `{"commands":["ls"]}`, "function_call", ""},
		{"local_shell", `1`, `2`, "function_call", ""},
		{"shell", `{"commands":`, `["ls"]}`, "shell_call", ""},
		{"tool_search", `{}`, `{"query":"x"}`, "tool_search_call", "arguments after the tool_search call was made"},
	} {
		piece := func(i int, args string) string {
			a, _ := json.Marshal(args)
			return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + strconv.Itoa(i) + `,"function":{"arguments":` + string(a) + `}}]}}]}`
		}
		chunks := [][]byte{
			[]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t0","type":"function","function":{"name":"` + c.name + `","arguments":""}}]}}]}`),
			[]byte(piece(0, c.first)),
			[]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`),
			[]byte(piece(0, c.rest)),
			[]byte(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
		}
		ev := stream(t, req, chunks, nil) // passes the checker
		var r struct {
			Output []struct {
				Type      string
				Arguments json.RawMessage // a tool_search_call's is an object
				CallID    string          `json:"call_id"`
			}
			Warnings []mapping.Warning `json:"transponder_warnings"`
		}
		if err := json.Unmarshal(terminalResponse(t, ev), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Output) != 2 || r.Output[0].CallID != "t0" || r.Output[0].Type != c.typ || r.Output[1].CallID != "t1" {
			t.Fatalf("%s %q+%q: output %+v", c.name, c.first, c.rest, r.Output)
		}
		if want, _ := json.Marshal(c.first + c.rest); c.typ == "function_call" && string(r.Output[0].Arguments) != string(want) {
			t.Errorf("%s %q+%q: arguments %s, want all that was sent", c.name, c.first, c.rest, r.Output[0].Arguments)
		}
		if c.warn != "" {
			if !hasWarning(r.Warnings, "choices[0].delta.tool_calls[0].function.arguments", c.warn) {
				t.Errorf("%s %q+%q: warnings %v, want one saying %q", c.name, c.first, c.rest, r.Warnings, c.warn)
			}
		} else if hasWarning(r.Warnings, "choices[0].delta.tool_calls[0]", "left out") {
			t.Errorf("%s %q+%q: arguments left out: %v", c.name, c.first, c.rest, r.Warnings)
		}
	}
}
