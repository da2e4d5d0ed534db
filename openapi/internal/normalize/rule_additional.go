package normalize

import "github.com/getkin/kin-openapi/openapi3"

// OpenObjectExt marks an object that declares properties and allows any
// others: its extra keys are legitimate, for the JSON layer to carry through.
const OpenObjectExt = "x-open-object"

// additionalProps removes additionalProperties from objects that declare
// properties. With false, ogen's decoder fails on any field the spec does not
// know (real clients send newer fields than any pinned spec). With true or a
// schema (TraceConfig, image_config, OpenRouter's output items), ogen would
// add a Go map and encode it by ranging over it, so output order would change
// from run to run; the object stays a struct of its declared properties,
// marked x-open-object, and its extra keys are unknown fields that the JSON
// layer above the generated types keeps. (Objects with no declared
// properties are free-form: jx.Raw.)
func additionalProps(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		ap := s.AdditionalProperties
		if len(s.Properties) == 0 || (ap.Has == nil && ap.Schema == nil) {
			continue
		}
		if ap.Has != nil && !*ap.Has {
			d.Hit(n, "dropped additionalProperties: false")
		} else {
			s.Extensions = withExt(s.Extensions, OpenObjectExt, true)
			d.Hit(n, "open object: declared properties typed, extra keys left to the JSON layer (x-open-object)")
		}
		s.AdditionalProperties = openapi3.AdditionalProperties{}
	}
	return nil
}
