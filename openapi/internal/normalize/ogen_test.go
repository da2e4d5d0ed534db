package normalize_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/normalize"
	"github.com/transponder-dev/transponder/openapi/internal/oasgen"
	"github.com/transponder-dev/transponder/openapi/internal/tables"
)

// opDoc is a document with POST /responses taking Req and streaming events.
func opDoc(req, event, schemas string) string {
	return `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
		"paths": {"/responses": {"post": {"operationId": "create",
			"requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Req"}}}},
			"responses": {"200": {"description": "ok", "content": {
				"application/json": {"schema": {"$ref": "#/components/schemas/Req"}},
				"text/event-stream": {"schema": ` + event + `}}}}}}},
		"components": {"schemas": {"Req": {"type": "object", "properties": ` + req + `}` + schemas + `}}}`
}

const (
	event   = `{"type": "object", "properties": {"data": {"$ref": "#/components/schemas/Created"}}}`
	created = `, "Created": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["response.created"]}, "n": {"type": "integer", "maximum": 9}}}`
	delta   = `, "Delta": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["response.output_text.delta"]}, "delta": {"type": "string"}}}`
)

func message(role string) string {
	return `, "` + role + `Message": {"type": "object", "required": ["role", "content"], "properties": {"role": {"type": "string", "const": "` + role + `"},
		"content": {"type": "string"}, "name": {"type": "string"}}}`
}

// pipeline runs the normalizer with rules, ogen, and the shape tables on src.
func pipeline(src string, rules []normalize.Rule) (normalize.Report, error) {
	l := openapi3.NewLoader()
	doc, err := l.LoadFromData([]byte(src))
	if err != nil {
		return normalize.Report{}, err
	}
	rep, err := normalize.Normalize(doc, rules)
	if err != nil {
		return rep, err
	}
	spec, err := doc.MarshalJSON()
	if err != nil {
		return rep, err
	}
	if _, err := oasgen.Generate(spec, "api", nil); err != nil {
		return rep, err
	}
	if _, err := tables.Generate(doc, tables.Options{Var: "T", Name: "t", Source: "t.yaml"}); err != nil {
		return rep, fmt.Errorf("tables: %w", err)
	}
	return rep, nil
}

// Each late-2025 OpenRouter construct fails in ogen or the shape tables
// without its rule (as issue 18 reports), and generates with it.
func TestOpenRouter2025ConstructsGenerate(t *testing.T) {
	for _, tc := range []struct {
		rule, name, doc, without string
	}{{
		rule: "scalar-allof", name: "a typed allOf of a referenced enum",
		doc: opDoc(`{"sort": {"type": "string", "allOf": [{"$ref": "#/components/schemas/ProviderSort"}], "description": "how"}}`, event,
			created+`, "ProviderSort": {"type": "string", "enum": ["price", "latency"]}`),
		without: "an allOf part that is not an object",
	}, {
		rule: "scalar-allof", name: "an enum and a nullable string as allOf parts",
		doc:     opDoc(`{"service_tier": {"allOf": [{"type": "string", "enum": ["auto", "flex"]}, {"type": ["string", "null"], "description": "tier"}]}}`, event, created),
		without: "an allOf part that is not an object",
	}, {
		rule: "inline-events", name: "the event union inline in the stream response",
		doc: opDoc(`{"a": {"type": "string"}}`, `{"type": "object", "properties": {"data": {"oneOf": [{"$ref": "#/components/schemas/Created"}, {"$ref": "#/components/schemas/Delta"}]}}}`,
			created+delta),
		without: "an inline schema, not a component",
	}, {
		rule: "infer-discriminator", name: "messages that share fields, role a const",
		doc: opDoc(`{"messages": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/systemMessage"}, {"$ref": "#/components/schemas/userMessage"},
			{"$ref": "#/components/schemas/developerMessage"}, {"$ref": "#/components/schemas/toolMessage"}]}}}`, event,
			created+message("system")+message("user")+message("developer")+message("tool")),
		without: "can't infer fields discriminator",
	}, {
		rule: "same-kind-variants", name: "content with two arrays of one item schema",
		doc: opDoc(`{"content": {"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Created"}}, {"type": "string"},
			{"type": "array", "items": {"$ref": "#/components/schemas/Created"}}]}}`, event, created),
		without: "sum types with same names",
	}} {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			var without []normalize.Rule
			for _, r := range normalize.Rules() {
				if r.Name != tc.rule {
					without = append(without, r)
				}
			}
			if _, err := pipeline(tc.doc, without); err == nil || !strings.Contains(err.Error(), tc.without) {
				t.Errorf("without %s: want an error with %q, got %v", tc.rule, tc.without, err)
			}
			rep, err := pipeline(tc.doc, normalize.Rules())
			if err != nil {
				t.Fatalf("with %s: %v", tc.rule, err)
			}
			for _, rr := range rep.Rules {
				if rr.Name == tc.rule && rr.Stale() {
					t.Errorf("%s recorded no hit", tc.rule)
				}
			}
		})
	}
}
