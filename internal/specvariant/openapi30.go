// Package specvariant builds variants of the pinned upstream specs for tests
// that prove a spec update regenerates without hand edits. It is test
// support: only tests import it.
package specvariant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-faster/yaml"
)

// OpenAPI30 renders an OpenAPI 3.1 description as OpenAPI 3.0.3, the way the
// 3.0 writers of the vendors' earlier releases wrote it:
//
//   - type arrays [T, "null"] become type: T with nullable: true;
//   - anyOf/oneOf [X, {type: "null"}] becomes X with nullable: true, and for a
//     $ref X, allOf: [$ref] with nullable: true;
//   - const becomes a one-value enum;
//   - numeric exclusiveMinimum/exclusiveMaximum become minimum/maximum with
//     the boolean modifier;
//   - examples becomes example (the first one);
//   - $recursiveRef: "#" becomes a $ref to the enclosing component schema;
//   - boolean schemas become {} (true) and {not: {}} (false);
//   - keywords 3.0 does not have ($schema, $id, $defs, $comment, propertyNames,
//     contentMediaType, patternProperties, if/then/else, …) and the document's
//     webhooks, jsonSchemaDialect, info.summary and license.identifier are
//     dropped.
//
// Discriminators keep their mapping as in the source (OpenAPI30WithoutMappings
// removes them). The whole document is rendered, as JSON (a YAML reader and
// kin-openapi's loader read it), with object keys sorted: the same input
// gives the same bytes.
func OpenAPI30(spec []byte) ([]byte, error) {
	out, _, err := render30(spec, false)
	return out, err
}

// OpenAPI30WithoutMappings is OpenAPI30 with every discriminator's mapping
// removed, as OpenAI's 3.0-era descriptions wrote their discriminators.
func OpenAPI30WithoutMappings(spec []byte) ([]byte, error) {
	out, _, err := render30(spec, true)
	return out, err
}

// ErrNotOpenAPI31 is returned for an input that is not an OpenAPI 3.1
// description.
var ErrNotOpenAPI31 = errors.New("specvariant: not an OpenAPI 3.1 description")

// Counts says how often each rewrite of the rendering applied, keyed by a
// short name ("type-array", "null-variant-ref", …).
type Counts map[string]int

func render30(spec []byte, dropMappings bool) ([]byte, Counts, error) {
	var raw any
	if err := yaml.Unmarshal(spec, &raw); err != nil {
		return nil, nil, fmt.Errorf("specvariant: %w", err)
	}
	root, ok := stringKeys(raw).(map[string]any)
	if !ok {
		return nil, nil, ErrNotOpenAPI31
	}
	if v, _ := root["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		return nil, nil, fmt.Errorf("%w: openapi: %q", ErrNotOpenAPI31, v)
	}
	r := &renderer{dropMappings: dropMappings, counts: Counts{}}
	r.document(root)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(root); err != nil {
		return nil, nil, fmt.Errorf("specvariant: %w", err)
	}
	return buf.Bytes(), r.counts, nil
}

// stringKeys turns the YAML decoder's map[any]any (keys such as an unquoted
// 200) into map[string]any, recursively.
func stringKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = stringKeys(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = stringKeys(e)
		}
		return v
	}
	return v
}

type renderer struct {
	dropMappings bool
	counts       Counts
	component    string // the component schema being rendered
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (r *renderer) document(root map[string]any) {
	root["openapi"] = "3.0.3"
	for _, k := range []string{"webhooks", "jsonSchemaDialect"} {
		if _, ok := root[k]; ok {
			delete(root, k)
			r.counts["dropped "+k]++
		}
	}
	if info, ok := root["info"].(map[string]any); ok {
		r.drop(info, "summary")
		if lic, ok := info["license"].(map[string]any); ok {
			r.drop(lic, "identifier")
		}
	}
	if paths, ok := root["paths"].(map[string]any); ok {
		for _, p := range sortedKeys(paths) {
			item, ok := paths[p].(map[string]any)
			if !ok {
				continue
			}
			r.parameters(item["parameters"])
			for _, m := range methods {
				if op, ok := item[m].(map[string]any); ok {
					r.operation(op)
				}
			}
		}
	}
	comps, ok := root["components"].(map[string]any)
	if !ok {
		return
	}
	r.drop(comps, "pathItems")
	if schemas, ok := comps["schemas"].(map[string]any); ok {
		for _, name := range sortedKeys(schemas) {
			r.component = name
			schemas[name] = r.schema(schemas[name])
		}
		r.component = ""
	}
	for _, p := range mapValues(comps["parameters"]) {
		r.parameter(p)
	}
	for _, b := range mapValues(comps["requestBodies"]) {
		r.content(b["content"])
	}
	for _, resp := range mapValues(comps["responses"]) {
		r.response(resp)
	}
	for _, h := range mapValues(comps["headers"]) {
		r.parameter(h)
	}
}

func (r *renderer) operation(op map[string]any) {
	r.parameters(op["parameters"])
	if b, ok := op["requestBody"].(map[string]any); ok {
		r.content(b["content"])
	}
	for _, resp := range mapValues(op["responses"]) {
		r.response(resp)
	}
}

func (r *renderer) parameters(v any) {
	list, _ := v.([]any)
	for _, p := range list {
		if p, ok := p.(map[string]any); ok {
			r.parameter(p)
		}
	}
}

// parameter renders a parameter or a header: a schema or a content map.
func (r *renderer) parameter(p map[string]any) {
	if s, ok := p["schema"]; ok {
		p["schema"] = r.schema(s)
	}
	r.content(p["content"])
}

func (r *renderer) response(resp map[string]any) {
	r.content(resp["content"])
	for _, h := range mapValues(resp["headers"]) {
		r.parameter(h)
	}
}

func (r *renderer) content(v any) {
	for _, mt := range mapValues(v) {
		if s, ok := mt["schema"]; ok {
			mt["schema"] = r.schema(s)
		}
	}
}

// dropped lists the schema keywords OpenAPI 3.0 does not have, beyond those
// rewritten into a 3.0 form.
var dropped = []string{
	"$schema", "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$comment", "$defs",
	"contentMediaType", "contentEncoding", "contentSchema", "propertyNames", "prefixItems", "contains",
	"minContains", "maxContains", "patternProperties", "dependentSchemas", "dependentRequired",
	"unevaluatedItems", "unevaluatedProperties", "if", "then", "else",
}

// schema renders one schema and returns what replaces it.
func (r *renderer) schema(v any) any {
	switch v := v.(type) {
	case bool:
		r.counts["boolean schema"]++
		if v {
			return map[string]any{}
		}
		return map[string]any{"not": map[string]any{}}
	case map[string]any:
		r.object(v)
		return v
	}
	return v
}

func (r *renderer) object(m map[string]any) {
	if ref, ok := m["$recursiveRef"].(string); ok {
		delete(m, "$recursiveRef")
		if ref == "#" && r.component != "" {
			m["$ref"] = "#/components/schemas/" + escape(r.component)
			r.counts["recursive ref"]++
		}
	}
	for _, k := range dropped {
		r.drop(m, k)
	}
	if r.nullUnion(m, "anyOf") || r.nullUnion(m, "oneOf") {
		r.object(m) // the variant's keywords are the schema's own now
		return
	}
	r.typeArray(m)
	if c, ok := m["const"]; ok {
		delete(m, "const")
		m["enum"] = []any{c}
		if _, ok := m["type"]; !ok {
			if t := jsonType(c); t != "" {
				m["type"] = t
			}
		}
		r.counts["const"]++
	}
	r.exclusive(m, "exclusiveMinimum", "minimum", func(a, b float64) bool { return a > b })
	r.exclusive(m, "exclusiveMaximum", "maximum", func(a, b float64) bool { return a < b })
	if ex, ok := m["examples"].([]any); ok {
		delete(m, "examples")
		if _, has := m["example"]; !has && len(ex) > 0 {
			m["example"] = ex[0]
		}
		r.counts["examples"]++
	}
	if d, ok := m["discriminator"].(map[string]any); ok && r.dropMappings {
		if _, ok := d["mapping"]; ok {
			delete(d, "mapping")
			r.counts["discriminator mapping"]++
		}
	}
	// Children.
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := m[kw].([]any); ok {
			for i := range list {
				list[i] = r.schema(list[i])
			}
		}
	}
	for _, kw := range []string{"not", "items", "additionalProperties"} {
		if c, ok := m[kw]; ok {
			if _, isBool := c.(bool); isBool && kw == "additionalProperties" {
				continue // a boolean additionalProperties is 3.0 too
			}
			m[kw] = r.schema(c)
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			props[k] = r.schema(props[k])
		}
	}
}

// nullUnion removes the null variants of an anyOf/oneOf: one variant left is
// the schema itself (a $ref one wrapped in allOf), several stay a union; the
// schema becomes nullable. It reports whether it merged an inline variant
// into m, which must then be rendered again.
func (r *renderer) nullUnion(m map[string]any, kw string) bool {
	list, ok := m[kw].([]any)
	if !ok {
		return false
	}
	var rest []any
	for _, v := range list {
		if !isNull(v) {
			rest = append(rest, v)
		}
	}
	if len(rest) == len(list) {
		return false
	}
	m["nullable"] = true
	switch {
	case len(rest) == 0:
		delete(m, kw)
		m["enum"] = []any{nil}
		r.counts["null-only union"]++
	case len(rest) > 1:
		m[kw] = rest
		r.counts["null variant of a union"]++
	default:
		delete(m, kw)
		x, _ := rest[0].(map[string]any)
		if _, isRef := x["$ref"]; isRef || x == nil {
			m["allOf"] = append(slices.Clone(asList(m["allOf"])), rest[0])
			r.counts["null variant beside a $ref"]++
			return false
		}
		// Inline: the variant's keywords become the schema's own; the
		// schema's annotations (description, title, default) win.
		for k, v := range x {
			if _, has := m[k]; has && (k == "description" || k == "title" || k == "default" || strings.HasPrefix(k, "x-")) {
				continue
			}
			m[k] = v
		}
		r.counts["null variant beside an inline schema"]++
		return true
	}
	return false
}

func (r *renderer) typeArray(m map[string]any) {
	switch t := m["type"].(type) {
	case string:
		if t == "null" {
			delete(m, "type")
			m["nullable"] = true
			m["enum"] = []any{nil}
			r.counts["null type"]++
		}
	case []any:
		var rest []any
		for _, e := range t {
			if e == "null" {
				m["nullable"] = true
			} else {
				rest = append(rest, e)
			}
		}
		r.counts["type array"]++
		switch len(rest) {
		case 0:
			delete(m, "type")
			m["enum"] = []any{nil}
		case 1:
			m["type"] = rest[0]
		default:
			// Several types: one variant per type, the other keywords
			// beside them (each applies only to its own type).
			delete(m, "type")
			variants := make([]any, len(rest))
			for i, e := range rest {
				variants[i] = map[string]any{"type": e}
			}
			m["anyOf"] = variants
			r.counts["multi-type array"]++
		}
	}
}

func (r *renderer) exclusive(m map[string]any, kw, bound string, stricter func(a, b float64) bool) {
	v, ok := number(m[kw])
	if !ok {
		return // absent, or already the 3.0 boolean
	}
	if b, has := number(m[bound]); !has || stricter(v, b) || v == b {
		m[bound] = m[kw]
		m[kw] = true
	} else {
		delete(m, kw) // the inclusive bound is the stricter one
	}
	r.counts["numeric "+kw]++
}

func (r *renderer) drop(m map[string]any, k string) {
	if _, ok := m[k]; ok {
		delete(m, k)
		r.counts["dropped "+k]++
	}
}

// isNull reports whether v is a {type: "null"} variant (annotations aside).
func isNull(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		if t != "null" {
			return false
		}
	case []any:
		if len(t) != 1 || t[0] != "null" {
			return false
		}
	default:
		return false
	}
	for k := range m {
		if k != "type" && k != "description" && k != "title" && !strings.HasPrefix(k, "x-") {
			return false
		}
	}
	return true
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int64, uint64:
		return "integer"
	case float64:
		return "number"
	}
	return ""
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func asList(v any) []any { l, _ := v.([]any); return l }

// mapValues returns the object values of an object, in key order.
func mapValues(v any) []map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []map[string]any
	for _, k := range sortedKeys(m) {
		if e, ok := m[k].(map[string]any); ok {
			out = append(out, e)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escape escapes a name for a JSON pointer segment.
func escape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }
