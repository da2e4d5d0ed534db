package normalize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// inferDiscriminator gives a union of objects without a discriminator, whose
// variants have no "type" values (object-union's key), the discriminator it has in fact:
// the property every object variant requires, each with one constant of
// its own (a const or a one-value enum). Chat messages are the case:
// system, user, developer, assistant and tool messages share content and
// name, and only role tells them apart; ogen infers a union from the fields
// only one variant has, and fails ("can't infer fields discriminator").
// Where several properties qualify, the first by name wins. The mapping is
// explicit; inline variants move into components named after the union and
// their value.
//
// The rule applies only where ogen could not tell the variants apart
// itself: more than one variant has no field of its own, or the union is an
// anyOf, which ogen takes only of primitives ("complex anyOf"). A oneOf
// that ogen infers by fields is left alone, whatever property its variants
// share. An optional property, or one with several values in a variant, is
// no discriminator: a payload without it, or with a value another variant
// reads differently, would stop decoding.
//
// When no property tells the variants apart, the objects are merged into
// one that takes each variant's fields, as shared-values does for variants
// that share a wire value: a payload of any of them decodes, and nothing it
// carries is dropped.
func inferDiscriminator(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		variants := union(s)
		if len(variants) < 2 || len(s.AllOf) > 0 || s.Discriminator != nil && s.Discriminator.PropertyName != "" {
			continue
		}
		sources, prims := d.splitVariants(variants)
		objs, _ := d.flatten(sources)
		if len(objs) < 2 || slices.ContainsFunc(objs, func(o *openapi3.SchemaRef) bool {
			return len(d.discriminatorValues(d.Resolve(o), "type", 0)) > 0
		}) {
			continue // told apart by "type", as object-union and shared-values do
		}
		if len(s.AnyOf) == 0 && !d.fieldsAmbiguous(objs) {
			continue // ogen tells the variants of a oneOf apart by the fields only one has
		}
		if prop := d.keyProperty(objs); prop != "" {
			mapping := map[string]openapi3.MappingRef{}
			var pairs []string
			for _, o := range objs {
				value, _ := d.constantOf(d.Resolve(o), prop, 0)
				if o.Ref == "" {
					moved := d.AddComponent(ownerName(n)+walk.GoName(value), o.Value)
					*o = *moved
				}
				mapping[value] = openapi3.MappingRef{Ref: o.Ref}
				pairs = append(pairs, value+" -> "+variantName(o))
			}
			s.Discriminator = &openapi3.Discriminator{PropertyName: prop, Mapping: mapping}
			d.Hit(n, "discriminator %q: %d values over %d variants (%s)", prop, len(mapping), len(objs), strings.Join(pairs, ", "))
			continue
		}
		var names []any
		var schemas []*openapi3.Schema
		for _, o := range objs {
			names = append(names, variantName(o))
			schemas = append(schemas, d.Resolve(o))
		}
		m := d.mergeObjects(schemas, "", "", 0)
		m.Description = fmt.Sprintf("Any of %v: no property tells them apart.", names)
		m.Extensions = map[string]any{MergedFromExt: names}
		if len(prims) == 0 {
			m.Description = strings.TrimSpace(s.Description + " " + m.Description)
			*s = *m
		} else {
			all := append(slices.Clone(prims), &openapi3.SchemaRef{Value: m})
			if len(s.AnyOf) > 0 {
				s.AnyOf = all
			} else {
				s.OneOf = all
			}
		}
		d.Hit(n, "no discriminator: %d object variants %v merged into one", len(objs), names)
	}
	return nil
}

// keyProperty returns the property that tells objs apart, "" if none: the
// first by name that every variant requires and gives one constant of its
// own.
func (d *Doc) keyProperty(objs openapi3.SchemaRefs) string {
	names, _, _ := d.properties(d.Resolve(objs[0]), 0)
	slices.Sort(names)
	for _, p := range names {
		seen := map[string]bool{}
		key := true
		for _, o := range objs {
			v := d.Resolve(o)
			c, ok := d.constantOf(v, p, 0)
			if !ok || seen[c] || !d.requires(v, p, 0) {
				key = false
				break
			}
			seen[c] = true
		}
		if key {
			return p
		}
	}
	return ""
}

// constantOf returns the one string value property prop of object s allows
// (a const, or an enum of one value, or both naming the same value), its
// allOf parts included; false when prop is absent, allows null or another
// value, or is a union.
func (d *Doc) constantOf(s *openapi3.Schema, prop string, depth int) (string, bool) {
	if s == nil || depth > 8 {
		return "", false
	}
	p, ok := s.Properties[prop]
	if !ok {
		for _, part := range s.AllOf {
			if c, ok := d.constantOf(d.Resolve(part), prop, depth+1); ok {
				return c, true
			}
		}
		return "", false
	}
	ps := d.Resolve(p)
	if ps == nil || len(union(ps))+len(ps.AllOf) > 0 || ps.Nullable || ps.Type != nil && ps.Type.Includes(openapi3.TypeNull) || len(ps.Enum) > 1 {
		return "", false
	}
	c, isConst := ps.Const.(string)
	if ps.Const != nil && !isConst {
		return "", false
	}
	if len(ps.Enum) == 1 {
		e, ok := ps.Enum[0].(string)
		if !ok || isConst && e != c {
			return "", false
		}
		c, isConst = e, true
	}
	return c, isConst
}

// fieldsAmbiguous reports whether more than one variant has no field (name
// and JSON type) that no other variant has: what makes ogen's inference
// from fields fail.
func (d *Doc) fieldsAmbiguous(objs openapi3.SchemaRefs) bool {
	sigs := make([]map[string]bool, len(objs))
	count := map[string]int{}
	for i, o := range objs {
		sigs[i] = map[string]bool{}
		names, props, _ := d.properties(d.Resolve(o), 0)
		for _, k := range names {
			sig := k + ":" + d.kindOf(props[k])
			if !sigs[i][sig] {
				sigs[i][sig] = true
				count[sig]++
			}
		}
	}
	none := 0
	for i := range objs {
		unique := false
		for sig := range sigs[i] {
			if count[sig] == 1 {
				unique = true
			}
		}
		if !unique {
			none++
		}
	}
	return none > 1
}

// kindOf is a property's signature for fieldsAmbiguous: its reference, or
// its JSON types.
func (d *Doc) kindOf(r *openapi3.SchemaRef) string {
	if r.Ref != "" {
		return r.Ref
	}
	if v := r.Value; v != nil && v.Type != nil {
		return strings.Join(v.Type.Slice(), "|")
	}
	return "any"
}
