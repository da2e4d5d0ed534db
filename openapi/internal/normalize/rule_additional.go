package normalize

import "github.com/getkin/kin-openapi/openapi3"

// additionalProps drops additionalProperties from objects that declare
// properties. With false, ogen's decoder fails on any field the spec does not
// know (real clients send newer fields than any pinned spec); with true or a
// schema, ogen adds a Go map that it encodes by ranging over it, so output
// order would change from run to run. Unknown fields are kept by the codec
// layer above the generated types, not here.
func additionalProps(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		ap := s.AdditionalProperties
		if len(s.Properties) == 0 || (ap.Has == nil && ap.Schema == nil) {
			continue
		}
		switch {
		case ap.Has != nil && !*ap.Has:
			d.Hit(n, "dropped additionalProperties: false")
		default:
			d.Hit(n, "dropped additionalProperties beside declared properties")
		}
		s.AdditionalProperties = openapi3.AdditionalProperties{}
	}
	return nil
}
