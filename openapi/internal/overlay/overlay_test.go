package overlay

import (
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

const spec = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},
"components":{"schemas":{
  "Delta":{"type":"object","properties":{"content":{"type":"string"},"reasoning":{"type":"string"}}}}}}`

const patch = `
patches:
  - schema: Delta
    reason: real streams carry them
    properties:
      reasoning_content: {type: [string, "null"]}
      reasoning: {type: string}
      annotations:
        type: array
        items: {$ref: "#/components/schemas/Annotation"}
  - schema: Gone
    reason: renamed upstream
    properties:
      x: {type: string}
schemas:
  - name: Annotation
    reason: the shape providers send
    schema: {type: object, properties: {url: {type: string}}}
`

func TestApply(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	o, err := Parse([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.Apply(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []Applied{
		{Target: "Annotation", Reason: "the shape providers send"},
		{Target: "Delta.reasoning_content", Reason: "real streams carry them"},
		{Target: "Delta.reasoning", Reason: "real streams carry them", Stale: "the spec declares this property"},
		{Target: "Delta.annotations", Reason: "real streams carry them"},
		{Target: "Gone.x", Reason: "renamed upstream", Stale: "the pruned spec has no component schema Gone"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	delta := doc.Components.Schemas["Delta"].Value
	if rc := delta.Properties["reasoning_content"]; rc == nil || !rc.Value.Type.Includes("null") {
		t.Errorf("reasoning_content not added as a nullable string: %+v", rc)
	}
	if delta.Properties["reasoning"].Value.Type.Slice()[0] != "string" {
		t.Error("an overlay changed a property the spec declares")
	}
	if a := delta.Properties["annotations"].Value.Items; a == nil || a.Ref != "#/components/schemas/Annotation" {
		t.Errorf("annotations items: %+v", a)
	}
	// The patched document reloads: the overlay's references resolve.
	data, err := doc.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
		t.Errorf("patched document does not load: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"patches:\n  - schema: X\n    properties: {a: {type: string}}\n", "schema and reason are required"},
		{"patches:\n  - schema: X\n    reason: r\n    properties: [a]\n", "properties must be a mapping"},
		{"patchez: []\n", `field "patchez" not found`},
		{"schemas:\n  - name: X\n", "need name and reason"},
	} {
		_, err := Parse([]byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}

// A dialect's overlay removes what the provider refuses: properties (also
// from an allOf part, and from required), and variants of a union; one the
// spec lacks is stale.
func TestRemove(t *testing.T) {
	const doc = `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
	  "components": {"schemas": {
	    "Base": {"type": "object", "required": ["user"], "properties": {"user": {"type": "string"}, "seed": {"type": "integer"}}},
	    "Req": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {"logprobs": {"type": "boolean"}, "model": {"type": "string"}}}]},
	    "Dev": {"type": "object", "properties": {"role": {"type": "string", "enum": ["developer"]}}},
	    "User": {"type": "object", "properties": {"role": {"type": "string", "enum": ["user"]}}},
	    "Msg": {"oneOf": [{"$ref": "#/components/schemas/Dev"}, {"$ref": "#/components/schemas/User"}]}}}}`
	d, err := openapi3.NewLoader().LoadFromData([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	o, err := Parse([]byte(`patches:
  - schema: Req
    reason: the provider refuses them
    remove: [logprobs, user, nothing]
  - schema: Msg
    reason: no developer role
    remove_variants: [Dev, Ghost]
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, a := range got {
		if a.Stale != "" {
			stale = append(stale, a.Target+": "+a.Stale)
		}
	}
	if want := []string{"Req.nothing (removed): the schema has no such property", "Msg variant Ghost (removed): the schema has no such variant"}; !slices.Equal(stale, want) {
		t.Errorf("stale %q, want %q", stale, want)
	}
	s := d.Components.Schemas
	if base := s["Base"].Value; base.Properties["user"] != nil || len(base.Required) != 0 || base.Properties["seed"] == nil {
		t.Errorf("Base after removing user: %+v, required %v", base.Properties, base.Required)
	}
	if req := s["Req"].Value.AllOf[1].Value; req.Properties["logprobs"] != nil || req.Properties["model"] == nil {
		t.Errorf("Req's own part: %+v", req.Properties)
	}
	if msg := s["Msg"].Value.OneOf; len(msg) != 1 || msg[0].Ref != "#/components/schemas/User" {
		t.Errorf("Msg's variants: %+v", msg)
	}
}
