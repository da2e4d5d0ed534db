// Package prune cuts an OpenAPI document down to a set of operations and the
// transitive closure of the components they reference.
package prune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// Result says what a prune kept.
type Result struct {
	Operations []string // kept operations, "METHOD /path", sorted
	Schemas    []string // kept component schemas, sorted
	Before     int      // component schemas before pruning
}

// Prune keeps only the listed operations ("POST /responses") of doc and the
// components they reach: schemas through every schema keyword and through
// discriminator mapping targets, plus parameters, request bodies, responses and
// headers named by reference. doc is modified in place.
//
// A listed operation that the document does not have is an error: it means the
// upstream renamed or removed it, which a spec update must surface.
func Prune(doc *openapi3.T, keep []string) (Result, error) {
	if doc.Components == nil {
		doc.Components = &openapi3.Components{}
	}
	want := make(map[string]bool, len(keep))
	for _, k := range keep {
		method, path, ok := strings.Cut(k, " ")
		if !ok || method != strings.ToUpper(method) || !strings.HasPrefix(path, "/") {
			return Result{}, fmt.Errorf("prune: operation %q: want \"METHOD /path\"", k)
		}
		want[k] = true
	}

	c := &closure{
		doc:        doc,
		schemas:    map[string]bool{},
		components: map[string]map[string]bool{},
		seen:       map[*openapi3.Schema]bool{},
	}
	found := map[string]bool{}
	newPaths := openapi3.NewPaths()
	for _, op := range walk.Operations(doc) {
		if !want[op.Key()] {
			continue
		}
		found[op.Key()] = true
		item := newPaths.Value(op.Path)
		if item == nil {
			old := doc.Paths.Value(op.Path)
			item = &openapi3.PathItem{
				Extensions:  old.Extensions,
				Summary:     old.Summary,
				Description: old.Description,
				Parameters:  old.Parameters,
			}
			newPaths.Set(op.Path, item)
			for _, p := range old.Parameters {
				c.parameter(p)
			}
		}
		item.SetOperation(op.Method, op.Op)
		walk.OperationSchemas(op.Op, c.component, func(_ string, s *openapi3.SchemaRef) { c.schemaRef(s) })
		if op.Op.Security != nil {
			for _, req := range *op.Op.Security {
				for _, name := range walk.SortedKeys(req) {
					c.component("securitySchemes", name)
				}
			}
		}
	}
	var missing []string
	for _, k := range keep {
		if !found[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Result{}, fmt.Errorf("prune: the spec has no operation %s", strings.Join(missing, ", "))
	}
	for _, req := range doc.Security {
		for _, name := range walk.SortedKeys(req) {
			c.component("securitySchemes", name)
		}
	}
	if dangling := c.dangling(); len(dangling) > 0 {
		return Result{}, fmt.Errorf("prune: dangling references: %s", strings.Join(dangling, ", "))
	}

	res := Result{Before: len(doc.Components.Schemas)}
	doc.Paths = newPaths
	old := doc.Components
	doc.Components = &openapi3.Components{Extensions: old.Extensions}
	doc.Components.Schemas = openapi3.Schemas{}
	for name := range c.schemas {
		doc.Components.Schemas[name] = old.Schemas[name]
	}
	keepMap(c.components["parameters"], old.Parameters, &doc.Components.Parameters)
	keepMap(c.components["requestBodies"], old.RequestBodies, &doc.Components.RequestBodies)
	keepMap(c.components["responses"], old.Responses, &doc.Components.Responses)
	keepMap(c.components["headers"], old.Headers, &doc.Components.Headers)
	keepMap(c.components["securitySchemes"], old.SecuritySchemes, &doc.Components.SecuritySchemes)
	keepMap(c.components["examples"], old.Examples, &doc.Components.Examples)
	keepMap(c.components["links"], old.Links, &doc.Components.Links)
	// Callbacks and path items are not followed: a kept operation that uses
	// them would fail the reload after pruning, naming the reference.
	doc.Webhooks = nil
	doc.Tags = pruneTags(doc.Tags, newPaths)

	res.Operations = slices.Sorted(func(yield func(string) bool) {
		for k := range found {
			if !yield(k) {
				return
			}
		}
	})
	res.Schemas = walk.SortedKeys(doc.Components.Schemas)
	return res, nil
}

func keepMap[M ~map[string]V, V any](names map[string]bool, from M, to *M) {
	if len(names) == 0 {
		*to = nil
		return
	}
	*to = make(M, len(names))
	for n := range names {
		if v, ok := from[n]; ok {
			(*to)[n] = v
		}
	}
}

func pruneTags(tags openapi3.Tags, paths *openapi3.Paths) openapi3.Tags {
	used := map[string]bool{}
	for _, item := range paths.Map() {
		for _, op := range item.Operations() {
			for _, t := range op.Tags {
				used[t] = true
			}
		}
	}
	var out openapi3.Tags
	for _, t := range tags {
		if used[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

type closure struct {
	doc        *openapi3.T
	schemas    map[string]bool
	components map[string]map[string]bool
	seen       map[*openapi3.Schema]bool
	missing    []string
}

func (c *closure) component(kind, name string) {
	m := c.components[kind]
	if m == nil {
		m = map[string]bool{}
		c.components[kind] = m
	}
	if m[name] {
		return
	}
	m[name] = true
	comps := c.doc.Components
	switch kind {
	case "parameters":
		if p, ok := comps.Parameters[name]; ok {
			c.parameter(p)
		} else {
			c.missing = append(c.missing, "#/components/parameters/"+name)
		}
	case "requestBodies":
		if rb, ok := comps.RequestBodies[name]; ok && rb.Value != nil {
			for _, mt := range walk.SortedKeys(rb.Value.Content) {
				c.schemaRef(rb.Value.Content[mt].Schema)
			}
			walk.Examples(rb.Value.Content, c.component)
		} else {
			c.missing = append(c.missing, "#/components/requestBodies/"+name)
		}
	case "responses":
		if r, ok := comps.Responses[name]; ok && r.Value != nil {
			for _, mt := range walk.SortedKeys(r.Value.Content) {
				c.schemaRef(r.Value.Content[mt].Schema)
			}
			walk.Examples(r.Value.Content, c.component)
			for _, h := range walk.SortedKeys(r.Value.Headers) {
				c.header(r.Value.Headers[h])
			}
		} else {
			c.missing = append(c.missing, "#/components/responses/"+name)
		}
	case "headers":
		if h, ok := comps.Headers[name]; ok {
			c.header(h)
		} else {
			c.missing = append(c.missing, "#/components/headers/"+name)
		}
	case "securitySchemes":
		if _, ok := comps.SecuritySchemes[name]; !ok {
			c.missing = append(c.missing, "#/components/securitySchemes/"+name)
		}
	case "examples":
		if _, ok := comps.Examples[name]; !ok {
			c.missing = append(c.missing, "#/components/examples/"+name)
		}
	case "links":
		if _, ok := comps.Links[name]; !ok {
			c.missing = append(c.missing, "#/components/links/"+name)
		}
	}
}

func (c *closure) parameter(p *openapi3.ParameterRef) {
	if p == nil {
		return
	}
	if name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok && !c.components["parameters"][name] {
		c.component("parameters", name)
		return
	}
	if p.Value != nil {
		c.schemaRef(p.Value.Schema)
		for _, mt := range walk.SortedKeys(p.Value.Content) {
			c.schemaRef(p.Value.Content[mt].Schema)
		}
	}
}

func (c *closure) header(h *openapi3.HeaderRef) {
	if h != nil && h.Value != nil {
		c.schemaRef(h.Value.Schema)
	}
}

func (c *closure) ref(ref string) {
	if ref == "" {
		return
	}
	name := walk.ComponentName(walk.MappingRef(ref))
	if name == "" {
		c.missing = append(c.missing, ref)
		return
	}
	s, ok := c.doc.Components.Schemas[name]
	if !ok || s == nil {
		c.missing = append(c.missing, ref)
		return
	}
	if c.schemas[name] {
		return
	}
	c.schemas[name] = true
	c.schemaRef(s) // an alias component ({$ref: B}) keeps B too
}

func (c *closure) schemaRef(r *openapi3.SchemaRef) {
	if r == nil {
		return
	}
	if r.Ref != "" {
		c.ref(r.Ref)
		return
	}
	c.schema(r.Value)
}

func (c *closure) schema(s *openapi3.Schema) {
	if s == nil || c.seen[s] {
		return
	}
	c.seen[s] = true
	walk.Children(s, func(_ walk.Slot, child *openapi3.SchemaRef) { c.schemaRef(child) })
	for _, ref := range walk.MappingRefs(s) {
		c.ref(ref)
	}
}

func (c *closure) dangling() []string {
	slices.Sort(c.missing)
	return slices.Compact(c.missing)
}
