package normalize

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// refAllOf unwraps OpenAPI 3.0's way of writing keywords beside a reference:
// {allOf: [{$ref: X}], nullable: true, description: …}, where 3.1 writes
// anyOf [{$ref: X}, {type: null}] or a $ref with siblings. ogen reads the
// allOf as a new schema merged from X (named after the property: a second
// type for X, and, nullable, a sum of two types of the same name), so the
// wrapper becomes the reference itself, or anyOf [$ref, null] when nullable
// (the 3.1 shape). Annotations beside the allOf are dropped as ref-siblings
// drops them beside a $ref. A component written this way keeps its own type
// unless it is nullable.
func refAllOf(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if len(s.AllOf) != 1 || s.AllOf[0] == nil || s.AllOf[0].Ref == "" {
			continue
		}
		beside, ok := annotationsOnly(s)
		if !ok {
			continue
		}
		root := n.Component != "" && n.Ref == d.T.Components.Schemas[n.Component]
		if root && !s.Nullable {
			continue
		}
		ref := &openapi3.SchemaRef{Ref: s.AllOf[0].Ref, Value: s.AllOf[0].Value}
		detail := "allOf [$ref] -> $ref"
		if s.Nullable {
			*n.Ref = openapi3.SchemaRef{Value: &openapi3.Schema{Description: s.Description, AnyOf: openapi3.SchemaRefs{ref, nullSchema()}}}
			detail = "allOf [$ref], nullable -> anyOf [$ref, null]"
		} else {
			*n.Ref = *ref
		}
		if len(beside) > 0 {
			detail += "; dropped " + strings.Join(beside, ", ")
		}
		d.Hit(n, "%s", detail)
	}
	return nil
}

// annotationsOnly reports whether s has nothing beside its allOf but
// annotations and nullable, and lists the annotations it has (description
// and nullable aside).
func annotationsOnly(s *openapi3.Schema) ([]string, bool) {
	rest := *s
	rest.AllOf, rest.Nullable, rest.Description, rest.Title = nil, false, "", ""
	rest.Default, rest.Example, rest.Deprecated, rest.ReadOnly, rest.WriteOnly = nil, nil, false, false, false
	rest.ExternalDocs, rest.Extensions = nil, nil
	raw, err := json.Marshal(&rest)
	if err != nil || string(raw) != "{}" {
		return nil, false
	}
	var beside []string
	if s.Title != "" {
		beside = append(beside, "title")
	}
	if s.Default != nil {
		beside = append(beside, "default")
	}
	if s.Example != nil {
		beside = append(beside, "example")
	}
	return append(beside, walk.SortedKeys(s.Extensions)...), true
}
