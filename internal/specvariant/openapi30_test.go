package specvariant

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi"
)

const small31 = `openapi: 3.1.0
info: {title: t, version: "1", summary: s, license: {name: MIT, identifier: MIT}}
webhooks: {}
paths:
  /things:
    post:
      parameters:
        - {name: q, in: query, schema: {type: [string, "null"]}}
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Thing"}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Thing"}
components:
  schemas:
    Kind: {type: string, enum: [a, b]}
    Thing:
      type: object
      properties:
        name: {type: [string, "null"], examples: [x, y]}
        count: {type: integer, exclusiveMinimum: 0, exclusiveMaximum: 10, maximum: 5}
        kind:
          anyOf:
            - $ref: "#/components/schemas/Kind"
            - type: "null"
          description: the kind
        note:
          anyOf:
            - {type: string, maxLength: 3, description: inner}
            - {type: "null"}
          description: outer
        either:
          oneOf: [{type: string}, {type: integer}, {type: "null"}]
        tag: {type: string, const: thing}
        anyTag: {const: 1}
        meta: {type: object, propertyNames: {pattern: "^[a-z]+$"}, additionalProperties: {type: string}}
        filters:
          type: array
          items:
            oneOf:
              - $ref: "#/components/schemas/Kind"
              - $recursiveRef: "#"
        anything: true
      $recursiveAnchor: true
    Shape:
      oneOf:
        - $ref: "#/components/schemas/Thing"
      discriminator:
        propertyName: tag
        mapping: {thing: "#/components/schemas/Thing"}
`

const want30 = `{
 "openapi": "3.0.3",
 "info": {"title": "t", "version": "1", "license": {"name": "MIT"}},
 "paths": {"/things": {"post": {
  "parameters": [{"name": "q", "in": "query", "schema": {"type": "string", "nullable": true}}],
  "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
  "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}}},
 "components": {"schemas": {
  "Kind": {"type": "string", "enum": ["a", "b"]},
  "Thing": {"type": "object", "properties": {
   "name": {"type": "string", "nullable": true, "example": "x"},
   "count": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "maximum": 5},
   "kind": {"allOf": [{"$ref": "#/components/schemas/Kind"}], "nullable": true, "description": "the kind"},
   "note": {"type": "string", "maxLength": 3, "nullable": true, "description": "outer"},
   "either": {"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": true},
   "tag": {"type": "string", "enum": ["thing"]},
   "anyTag": {"type": "integer", "enum": [1]},
   "meta": {"type": "object", "additionalProperties": {"type": "string"}},
   "filters": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/Kind"}, {"$ref": "#/components/schemas/Thing"}]}},
   "anything": {}}},
  "Shape": {"oneOf": [{"$ref": "#/components/schemas/Thing"}], "discriminator": {"propertyName": "tag", "mapping": {"thing": "#/components/schemas/Thing"}}}}}
}`

func jsonEqual(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestOpenAPI30(t *testing.T) {
	got, err := OpenAPI30([]byte(small31))
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, got, want30)
	again, err := OpenAPI30([]byte(small31))
	if err != nil || !bytes.Equal(got, again) {
		t.Errorf("a second rendering differs (err %v)", err)
	}
	// A 3.0 loader reads it as 3.0 and finds nothing 3.1-only.
	doc, err := openapi3.NewLoader().LoadFromData(got)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI30() {
		t.Errorf("loaded as %s", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Errorf("validate: %v", err)
	}

	noMap, err := OpenAPI30WithoutMappings([]byte(small31))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Components struct {
			Schemas map[string]struct {
				Discriminator map[string]any `json:"discriminator"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(noMap, &m); err != nil {
		t.Fatal(err)
	}
	if d := m.Components.Schemas["Shape"].Discriminator; d["propertyName"] != "tag" || d["mapping"] != nil {
		t.Errorf("without mappings: discriminator %v", d)
	}
}

func TestOpenAPI30RefusesOtherVersions(t *testing.T) {
	for _, src := range []string{`openapi: 3.0.3`, `swagger: "2.0"`, `[1]`} {
		if _, err := OpenAPI30([]byte(src)); !errors.Is(err, ErrNotOpenAPI31) {
			t.Errorf("%s: err %v, want ErrNotOpenAPI31", src, err)
		}
	}
}

// versionErrors are kin-openapi's errors for a keyword of the other
// OpenAPI version.
var versionErrors = []any{
	new(*openapi3.TypeArrayFor31Plus), new(*openapi3.ConstFieldFor31Plus), new(*openapi3.ExamplesFieldFor31Plus),
	new(*openapi3.ExclusiveBoundNumberFor31Plus), new(*openapi3.BooleanSchemaFor31Plus), new(*openapi3.PropertyNamesFieldFor31Plus),
	new(*openapi3.DefsFieldFor31Plus), new(*openapi3.SchemaFieldFor31Plus), new(*openapi3.IDFieldFor31Plus),
	new(*openapi3.ContentMediaTypeFieldFor31Plus), new(*openapi3.PatternPropertiesFieldFor31Plus), new(*openapi3.PrefixItemsFieldFor31Plus),
	new(*openapi3.WebhooksFieldFor31Plus), new(*openapi3.InfoSummaryFieldFor31Plus), new(*openapi3.LicenseIdentifierFieldFor31Plus),
	new(*openapi3.IfFieldFor31Plus), new(*openapi3.UnevaluatedPropertiesFieldFor31Plus), new(*openapi3.CommentFieldFor31Plus),
	new(*openapi3.ExclusiveBoundBooleanBefore31),
}

// pinnedSpec returns a pinned spec (openai, openrouter) and its manifest
// entry; without the specs it skips, unless on CI.
func pinnedSpec(t *testing.T, name string) (openapi.Spec, []byte) {
	t.Helper()
	dir, err := openapi.SpecsDir(filepath.Join("..", ".."))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	m, err := openapi.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	s, ok := m.Lookup(name)
	if !ok {
		t.Fatalf("no %s spec in the manifest", name)
	}
	data, err := s.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, data
}

// The pinned OpenAI spec's rendering loads as OpenAPI 3.0 and validates
// without an error for a keyword of 3.1 (the spec's own mistakes, such as
// misspelled keywords and duplicate required entries, stay).
func TestPinnedSpecOpenAI30Validates(t *testing.T) {
	_, data := pinnedSpec(t, "openai")
	out, err := OpenAPI30(data)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(out)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI30() {
		t.Fatalf("loaded as %s", doc.OpenAPI)
	}
	err = doc.Validate(context.Background(), openapi3.EnableMultiError(), openapi3.DisableExamplesValidation())
	var errs openapi3.MultiError
	if err != nil && !errors.As(err, &errs) {
		t.Fatal(err)
	}
	for _, e := range errs {
		for _, target := range versionErrors {
			if errors.As(e, target) {
				t.Errorf("a keyword of the other version: %v", e)
			}
		}
	}
}
