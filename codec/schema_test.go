package codec_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

func TestLookup(t *testing.T) {
	req, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	orReq, _ := codec.OpenRouter.Payload(codec.ChatRequest)
	for _, c := range []struct {
		root       codec.Root
		path, name string
		shape      codec.Shape
	}{
		{req, "model", "", codec.ShapeScalar},
		{req, "max_output_tokens", "", codec.ShapeScalar},
		{req, "text.format{json_schema}", "TextResponseFormatJsonSchema", codec.ShapeObject},
		{req, "text.format{json_schema}.schema", "", codec.ShapeAny},
		{req, "tools[]{function}", "FunctionTool", codec.ShapeObject},
		{req, "tools[]{function}.parameters", "", codec.ShapeAny},
		{req, "input[]{message}", "InputItemMessage", codec.ShapeObject},
		{req, "input[]{message}.content[]{input_text}.text", "", codec.ShapeScalar},
		{req, "input{string}", "", codec.ShapeScalar},
		{req, "reasoning.effort", "ReasoningEffort", codec.ShapeScalar},
		{req, "tool_choice{allowed_tools}.mode", "", codec.ShapeScalar},
		{orReq, "messages[]{user}.content{string}", "", codec.ShapeScalar},
		{orReq, "provider", "", codec.ShapeObject},
	} {
		s, err := c.root.Schema().Lookup(c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if c.name != "" && s.Name() != c.name || s.Shape() != c.shape {
			t.Errorf("%s: %s, shape %d", c.path, s.Name(), s.Shape())
		}
	}
	// A property or variant that is not there is ErrAbsent (another
	// release's field); a path that does not fit the shape is not.
	for _, c := range []struct {
		path, want string
		absent     bool
	}{
		{"nope", `has no property "nope"`, true},
		{"reasoning.nope", `has no property "nope"`, true},
		{"tools[]{quantum}", `no variant "quantum"`, true},
		{"model[]", "not an array", false},
		{"text.format{json_schema", "unclosed", false},
		{"input[]{message}.content.x", "is not an object", false},
		{"temperature{string}", "", false},
	} {
		_, err := req.Schema().Lookup(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, codec.ErrAbsent) != c.absent {
			t.Errorf("%s: %v, want %q (absent: %v)", c.path, err, c.want, c.absent)
		}
	}
	if s, _ := req.Schema().Lookup("reasoning.effort"); !strings.Contains(strings.Join(s.Values(), ","), "high") {
		t.Errorf("effort values %v", s.Values())
	}
	p, ok := req.Schema().Property("model")
	if !ok || p.Required {
		t.Errorf("model %+v", p)
	}
}

// Required is Properties' required ones, in the same order, for every
// schema reachable from every payload of every dialect.
func TestRequired(t *testing.T) {
	seen := map[codec.Schema]bool{}
	var walk func(s codec.Schema)
	walk = func(s codec.Schema) {
		if !s.Valid() || seen[s] {
			return
		}
		seen[s] = true
		var want, got []string
		for p := range s.Properties() {
			if p.Required {
				want = append(want, p.Key)
			}
			walk(p.Schema)
		}
		for p := range s.Required() {
			got = append(got, p.Key)
			if !p.Required {
				t.Errorf("%s: %s not marked required", s.Name(), p.Key)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: Required %v, want %v", s.Name(), got, want)
		}
		walk(s.Items())
		for v := range s.Variants() {
			walk(v.Schema)
		}
		for a := range s.Alternatives() {
			walk(a)
		}
	}
	n := 0
	for _, d := range codec.Dialects {
		for p := codec.Payload(0); p.String() != "payload(?)"; p++ {
			if r, ok := d.Payload(p); ok {
				walk(r.Schema())
			}
		}
	}
	for s := range seen {
		for range s.Required() {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no required property anywhere")
	}
}
