package typed_test

import (
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/gen/openai"
)

// Arrays the spec requires and does not let be null are written as [] from
// a Go nil (rule required-arrays), never left out or null; a payload without
// them still decodes.
func TestRequiredArraysEncodeEmpty(t *testing.T) {
	var zero openai.OutputTextContent
	out, err := zero.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"annotations":[]`, `"logprobs":[]`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("zero output_text: %s lacks %s", out, want)
		}
	}
	var part openai.OutputTextContent
	if err := part.UnmarshalJSON([]byte(`{"type":"output_text","text":"x"}`)); err != nil {
		t.Fatalf("decoding without annotations and logprobs: %v", err)
	}
	if out, _ := part.MarshalJSON(); !strings.Contains(string(out), `"annotations":[],"logprobs":[]`) {
		t.Errorf("decoded without them, re-encoded: %s", out)
	}
	// Inside a Response, through the output item and content unions.
	var resp openai.Response
	if err := resp.UnmarshalJSON([]byte(`{"id":"r","output":[{"type":"message","id":"m","role":"assistant","status":"completed","content":[{"type":"output_text","text":"x"}]}]}`)); err != nil {
		t.Fatal(err)
	}
	if out, _ := resp.MarshalJSON(); !strings.Contains(string(out), `"annotations":[],"logprobs":[]`) {
		t.Errorf("Response: %s", out)
	}
}

// Decoding takes what the spec requires and a payload lacks; Validate()
// reports it, naming the field and the path to it. Exclusive fields
// (reasoning.summary with generate_summary, declared in the OpenAI overlay)
// are a validation error too.
func TestValidateSpecRequired(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string // in the error, in order: the path's names
	}{
		{"json_schema format without name", `{"model":"m","text":{"format":{"type":"json_schema","schema":{}}}}`, []string{"text", "format", "name", "required by the spec"}},
		{"function_call without call_id", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, []string{"input", "[0]", "call_id", "required by the spec"}},
		{"message without content", `{"model":"m","input":[{"type":"message","role":"user"}]}`, []string{"input", "[0]", "content", "required by the spec"}},
		{"function tool without name", `{"model":"m","tools":[{"type":"function","parameters":{},"strict":true}]}`, []string{"tools", "[0]", "name", "required by the spec"}},
		{"summary and generate_summary", `{"model":"m","reasoning":{"summary":"auto","generate_summary":"concise"}}`, []string{"reasoning", "generate_summary", `not allowed together with "summary"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req openai.CreateResponse
			if err := req.UnmarshalJSON([]byte(c.body)); err != nil {
				t.Fatalf("decode: %v", err)
			}
			err := req.Validate()
			if err == nil {
				t.Fatal("Validate: no error")
			}
			msg, at := err.Error(), 0
			for _, w := range c.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q after offset %d", msg, w, at)
				}
				at += i + len(w)
			}
		})
	}
	for _, ok := range []string{
		`{"model":"m","input":"hi"}`,
		`{"model":"m","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}],"tools":[{"type":"function","name":"f","parameters":{},"strict":true}]}`,
		`{"model":"m","reasoning":{"summary":"auto","generate_summary":null}}`,
		`{"model":"m","reasoning":{"generate_summary":"concise"}}`,
	} {
		var req openai.CreateResponse
		if err := req.UnmarshalJSON([]byte(ok)); err != nil {
			t.Fatal(err)
		}
		if err := req.Validate(); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
