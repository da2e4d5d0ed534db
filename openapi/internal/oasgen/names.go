package oasgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ogen-go/ogen/gen/ir"
)

// NamesFile is the table of the Go names ogen gave the spec's fields and
// variants, for the mapping generator's compile-time references (ogen's
// types carry no json tags). One line per fact, sorted:
//
//	T <type> struct|sum|kinds|generic <ref>|alias <ref>|other
//	F <type> <json key> <Go field> <ref>          a struct's field
//	V <type> <tag value> <Go field> <ref> <const> a sum's variant by tag value
//	K <type> <JSON kind> <Go field> <ref>         a sum's variant by JSON kind
//
// A <ref> is a type name, []<ref>, *<ref>, or - (a primitive, jx.Raw, a map).
const NamesFile = "go_names.txt"

func names(types map[string]*ir.Type) []byte {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	for name, t := range types {
		switch t.Kind {
		case ir.KindStruct:
			add("T %s struct", name)
			for _, f := range t.Fields {
				if f.Tag.JSON != "" {
					add("F %s %s %s %s", name, f.Tag.JSON, f.Name, ref(f.Type))
				}
			}
		case ir.KindSum:
			if t.SumSpec.TypeDiscriminator || t.SumSpec.Discriminator == "" {
				add("T %s kinds", name)
				for _, s := range t.SumOf {
					add("K %s %s %s %s", name, jsonKind(s), s.Name, ref(s))
				}
				continue
			}
			add("T %s sum", name)
			for _, s := range t.SumOf {
				// The constants as ogen's template names them.
				for _, e := range t.SumSpec.PickMappingEntriesFor(t, s) {
					add("V %s %s %s %s %s", name, e.Key, s.Name, ref(s), e.Name)
				}
			}
		case ir.KindGeneric:
			add("T %s generic %s", name, ref(t.GenericOf))
		case ir.KindAlias:
			add("T %s alias %s", name, ref(t.AliasTo))
		default:
			add("T %s other", name)
		}
	}
	slices.Sort(lines)
	return []byte("# Go names ogen gave the spec's types, fields and variants (oasgen.NamesFile). DO NOT EDIT.\n" + strings.Join(lines, "\n") + "\n")
}

func ref(t *ir.Type) string {
	if t == nil {
		return "-"
	}
	switch t.Kind {
	case ir.KindArray:
		return "[]" + ref(t.Item)
	case ir.KindPointer:
		return "*" + ref(t.PointerTo)
	case ir.KindPrimitive, ir.KindAny, ir.KindMap:
		return "-"
	}
	if t.Name == "" {
		return "-"
	}
	return t.Name
}

// jsonKind is the JSON kind a sum's variant is told apart by.
func jsonKind(t *ir.Type) string {
	for t.Kind == ir.KindPointer || t.Kind == ir.KindAlias || t.Kind == ir.KindGeneric {
		switch t.Kind {
		case ir.KindPointer:
			t = t.PointerTo
		case ir.KindAlias:
			t = t.AliasTo
		default:
			t = t.GenericOf
		}
	}
	switch t.Kind {
	case ir.KindArray:
		return "array"
	case ir.KindStruct, ir.KindSum, ir.KindMap:
		return "object"
	case ir.KindPrimitive, ir.KindEnum:
		switch t.Primitive {
		case ir.String:
			return "string"
		case ir.Bool:
			return "boolean"
		case ir.Null:
			return "null"
		}
		return "number"
	}
	return "any"
}
