package normalize

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// nullableRequired makes a required property optional when its schema allows
// null (FunctionTool.strict): real clients omit such fields, and ogen's
// decoder would reject the request for it.
func nullableRequired(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		var dropped []string
		for _, name := range slices.Clone(s.Required) {
			p := s.Properties[name]
			if p == nil || !d.allowsNull(p) {
				continue
			}
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
			dropped = append(dropped, name)
		}
		if len(dropped) > 0 {
			d.Hit(n, "nullable %v no longer required", dropped)
		}
	}
	return nil
}

func (d *Doc) allowsNull(r *openapi3.SchemaRef) bool {
	s := d.Resolve(r)
	if s == nil {
		return false
	}
	if s.Type != nil && s.Type.Includes(openapi3.TypeNull) {
		return true
	}
	_, null := d.withoutNull(union(s))
	return null
}
