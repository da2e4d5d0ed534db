package normalize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// MergedFromExt lists the variants a merged variant was made from.
const MergedFromExt = "x-merged-from"

// sharedValues merges the variants of a union of objects that claim the same
// discriminator value into one variant. InputItem's "message" is claimed by
// EasyInputMessage, InputMessage and OutputMessage: a discriminated union can
// map a value to one variant only, and picking one would reject the others'
// payloads (an assistant message replayed with output_text content) or drop
// their fields (a message's id and status). The merged variant has every
// property of every member; where members declare a property differently, the
// declarations are combined (strings into one enum, arrays into one array,
// the rest into a union that string-union and object-union then normalize).
func sharedValues(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		variants := union(s)
		if len(variants) < 2 || len(s.AllOf) > 0 {
			continue
		}
		sources, prims := d.splitVariants(variants)
		if len(sources) < 2 && !(len(sources) == 1 && len(prims) == 0) {
			continue
		}
		objs, _ := d.flatten(sources)
		prop := discriminatorProp(s)
		values := make([][]string, len(objs))
		claims := map[string][]int{}
		var order []string
		for i, o := range objs {
			values[i] = d.discriminatorValues(d.Resolve(o), prop, 0)
			for _, v := range values[i] {
				if len(claims[v]) == 0 {
					order = append(order, v)
				}
				claims[v] = append(claims[v], i)
			}
		}
		merged := map[int]*openapi3.SchemaRef{} // first member's index → merged variant
		absorbed := map[int]bool{}              // variants whose every value went to a merge
		var details []string
		for _, v := range order {
			members := claims[v]
			if len(members) < 2 {
				continue
			}
			var names []any
			var schemas []*openapi3.Schema
			for _, i := range members {
				names = append(names, variantName(objs[i]))
				schemas = append(schemas, d.Resolve(objs[i]))
			}
			m := d.mergeObjects(schemas, prop, v, 0)
			m.Description = fmt.Sprintf("Any of %v: they share %s %q.", names, prop, v)
			m.Extensions = map[string]any{MergedFromExt: names}
			ref := d.AddComponent(ownerName(n)+walk.GoName(v), m)
			merged[members[0]] = ref
			for _, i := range members {
				// A member keeps its place only for values it does not share.
				if !slices.ContainsFunc(values[i], func(x string) bool { return len(claims[x]) == 1 }) {
					absorbed[i] = true
				}
			}
			details = append(details, fmt.Sprintf("%q of %v merged into %s", v, names, walk.ComponentName(ref.Ref)))
		}
		if len(merged) == 0 {
			continue
		}
		out := slices.Clone(prims)
		for i, o := range objs {
			if m, ok := merged[i]; ok {
				out = append(out, m)
			}
			if !absorbed[i] {
				out = append(out, o)
			}
		}
		if len(s.AnyOf) > 0 {
			s.AnyOf = out
		} else {
			s.OneOf = out
		}
		if s.Discriminator != nil {
			s.Discriminator.Mapping = nil // object-union writes it anew
		}
		d.Hit(n, "%s", strings.Join(details, "; "))
	}
	return nil
}

func variantName(r *openapi3.SchemaRef) string {
	if name := walk.ComponentName(r.Ref); name != "" {
		return name
	}
	return "(inline)"
}

// properties returns an object's properties, those of its allOf parts
// included, in order of declaration (later parts win).
func (d *Doc) properties(s *openapi3.Schema, depth int) (names []string, props map[string]*openapi3.SchemaRef, required []string) {
	props = map[string]*openapi3.SchemaRef{}
	var add func(s *openapi3.Schema, depth int)
	add = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > 8 {
			return
		}
		for _, part := range s.AllOf {
			add(d.Resolve(part), depth+1)
		}
		for _, k := range walk.SortedKeys(s.Properties) {
			if _, ok := props[k]; !ok {
				names = append(names, k)
			}
			props[k] = s.Properties[k]
		}
		for _, r := range s.Required {
			if !slices.Contains(required, r) {
				required = append(required, r)
			}
		}
	}
	add(s, depth)
	return names, props, required
}

// mergeObjects builds the object that accepts what each of schemas accepts.
// With prop set, that property is the one value the merged variant stands for.
func (d *Doc) mergeObjects(schemas []*openapi3.Schema, prop, value string, depth int) *openapi3.Schema {
	out := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: openapi3.Schemas{}}
	var order []string
	decls := map[string]openapi3.SchemaRefs{}
	var required []string
	for i, s := range schemas {
		names, props, req := d.properties(s, 0)
		for _, k := range names {
			if _, ok := decls[k]; !ok {
				order = append(order, k)
			}
			if !slices.ContainsFunc(decls[k], func(r *openapi3.SchemaRef) bool { return sameSchema(r, props[k]) }) {
				decls[k] = append(decls[k], props[k])
			}
		}
		// Required only what every member requires.
		if i == 0 {
			required = slices.Clone(req)
		} else {
			required = slices.DeleteFunc(required, func(r string) bool { return !slices.Contains(req, r) })
		}
	}
	for _, k := range order {
		out.Properties[k] = d.mergeDecls(decls[k], depth)
	}
	if prop != "" {
		out.Properties[prop] = &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Enum: []any{value}}}
	}
	out.Required = required
	return out
}

// mergeDecls combines different declarations of one property.
func (d *Doc) mergeDecls(decls openapi3.SchemaRefs, depth int) *openapi3.SchemaRef {
	if len(decls) == 1 || depth > 4 {
		return decls[0]
	}
	// Spread unions that are not unions of objects (string | list) into
	// their variants; unions of objects stay whole for object-union.
	var flat openapi3.SchemaRefs
	for _, r := range decls {
		v := d.Resolve(r)
		if u := union(v); len(u) > 0 && !d.allObjects(u) && v.Discriminator == nil {
			flat = append(flat, u...)
			continue
		}
		flat = append(flat, r)
	}
	var strs, arrays, rest openapi3.SchemaRefs
	null := false
	kinds := map[string]bool{} // number, integer, boolean: one variant each
	for _, r := range flat {
		v := d.Resolve(r)
		if v != nil && v.Type != nil && len(v.Type.Slice()) == 2 && v.Type.Includes(openapi3.TypeNull) {
			// A nullable primitive: its null joins the merged null, the rest
			// is merged with its kind.
			null = true
			nonNull := *v
			for _, t := range v.Type.Slice() {
				if t != openapi3.TypeNull {
					nonNull.Type = &openapi3.Types{t}
				}
			}
			v, r = &nonNull, &openapi3.SchemaRef{Value: &nonNull}
		}
		switch {
		case v == nil:
		case v.Type != nil && v.Type.Is(openapi3.TypeNull):
			null = true
		case v.Type != nil && len(union(v)) == 0 && len(v.Properties) == 0 &&
			(v.Type.Is(openapi3.TypeNumber) || v.Type.Is(openapi3.TypeInteger) || v.Type.Is(openapi3.TypeBoolean)):
			if k := v.Type.Slice()[0]; !kinds[k] {
				kinds[k] = true
				rest = append(rest, r)
			}
		case d.allStrings(openapi3.SchemaRefs{r}, 0):
			strs = append(strs, r)
		case v.Type != nil && v.Type.Includes(openapi3.TypeArray) && v.Items != nil:
			arrays = append(arrays, r)
		default:
			if !slices.ContainsFunc(rest, func(x *openapi3.SchemaRef) bool { return sameSchema(x, r) }) {
				rest = append(rest, r)
			}
		}
	}
	var out openapi3.SchemaRefs
	switch len(strs) {
	case 0:
	case 1:
		out = append(out, strs[0])
	default:
		s := &openapi3.Schema{}
		d.mergeStrings(s, strs, false)
		out = append(out, &openapi3.SchemaRef{Value: s})
	}
	switch len(arrays) {
	case 0:
	case 1:
		out = append(out, arrays[0])
	default:
		var items openapi3.SchemaRefs
		for _, a := range arrays {
			it := d.Resolve(a).Items
			if !slices.ContainsFunc(items, func(x *openapi3.SchemaRef) bool { return sameSchema(x, it) }) {
				items = append(items, it)
			}
		}
		out = append(out, &openapi3.SchemaRef{Value: &openapi3.Schema{
			Type: &openapi3.Types{openapi3.TypeArray}, Items: d.mergeDecls(items, depth+1),
		}})
	}
	// Plain objects that no "type" value tells apart are one object.
	var objects openapi3.SchemaRefs
	distinct := map[string]bool{}
	tellApart := true
	for _, r := range rest {
		if v := d.Resolve(r); d.isObject(v) {
			objects = append(objects, r)
			vals := d.discriminatorValues(v, "type", 0)
			if len(vals) == 0 || slices.ContainsFunc(vals, func(x string) bool { return distinct[x] }) {
				tellApart = false
			}
			for _, x := range vals {
				distinct[x] = true
			}
		}
	}
	if len(objects) > 1 && !tellApart {
		var schemas []*openapi3.Schema
		for _, r := range objects {
			schemas = append(schemas, d.Resolve(r))
		}
		rest = slices.DeleteFunc(rest, func(r *openapi3.SchemaRef) bool { return slices.Contains(objects, r) })
		rest = append(rest, &openapi3.SchemaRef{Value: d.mergeObjects(schemas, "", "", depth+1)})
	}
	out = append(out, rest...)
	if null {
		out = append(out, nullSchema())
	}
	if len(out) == 1 {
		return out[0]
	}
	return &openapi3.SchemaRef{Value: &openapi3.Schema{AnyOf: out}}
}
