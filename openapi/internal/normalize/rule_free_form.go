package normalize

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// FreeFormExt marks a schema the free-form rule turned into "any JSON value".
const FreeFormExt = "x-free-form"

// freeForm turns free-form JSON into the empty schema, which ogen generates as
// jx.Raw: the bytes are carried as they came. That covers
//   - maps: objects with no declared properties whose additionalProperties is
//     absent, true or a schema (tool parameters, json_schema.schema, metadata);
//     ogen would generate a Go map and encode it by ranging over it, so key
//     order would change from run to run;
//   - unions with such a variant ("any JSON value": string | number | … | map).
//
// It repeats until nothing changes, so nested free-form values collapse
// bottom-up.
func freeForm(d *Doc) error {
	for changed := true; changed; {
		changed = false
		nodes := d.Nodes()
		for i := len(nodes) - 1; i >= 0; i-- { // children before their parents
			n := nodes[i]
			s := n.Schema()
			if isAny(s) {
				continue
			}
			switch {
			case d.isMap(s):
				d.Hit(n, "map -> any JSON value (jx.Raw)")
			case d.unionWithAny(s):
				d.Hit(n, "union with an any-JSON variant -> any JSON value (jx.Raw)")
			default:
				continue
			}
			*s = openapi3.Schema{
				Title:       s.Title,
				Description: s.Description,
				Deprecated:  s.Deprecated,
				Required:    s.Required, // an allOf part's required keys still hold (relax-required keeps them)
				Extensions:  withExt(s.Extensions, FreeFormExt, true),
			}
			changed = true
		}
	}
	// A reference to a free-form component becomes an inline any-value: ogen
	// writes an optional field of a named jx.Raw type even when it is absent
	// ({"metadata":} — invalid JSON), while a plain jx.Raw field is checked.
	for _, n := range d.RefNodes() {
		name := walk.ComponentName(n.Ref.Ref)
		target := d.T.Components.Schemas[name]
		if name == "" || target == nil || !isAny(target.Value) {
			continue
		}
		*n.Ref = openapi3.SchemaRef{Value: &openapi3.Schema{
			Description: target.Value.Description,
			Extensions:  map[string]any{FreeFormExt: name},
		}}
		d.Hit(n, "$ref %s inlined as any JSON value", name)
	}
	return nil
}

// isAny reports whether s is the empty schema (any JSON value).
func isAny(s *openapi3.Schema) bool {
	return s != nil && s.Type == nil && len(s.Properties) == 0 && s.AdditionalProperties.Schema == nil &&
		s.AdditionalProperties.Has == nil && len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) == 0 &&
		s.Items == nil && len(s.Enum) == 0 && s.Const == nil && s.Not == nil
}

func (d *Doc) isMap(s *openapi3.Schema) bool {
	if len(s.Properties) > 0 || len(s.PatternProperties) > 0 || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 {
		return false
	}
	ap := s.AdditionalProperties
	if ap.Has != nil && !*ap.Has {
		return false
	}
	isObj := s.Type != nil && s.Type.Includes(openapi3.TypeObject)
	if !isObj && ap.Schema == nil && ap.Has == nil {
		return false
	}
	if s.Type != nil {
		for _, t := range s.Type.Slice() {
			if t != openapi3.TypeObject && t != openapi3.TypeNull {
				return false
			}
		}
	}
	return true
}

func (d *Doc) unionWithAny(s *openapi3.Schema) bool {
	for _, v := range append(append(openapi3.SchemaRefs{}, s.AnyOf...), s.OneOf...) {
		if r := d.Resolve(v); r != nil && (isAny(r) || d.isMap(r)) {
			return true
		}
	}
	return false
}

func withExt(ext map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(ext)+1)
	for kk, vv := range ext {
		out[kk] = vv
	}
	out[k] = v
	return out
}
