package normalize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// sameKindVariants merges the variants of a union that have the same JSON
// kind and so cannot be told apart on the wire: two arrays (of the same
// items, or of different ones), two integers, the same reference twice.
// ogen names a variant after its type (StringArray, Int, the component's
// name) and stops at two of one name ("sum types with same names"); two
// arrays of different items are a "complex anyOf" to it. Arrays become one
// array of the union of their items (which object-union then
// discriminates); integers, numbers and booleans become the least
// constrained of them; a repeated reference is kept once. Strings are
// string-union's and objects object-union's and infer-discriminator's.
func sameKindVariants(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		variants := union(s)
		if len(variants) < 2 || len(s.AllOf) > 0 || s.Discriminator != nil {
			continue
		}
		groups := map[string]openapi3.SchemaRefs{}
		var order []string
		null := false
		for _, v := range variants {
			k, nullable := d.sameKind(v)
			if k == "" {
				continue
			}
			null = null || nullable
			if len(groups[k]) == 0 {
				order = append(order, k)
			}
			groups[k] = append(groups[k], v)
		}
		var merged []string
		replace := map[*openapi3.SchemaRef]*openapi3.SchemaRef{} // first member → merged variant
		drop := map[*openapi3.SchemaRef]bool{}
		for _, k := range order {
			g := groups[k]
			if len(g) < 2 {
				continue
			}
			var m *openapi3.SchemaRef
			switch {
			case strings.HasPrefix(k, "#"):
				m = g[0]
			case k == openapi3.TypeArray:
				arrays := make(openapi3.SchemaRefs, len(g))
				for i, a := range g {
					v := *d.Resolve(a)
					v.Type = &openapi3.Types{openapi3.TypeArray}
					arrays[i] = &openapi3.SchemaRef{Value: &v}
				}
				m = d.mergeDecls(arrays, 0)
			default:
				m = &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{k}}}
				for _, v := range g {
					if r := d.Resolve(v); unconstrained(r) && !r.Type.Includes(openapi3.TypeNull) {
						m = v
						break
					}
				}
			}
			replace[g[0]] = m
			for _, v := range g[1:] {
				drop[v] = true
			}
			merged = append(merged, fmt.Sprintf("%d %s variants", len(g), kindName(k)))
		}
		if len(merged) == 0 {
			continue
		}
		var out openapi3.SchemaRefs
		hasNull := false
		for _, v := range variants {
			if r := d.Resolve(v); r != nil && r.Type != nil && r.Type.Is(openapi3.TypeNull) {
				hasNull = true
			}
			switch {
			case drop[v]:
			case replace[v] != nil:
				out = append(out, replace[v])
			default:
				out = append(out, v)
			}
		}
		if null && !hasNull {
			out = append(out, nullSchema())
		}
		if len(s.AnyOf) > 0 {
			s.AnyOf = out
		} else {
			s.OneOf = out
		}
		d.Hit(n, "merged %s", strings.Join(merged, ", "))
	}
	return nil
}

// sameKind returns the group key of a union variant for sameKindVariants
// ("" for the variants it leaves alone) and whether the variant allows null
// too.
func (d *Doc) sameKind(v *openapi3.SchemaRef) (string, bool) {
	r := d.Resolve(v)
	if r == nil {
		return "", false
	}
	if v.Ref != "" {
		return v.Ref, false // a repeated reference is kept once
	}
	if r.Type == nil || len(union(r))+len(r.AllOf)+len(r.Properties) > 0 {
		return "", false
	}
	types := slices.DeleteFunc(slices.Clone(r.Type.Slice()), func(t string) bool { return t == openapi3.TypeNull })
	if len(types) != 1 {
		return "", false
	}
	switch t := types[0]; t {
	case openapi3.TypeArray:
		if r.Items == nil {
			return "", false
		}
		return t, len(r.Type.Slice()) > 1
	case openapi3.TypeInteger, openapi3.TypeNumber, openapi3.TypeBoolean:
		return t, len(r.Type.Slice()) > 1
	}
	return "", false
}

// unconstrained reports whether s is only a type (and annotations).
func unconstrained(s *openapi3.Schema) bool {
	return len(s.Enum) == 0 && s.Const == nil && s.Min == nil && s.Max == nil && s.MultipleOf == nil && s.Format == ""
}

func kindName(k string) string {
	if strings.HasPrefix(k, "#") {
		return "references to " + k[strings.LastIndex(k, "/")+1:]
	}
	return k
}
