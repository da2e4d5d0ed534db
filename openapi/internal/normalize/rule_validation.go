package normalize

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/overlay"
)

// OgenValidateExt is ogen's extension for pluggable validators; on an
// object, ogen's Validate() calls them with the object. The pipeline
// defines the two the spec-validation rule declares:
//   - SpecRequiredValidator: the fields the spec requires (relax-required
//     took them out of required, so decoding takes payloads without them);
//   - overlay.ExclusiveExt: groups of fields of which at most one may be
//     sent (declared by the overlays' exclusive patches, under the same name).
const (
	OgenValidateExt       = "x-ogen-validate"
	SpecRequiredValidator = SpecRequiredExt
)

// specValidation declares, on every object whose spec-required list or
// exclusive groups are not empty, the validators ogen's Validate() is to
// run: decoding stays lenient, Validate() holds a value to the spec. ogen
// merges an allOf's parts into one struct and keeps only the parent's
// validators, so the parent's list is the union of its parts'.
func specValidation(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if len(s.Properties) == 0 && len(s.AllOf) == 0 {
			continue
		}
		req, excl := d.validations(s, 0)
		if len(req) == 0 && len(excl) == 0 {
			continue
		}
		v := map[string]any{}
		if len(req) > 0 {
			slices.Sort(req)
			v[SpecRequiredValidator] = slices.Compact(req)
		}
		if len(excl) > 0 {
			v[overlay.ExclusiveExt] = excl
		}
		s.Extensions = withExt(s.Extensions, OgenValidateExt, v)
		d.Hit(n, "Validate() checks required %v, exclusive %v", v[SpecRequiredValidator], excl)
	}
	return nil
}

// validations returns the spec-required fields and exclusive groups of s
// and of its allOf parts.
func (d *Doc) validations(s *openapi3.Schema, depth int) (req []string, excl [][]string) {
	if s == nil || depth > 16 {
		return nil, nil
	}
	req = slices.Clone(specRequired(s))
	excl = exclusiveGroups(s)
	for _, p := range s.AllOf {
		r, e := d.validations(d.Resolve(p), depth+1)
		req, excl = append(req, r...), append(excl, e...)
	}
	return req, excl
}

func exclusiveGroups(s *openapi3.Schema) [][]string {
	switch v := s.Extensions[overlay.ExclusiveExt].(type) {
	case [][]string:
		return slices.Clone(v)
	case []any: // read back from JSON
		var out [][]string
		for _, g := range v {
			gs, _ := g.([]any)
			var names []string
			for _, n := range gs {
				if n, ok := n.(string); ok {
					names = append(names, n)
				}
			}
			out = append(out, names)
		}
		return out
	}
	return nil
}
