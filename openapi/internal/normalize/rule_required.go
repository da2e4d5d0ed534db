package normalize

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// SpecRequiredExt keeps a schema's original required list: what validation
// tables and the stream checker read, since the codec no longer enforces it.
const SpecRequiredExt = "x-spec-required"

// relaxRequired drops every required list (keeping it in x-spec-required).
// ogen's decoder rejects an object that lacks a required field, and real
// traffic lacks them all the time: clients omit required-but-nullable fields
// (FunctionTool.strict), servers omit sequence_number, name,
// cache_write_tokens. Rejecting what to accept is decided above the codec,
// with the spec's own list in hand.
func relaxRequired(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if len(s.Required) == 0 {
			continue
		}
		s.Extensions = withExt(s.Extensions, SpecRequiredExt, slices.Clone(s.Required))
		d.Hit(n, "required %v relaxed", s.Required)
		s.Required = nil
	}
	return nil
}

// NullAddedExt marks a property schema that optional-nullable let be null:
// the spec does not allow null there, so a required property that is null
// breaks the spec (what validation and the conformance checker report).
const NullAddedExt = "x-null-added"

// optionalNullable lets every optional property also be null: servers send
// "usage": null, "user": null for fields the spec declares only as objects
// or strings, and ogen's decoder rejects the whole payload for it. ogen then
// keeps null apart from absent, so a round trip writes back what it read.
func optionalNullable(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		var changed []string
		for _, name := range walk.SortedKeys(s.Properties) {
			if slices.Contains(s.Required, name) {
				continue
			}
			p := s.Properties[name]
			if d.allowsNull(p) || requiredArray(p) {
				continue
			}
			target := d.Resolve(p)
			if target == nil || isAny(target) || target.Const != nil {
				continue
			}
			switch {
			case p.Ref != "":
				s.Properties[name] = &openapi3.SchemaRef{Value: &openapi3.Schema{
					AnyOf:      openapi3.SchemaRefs{p, nullSchema()},
					Extensions: map[string]any{NullAddedExt: true},
				}}
			case target.Type != nil && len(target.Type.Slice()) == 1 && len(union(target)) == 0:
				target.Type = &openapi3.Types{target.Type.Slice()[0], openapi3.TypeNull}
				target.Extensions = withExt(target.Extensions, NullAddedExt, true)
			case len(union(target)) > 0 && len(target.AllOf) == 0 && target.Discriminator == nil:
				// (ogen cannot merge null into a discriminated union; those
				// stay as the spec says.)
				if len(target.AnyOf) > 0 {
					target.AnyOf = append(target.AnyOf, nullSchema())
				} else {
					target.OneOf = append(target.OneOf, nullSchema())
				}
				target.Extensions = withExt(target.Extensions, NullAddedExt, true)
			default:
				continue
			}
			changed = append(changed, name)
		}
		if len(changed) > 0 {
			d.Hit(n, "optional %v may be null", changed)
		}
	}
	return nil
}

func (d *Doc) allowsNull(r *openapi3.SchemaRef) bool {
	s := d.Resolve(r)
	if s == nil {
		return false
	}
	if isAny(s) || s.Nullable || (s.Type != nil && s.Type.Includes(openapi3.TypeNull)) {
		return true
	}
	_, null := d.withoutNull(union(s))
	return null
}
