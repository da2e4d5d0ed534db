package normalize

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// ExtraTagsExt is ogen's extension for extra struct tags of a property.
// EncodeEmptyTag is the tag (key and value) the required-arrays rule
// writes: the pipeline makes ogen encode such a field as [] when it is nil.
// RequiredArrayExt marks every array the spec requires and does not let be
// null, tagged or not.
const (
	RequiredArrayExt = "x-required-array"
	ExtraTagsExt     = "x-oapi-codegen-extra-tags"
	EncodeEmptyTag   = "transponder"
	EncodeEmpty      = "encode-empty"
)

// requiredArrays marks the arrays the spec requires and does not let be null
// (RequiredArrayExt): they stay arrays, not array-or-null (optional-nullable
// skips them). Those in the objects a server makes (serverOnly) also carry
// the struct tag transponder:"encode-empty", for which the pipeline sets
// ogen's encoder to write [] from a nil slice. Decoding stays lenient:
// relax-required has made them optional, so a payload without them still
// decodes. An object only a request carries (a tool choice, an input
// message) is left alone: a request that lacks the array round-trips
// without it. An output item a request replays (output_text) is the
// server's: it gets the array, as the server writes it.
func requiredArrays(d *Doc) error {
	server := d.serverOnly()
	for _, n := range d.Nodes() {
		s := n.Schema()
		var marked []string
		for _, name := range walk.SortedKeys(s.Properties) {
			p := s.Properties[name]
			if !slices.Contains(specRequired(s), name) || p.Ref != "" || p.Value == nil || p.Value.Type == nil || !p.Value.Type.Is(openapi3.TypeArray) || p.Value.Nullable {
				continue
			}
			p.Value.Extensions = withExt(p.Value.Extensions, RequiredArrayExt, true)
			if !server[s] {
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

// serverOnly returns the schemas a server makes: those reachable from an
// operation's responses and from no request body, and those of the items of
// a response's output arrays (a request may replay them, as the server
// wrote them), following $refs and discriminator mappings.
func (d *Doc) serverOnly() map[*openapi3.Schema]bool {
	resp, req := map[*openapi3.Schema]bool{}, map[*openapi3.Schema]bool{}
	var visit func(seen map[*openapi3.Schema]bool, r *openapi3.SchemaRef)
	visit = func(seen map[*openapi3.Schema]bool, r *openapi3.SchemaRef) {
		s := d.Resolve(r)
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		walk.Children(s, func(_ walk.Slot, c *openapi3.SchemaRef) { visit(seen, c) })
		for _, ref := range walk.MappingRefs(s) {
			if c, ok := d.T.Components.Schemas[walk.ComponentName(ref)]; ok {
				visit(seen, c)
			}
		}
	}
	for _, op := range walk.Operations(d.T) {
		walk.OperationSchemas(op.Op, func(string, string) {}, func(where string, s *openapi3.SchemaRef) {
			switch {
			case strings.HasPrefix(where, "responses/"):
				visit(resp, s)
			case strings.HasPrefix(where, "requestBody/"):
				visit(req, s)
			}
		})
	}
	// What a server makes, though a request may carry it back: the items
	// of an output array reachable from a response (a Response's output
	// items and their parts, replayed as input). Not the echoed request
	// configuration (tools, tool_choice), which a response reaches too.
	made := map[*openapi3.Schema]bool{}
	for s := range resp {
		if o := s.Properties["output"]; o != nil && o.Value != nil && o.Value.Type != nil && o.Value.Type.Is(openapi3.TypeArray) && o.Value.Items != nil {
			visit(made, o.Value.Items)
		}
	}
	for s := range req {
		if !made[s] {
			delete(resp, s)
		}
	}
	return resp
}

// requiredArray reports whether the required-arrays rule marked p: an
// array the spec requires and does not let be null. optional-nullable leaves
// all of them arrays (a Go slice, not array-or-null), tagged or not.
func requiredArray(p *openapi3.SchemaRef) bool {
	return p != nil && p.Value != nil && p.Value.Extensions[RequiredArrayExt] == true
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
