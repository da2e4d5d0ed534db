package normalize

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// objectUnion rewrites every anyOf/oneOf that has two or more object variants
// into what ogen can generate and what is right on the wire:
//   - a variant that is itself a union of objects is replaced by its variants
//     (ogen would otherwise write the discriminator twice);
//   - the objects get an explicit discriminator mapping, read from each
//     variant's own "type" (or the declared discriminator) property: its const
//     or enum values (variants that share a value were merged by
//     shared-values; a value still claimed twice goes to the first);
//   - inline object variants become components (mapping targets must be refs),
//     and a variant left with no key leaves the union (reported);
//   - when primitives (a string, an array) sit beside the objects, the objects
//     move into a nested oneOf, and the outer union tells them apart by JSON type.
func objectUnion(d *Doc) error {
	// First, inline object variants with a discriminator value become
	// components named after the union that declares them, replaced in place:
	// a union flattened into another then carries references, so the same
	// object never becomes two components.
	for _, n := range d.Nodes() {
		s := n.Schema()
		if len(s.AllOf) > 0 {
			continue
		}
		prop := discriminatorProp(s)
		objects := 0
		for _, v := range union(s) {
			if d.isObject(d.Resolve(v)) {
				objects++
			}
		}
		if objects < 2 {
			continue
		}
		for _, v := range union(s) {
			if v.Ref != "" || !d.isObject(v.Value) {
				continue
			}
			values := d.discriminatorValues(v.Value, prop, 0)
			if len(values) == 0 {
				continue
			}
			ref := d.AddComponent(ownerName(n)+walk.GoName(values[0]), v.Value)
			*v = *ref
			d.Hit(n, "inline variant %q moved to component %s", values[0], walk.ComponentName(ref.Ref))
		}
	}
	for _, n := range d.Nodes() {
		s := n.Schema()
		variants := union(s)
		if len(variants) < 2 || len(s.AllOf) > 0 {
			continue
		}
		// Primitives beside a single object source (an object, or one union of
		// objects that is normalized where it is declared) need nothing: ogen
		// tells them apart by JSON type.
		sources, prims := d.splitVariants(variants)
		if len(prims) > 0 && len(sources) < 2 {
			continue
		}
		objs, flattened := d.flatten(sources)
		if len(objs) < 2 {
			continue
		}
		prop := discriminatorProp(s)
		mapping, shared, ok := d.mapping(n, objs, prop)
		if !ok {
			continue
		}
		// A variant with no key of its own (its value went to an earlier
		// variant, or its type is open) leaves the union: ogen would key it by
		// its schema name and write that name on the wire ("type":
		// "InputMessage"). It stays a Go type of its own.
		objs = slices.DeleteFunc(objs, func(o *openapi3.SchemaRef) bool {
			for _, m := range mapping {
				if m.Ref == o.Ref {
					return false
				}
			}
			shared = append(shared, walk.ComponentName(o.Ref)+" left the union (no key of its own)")
			return true
		})
		disc := &openapi3.Discriminator{PropertyName: prop, Mapping: mapping}
		var detail []string
		def := d.defaultVariant(objs, prop)
		if def != "" {
			detail = append(detail, fmt.Sprintf("without %q: %s", prop, def))
		}
		if flattened > 0 {
			detail = append(detail, fmt.Sprintf("flattened %d nested union(s)", flattened))
		}
		detail = append(detail, shared...)
		if len(prims) == 0 {
			s.AnyOf, s.OneOf, s.Discriminator = nil, objs, disc
			detail = append([]string{fmt.Sprintf("oneOf by %q: %d values over %d variants", prop, len(mapping), len(objs))}, detail...)
			if def != "" {
				s.Extensions = withExt(s.Extensions, DefaultVariantExt, def)
				if n.Ref != d.T.Components.Schemas[n.Component] {
					// Only a component's union can be found again in ogen's IR.
					ref := d.AddComponent(ownerName(n)+"Item", &openapi3.Schema{})
					*ref.Value = *s
					*n.Ref = *ref
					detail = append(detail, "moved to component "+walk.ComponentName(ref.Ref))
				}
			}
		} else {
			nested := &openapi3.Schema{OneOf: objs, Discriminator: disc}
			nestedRef := &openapi3.SchemaRef{Value: nested}
			if def != "" {
				nested.Extensions = map[string]any{DefaultVariantExt: def}
				nestedRef = d.AddComponent(ownerName(n)+"Item", nested)
				detail = append(detail, "nested union is component "+walk.ComponentName(nestedRef.Ref))
			}
			s.AnyOf, s.OneOf, s.Discriminator = nil, append(slices.Clone(prims), nestedRef), nil
			detail = append([]string{fmt.Sprintf("%d object variant(s) nested in a oneOf by %q beside %d primitive(s)", len(objs), prop, len(prims))}, detail...)
		}
		d.Hit(n, "%s", strings.Join(detail, "; "))
	}
	return nil
}

// DefaultVariantExt names the variant of a union that an object without the
// discriminator property is (EasyInputMessage: {"role":"user","content":"hi"}).
const DefaultVariantExt = "x-default-variant"

// defaultVariant returns the first variant (a component) whose discriminator
// property is optional: by the spec, an object without the property is that
// variant.
func (d *Doc) defaultVariant(objs openapi3.SchemaRefs, prop string) string {
	for _, o := range objs {
		v := d.Resolve(o)
		if len(d.discriminatorValues(v, prop, 0)) > 0 && !d.requires(v, prop, 0) {
			return walk.ComponentName(o.Ref)
		}
	}
	return ""
}

func (d *Doc) requires(s *openapi3.Schema, prop string, depth int) bool {
	if s == nil || depth > 8 {
		return false
	}
	if slices.Contains(s.Required, prop) {
		return true
	}
	for _, p := range s.AllOf {
		if d.requires(d.Resolve(p), prop, depth+1) {
			return true
		}
	}
	return false
}

// splitVariants separates a union's object sources (objects, and unions of
// objects) from its other variants (strings, arrays, null…).
func (d *Doc) splitVariants(variants openapi3.SchemaRefs) (sources, prims openapi3.SchemaRefs) {
	for _, v := range variants {
		if r := d.Resolve(v); d.isObject(r) || (len(union(r)) > 0 && d.allObjects(union(r))) {
			sources = append(sources, v)
		} else {
			prims = append(prims, v)
		}
	}
	return sources, prims
}

// discriminatorProp is the property a union's variants are told apart by:
// the declared discriminator's, else "type".
func discriminatorProp(s *openapi3.Schema) string {
	if s.Discriminator != nil && s.Discriminator.PropertyName != "" {
		return s.Discriminator.PropertyName
	}
	return "type"
}

// flatten replaces variants that are unions of objects only by their variants.
func (d *Doc) flatten(variants openapi3.SchemaRefs) (openapi3.SchemaRefs, int) {
	var out openapi3.SchemaRefs
	n := 0
	seen := map[*openapi3.Schema]bool{}
	var add func(r *openapi3.SchemaRef, depth int)
	add = func(r *openapi3.SchemaRef, depth int) {
		v := d.Resolve(r)
		if v == nil {
			out = append(out, r)
			return
		}
		if u := union(v); len(u) > 0 && depth < 8 && len(v.Properties) == 0 && d.allObjects(u) {
			n++
			for _, c := range u {
				add(c, depth+1)
			}
			return
		}
		if seen[v] {
			return
		}
		seen[v] = true
		out = append(out, r)
	}
	for _, r := range variants {
		add(r, 0)
	}
	return out, n
}

func (d *Doc) allObjects(refs openapi3.SchemaRefs) bool {
	for _, r := range refs {
		if !d.isObject(d.Resolve(r)) {
			return false
		}
	}
	return true
}

// isObject reports whether s is an object schema (not a union of them).
func (d *Doc) isObject(s *openapi3.Schema) bool {
	if s == nil || len(s.AnyOf)+len(s.OneOf) > 0 {
		return false
	}
	if s.Type != nil {
		return s.Type.Is(openapi3.TypeObject)
	}
	if len(s.Properties) > 0 {
		return true
	}
	for _, p := range s.AllOf {
		if d.isObject(d.Resolve(p)) {
			return true
		}
	}
	return false
}

// discriminatorValues returns the values a variant's discriminator property
// may take: its const, or its enum (following refs and allOf parts).
func (d *Doc) discriminatorValues(s *openapi3.Schema, prop string, depth int) []string {
	if s == nil || depth > 8 {
		return nil
	}
	if p, ok := s.Properties[prop]; ok {
		ps := d.Resolve(p)
		if ps == nil {
			return nil
		}
		// A nullable enum (anyOf [{enum: [item_reference]}, {type: null}])
		// is read through to its one string variant.
		if only, null := d.withoutNull(union(ps)); null && len(only) == 1 {
			ps = d.Resolve(only[0])
		}
		var out []string
		if c, ok := ps.Const.(string); ok {
			out = append(out, c)
		}
		for _, e := range ps.Enum {
			if e, ok := e.(string); ok && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
		return out
	}
	for _, part := range s.AllOf {
		if v := d.discriminatorValues(d.Resolve(part), prop, depth+1); len(v) > 0 {
			return v
		}
	}
	return nil
}

// mapping builds the discriminator mapping for objs. It moves the inline
// variants still left (those with no value: the pre-pass moved the others)
// into components, rewriting objs in place, and fails when no variant has a
// value for prop.
func (d *Doc) mapping(n Node, objs openapi3.SchemaRefs, prop string) (map[string]openapi3.MappingRef, []string, bool) {
	values := make([][]string, len(objs))
	keyed := 0
	for i, o := range objs {
		values[i] = d.discriminatorValues(d.Resolve(o), prop, 0)
		if len(values[i]) > 0 {
			keyed++
		}
	}
	if keyed == 0 {
		return nil, nil, false
	}
	mapping := map[string]openapi3.MappingRef{}
	owner := map[string]string{}
	var shared []string
	for i, o := range objs {
		if o.Ref == "" {
			objs[i] = d.AddComponent(ownerName(n)+"Variant"+strconv.Itoa(i), o.Value)
			o = objs[i]
		}
		if len(values[i]) == 0 {
			shared = append(shared, fmt.Sprintf("%s has an open %q and no key", walk.ComponentName(o.Ref), prop))
		}
		for _, v := range values[i] {
			if first, ok := owner[v]; ok {
				shared = append(shared, fmt.Sprintf("%q of %s goes to %s", v, walk.ComponentName(o.Ref), first))
				continue
			}
			owner[v] = walk.ComponentName(o.Ref)
			mapping[v] = openapi3.MappingRef{Ref: o.Ref}
		}
	}
	return mapping, shared, true
}

// ownerName names a new component after the schema that holds the union.
func ownerName(n Node) string {
	if n.Component != "" {
		name := n.Component
		rest := strings.TrimPrefix(n.Pointer, "/components/schemas/"+walk.Escape(n.Component))
		for _, seg := range strings.Split(rest, "/") {
			switch seg {
			case "", "properties", "items", "oneOf", "anyOf", "allOf", "additionalProperties":
				continue
			}
			if seg[0] >= '0' && seg[0] <= '9' {
				continue
			}
			name += walk.GoName(seg)
		}
		return name
	}
	return "Inline"
}
