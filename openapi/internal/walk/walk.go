// Package walk visits the schemas of a kin-openapi document in a fixed order.
//
// Every visitor here iterates maps in sorted key order, so whatever is built from
// a walk (prune sets, normalizer reports, rewritten specs) is deterministic.
package walk

import (
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// SchemaPrefix is the JSON pointer prefix of component schema references.
const SchemaPrefix = "#/components/schemas/"

// ComponentName returns the component schema name a reference points to, or ""
// for a reference elsewhere (or none).
func ComponentName(ref string) string {
	name, ok := strings.CutPrefix(ref, SchemaPrefix)
	if !ok || strings.Contains(name, "/") {
		return ""
	}
	return name
}

// MappingRef returns the reference a discriminator mapping value denotes:
// OpenAPI allows a bare schema name ("Cat") as well as a reference.
func MappingRef(value string) string {
	if value != "" && !strings.ContainsAny(value, "#/.") {
		return SchemaPrefix + value
	}
	return value
}

// SortedKeys returns the keys of m in ascending order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Slot is one place a child schema hangs from its parent, e.g. "properties/name"
// or "oneOf/2". It is what a JSON pointer segment path is built from.
type Slot = string

// Children calls fn for every direct child schema of s, in a fixed order:
// combinators, then object, array and conditional keywords.
// Discriminator mapping targets are not children (they are references by name);
// see MappingRefs.
func Children(s *openapi3.Schema, fn func(slot Slot, child *openapi3.SchemaRef)) {
	if s == nil {
		return
	}
	list := func(kw string, refs openapi3.SchemaRefs) {
		for i, r := range refs {
			if r != nil {
				fn(kw+"/"+strconv.Itoa(i), r)
			}
		}
	}
	named := func(kw string, m openapi3.Schemas) {
		for _, k := range SortedKeys(m) {
			if r := m[k]; r != nil {
				fn(kw+"/"+Escape(k), r)
			}
		}
	}
	one := func(kw string, r *openapi3.SchemaRef) {
		if r != nil {
			fn(kw, r)
		}
	}
	list("allOf", s.AllOf)
	list("anyOf", s.AnyOf)
	list("oneOf", s.OneOf)
	one("not", s.Not)
	named("properties", s.Properties)
	one("additionalProperties", s.AdditionalProperties.Schema)
	named("patternProperties", s.PatternProperties)
	one("propertyNames", s.PropertyNames)
	named("dependentSchemas", s.DependentSchemas)
	one("unevaluatedProperties", s.UnevaluatedProperties.Schema)
	one("items", s.Items)
	list("prefixItems", s.PrefixItems)
	one("contains", s.Contains)
	one("unevaluatedItems", s.UnevaluatedItems.Schema)
	one("if", s.If)
	one("then", s.Then)
	one("else", s.Else)
	one("contentSchema", s.ContentSchema)
	named("$defs", s.Defs)
}

// MappingRefs returns the references of s's discriminator mapping, sorted by
// discriminator value.
func MappingRefs(s *openapi3.Schema) []string {
	if s == nil || s.Discriminator == nil {
		return nil
	}
	var refs []string
	for _, k := range SortedKeys(s.Discriminator.Mapping) {
		refs = append(refs, MappingRef(s.Discriminator.Mapping[k].Ref))
	}
	return refs
}

// Operation is one kept HTTP operation of a document.
type Operation struct {
	Method string // upper case, e.g. "POST"
	Path   string // e.g. "/responses/{response_id}"
	Op     *openapi3.Operation
}

// Key is the manifest's spelling of an operation: "POST /responses".
func (o Operation) Key() string { return o.Method + " " + o.Path }

// Operations returns the operations of doc sorted by path, then method.
func Operations(doc *openapi3.T) []Operation {
	var ops []Operation
	if doc.Paths == nil {
		return nil
	}
	for _, p := range SortedKeys(doc.Paths.Map()) {
		item := doc.Paths.Value(p)
		for _, m := range SortedKeys(item.Operations()) {
			ops = append(ops, Operation{Method: m, Path: p, Op: item.GetOperation(m)})
		}
	}
	return ops
}

// OperationSchemas calls fn for every schema an operation uses directly, with
// its JSON pointer relative to the operation ("responses/200/content/
// application~1json/schema"):
// parameters, request body content, and response content and headers.
// Component references among parameters, bodies and responses are followed
// (their names are passed to component so a pruner can keep them).
func OperationSchemas(op *openapi3.Operation, component func(kind, name string), fn func(where string, s *openapi3.SchemaRef)) {
	for i, p := range op.Parameters {
		if p == nil {
			continue
		}
		if name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
			component("parameters", name)
		}
		if p.Value != nil && p.Value.Schema != nil {
			fn("parameters/"+strconv.Itoa(i)+"/schema", p.Value.Schema)
		}
		if p.Value != nil {
			content("parameters/"+strconv.Itoa(i), p.Value.Content, fn)
		}
	}
	if rb := op.RequestBody; rb != nil {
		if rb.Value != nil {
			Examples(rb.Value.Content, component)
		}
		if name, ok := strings.CutPrefix(rb.Ref, "#/components/requestBodies/"); ok {
			component("requestBodies", name)
		}
		if rb.Value != nil {
			content("requestBody", rb.Value.Content, fn)
		}
	}
	if op.Responses != nil {
		for _, code := range SortedKeys(op.Responses.Map()) {
			r := op.Responses.Value(code)
			if name, ok := strings.CutPrefix(r.Ref, "#/components/responses/"); ok {
				component("responses", name)
			}
			if r.Value == nil {
				continue
			}
			content("responses/"+code, r.Value.Content, fn)
			Examples(r.Value.Content, component)
			for _, l := range SortedKeys(r.Value.Links) {
				if name, ok := strings.CutPrefix(r.Value.Links[l].Ref, "#/components/links/"); ok {
					component("links", name)
				}
			}
			for _, h := range SortedKeys(r.Value.Headers) {
				hr := r.Value.Headers[h]
				if name, ok := strings.CutPrefix(hr.Ref, "#/components/headers/"); ok {
					component("headers", name)
				}
				if hr.Value != nil && hr.Value.Schema != nil {
					fn("responses/"+code+"/headers/"+Escape(h)+"/schema", hr.Value.Schema)
				}
			}
		}
	}
}

// Examples reports the component examples that media types name.
func Examples(c openapi3.Content, component func(kind, name string)) {
	for _, mt := range SortedKeys(c) {
		if m := c[mt]; m != nil {
			for _, k := range SortedKeys(m.Examples) {
				if name, ok := strings.CutPrefix(m.Examples[k].Ref, "#/components/examples/"); ok {
					component("examples", name)
				}
			}
		}
	}
}

func content(where string, c openapi3.Content, fn func(string, *openapi3.SchemaRef)) {
	for _, mt := range SortedKeys(c) {
		if m := c[mt]; m != nil && m.Schema != nil {
			fn(where+"/content/"+Escape(mt)+"/schema", m.Schema)
		}
	}
}

// Escape escapes a JSON pointer segment (RFC 6901).
func Escape(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// GoName turns a schema name or wire value ("response.output_text.delta",
// "web_search_call") into an identifier part the way ogen does for
// separators: ResponseOutputTextDelta, WebSearchCall.
func GoName(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			if up {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			up = false
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}
