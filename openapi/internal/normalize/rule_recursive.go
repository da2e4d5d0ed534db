package normalize

import "github.com/transponder-dev/transponder/openapi/internal/walk"

// recursiveRef replaces {"$recursiveRef": "#"} with a $ref to the component
// schema it sits in, and drops "$recursiveAnchor". In the specs we read, the
// anchor is always on the component root, so "#" resolves to that component.
func recursiveRef(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if _, ok := s.Extensions["$recursiveAnchor"]; ok {
			delete(s.Extensions, "$recursiveAnchor")
			d.Hit(n, "dropped $recursiveAnchor")
		}
		target, ok := s.Extensions["$recursiveRef"]
		if !ok || n.Component == "" {
			continue
		}
		if target != "#" {
			continue // not a form we know; ogen will say so
		}
		root := d.T.Components.Schemas[n.Component]
		n.Ref.Ref = walk.SchemaPrefix + n.Component
		n.Ref.Value = root.Value
		d.Hit(n, "$recursiveRef # -> $ref %s", n.Component)
	}
	return nil
}
