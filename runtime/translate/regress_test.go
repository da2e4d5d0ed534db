package translate

import (
	"encoding/json"
	"testing"
)

// Regressions found by FuzzChatToResponses: each stream passes the
// checker (its items are what was streamed), and what it says is kept.

func callChunk(name, args string) string {
	a, _ := json.Marshal(args)
	return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t0","type":"function","function":{"name":"` + name + `","arguments":` + string(a) + `}}]}}]}`
}

func argsChunk(args string) string {
	a, _ := json.Marshal(args)
	return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + string(a) + `}}]}}]}`
}

func detailsChunk(ds string) string {
	return `{"choices":[{"index":0,"delta":{"reasoning_details":[` + ds + `]}}]}`
}

// out is an output item, as the regressions read it.
type out struct {
	Type, Input, Arguments string
	Summary, Content       []struct{ Text string }
}

const stopChunk = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`

func TestFuzzRegressions(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		check  func(t *testing.T, o []out)
	}{
		{"reasoning string then a text detail: both in the item", []string{`{"choices":[{"index":0,"delta":{"reasoning":"Think"}}]}`, detailsChunk(`{"type":"reasoning.text","text":"step","index":0}`), stopChunk}, func(t *testing.T, o []out) {
			if len(o[0].Content) != 2 || o[0].Content[0].Text != "Think" || o[0].Content[1].Text != "step" {
				t.Errorf("%+v", o[0])
			}
		}},
		{"apply_patch arguments that make no operation", []string{callChunk("apply_patch", `{"x":1}`), stopChunk}, isFunctionCall},
		{"local_shell without a command", []string{callChunk("local_shell", `{}`), stopChunk}, isFunctionCall},
		{"shell with commands not a list", []string{callChunk("shell", `{"commands":"ls"}`), stopChunk}, isFunctionCall},
		{"a detail without index beside index 0", []string{detailsChunk(`{"type":"reasoning.summary","summary":"a"},{"type":"reasoning.summary","summary":"b","index":0}`), stopChunk}, func(t *testing.T, o []out) {
			if len(o[0].Summary) != 2 {
				t.Errorf("%+v", o[0])
			}
		}},
		{"parts streamed out of the details' order", []string{detailsChunk(`{"type":"reasoning.text","text":"","index":0},{"type":"reasoning.text","text":"B","index":1},{"type":"reasoning.text","text":"A","index":0}`), stopChunk}, nil},
		{"an empty summary", []string{detailsChunk(`{"type":"reasoning.summary","summary":"a","index":0},{"type":"reasoning.summary","summary":"","index":1}`), stopChunk}, nil},
		{"custom input split inside a surrogate pair", []string{callChunk("c", `{"input":"\ud83d`), argsChunk(`\ude00"}`), stopChunk}, func(t *testing.T, o []out) {
			if o[0].Input != "😀" {
				t.Errorf("input %q", o[0].Input)
			}
		}},
		{"custom input with an invalid escape", []string{callChunk("c", `{"input":"\x"}`), stopChunk}, func(t *testing.T, o []out) {
			if o[0].Input != `\x` {
				t.Errorf("input %q", o[0].Input)
			}
		}},
		{"whitespace before the input key", []string{callChunk("c", "{ \"input\": \"x\"}"), stopChunk}, func(t *testing.T, o []out) {
			if o[0].Input != "x" {
				t.Errorf("input %q", o[0].Input)
			}
		}},
	}
	req := request(t, fuzzRequest)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var chunks [][]byte
			for _, s := range c.chunks {
				chunks = append(chunks, []byte(s))
			}
			ev := stream(t, req, chunks, nil) // fails unless the checker passes
			var r struct{ Output []out }
			if err := json.Unmarshal(terminalResponse(t, ev), &r); err != nil || len(r.Output) == 0 {
				t.Fatalf("%v: %s", err, terminalResponse(t, ev))
			}
			if c.check != nil {
				c.check(t, r.Output)
			}
		})
	}
}

// isFunctionCall: a built-in call whose arguments make no action is kept
// as a function_call with its arguments.
func isFunctionCall(t *testing.T, o []out) {
	if o[0].Type != "function_call" || o[0].Arguments == "" {
		t.Errorf("%+v", o[0])
	}
}

// A completion's warnings name its message's fields, a stream's its
// delta's: a call of a tool the request did not offer, and a reasoning
// detail that is not an object.
func TestWarningPathsName(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi"}`)
	body := `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"reasoning_details":[7],` +
		`"tool_calls":[{"id":"c1","type":"function","function":{"name":"nope","arguments":"{}"}}]}}]}`
	_, warns, err := ChatToResponse(req, []byte(body), Options{IDs: &SeqIDs{}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"choices[0].message.tool_calls[0]": false, "choices[0].message.reasoning_details": false}
	for _, w := range warns {
		if _, ok := want[w.Path]; ok {
			want[w.Path] = true
		}
	}
	for p, seen := range want {
		if !seen {
			t.Errorf("no warning at %s: %v", p, warns)
		}
	}
}

// A stream that fails mid-way on the context being full fails with code
// context_length_exceeded, as the live API does (Codex compacts on it),
// and one that runs out of credits with insufficient_quota: both pass the
// checker, as codes beyond the spec's enum that clients act on.
func TestStreamErrorCodesClientsActOn(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi"}`)
	for _, c := range []struct{ chunk, code string }{
		{`{"choices":[],"error":{"code":400,"message":"This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens."}}`, "context_length_exceeded"},
		{`{"choices":[],"error":{"code":"context_length_exceeded","message":"too long"}}`, "context_length_exceeded"},
		{`{"choices":[],"error":{"code":402,"message":"Insufficient credits"}}`, "insufficient_quota"},
		{`{"choices":[],"error":{"code":502,"message":"Provider returned error"}}`, "server_error"},
	} {
		ev := stream(t, req, [][]byte{[]byte(`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`), []byte(c.chunk)}, nil)
		var r struct {
			Status string
			Error  struct{ Code string }
		}
		if err := json.Unmarshal(terminalResponse(t, ev), &r); err != nil {
			t.Fatal(err)
		}
		if r.Status != "failed" || r.Error.Code != c.code {
			t.Errorf("%s: %s %q, want failed %q", c.chunk, r.Status, r.Error.Code, c.code)
		}
	}
}
