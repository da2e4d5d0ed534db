package normalize

import (
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// OgenNameExt is ogen's extension that names a schema's Go type.
const OgenNameExt = "x-ogen-name"

// inlineNames gives distinct Go names to inline schemas that ogen would name
// alike. ogen names an inline type after its parent and property
// (ChatRequest + reasoning_effort → ChatRequestReasoningEffort), so
// ChatRequest.reasoning.effort and ChatRequest.reasoning_effort collide, and so
// can an inline type and a component (ModerationInput.type vs
// ModerationInputType). The component, then the shallowest inline schema, keep
// the name; every other one is named Parent_Property.
func inlineNames(d *Doc) error {
	type named struct {
		n      Node
		parent string
		prop   string
		depth  int
	}
	byName := map[string][]named{}
	sums := map[string]bool{} // names of sum types: ogen adds <name>Type for each
	taken := map[string]bool{}
	for _, c := range walk.SortedKeys(d.T.Components.Schemas) {
		taken[walk.GoName(c)] = true
	}
	var visit func(r *openapi3.SchemaRef, pointer, component, name string, depth int)
	visit = func(r *openapi3.SchemaRef, pointer, component, name string, depth int) {
		if r == nil || r.Ref != "" || r.Value == nil || depth > 32 {
			return
		}
		s := r.Value
		if n, ok := s.Extensions[OgenNameExt].(string); ok {
			name = n
		}
		if len(union(s)) > 0 {
			sums[name] = true
		}
		for _, p := range walk.SortedKeys(s.Properties) {
			child := s.Properties[p]
			childName := name + walk.GoName(p)
			if child.Ref == "" && child.Value != nil && namesType(child.Value) {
				byName[childName] = append(byName[childName], named{
					n:      Node{Ref: child, Component: component, Pointer: pointer + "/properties/" + walk.Escape(p)},
					parent: name, prop: p, depth: depth + 1,
				})
			}
			visit(child, pointer+"/properties/"+walk.Escape(p), component, childName, depth+1)
		}
		visit(s.Items, pointer+"/items", component, name+"Item", depth+1)
		for i, part := range s.AllOf {
			visit(part, pointer+"/allOf/"+strconv.Itoa(i), component, name, depth+1)
		}
	}
	for _, c := range walk.SortedKeys(d.T.Components.Schemas) {
		visit(d.T.Components.Schemas[c], "/components/schemas/"+walk.Escape(c), c, walk.GoName(c), 0)
	}
	// A component named like a sum type's kind type (ModerationInputType
	// beside the inline union ModerationInput) is renamed.
	for _, c := range walk.SortedKeys(d.T.Components.Schemas) {
		goName := walk.GoName(c)
		base, ok := strings.CutSuffix(goName, "Type")
		ref := d.T.Components.Schemas[c]
		if !ok || !sums[base] || ref.Ref != "" || ref.Value == nil {
			continue
		}
		alt := goName + "2"
		for taken[alt] || len(byName[alt]) > 0 {
			alt += "X"
		}
		taken[alt] = true
		ref.Value.Extensions = withExt(ref.Value.Extensions, OgenNameExt, alt)
		d.Hit(Node{Ref: ref, Component: c, Pointer: "/components/schemas/" + walk.Escape(c)},
			"named %s (ogen names the kind of sum type %s %s)", alt, base, goName)
	}
	for _, name := range walk.SortedKeys(byName) {
		group := byName[name]
		if len(group) < 2 && !taken[name] {
			continue
		}
		slices.SortStableFunc(group, func(a, b named) int {
			if a.depth != b.depth {
				return a.depth - b.depth
			}
			return strings.Compare(a.n.Pointer, b.n.Pointer)
		})
		if !taken[name] {
			group = group[1:] // the shallowest keeps the name
		}
		for i, g := range group {
			s := g.n.Schema()
			alt := name + strconv.Itoa(i+2)
			for taken[alt] || len(byName[alt]) > 0 {
				alt += "X"
			}
			taken[alt] = true
			s.Extensions = withExt(s.Extensions, OgenNameExt, alt)
			d.Hit(g.n, "named %s (ogen would name it %s, like another schema)", alt, name)
		}
	}
	return nil
}

// namesType reports whether ogen gives s a Go type of its own (an enum, an
// object or a union), rather than using a primitive.
func namesType(s *openapi3.Schema) bool {
	return len(s.Enum) > 0 || len(s.Properties) > 0 || len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) > 0
}
