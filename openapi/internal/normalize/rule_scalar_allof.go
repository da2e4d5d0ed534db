package normalize

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// scalarAllOf collapses an allOf whose parts are not objects into the one
// schema they describe together. Spec generators attach a description, a
// default or nullable to a referenced enum this way
// ({"allOf": [{"$ref": "#/…/ProviderSort"}, {"description": …}]}), or split
// one enum into its values and its annotations ({"allOf": [{"type":
// "string", "enum": […]}, {"nullable": true}]}). The shape tables merge
// allOf parts as objects, and ogen reads such a schema as an object too.
//
//   - One referenced part beside parts that only annotate it (description,
//     default, example, nullable, a type the target already has): the
//     reference itself; null stays allowed (anyOf [$ref, null]) when a part
//     says nullable: true or adds "null" to the type, as 3.0 generators mean
//     it.
//   - Otherwise the parts are merged into one inline schema: types and
//     enums intersected, nullable joined, every other keyword taken from
//     the parts that have it. Where two parts give one keyword different
//     values (a minimum, a pattern, a format, items), the rule does not
//     apply: keeping either would drop the other's constraint, and the
//     allOf is left for ogen and the shape tables to report. Annotations
//     (description, title, example(s), default, deprecated, readOnly,
//     writeOnly, externalDocs, x-*) may differ: the first part's stays.
func scalarAllOf(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if len(s.AllOf) == 0 || len(s.Properties) > 0 || len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil ||
			s.Type != nil && s.Type.Includes(openapi3.TypeObject) {
			continue
		}
		var refs []*openapi3.SchemaRef
		scalar, substantial := true, false
		for _, p := range s.AllOf {
			v := d.Resolve(p)
			if v == nil || len(v.Properties) > 0 || len(v.AllOf)+len(v.AnyOf)+len(v.OneOf) > 0 || d.isObject(v) || d.isMap(v) ||
				v.Type != nil && v.Type.Includes(openapi3.TypeObject) {
				scalar = false
				break
			}
			if p.Ref != "" {
				refs = append(refs, p)
				substantial = true
			} else if v.Type != nil || len(v.Enum) > 0 || v.Const != nil || v.Items != nil {
				substantial = true
			}
		}
		if !scalar || !substantial {
			continue
		}
		parts, err := schemaMaps(append(openapi3.SchemaRefs{{Value: s}}, s.AllOf...), d)
		if err != nil {
			return err
		}
		nullable := false
		for i, m := range parts {
			if string(m["nullable"]) == "true" || i > 0 && s.AllOf[i-1].Ref == "" && slices.Contains(typeList(m), openapi3.TypeNull) {
				nullable = true
			}
		}
		if len(refs) == 1 && d.annotatesOnly(s, refs[0], parts) {
			plain := &openapi3.SchemaRef{Ref: refs[0].Ref, Value: refs[0].Value}
			target := d.Resolve(plain)
			if nullable && !(target.Type != nil && target.Type.Includes(openapi3.TypeNull)) && !slices.Contains(target.Enum, nil) {
				*n.Ref = openapi3.SchemaRef{Value: &openapi3.Schema{Description: s.Description, AnyOf: openapi3.SchemaRefs{plain, nullSchema()}}}
				d.Hit(n, "allOf of %s and annotations -> anyOf [$ref, null]", walk.ComponentName(plain.Ref))
			} else {
				*n.Ref = *plain
				d.Hit(n, "allOf of %s and annotations -> $ref", walk.ComponentName(plain.Ref))
			}
			continue
		}
		merged, detail, ok := mergeScalarParts(parts, nullable)
		if !ok {
			continue
		}
		var out openapi3.Schema
		if err := out.UnmarshalJSON(merged); err != nil {
			return fmt.Errorf("%s: %w", n.Pointer, err)
		}
		*n.Ref = openapi3.SchemaRef{Value: &out}
		d.Hit(n, "allOf of %d non-object parts merged into one schema (%s)", len(s.AllOf), detail)
	}
	return nil
}

// annotationKeys are the keywords that say nothing about which values a
// schema allows.
var annotationKeys = map[string]bool{
	"description": true, "title": true, "example": true, "examples": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "nullable": true, "externalDocs": true,
}

// annotatesOnly reports whether every part but ref (and the allOf's own
// keywords) only annotates it: no keyword but annotations, and no type the
// target does not have.
func (d *Doc) annotatesOnly(s *openapi3.Schema, ref *openapi3.SchemaRef, parts []map[string]json.RawMessage) bool {
	target := d.Resolve(ref)
	var targetTypes []string
	if target.Type != nil {
		targetTypes = target.Type.Slice()
	}
	for i, m := range parts {
		if i > 0 && s.AllOf[i-1] == ref {
			continue
		}
		for k := range m {
			switch {
			case k == "allOf" && i == 0, annotationKeys[k], strings.HasPrefix(k, "x-"):
			case k == "type":
				for _, t := range typeList(m) {
					if t != openapi3.TypeNull && !slices.Contains(targetTypes, t) {
						return false
					}
				}
			default:
				return false
			}
		}
	}
	return true
}

// schemaMaps returns each schema as its JSON object (a reference resolved).
func schemaMaps(refs openapi3.SchemaRefs, d *Doc) ([]map[string]json.RawMessage, error) {
	var out []map[string]json.RawMessage
	for _, r := range refs {
		raw, err := json.Marshal(d.Resolve(r))
		if err != nil {
			return nil, err
		}
		m := map[string]json.RawMessage{}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func typeList(m map[string]json.RawMessage) []string {
	var one string
	if json.Unmarshal(m["type"], &one) == nil && one != "" {
		return []string{one}
	}
	var list []string
	_ = json.Unmarshal(m["type"], &list)
	return list
}

// mergeScalarParts merges the allOf's own keywords (parts[0], its allOf
// left out) and its parts into one schema. It fails (false) when the types
// or enums have nothing in common (such a schema allows no value) or when
// two parts give a keyword other than an annotation different values: it is
// left for ogen to report.
func mergeScalarParts(parts []map[string]json.RawMessage, nullable bool) ([]byte, string, bool) {
	out := map[string]json.RawMessage{}
	var types []string
	var enum []json.RawMessage
	typed, enumerated := false, false
	var kept []string
	for _, m := range parts {
		for _, k := range walk.SortedKeys(m) {
			switch k {
			case "allOf", "nullable":
			case "type":
				t := slices.DeleteFunc(typeList(m), func(t string) bool { return t == openapi3.TypeNull })
				if !typed {
					types, typed = t, true
				} else {
					types = slices.DeleteFunc(types, func(x string) bool { return !slices.Contains(t, x) })
				}
			case "enum":
				var e []json.RawMessage
				if json.Unmarshal(m[k], &e) != nil {
					return nil, "", false
				}
				if !enumerated {
					enum, enumerated = e, true
				} else {
					enum = slices.DeleteFunc(enum, func(x json.RawMessage) bool {
						return !slices.ContainsFunc(e, func(y json.RawMessage) bool { return string(x) == string(y) })
					})
				}
			default:
				prev, ok := out[k]
				switch {
				case !ok:
					out[k] = m[k]
					if !annotationKeys[k] && !strings.HasPrefix(k, "x-") {
						kept = append(kept, k)
					}
				case annotationKeys[k] || strings.HasPrefix(k, "x-"):
				case !sameJSON(prev, m[k]):
					return nil, "", false
				}
			}
		}
	}
	if typed && len(types) == 0 || enumerated && len(enum) == 0 {
		return nil, "", false
	}
	var detail []string
	if typed {
		if nullable {
			types = append(types, openapi3.TypeNull)
		}
		out["type"], _ = json.Marshal(types)
		detail = append(detail, "type "+strings.Join(types, ", "))
	} else if nullable {
		out["nullable"] = json.RawMessage("true")
		detail = append(detail, "nullable")
	}
	if enumerated {
		if nullable && !slices.ContainsFunc(enum, func(x json.RawMessage) bool { return string(x) == "null" }) {
			enum = append(enum, json.RawMessage("null"))
		}
		out["enum"], _ = json.Marshal(enum)
		detail = append(detail, fmt.Sprintf("%d enum values", len(enum)))
	}
	slices.Sort(kept)
	detail = append(detail, kept...)
	raw, _ := json.Marshal(out)
	return raw, strings.Join(detail, ", "), true
}

// sameJSON reports whether two JSON values are equal, objects' keys in any
// order.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
