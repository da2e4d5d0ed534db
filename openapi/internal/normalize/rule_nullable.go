package normalize

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// nullableComponent folds a component written as anyOf/oneOf [S, {"type":
// "null"}], with S inline, into S with "null" added to its type. ogen unwraps
// such a union and names S after whichever schema uses it first, so the
// component itself never became a Go type; folded, it is one, under its own
// name (Verbosity, ServiceTier, Prompt).
func nullableComponent(d *Doc) error {
	for _, name := range walk.SortedKeys(d.T.Components.Schemas) {
		ref := d.T.Components.Schemas[name]
		if ref.Ref != "" || ref.Value == nil {
			continue
		}
		s := ref.Value
		variants, nullable := d.withoutNull(union(s))
		if !nullable || len(variants) != 1 || variants[0].Ref != "" || variants[0].Value == nil {
			continue
		}
		inner := variants[0].Value
		kind := ""
		switch {
		case len(union(inner)) > 0:
		case inner.Type != nil && len(inner.Type.Slice()) == 1:
			kind = inner.Type.Slice()[0]
		case inner.Type == nil && d.isObject(inner):
			kind = openapi3.TypeObject // an allOf of objects
		}
		if kind == "" {
			continue
		}
		merged := *inner
		merged.Type = &openapi3.Types{kind, openapi3.TypeNull}
		if merged.Description == "" {
			merged.Description = s.Description
		}
		if merged.Title == "" {
			merged.Title = s.Title
		}
		for k, v := range s.Extensions {
			merged.Extensions = withExt(merged.Extensions, k, v)
		}
		*s = merged
		d.Hit(Node{Ref: ref, Component: name, Pointer: "/components/schemas/" + walk.Escape(name)}, "nullable %s", kind)
	}
	return nil
}
