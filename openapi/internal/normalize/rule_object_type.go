package normalize

import "github.com/getkin/kin-openapi/openapi3"

// objectType gives type object to a schema that declares properties but no
// type (and no allOf, anyOf or oneOf, whose parts say what it is). ogen
// makes a schema without type any JSON value (jx.Raw), properties and
// all; the shape tables and JSON Schema read it as the object it
// describes. OpenAI writes the body of POST
// /conversations/{conversation_id}/items ({"items": […]}) that way.
func objectType(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if len(s.Properties) == 0 || (s.Type != nil && len(*s.Type) > 0) || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 {
			continue
		}
		s.Type = &openapi3.Types{openapi3.TypeObject}
		d.Hit(n, "properties without a type: type object")
	}
	return nil
}
