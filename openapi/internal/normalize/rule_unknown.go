package normalize

import "github.com/getkin/kin-openapi/openapi3"

// UnknownFieldsExt marks an object whose additionalProperties: true was set by
// the unknown-fields rule (not by the spec): ogen gives it an AdditionalProps
// map that carries the keys the spec does not declare. The codec's shape
// tables do not read such an object as open (x-open-object says that).
const UnknownFieldsExt = "x-unknown-fields"

// unknownFields lets every object that declares properties carry the keys it
// does not declare: additionalProperties: true makes ogen add an
// AdditionalProps map[string]jx.Raw to its struct, filled on decode (the
// value's bytes as they came) and written back on encode, so a typed round
// trip keeps a newer client's or server's fields. ogen encodes that map by
// ranging over it; the pipeline's post-generation step sorted-map-encoding
// rewrites those loops to iterate sorted keys (byte-stable output).
//
// It runs last, on the final shapes: variants merged or moved by earlier
// rules are covered too. An allOf whose parts are objects is marked as well,
// since ogen merges the parts into one struct.
func unknownFields(d *Doc) error {
	yes := true
	for _, n := range d.Nodes() {
		s := n.Schema()
		if !isObjectWithProperties(d, s) {
			continue
		}
		s.AdditionalProperties = openapi3.AdditionalProperties{Has: &yes}
		s.Extensions = withExt(s.Extensions, UnknownFieldsExt, true)
		d.Hit(n, "undeclared keys carried (AdditionalProps, jx.Raw)")
	}
	return nil
}

func isObjectWithProperties(d *Doc, s *openapi3.Schema) bool {
	if s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil || len(s.AnyOf)+len(s.OneOf) > 0 {
		return false
	}
	if s.Type != nil && !s.Type.Includes(openapi3.TypeObject) {
		return false
	}
	if len(s.Properties) > 0 {
		return true
	}
	for _, p := range s.AllOf {
		if r := d.Resolve(p); r != nil && (len(r.Properties) > 0 || len(r.AllOf) > 0) {
			return true
		}
	}
	return false
}
