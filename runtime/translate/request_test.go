package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/conformance"
)

// echoCases are requests whose echoes fill what the spec requires of
// their tools, echo every field, or echo the defaults.
var echoCases = []string{
	`{"model":"m","input":"hi","stream":true,"tools":[{"type":"function","name":"f"}]}`,
	`{"model":"m","input":"hi","tools":[{"type":"function","name":"f","description":"d","strict":true},` +
		`{"type":"function","name":"g","parameters":null},{"type":"custom","name":"c"},` +
		`{"type":"namespace","name":"ns","description":"d","tools":[{"type":"function","name":"h"},{"type":"custom","name":"k"}]},` +
		`{"type":"local_shell"},{"type":"shell"},{"type":"apply_patch"},{"type":"tool_search","execution":"client"},{"type":"web_search"}],` +
		`"tool_choice":{"type":"function","name":"f"},"text":{"format":{"type":"text"},"verbosity":"low"},"reasoning":{"effort":"low"},` +
		`"instructions":"be brief","max_output_tokens":100,"temperature":0.5,"top_p":0.9,"metadata":{"a":"b"},"prompt_cache_key":"k","safety_identifier":"s","user":"u"}`,
	`{"model":"m","input":"hi","text":{"verbosity":"low"},"tool_choice":"required","tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],` +
		`"reasoning":{"summary":"auto"},"truncation":"auto","prompt_cache_retention":"24h","max_tool_calls":3,"service_tier":"flex","top_logprobs":2}`,
}

// The Response echoes the request's tools and fields as the spec shapes
// them, filling what the spec requires and a client may leave out as
// OpenAI does: a function tool without parameters gets "parameters":null
// (and "strict":false). A stream for such a request, and the Response not
// streamed, pass the checker (before, the checker rejected the echoed
// tools of response.created, in_progress and completed).
func TestEchoAsTheSpecShapesIt(t *testing.T) {
	for _, body := range echoCases {
		ev := echoed(t, body)
		var r struct{ Tools []map[string]json.RawMessage }
		if err := json.Unmarshal(terminalResponse(t, ev), &r); err != nil {
			t.Fatal(err)
		}
		for _, tool := range r.Tools {
			if string(tool["type"]) != `"function"` {
				continue
			}
			if _, ok := tool["parameters"]; !ok {
				t.Errorf("a function tool without parameters: %v", tool)
			}
			if _, ok := tool["strict"]; !ok {
				t.Errorf("a function tool without strict: %v", tool)
			}
		}
	}
}

// A function tool in chat's shape (the mapping accepts it) is echoed as
// the Response's flat function tool, and a namespace sent without its
// description (the mapping takes it) gets "": before, the checker
// rejected both echoes (tools[0].name, .parameters, .description missing).
func TestEchoChatShapedAndBareNamespace(t *testing.T) {
	body := `{"model":"m","input":"hi","tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}},"cache_control":{"type":"ephemeral"}},` +
		`{"type":"function","function":{"name":"g"}},{"type":"namespace","name":"ns","tools":[{"type":"function","name":"h"}]}]}`
	ev := echoed(t, body)
	var r struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(terminalResponse(t, ev), &r); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"type":"function","cache_control":{"type":"ephemeral"},"name":"f","description":"d","parameters":{"type":"object","properties":{}},"strict":false}`,
		`{"type":"function","name":"g","parameters":null,"strict":false}`,
		`{"type":"namespace","name":"ns","tools":[{"type":"function","name":"h"}],"description":""}`,
	}
	if len(r.Tools) != len(want) {
		t.Fatalf("tools %s", r.Tools)
	}
	for i, w := range want {
		if string(r.Tools[i]) != w {
			t.Errorf("tools[%d] = %s, want %s", i, r.Tools[i], w)
		}
	}
}

// A tool choice in chat's shape (the mapping accepts it) is echoed in the
// Response's: before, the checker rejected the echo (tool_choice.name,
// .mode, .tools missing).
func TestEchoChatShapedToolChoice(t *testing.T) {
	tools := `"tools":[{"type":"function","name":"f","parameters":{}},{"type":"custom","name":"c"}]`
	for choice, want := range map[string]string{
		`{"type":"function","function":{"name":"f"}}`: `{"type":"function","name":"f"}`,
		`{"type":"custom","custom":{"name":"c"}}`:     `{"type":"custom","name":"c"}`,
		`{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"f"}},{"type":"custom","custom":{"name":"c"}}]}}`: `{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"f"},{"type":"custom","name":"c"}]}`,
		`{"type":"function","name":"f"}`: `{"type":"function","name":"f"}`,
	} {
		ev := echoed(t, `{"model":"m","input":"hi",`+tools+`,"tool_choice":`+choice+`}`)
		var r struct {
			ToolChoice json.RawMessage `json:"tool_choice"`
		}
		if err := json.Unmarshal(terminalResponse(t, ev), &r); err != nil {
			t.Fatal(err)
		}
		if string(r.ToolChoice) != want {
			t.Errorf("%s echoed as %s, want %s", choice, r.ToolChoice, want)
		}
	}
}

// echoed answers body "Hi", streamed and not: the stream passes the
// checker (stream), so does the Response; it returns the stream's events.
func echoed(t *testing.T, body string) [][]byte {
	t.Helper()
	req := request(t, body)
	ev := stream(t, req, [][]byte{[]byte(`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`), []byte(stopChunk)}, nil) // passes the checker
	resp, _, err := ChatToResponse(req, []byte(`{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hi"}}]}`), Options{IDs: &SeqIDs{}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if fs := conformance.CheckResponse(resp); conformance.Violations(fs) > 0 {
		t.Errorf("response: %v\n%s", fs, resp)
	}
	return ev
}

// A request sent pretty-printed (line breaks between its tokens) is
// echoed without them: an echoed value goes in an SSE data line, which a
// line break would end (before, Codex's recorded request, indented, gave a
// response.created the client could not parse).
func TestEchoOfAnIndentedRequest(t *testing.T) {
	body := "{\n  \"model\": \"m\",\r\n  \"input\": \"hi\",\n  \"stream\": true,\n  \"reasoning\": {\n    \"summary\": \"auto\"\n  },\n" +
		"  \"tools\": [\n    {\"type\": \"function\", \"name\": \"f\", \"description\": \"a\\nb\", \"parameters\": {\n      \"type\": \"object\"\n    }}\n  ],\n" +
		"  \"text\": {\"format\": {\"type\": \"text\"}},\n  \"metadata\": {\n    \"a\": \"b c\"\n  }\n}"
	for i, ev := range echoed(t, body) {
		if bytes.ContainsAny(ev, "\r\n") {
			t.Errorf("event %d has a line break: %s", i, ev)
		}
	}
	resp := terminalResponse(t, echoed(t, body))
	for _, want := range []string{`"reasoning":{"summary":"auto"}`, `"description":"a\nb"`, `"metadata":{"a":"b c"}`} {
		if !bytes.Contains(resp, []byte(want)) {
			t.Errorf("no %s in %s", want, resp)
		}
	}
}

// echoIndex names every member echoes lists, at its index, and nothing
// else.
func TestEchoIndex(t *testing.T) {
	for i, e := range echoes {
		if got := echoIndex([]byte(e.key)); got != i {
			t.Errorf("echoIndex(%q) = %d, want %d", e.key, got, i)
		}
	}
	for _, k := range []string{"conversation", "include", "input", "", "Model", "tools "} {
		if got := echoIndex([]byte(k)); got != -1 {
			t.Errorf("echoIndex(%q) = %d, want -1", k, got)
		}
	}
}

// A RequestPool's Requests, reused from one request to the next in any
// order, are RequestOf's: the same echo, flags and tool map, nothing of
// the request before left in them (a long echo before a short one, a map
// of 20 tools, which is indexed, before one of none).
func TestRequestPool(t *testing.T) {
	var cv mapping.Converter
	var many strings.Builder
	many.WriteString(`{"model":"m","input":"hi","include":["reasoning.encrypted_content","message.output_text.logprobs"],"instructions":"` +
		strings.Repeat("long instructions ", 200) + `","tools":[`)
	for i := range 20 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"type":"function","name":"f%d","parameters":{"type":"object"}}`, i)
	}
	many.WriteString(`,{"type":"custom","name":"c"},{"type":"namespace","name":"ns","tools":[{"type":"function","name":"h"}]}]}`)
	escapedType := `{"model":"m","input":"hi","tools":[{"type":"funct\u0069on","name":"f"},{"type":"function","name":"g","strict":false,"parameters":{}}]}`
	bodies := append([]string{
		many.String(),
		`{"model":"m","input":"hi"}`,
		`{"model":"m","input":"hi","include":["message.output_text.logprobs"],"tools":[` + "\n" + `{"type":"function","name":"f","parameters":{"type":"object"}` + "\n\t" + `}],"metadata":{` + "\r\n" + `"a":"b"}}`,
		escapedType,
	}, echoCases...)
	// A type written with escapes is its type: the function tool is filled.
	if _, _, err := cv.ResponsesToChat(nil, []byte(escapedType), mapping.Options{}); err != nil {
		t.Fatal(err)
	}
	if e := RequestOf(&cv).echo.json; !bytes.Contains(e, []byte(`{"type":"funct\u0069on","name":"f","parameters":null,"strict":false}`)) {
		t.Fatalf("the escaped function tool is not filled: %s", e)
	}
	var pool RequestPool
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}, {0, 0, 1, 1, 5, 0, 2, 3, 1, 6}} {
		for _, n := range order {
			if _, _, err := cv.ResponsesToChat(nil, []byte(bodies[n]), mapping.Options{}); err != nil {
				t.Fatalf("body %d: %v", n, err)
			}
			want := RequestOf(&cv)
			got := pool.Of(&cv)
			if !bytes.Equal(got.echo.json, want.echo.json) || got.echo.ends != want.echo.ends {
				t.Fatalf("body %d: the pooled echo\n%s\nwant\n%s", n, got.echo.json, want.echo.json)
			}
			if got.Encrypted != want.Encrypted || got.Logprobs != want.Logprobs || got.Stored || got.Conversation != "" {
				t.Fatalf("body %d: pooled %+v, want %+v", n, got, want)
			}
			if !slices.Equal(got.Tools.Tools(), want.Tools.Tools()) {
				t.Fatalf("body %d: pooled tools %v, want %v", n, got.Tools.Tools(), want.Tools.Tools())
			}
			for _, tool := range want.Tools.Tools() {
				g, gok := got.Tools.Lookup(tool.Name)
				w, wok := want.Tools.Lookup(tool.Name)
				if g != w || gok != wok {
					t.Fatalf("body %d: pooled Lookup(%q) = %v, %v; want %v, %v", n, tool.Name, g, gok, w, wok)
				}
			}
			if _, ok := got.Tools.Lookup("f19"); ok != (n == 0) {
				t.Fatalf("body %d: pooled Lookup(f19) = %v", n, ok)
			}
			got.Stored, got.Conversation = true, "conv_1" // what the gateway sets: not kept either
			pool.Put(got)
		}
	}
}
