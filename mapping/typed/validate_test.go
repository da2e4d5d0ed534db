package typed_test

import (
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
)

// Arrays the spec requires and does not let be null, in the objects only a
// server writes (rule required-arrays), are written as [] from a Go nil,
// never left out or null, and Validate() takes the nil (it is written []);
// a payload without them still decodes. (An object a request carries too,
// such as a replayed output_text, is left alone:
// TestRequestRoundTripAddsNothing.)
func TestRequiredArraysEncodeEmpty(t *testing.T) {
	type value interface {
		MarshalJSON() ([]byte, error)
		UnmarshalJSON([]byte) error
		Validate() error
	}
	const delta = `{"type":"response.output_text.delta","content_index":0,"delta":"x","item_id":"i","output_index":0,"sequence_number":1}`
	for _, c := range []struct {
		name        string
		zero, full  value
		body, field string
	}{
		{"openai.ResponseTextDeltaEvent", new(openai.ResponseTextDeltaEvent), new(openai.ResponseTextDeltaEvent), delta, "logprobs"},
		{"openrouter.TextDeltaEvent", new(openrouter.TextDeltaEvent), new(openrouter.TextDeltaEvent), delta, "logprobs"},
		{"openai.OutputMessage", new(openai.OutputMessage), new(openai.OutputMessage), `{"type":"message","id":"m","role":"assistant","status":"completed"}`, "content"},
		// what the issue asked: an output_text's annotations and logprobs
		{"openai.OutputTextContent/annotations", new(openai.OutputTextContent), new(openai.OutputTextContent), `{"type":"output_text","text":"hi"}`, "annotations"},
		{"openai.OutputTextContent/logprobs", new(openai.OutputTextContent), new(openai.OutputTextContent), `{"type":"output_text","text":"hi"}`, "logprobs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := `"` + c.field + `":[]`
			out, err := c.zero.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), want) {
				t.Errorf("zero value: %s lacks %s", out, want)
			}
			// The zero value lacks other required fields, never this one.
			if err := c.zero.Validate(); err == nil || strings.Contains(err.Error(), c.field) {
				t.Errorf("zero value: Validate() = %v, want an error that does not name %s", err, c.field)
			}
			if err := c.full.UnmarshalJSON([]byte(c.body)); err != nil {
				t.Fatalf("decoding without %s: %v", c.field, err)
			}
			if err := c.full.Validate(); err != nil {
				t.Errorf("decoded without %s: Validate() = %v", c.field, err)
			}
			if out, _ := c.full.MarshalJSON(); !strings.Contains(string(out), want) {
				t.Errorf("decoded without %s, re-encoded: %s", c.field, out)
			}
		})
	}
	// Inside a Response, through the output item union.
	var resp openai.Response
	if err := resp.UnmarshalJSON([]byte(`{"id":"r","output":[{"type":"message","id":"m","role":"assistant","status":"completed"}]}`)); err != nil {
		t.Fatal(err)
	}
	if out, _ := resp.MarshalJSON(); !strings.Contains(string(out), `"content":[]`) {
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
