package normalize

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// refSiblings drops keywords written beside a $ref ({"$ref": X, "default": null},
// {"$ref": X, "description": …}). OpenAPI 3.1 allows them, ogen reads some as
// the referenced schema's own (an object default it cannot generate); the
// referenced component keeps its own keywords.
func refSiblings(d *Doc) error {
	for _, n := range d.RefNodes() {
		raw, err := json.Marshal(n.Ref)
		if err != nil {
			return err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			continue // not an object: nothing beside the $ref
		}
		var dropped []string
		nullable := string(m["nullable"]) == "true"
		for _, k := range walk.SortedKeys(m) {
			if k != "$ref" && !strings.HasPrefix(k, "x-") && (k != "nullable" || !nullable) {
				dropped = append(dropped, k)
			}
		}
		if len(dropped) == 0 && !nullable {
			continue
		}
		plain := openapi3.SchemaRef{Ref: n.Ref.Ref, Value: n.Ref.Value, Extensions: n.Ref.Extensions}
		if nullable {
			// The one sibling that changes what the value may be: keep it, as
			// a null variant (OpenAI's chunk usage: "null except for the last
			// chunk").
			*n.Ref = openapi3.SchemaRef{Value: &openapi3.Schema{AnyOf: openapi3.SchemaRefs{&plain, nullSchema()}}}
			d.Hit(n, "nullable beside $ref -> anyOf [$ref, null]")
		} else {
			*n.Ref = plain
		}
		if len(dropped) > 0 {
			d.Hit(n, "dropped %s beside $ref", strings.Join(dropped, ", "))
		}
	}
	return nil
}

func nullSchema() *openapi3.SchemaRef {
	return &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeNull}}}
}

// nullableKeyword turns OpenAPI 3.0's "nullable: true", which these 3.1 specs
// still use in places, into the 3.1 form ogen reads: "null" in the type, or
// a null variant of a union.
func nullableKeyword(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if !s.Nullable {
			continue
		}
		switch {
		case s.Type != nil && len(s.Type.Slice()) > 0:
			if !s.Type.Includes(openapi3.TypeNull) {
				t := append(openapi3.Types{}, s.Type.Slice()...)
				t = append(t, openapi3.TypeNull)
				s.Type = &t
			}
		case len(s.AnyOf) > 0 && len(s.OneOf)+len(s.AllOf) == 0:
			s.AnyOf = append(s.AnyOf, nullSchema())
		case n.Component != "" && n.Ref == d.T.Components.Schemas[n.Component]:
			// A component union: wrapped, ogen would unwrap it and name it
			// after its first user. The properties that use it accept null
			// (optional-nullable).
			s.Nullable = false
			d.Hit(n, "nullable: true on a component union: null is accepted where it is used")
			continue
		case len(s.AllOf) > 0 || len(s.OneOf) > 0:
			// ogen cannot tell a null variant of a oneOf apart; it reads
			// anyOf [X, null] as a nullable X.
			inner := *s
			inner.Nullable = false
			*s = openapi3.Schema{Description: inner.Description, AnyOf: openapi3.SchemaRefs{{Value: &inner}, nullSchema()}}
		default:
			// Any value already includes null.
		}
		s.Nullable = false
		d.Hit(n, "nullable: true -> null type")
	}
	return nil
}
