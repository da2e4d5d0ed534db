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
// the property every object variant declares with its own wire values (a
// const or an enum, disjoint between the variants). Chat messages are the
// case: system, user, developer, assistant and tool messages share content
// and name, and only role tells them apart; ogen infers a union from the
// fields only one variant has, and fails ("can't infer fields
// discriminator"). Where several properties qualify, the one whose values
// are single constants in every variant and that every variant requires
// wins, then the first by name. The mapping is explicit; inline variants
// move into components named after the union and their value.
//
// When no property tells the variants apart and ogen could not either
// (more than one variant has no field of its own, or the union is an anyOf,
// which ogen takes only of primitives: "complex anyOf"), the objects are merged
// into one that takes each variant's fields, as shared-values does for
// variants that share a wire value: a payload of any of them decodes, and
// nothing it carries is dropped.
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
		if prop := d.keyProperty(objs); prop != "" {
			mapping := map[string]openapi3.MappingRef{}
			for _, o := range objs {
				values := d.discriminatorValues(d.Resolve(o), prop, 0)
				if o.Ref == "" {
					moved := d.AddComponent(ownerName(n)+walk.GoName(values[0]), o.Value)
					*o = *moved
				}
				for _, v := range values {
					mapping[v] = openapi3.MappingRef{Ref: o.Ref}
				}
			}
			s.Discriminator = &openapi3.Discriminator{PropertyName: prop, Mapping: mapping}
			d.Hit(n, "discriminator %q: %d values over %d variants", prop, len(mapping), len(objs))
			continue
		}
		if len(s.AnyOf) == 0 && !d.fieldsAmbiguous(objs) {
			continue // ogen tells the variants of a oneOf apart by the fields only one has
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

// keyedBy reports whether every variant has values of prop, none shared.
func (d *Doc) keyedBy(objs openapi3.SchemaRefs, prop string) bool {
	seen := map[string]bool{}
	for _, o := range objs {
		values := d.discriminatorValues(d.Resolve(o), prop, 0)
		if len(values) == 0 {
			return false
		}
		for _, v := range values {
			if seen[v] {
				return false
			}
			seen[v] = true
		}
	}
	return true
}

// keyProperty returns the property that tells objs apart, "" if none.
func (d *Doc) keyProperty(objs openapi3.SchemaRefs) string {
	names, _, _ := d.properties(d.Resolve(objs[0]), 0)
	slices.Sort(names)
	best, bestRank := "", -1
	for _, p := range names {
		if !d.keyedBy(objs, p) {
			continue
		}
		rank := 0
		single, required := true, true
		for _, o := range objs {
			v := d.Resolve(o)
			if len(d.discriminatorValues(v, p, 0)) != 1 {
				single = false
			}
			if !d.requires(v, p, 0) {
				required = false
			}
		}
		if single {
			rank += 2
		}
		if required {
			rank++
		}
		if rank > bestRank {
			best, bestRank = p, rank
		}
	}
	return best
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
