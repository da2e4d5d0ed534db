package normalize

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// ExtraTagsExt is ogen's extension for extra struct tags of a property.
// EncodeEmptyTag is the tag (key and value) the required-arrays rule
// writes: the pipeline makes ogen encode such a field as [] when it is nil.
const (
	ExtraTagsExt   = "x-oapi-codegen-extra-tags"
	EncodeEmptyTag = "transponder"
	EncodeEmpty    = "encode-empty"
)

// requiredArrays marks the arrays the spec requires and does not let be null
// (output_text's annotations and logprobs): they stay arrays, not
// array-or-null (optional-nullable skips them), and carry the struct tag
// transponder:"encode-empty", for which the pipeline sets ogen's encoder
// to write [] from a nil slice. Decoding stays lenient: relax-required has
// made them optional, so a payload without them still decodes.
func requiredArrays(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		var marked []string
		for _, name := range walk.SortedKeys(s.Properties) {
			p := s.Properties[name]
			if !slices.Contains(specRequired(s), name) || p.Ref != "" || p.Value == nil || p.Value.Type == nil || !p.Value.Type.Is(openapi3.TypeArray) || p.Value.Nullable {
				continue
			}
			p.Value.Extensions = withExt(p.Value.Extensions, ExtraTagsExt, map[string]any{EncodeEmptyTag: EncodeEmpty})
			marked = append(marked, name)
		}
		if len(marked) > 0 {
			d.Hit(n, "required arrays %v encode [] from nil (tag %s:%q)", marked, EncodeEmptyTag, EncodeEmpty)
		}
	}
	return nil
}

// specRequired returns the required list relax-required kept aside.
func specRequired(s *openapi3.Schema) []string {
	switch l := s.Extensions[SpecRequiredExt].(type) {
	case []string:
		return l
	case []any:
		var out []string
		for _, v := range l {
			if v, ok := v.(string); ok {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}

// encodeEmpty reports whether the required-arrays rule marked p.
func encodeEmpty(p *openapi3.SchemaRef) bool {
	if p == nil || p.Value == nil {
		return false
	}
	tags, _ := p.Value.Extensions[ExtraTagsExt].(map[string]any)
	return tags[EncodeEmptyTag] == EncodeEmpty
}
