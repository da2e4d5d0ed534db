package normalize

import (
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// KnownValuesExt is the extension that keeps the known values of an open enum.
const KnownValuesExt = "x-known-values"

// stringUnion turns anyOf/oneOf unions whose variants are all strings into one
// string schema. When every variant is a closed enum the result is the union of
// the enums; when any variant is an open string (model ids, voices) the result
// is an open string whose known values are kept in x-known-values.
//
// In a union that mixes strings with other variants (tool_choice: "none" |
// "auto" | "required" | {…}), the string variants are merged into one, so the
// union tells its variants apart by JSON type.
func stringUnion(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		variants, nullable := d.withoutNull(union(s))
		if len(variants) == 0 {
			continue
		}
		if d.allStrings(variants, 0) {
			if nullable && len(variants) < 2 {
				continue // {string | null}: ogen reads it as a nullable string
			}
			s.AnyOf, s.OneOf, s.Discriminator = nil, nil, nil
			d.Hit(n, "%s", d.mergeStrings(s, variants, nullable))
			continue
		}
		var strs, rest openapi3.SchemaRefs
		for _, v := range union(s) {
			if d.allStrings(openapi3.SchemaRefs{v}, 0) {
				strs = append(strs, v)
			} else {
				rest = append(rest, v)
			}
		}
		if len(strs) < 2 {
			continue
		}
		merged := &openapi3.Schema{}
		detail := d.mergeStrings(merged, strs, false)
		all := append(openapi3.SchemaRefs{{Value: merged}}, rest...)
		if len(s.AnyOf) > 0 {
			s.AnyOf = all
		} else {
			s.OneOf = all
		}
		d.Hit(n, "%d string variants merged: %s", len(strs), detail)
	}
	return nil
}

// mergeStrings makes s the one string schema that variants (all strings) allow.
func (d *Doc) mergeStrings(s *openapi3.Schema, variants openapi3.SchemaRefs, nullable bool) string {
	var values []any
	open := false
	d.collectStrings(variants, &values, &open, 0)
	s.Type = &openapi3.Types{openapi3.TypeString}
	if nullable {
		s.Type = &openapi3.Types{openapi3.TypeString, openapi3.TypeNull}
	}
	if !open {
		s.Enum = values
		return fmt.Sprintf("closed enum of %d values", len(values))
	}
	s.Enum = nil
	if len(values) > 0 {
		s.Extensions = withExt(s.Extensions, KnownValuesExt, values)
	}
	return fmt.Sprintf("open string, %d known values", len(values))
}

func union(s *openapi3.Schema) openapi3.SchemaRefs {
	if len(s.AnyOf) > 0 && len(s.OneOf) == 0 {
		return s.AnyOf
	}
	if len(s.OneOf) > 0 && len(s.AnyOf) == 0 {
		return s.OneOf
	}
	return nil
}

// withoutNull returns the variants that are not {"type": "null"}, and whether
// there was one.
func (d *Doc) withoutNull(refs openapi3.SchemaRefs) (openapi3.SchemaRefs, bool) {
	var out openapi3.SchemaRefs
	null := false
	for _, r := range refs {
		if v := d.Resolve(r); v != nil && v.Type != nil && v.Type.Is(openapi3.TypeNull) {
			null = true
			continue
		}
		out = append(out, r)
	}
	return out, null
}

func isPlainString(s *openapi3.Schema) bool {
	return s.Type != nil && s.Type.Is(openapi3.TypeString) && len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) == 0
}

func (d *Doc) allStrings(refs openapi3.SchemaRefs, depth int) bool {
	if depth > 8 {
		return false
	}
	for _, r := range refs {
		v := d.Resolve(r)
		if v == nil {
			return false
		}
		if isPlainString(v) {
			continue
		}
		if u := union(v); len(u) > 0 && d.allStrings(u, depth+1) {
			continue
		}
		return false
	}
	return true
}

func (d *Doc) collectStrings(refs openapi3.SchemaRefs, values *[]any, open *bool, depth int) {
	for _, r := range refs {
		v := d.Resolve(r)
		if u := union(v); len(u) > 0 {
			d.collectStrings(u, values, open, depth+1)
			continue
		}
		if ext, ok := v.Extensions[KnownValuesExt].([]any); ok {
			*open = true
			addValues(values, ext)
			continue
		}
		if len(v.Enum) == 0 && v.Const == nil {
			*open = true
			continue
		}
		if v.Const != nil {
			addValues(values, []any{v.Const})
		}
		addValues(values, v.Enum)
	}
}

func addValues(values *[]any, add []any) {
	for _, a := range add {
		if !slices.Contains(*values, a) {
			*values = append(*values, a)
		}
	}
}
