package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// sameKindVariants merges the variants of a union that are the same
// schema written twice: the same reference twice, or two identical inline
// arrays, integers, numbers or booleans (one of them may allow null as
// well, which stays allowed). ogen names a variant after its type
// (StringArray, Int, the component's name) and stops at two of one name
// ("sum types with same names"); such variants cannot be told apart on the
// wire either, and one of them says all the union does. Variants of one
// kind that differ (arrays of different items, integers of different enums
// or bounds) are not merged: no one schema is both without loosening one,
// so the union is left alone for ogen to report. Strings are
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
		identical := true
		for _, k := range order {
			g := groups[k]
			if len(g) < 2 {
				continue
			}
			first, err := d.withoutNullJSON(g[0])
			if err != nil {
				return fmt.Errorf("%s: %w", n.Pointer, err)
			}
			for _, v := range g[1:] {
				other, err := d.withoutNullJSON(v)
				if err != nil {
					return fmt.Errorf("%s: %w", n.Pointer, err)
				}
				identical = identical && bytes.Equal(first, other)
			}
			if !identical {
				break
			}
			m := g[0]
			if r := d.Resolve(m); m.Ref == "" && r.Type.Includes(openapi3.TypeNull) {
				v := *r
				v.Type = &openapi3.Types{k}
				m = &openapi3.SchemaRef{Value: &v}
			}
			replace[g[0]] = m
			for _, v := range g[1:] {
				drop[v] = true
			}
			if strings.HasPrefix(k, "#") {
				merged = append(merged, fmt.Sprintf("%d %s", len(g), kindName(k)))
			} else {
				merged = append(merged, fmt.Sprintf("%d identical %s variants %s", len(g), k, first))
			}
		}
		if !identical {
			continue // variants of one kind that differ: left for ogen to report
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
	case openapi3.TypeArray, openapi3.TypeInteger, openapi3.TypeNumber, openapi3.TypeBoolean:
		return t, len(r.Type.Slice()) > 1
	}
	return "", false
}

// withoutNullJSON returns the JSON of a variant as sameKindVariants
// compares it: a reference as itself, an inline schema with "null" left out
// of its types.
func (d *Doc) withoutNullJSON(v *openapi3.SchemaRef) ([]byte, error) {
	if v.Ref != "" {
		return json.Marshal(openapi3.SchemaRef{Ref: v.Ref})
	}
	s := *v.Value
	if s.Type != nil {
		types := openapi3.Types(slices.DeleteFunc(slices.Clone(s.Type.Slice()), func(t string) bool { return t == openapi3.TypeNull }))
		s.Type = &types
	}
	return json.Marshal(&s)
}

func kindName(k string) string {
	if strings.HasPrefix(k, "#") {
		return "references to " + k[strings.LastIndex(k, "/")+1:]
	}
	return k
}
