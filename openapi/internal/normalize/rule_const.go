package normalize

import (
	"slices"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// optionalConst turns the const of an optional property into a one-value
// enum. ogen writes a const property on every encode, so a request that
// omitted it (OpenRouter's store: false) would gain it on a round trip; an
// enum is written only when it was set.
func optionalConst(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		for _, name := range walk.SortedKeys(s.Properties) {
			p := s.Properties[name]
			if slices.Contains(s.Required, name) || p.Ref != "" || p.Value == nil || p.Value.Const == nil {
				continue
			}
			p.Value.Enum = []any{p.Value.Const}
			p.Value.Const = nil
			d.Hit(Node{Ref: p, Component: n.Component, Pointer: n.Pointer + "/properties/" + walk.Escape(name)}, "const of optional property %s -> one-value enum", name)
		}
	}
	return nil
}
