package mapping_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/golden"
	"github.com/transponder-dev/transponder/mapping"
)

// reverseCase reads a testdata/reverse case: its request and options.
func reverseCase(t *testing.T, dir string) ([]byte, mapping.ReverseOptions) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(dir, "request.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Instructions    bool                `json:"instructions"`
		Store           bool                `json:"store"`
		Models          []mapping.ModelRule `json:"models"`
		Guards          []mapping.GuardRule `json:"guards"`
		NoDefaultGuards bool                `json:"no_default_guards"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "options.json")); err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			t.Fatal(err)
		}
	}
	return body, mapping.ReverseOptions{Instructions: o.Instructions, Store: o.Store, Models: o.Models, Guards: o.Guards, NoDefaultGuards: o.NoDefaultGuards}
}

// Each testdata/reverse/<case>/request.json (a chat request, with
// options.json if the case needs ReverseOptions) converts, for each
// dialect, to <dialect>.json (the Responses request, indented) and
// <dialect>.warnings, or to <dialect>.error.json; every Responses request
// is valid for its dialect's schema in the pinned spec and keeps the
// invariants of checkResponsesInput. Rewrite with -update, and review.
func TestReverseGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/reverse/*/request.json")
	if err != nil || len(dirs) == 0 {
		t.Fatal("no cases", err)
	}
	for _, req := range dirs {
		dir := filepath.Dir(req)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			body, opts := reverseCase(t, dir)
			for _, d := range dialects {
				opts.Dialect = d.d
				name := filepath.Join(dir, d.d.String())
				if *update {
					for _, ext := range []string{".json", ".warnings", ".error.json"} {
						os.Remove(name + ext)
					}
				}
				out, warns, err := mapping.ChatToResponses(body, opts)
				reverseSplit(t, body, opts, out, warns, err)
				if err != nil {
					var e *mapping.Error
					if !errors.As(err, &e) {
						t.Fatalf("%s: %v is not a *mapping.Error", d.d, err)
					}
					golden.Check(t, name+".error.json", indent(t, e.AppendJSON(nil)), *update)
					continue
				}
				golden.Check(t, name+".json", indent(t, out), *update)
				var w strings.Builder
				for _, x := range warns {
					w.WriteString(x.String() + "\n")
				}
				golden.Check(t, name+".warnings", w.String(), *update)
				validResponses(t, d.table, out)
				checkResponsesInput(t, out, opts)
				var rc mapping.ReverseConverter
				rc.ChatToResponses(nil, []byte(`{"model":"m","messages":[{"role":"user","content":"warm the memory"}],"tools":[{"type":"function","function":{"name":"z"}}]}`), mapping.ReverseOptions{Store: true})
				again, _, _ := rc.ChatToResponses(nil, body, opts)
				if !bytes.Equal(out, again) {
					t.Errorf("%s: a reused converter's conversion differs:\n%s\n%s", d.d, out, again)
				}
			}
		})
	}
}

// reverseSplit fails the test if Decode then Convert (what the gateway
// does, reading the model and stream in between) does not give what
// ChatToResponses gave, or if Convert converts without a Decode.
func reverseSplit(t *testing.T, body []byte, opts mapping.ReverseOptions, out []byte, warns []mapping.Warning, err error) {
	t.Helper()
	var rc mapping.ReverseConverter
	convert := func() ([]byte, []mapping.Warning, error) { return rc.Convert(nil, opts) }
	sameSplit(t, "ChatToResponses", rc.Decode, convert, body, out, warns, err, nil)
}

// validResponses fails the test if a Responses request has anything the
// pinned OpenAI schema does not know or allow.
func validResponses(t *testing.T, table *codec.Dialect, out []byte) {
	t.Helper()
	root, _ := table.Payload(codec.ResponsesRequest)
	doc, err := codec.Decode(root, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Findings() {
		t.Errorf("%s responses request: %s", table.Name(), f)
	}
}

// checkResponsesInput asserts what a Responses upstream needs of the
// converted input, as the seed client test does: no item of role
// tool, every output after its call (and every call answered by at most one
// output), flat tools, store as the options say.
func checkResponsesInput(t *testing.T, out []byte, opts mapping.ReverseOptions) {
	t.Helper()
	var req struct {
		Input []map[string]json.RawMessage `json:"input"`
		Tools []map[string]json.RawMessage `json:"tools"`
		Store *bool                        `json:"store"`
	}
	if err := json.Unmarshal(out, &req); err != nil {
		t.Fatal(err)
	}
	calls := map[string]string{}
	answered := map[string]bool{}
	for i, it := range req.Input {
		var typ, role, id string
		json.Unmarshal(it["type"], &typ)
		json.Unmarshal(it["role"], &role)
		json.Unmarshal(it["call_id"], &id)
		if role == "tool" || typ == "" {
			t.Errorf("input[%d]: type %q role %q", i, typ, role)
		}
		switch typ {
		case "function_call", "custom_tool_call":
			calls[id] = typ
		case "function_call_output", "custom_tool_call_output":
			if c, ok := calls[id]; !ok || strings.TrimSuffix(typ, "_output") != c || answered[id] {
				t.Errorf("input[%d]: output of %q without its call (or twice)", i, id)
			}
			answered[id] = true
		}
	}
	for i, tool := range req.Tools {
		if _, nested := tool["function"]; nested {
			t.Errorf("tools[%d] is nested", i)
		}
		var typ string
		json.Unmarshal(tool["type"], &typ)
		if _, ok := tool["name"]; (typ == "function" || typ == "custom") && !ok {
			t.Errorf("tools[%d] has no name", i)
		}
	}
	if req.Store == nil || *req.Store != opts.Store {
		t.Errorf("store %v, want %v", req.Store, opts.Store)
	}
}

// The seed-style check on the tool loop: the system message is an input
// item of its role, the calls and outputs pair in order.
func TestReverseToolLoop(t *testing.T) {
	body, opts := reverseCase(t, "testdata/reverse/tool_loop")
	opts.Dialect = mapping.OpenAI
	out, _, err := mapping.ChatToResponses(body, opts)
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		Instructions *string `json:"instructions"`
	}
	var raw struct {
		Input []map[string]any `json:"input"`
	}
	json.Unmarshal(out, &req)
	json.Unmarshal(out, &raw)
	var seq []string
	for _, it := range raw.Input {
		s, _ := it["type"].(string)
		if r, ok := it["role"].(string); ok {
			s += ":" + r
		}
		if id, ok := it["call_id"].(string); ok {
			s += ":" + id
		}
		seq = append(seq, s)
	}
	want := "message:system message:user function_call:call_1 function_call:call_2 function_call_output:call_1 function_call_output:call_2 message:assistant message:user"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("items\n got %s\nwant %s", got, want)
	}
	if req.Instructions != nil {
		t.Errorf("instructions %q without the option", *req.Instructions)
	}
	if !bytes.Contains(out, []byte(`"arguments":"{\"city\": \"Paris\"}"`)) {
		t.Errorf("arguments not verbatim: %s", out)
	}
}

// The schema of a json_schema response format reaches text.format byte
// for byte.
func TestReverseSchemaBytes(t *testing.T) {
	body, opts := reverseCase(t, "testdata/reverse/json_schema")
	opts.Dialect = mapping.OpenAI
	out, _, err := mapping.ChatToResponses(body, opts)
	if err != nil {
		t.Fatal(err)
	}
	schema := `{ "type" : "object","properties":{"a":{"type":"integer"}} ,"required":["a"],"additionalProperties":false}`
	if !bytes.Contains(body, []byte(schema)) || !bytes.Contains(out, []byte(`"schema":`+schema)) {
		t.Errorf("schema not byte for byte: %s", out)
	}
}

// Whatever the body, the reverse converter returns valid JSON or a
// *mapping.Error, never panics, and converts the same body to the same
// bytes.
func FuzzChatToResponses(f *testing.F) {
	reqs, _ := filepath.Glob("testdata/reverse/*/request.json")
	for _, r := range reqs {
		b, err := os.ReadFile(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte(`{"model":"m","messages":[1,{"role":"assistant","tool_calls":[null,{"id":"a"}]},{"role":"tool"}],"tools":[{"type":"function"}]}`), uint8(3))
	f.Fuzz(func(t *testing.T, body []byte, o uint8) {
		opts := mapping.ReverseOptions{Dialect: mapping.Dialect(o & 1), Instructions: o&2 != 0, Store: o&4 != 0}
		out, _, err := mapping.ChatToResponses(body, opts)
		if err != nil {
			var e *mapping.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T is not a *mapping.Error: %v", err, err)
			}
			if !json.Valid(e.AppendJSON(nil)) {
				t.Fatalf("error body not JSON: %s", e.AppendJSON(nil))
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
		again, _, _ := mapping.ChatToResponses(body, opts)
		if !bytes.Equal(out, again) {
			t.Fatalf("two conversions differ")
		}
	})
}

// chat → Responses → chat keeps the conversation: the roles in order (a
// system message as system), the tool calls' ids, names and arguments,
// the tool messages' call ids and contents, the tools' names and
// parameters, and tool_choice — for every golden case that converts.
func TestReverseRoundTrip(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/reverse/*/request.json")
	n := 0
	for _, req := range dirs {
		dir := filepath.Dir(req)
		body, opts := reverseCase(t, dir)
		if opts.Instructions || documentedLoss[filepath.Base(dir)] != "" {
			continue
		}
		opts.Dialect = mapping.OpenAI
		resp, _, err := mapping.ChatToResponses(body, opts)
		if err != nil {
			continue
		}
		back, _, err := mapping.ResponsesToChat(resp, mapping.Options{Dialect: mapping.OpenAI})
		if err != nil {
			t.Errorf("%s: back to chat: %v\n%s", dir, err, resp)
			continue
		}
		n++
		if a, b := conversation(t, body), conversation(t, back); a != b {
			t.Errorf("%s: the round trip changed the conversation\n was %s\n  is %s", dir, a, b)
		}
	}
	if n < 5 {
		t.Fatalf("only %d cases round-tripped", n)
	}
}

// documentedLoss are the cases whose round trip changes the request on
// purpose, and why.
var documentedLoss = map[string]string{
	"instructions":         "the leading system message comes back from instructions",
	"legacy_functions":     "deprecated functions and function_call come back as tools and tool_choice",
	"tool_choice_no_tools": "a tool choice without tools is left out, with a warning",
}

// conversation summarizes what a chat request's round trip keeps.
func conversation(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		ToolChoice json.RawMessage `json:"tool_choice"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Role)
		if m.Role == "tool" {
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				var parts []struct{ Text string }
				json.Unmarshal(m.Content, &parts)
				for _, p := range parts {
					s += p.Text
				}
			}
			b.WriteString("(" + m.ToolCallID + "=" + s + ")")
		}
		for _, c := range m.ToolCalls {
			b.WriteString("[" + c.ID + " " + c.Function.Name + " " + c.Function.Arguments + "]")
		}
		b.WriteString(" ")
	}
	for _, tl := range req.Tools {
		b.WriteString("tool " + tl.Function.Name + " ")
		if len(tl.Function.Parameters) > 0 {
			b.Write(tl.Function.Parameters)
		} else {
			// a function without parameters takes none: the Responses
			// request says so with an empty object schema
			b.WriteString(`{"type":"object","properties":{}}`)
		}
	}
	var c bytes.Buffer
	if len(req.ToolChoice) > 0 {
		json.Compact(&c, req.ToolChoice)
	}
	b.WriteString(" choice " + c.String())
	return b.String()
}

// The deprecated function_call becomes tool_choice only when the request
// sends no tool_choice (unless: tool_choice): a tool_choice the upstream
// cannot take (custom, for OpenRouter) is left to the model, never
// replaced by the function_call; the refusals of the YAML (refuse) name
// their path, the first one met winning.
func TestReverseFunctionCallAndRefusals(t *testing.T) {
	tools := `"tools":[{"type":"function","function":{"name":"f"}},{"type":"custom","custom":{"name":"g"}}]`
	for _, c := range []struct {
		name, body string
		dialect    mapping.Dialect
		want       string // in the request, or the error's param
	}{
		{"function_call alone", `{"model":"m","messages":[{"role":"user","content":"x"}],` + tools + `,"function_call":{"name":"f"}}`, mapping.OpenRouter, `"tool_choice":{"type":"function","name":"f"}`},
		{"tool_choice sent, not carried", `{"model":"m","messages":[{"role":"user","content":"x"}],` + tools + `,"tool_choice":{"type":"custom","custom":{"name":"g"}},"function_call":{"name":"f"}}`, mapping.OpenRouter, `!"tool_choice"`},
		{"tool_choice sent and carried", `{"model":"m","messages":[{"role":"user","content":"x"}],` + tools + `,"tool_choice":{"type":"custom","custom":{"name":"g"}},"function_call":{"name":"f"}}`, mapping.OpenAI, `"tool_choice":{"type":"custom","name":"g"}`},
		{"n 1 passes", `{"model":"m","messages":[{"role":"user","content":"x"}],"n":1,"modalities":["text"]}`, mapping.OpenAI, `"model":"m"`},
		{"n and a function message", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"function","name":"f","content":"y"}],"n":2}`, mapping.OpenAI, "error messages[1].role"},
		{"the second modality", `{"model":"m","messages":[{"role":"user","content":"x"}],"modalities":["text","audio"]}`, mapping.OpenAI, "error modalities[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := mapping.ChatToResponses([]byte(c.body), mapping.ReverseOptions{Dialect: c.dialect})
			if param, ok := strings.CutPrefix(c.want, "error "); ok {
				var e *mapping.Error
				if !errors.As(err, &e) || e.Param != param || e.Code != "unsupported_parameter" {
					t.Fatalf("error %v, want one naming %s", err, param)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if absent, ok := strings.CutPrefix(c.want, "!"); ok {
				if strings.Contains(string(out), absent) {
					t.Errorf("%s has %s", out, absent)
				}
				return
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("%s lacks %s", out, c.want)
			}
		})
	}
}

// Constants written only when the value is the rule's when: stream true
// asks OpenAI's chat for the usage chunk, false does not; logprobs true
// asks a Responses upstream for the output text's log probabilities,
// false does not; top_logprobs sets logprobs first.
func TestConstantsWhen(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
		reverse          bool
	}{
		{"stream true", `{"model":"m","input":"x","stream":true}`, `"stream":true,"stream_options":{"include_usage":true}`, false},
		{"stream false", `{"model":"m","input":"x","stream":false}`, `"stream":false}`, false},
		{"top_logprobs", `{"model":"m","input":"x","top_logprobs":2}`, `"logprobs":true,"top_logprobs":2`, false},
		{"logprobs true", `{"model":"m","messages":[{"role":"user","content":"x"}],"logprobs":true}`, `"include":["message.output_text.logprobs"]`, true},
		{"logprobs false", `{"model":"m","messages":[{"role":"user","content":"x"}],"logprobs":false}`, `!"include"`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out []byte
			var err error
			if c.reverse {
				out, _, err = mapping.ChatToResponses([]byte(c.body), mapping.ReverseOptions{Dialect: mapping.OpenAI})
			} else {
				out, _, err = mapping.ResponsesToChat([]byte(c.body), mapping.Options{Dialect: mapping.OpenAI})
			}
			if err != nil {
				t.Fatal(err)
			}
			if absent, ok := strings.CutPrefix(c.want, "!"); ok {
				if strings.Contains(string(out), absent) {
					t.Errorf("%s has %s", out, absent)
				}
			} else if !strings.Contains(string(out), c.want) {
				t.Errorf("%s lacks %s", out, c.want)
			}
		})
	}
}

// A Responses upstream speaks OpenAI's or OpenRouter's Responses API: a
// chat dialect derived from them is refused, not taken for its base.
func TestReverseRefusesChatDialects(t *testing.T) {
	for _, name := range mapping.Dialects() {
		d, _ := mapping.ParseDialect(name)
		_, _, err := mapping.ChatToResponses([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`), mapping.ReverseOptions{Dialect: d})
		if base := name == "openai" || name == "openrouter"; base != (err == nil) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A Dialect that is none of the constants is an error, not a panic, both
// ways.
func TestNoSuchDialect(t *testing.T) {
	d := mapping.Dialect(len(mapping.Dialects()))
	if _, _, err := mapping.ResponsesToChat([]byte(`{"model":"m","input":"hi"}`), mapping.Options{Dialect: d}); err == nil {
		t.Error("ResponsesToChat took no dialect")
	}
	if _, _, err := mapping.ChatToResponses([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`), mapping.ReverseOptions{Dialect: d}); err == nil {
		t.Error("ChatToResponses took no dialect")
	}
}
