package normalize

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// allOfOverride flattens an allOf whose parts declare the same property
// differently (a part narrowing or widening what a base declares): ogen
// cannot merge two different schemas for one property. The later part wins,
// as the spec's authors intend when they restate a property; required lists
// are joined.
func allOfOverride(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if len(s.AllOf) < 2 {
			continue
		}
		parts := make([]*openapi3.Schema, len(s.AllOf))
		ok := true
		for i, p := range s.AllOf {
			parts[i] = d.Resolve(p)
			if parts[i] == nil || len(parts[i].AllOf)+len(parts[i].AnyOf)+len(parts[i].OneOf) > 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var conflicts []string
		seen := map[string]*openapi3.SchemaRef{}
		for _, p := range parts {
			for _, k := range walk.SortedKeys(p.Properties) {
				prev, dup := seen[k]
				if dup && !sameSchema(prev, p.Properties[k]) && !slices.Contains(conflicts, k) {
					conflicts = append(conflicts, k)
				}
				seen[k] = p.Properties[k]
			}
		}
		if len(conflicts) == 0 {
			continue
		}
		merged := openapi3.Schema{
			Type:        &openapi3.Types{openapi3.TypeObject},
			Title:       s.Title,
			Description: s.Description,
			Deprecated:  s.Deprecated,
			Extensions:  s.Extensions,
			Properties:  openapi3.Schemas{},
		}
		for _, p := range parts {
			for _, k := range walk.SortedKeys(p.Properties) {
				merged.Properties[k] = p.Properties[k]
			}
			for _, r := range p.Required {
				if !slices.Contains(merged.Required, r) {
					merged.Required = append(merged.Required, r)
				}
			}
			if merged.Description == "" {
				merged.Description = p.Description
			}
		}
		*s = merged
		d.Hit(n, "allOf flattened; later part wins for %v", conflicts)
	}
	return nil
}

func sameSchema(a, b *openapi3.SchemaRef) bool {
	if a == b {
		return true
	}
	if a.Ref != "" || b.Ref != "" {
		return a.Ref == b.Ref
	}
	return a.Value == b.Value
}
