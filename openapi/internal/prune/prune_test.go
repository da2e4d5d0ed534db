package prune

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// petstore has two paths. GET /pets reaches, through its parameters and
// response:
//
//	Limit (parameter) → PageSize                       parameter schema
//	Trace (path-level parameter)
//	PetList → Pet                                      properties, items
//	Pet → Base, Toy                                    allOf
//	Base → Kind                                        properties
//	Toy → Ball, Stick                                  oneOf
//	Toy → Bone                                         discriminator mapping only
//	Bone → Marrow                                      properties
//
// POST /pets adds NewPet; GET /owners adds Owner. Unused, Orphan and the
// Unused parameter are reached by nothing.
const petstore = `
openapi: 3.1.0
info: {title: pets, version: "1"}
tags:
  - name: pets
  - name: owners
paths:
  /pets:
    parameters:
      - $ref: '#/components/parameters/Trace'
    get:
      tags: [pets]
      parameters:
        - $ref: '#/components/parameters/Limit'
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/PetList'}
    post:
      tags: [pets]
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/NewPet'}
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
  /owners:
    get:
      tags: [owners]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Owner'}
components:
  parameters:
    Limit: {name: limit, in: query, schema: {$ref: '#/components/schemas/PageSize'}}
    Trace: {name: X-Trace, in: header, schema: {type: string}}
    Unused: {name: unused, in: query, schema: {$ref: '#/components/schemas/Orphan'}}
  schemas:
    PageSize: {type: integer}
    PetList:
      type: object
      properties:
        items:
          type: array
          items: {$ref: '#/components/schemas/Pet'}
    Pet:
      allOf:
        - $ref: '#/components/schemas/Base'
        - type: object
          properties:
            toy: {$ref: '#/components/schemas/Toy'}
    Base:
      type: object
      properties:
        kind: {$ref: '#/components/schemas/Kind'}
    Kind: {type: string, enum: [cat, dog]}
    Toy:
      oneOf:
        - $ref: '#/components/schemas/Ball'
        - $ref: '#/components/schemas/Stick'
      discriminator:
        propertyName: type
        mapping:
          ball: '#/components/schemas/Ball'
          stick: '#/components/schemas/Stick'
          bone: '#/components/schemas/Bone'
    Ball: {type: object, properties: {type: {const: ball}}}
    Stick: {type: object, properties: {type: {const: stick}}}
    Bone:
      type: object
      properties:
        type: {const: bone}
        marrow: {$ref: '#/components/schemas/Marrow'}
    Marrow: {type: string}
    NewPet: {type: object, properties: {name: {type: string}}}
    Owner:
      type: object
      properties:
        pets: {type: array, items: {$ref: '#/components/schemas/Pet'}}
    Unused:
      type: object
      properties:
        next: {$ref: '#/components/schemas/Unused'}
    Orphan: {type: string}
`

// petstoreSchemas is the number of component schemas in petstore.
const petstoreSchemas = 14

func load(t *testing.T) *openapi3.T {
	t.Helper()
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = false
	doc, err := l.LoadFromData([]byte(petstore))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if n := len(doc.Components.Schemas); n != petstoreSchemas {
		t.Fatalf("petstore has %d schemas, the test expects %d", n, petstoreSchemas)
	}
	return doc
}

func prune(t *testing.T, keep ...string) (*openapi3.T, Result) {
	t.Helper()
	doc := load(t)
	res, err := Prune(doc, keep)
	if err != nil {
		t.Fatalf("Prune(%v): %v", keep, err)
	}
	return doc, res
}

func marshal(t *testing.T, doc *openapi3.T) []byte {
	t.Helper()
	raw, err := doc.MarshalJSON()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return raw
}

// operations lists the operations left in doc as "METHOD /path".
func operations(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestPruneKeepsOperationsAndClosure(t *testing.T) {
	tests := []struct {
		name       string
		keep       []string
		ops        []string
		schemas    []string
		parameters []string
		tags       []string
	}{
		{
			name: "one operation",
			keep: []string{"GET /pets"},
			ops:  []string{"GET /pets"},
			schemas: []string{
				"Ball", "Base", "Bone", "Kind", "Marrow", "PageSize", "Pet", "PetList", "Stick", "Toy",
			},
			parameters: []string{"Limit", "Trace"},
			tags:       []string{"pets"},
		},
		{
			name: "one operation per path",
			keep: []string{"GET /owners", "GET /pets"},
			ops:  []string{"GET /owners", "GET /pets"},
			schemas: []string{
				"Ball", "Base", "Bone", "Kind", "Marrow", "Owner", "PageSize", "Pet", "PetList", "Stick", "Toy",
			},
			parameters: []string{"Limit", "Trace"},
			tags:       []string{"pets", "owners"},
		},
		{
			name: "an operation without component parameters",
			keep: []string{"POST /pets"},
			ops:  []string{"POST /pets"},
			schemas: []string{
				"Ball", "Base", "Bone", "Kind", "Marrow", "NewPet", "Pet", "Stick", "Toy",
			},
			parameters: []string{"Trace"}, // declared on the path item
			tags:       []string{"pets"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, res := prune(t, tc.keep...)

			if !slices.Equal(res.Operations, tc.ops) {
				t.Errorf("Result.Operations = %v, want %v", res.Operations, tc.ops)
			}
			if got := operations(doc); !slices.Equal(got, tc.ops) {
				t.Errorf("document operations = %v, want %v", got, tc.ops)
			}
			if !slices.Equal(res.Schemas, tc.schemas) {
				t.Errorf("Result.Schemas = %v, want %v", res.Schemas, tc.schemas)
			}
			if got := keys(doc.Components.Schemas); !slices.Equal(got, tc.schemas) {
				t.Errorf("components.schemas = %v, want %v", got, tc.schemas)
			}
			if res.Before != petstoreSchemas {
				t.Errorf("Result.Before = %d, want %d", res.Before, petstoreSchemas)
			}
			if got := keys(doc.Components.Parameters); !slices.Equal(got, tc.parameters) {
				t.Errorf("components.parameters = %v, want %v", got, tc.parameters)
			}
			var tags []string
			for _, tag := range doc.Tags {
				tags = append(tags, tag.Name)
			}
			if !slices.Equal(tags, tc.tags) {
				t.Errorf("tags = %v, want %v", tags, tc.tags)
			}
		})
	}
}

func TestPruneDropsUnreferenced(t *testing.T) {
	doc, _ := prune(t, "GET /pets")
	for _, name := range []string{"NewPet", "Owner", "Unused", "Orphan"} {
		if _, ok := doc.Components.Schemas[name]; ok {
			t.Errorf("schema %s kept, want it dropped", name)
		}
	}
	if _, ok := doc.Components.Parameters["Unused"]; ok {
		t.Errorf("parameter Unused kept, want it dropped")
	}
	if doc.Paths.Value("/owners") != nil {
		t.Errorf("path /owners kept, want it dropped")
	}
	if doc.Paths.Value("/pets").Post != nil {
		t.Errorf("POST /pets kept, want it dropped")
	}
}

func TestPruneMappingOnlyTarget(t *testing.T) {
	// Bone is named only by Toy's discriminator mapping: no $ref reaches it.
	raw := marshal(t, load(t))
	if n := bytes.Count(raw, []byte(`"#/components/schemas/Bone"`)); n != 1 {
		t.Fatalf("the fixture must name Bone once (in the mapping), found %d", n)
	}
	doc, _ := prune(t, "GET /pets")
	for _, name := range []string{"Bone", "Marrow"} {
		if _, ok := doc.Components.Schemas[name]; !ok {
			t.Errorf("schema %s dropped, want it kept (reached through the mapping)", name)
		}
	}
}

func TestPruneErrors(t *testing.T) {
	tests := []struct {
		name string
		keep []string
		want []string // substrings of the error
	}{
		{
			name: "missing operations are named",
			keep: []string{"GET /pets", "DELETE /pets", "GET /nowhere"},
			want: []string{"DELETE /pets", "GET /nowhere"},
		},
		{
			name: "lower-case method",
			keep: []string{"get /pets"},
			want: []string{`"get /pets"`, "METHOD /path"},
		},
		{
			name: "no path",
			keep: []string{"GET"},
			want: []string{`"GET"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prune(load(t), tc.keep)
			if err == nil {
				t.Fatalf("Prune(%v): want an error", tc.keep)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), `"GET /pets"`) || strings.Contains(err.Error(), "GET /pets,") {
				t.Errorf("error %q names an operation that exists", err)
			}
		})
	}
}

func TestPruneDeterministic(t *testing.T) {
	keep := []string{"GET /pets", "GET /owners"}
	doc1, res1 := prune(t, keep...)
	doc2, res2 := prune(t, keep...)
	a, b := marshal(t, doc1), marshal(t, doc2)
	if !bytes.Equal(a, b) {
		t.Errorf("two prunes of the same document differ:\n%s\n%s", a, b)
	}
	if again := marshal(t, doc1); !bytes.Equal(a, again) {
		t.Errorf("marshalling twice differs:\n%s\n%s", a, again)
	}
	if !reflect.DeepEqual(res1, res2) {
		t.Errorf("results differ: %+v vs %+v", res1, res2)
	}
	// The order of the keep list does not matter either.
	doc3, res3 := prune(t, "GET /owners", "GET /pets")
	if c := marshal(t, doc3); !bytes.Equal(a, c) {
		t.Errorf("keep order changes the output:\n%s\n%s", a, c)
	}
	if !reflect.DeepEqual(res1, res3) {
		t.Errorf("keep order changes the result: %+v vs %+v", res1, res3)
	}
}

// danglingRefs walks a marshalled document for every "$ref" and every
// discriminator mapping value, and returns how many it found and those that do
// not name a component present in the document.
func danglingRefs(t *testing.T, raw []byte) (refs int, dangling []string) {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	components, _ := v.(map[string]any)["components"].(map[string]any)
	check := func(where, ref string) {
		refs++
		rest, ok := strings.CutPrefix(ref, "#/components/")
		kind, name, ok2 := strings.Cut(rest, "/")
		section, _ := components[kind].(map[string]any)
		if _, found := section[name]; !ok || !ok2 || !found {
			dangling = append(dangling, where+": "+ref)
		}
	}
	var visit func(where string, x any)
	visit = func(where string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, k := range keys(x) {
				switch k {
				case "$ref":
					s, _ := x[k].(string)
					check(where, s)
				case "discriminator":
					d, _ := x[k].(map[string]any)
					m, _ := d["mapping"].(map[string]any)
					for _, mk := range keys(m) {
						s, _ := m[mk].(string)
						check(where+"/discriminator/mapping/"+mk, s)
					}
				default:
					visit(where+"/"+k, x[k])
				}
			}
		case []any:
			for _, e := range x {
				visit(where+"/[]", e)
			}
		}
	}
	visit("", v)
	return refs, dangling
}

func TestDanglingRefsChecker(t *testing.T) {
	raw := []byte(`{"paths": {"/x": {"get": {"responses": {"200": {"content": {"application/json": {
			"schema": {"$ref": "#/components/schemas/Gone"}}}}}}}},
		"components": {"schemas": {
			"U": {"oneOf": [{"$ref": "#/components/schemas/A"}],
				"discriminator": {"propertyName": "type", "mapping": {"a": "#/components/schemas/A", "b": "#/components/schemas/B"}}},
			"A": {"type": "object"}}}}`)
	refs, dangling := danglingRefs(t, raw)
	want := []string{
		"/components/schemas/U/discriminator/mapping/b: #/components/schemas/B",
		"/paths//x/get/responses/200/content/application/json/schema: #/components/schemas/Gone",
	}
	if refs != 4 || !slices.Equal(dangling, want) {
		t.Errorf("danglingRefs = %d, %v; want 4, %v", refs, dangling, want)
	}
}

func TestPruneNoDanglingRefs(t *testing.T) {
	for _, keep := range [][]string{
		{"GET /pets"},
		{"POST /pets"},
		{"GET /owners"},
		{"GET /owners", "GET /pets", "POST /pets"},
	} {
		t.Run(strings.Join(keep, ","), func(t *testing.T) {
			doc, _ := prune(t, keep...)
			raw := marshal(t, doc)
			refs, dangling := danglingRefs(t, raw)
			if refs == 0 {
				t.Fatal("found no references: the walk is broken")
			}
			for _, d := range dangling {
				t.Errorf("dangling reference %s", d)
			}
			// The pruned document loads on its own (the loader resolves every ref).
			l := openapi3.NewLoader()
			l.IsExternalRefsAllowed = false
			if _, err := l.LoadFromData(raw); err != nil {
				t.Errorf("reload: %v", err)
			}
		})
	}
}

// Regressions found in review: a spec without components, a discriminator
// mapping to a bare schema name, and component examples named by a kept
// operation.
func TestPruneEdgeCases(t *testing.T) {
	load := func(t *testing.T, src string) *openapi3.T {
		t.Helper()
		doc, err := openapi3.NewLoader().LoadFromData([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	t.Run("no components", func(t *testing.T) {
		doc := load(t, `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok"}}}}}}`)
		if _, err := Prune(doc, []string{"GET /x"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("bare mapping name", func(t *testing.T) {
		doc := load(t, `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
			"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/U"}}}}}}}},
			"components":{"schemas":{
				"U":{"oneOf":[{"$ref":"#/components/schemas/A"}],"discriminator":{"propertyName":"type","mapping":{"a":"A","b":"B"}}},
				"A":{"type":"object","properties":{"type":{"const":"a"}}},
				"B":{"type":"object","properties":{"type":{"const":"b"}}},
				"Unused":{"type":"string"}}}}`)
		res, err := Prune(doc, []string{"GET /x"})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"A", "B", "U"}; !slices.Equal(res.Schemas, want) {
			t.Errorf("kept %v, want %v", res.Schemas, want)
		}
	})
	t.Run("component examples", func(t *testing.T) {
		doc := load(t, `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
			"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{
				"schema":{"type":"string"},"examples":{"ok":{"$ref":"#/components/examples/Ok"}}}}}}}}},
			"components":{"examples":{"Ok":{"value":"x"},"Other":{"value":"y"}}}}`)
		if _, err := Prune(doc, []string{"GET /x"}); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc.Components.Examples["Ok"]; !ok || len(doc.Components.Examples) != 1 {
			t.Errorf("examples kept: %v", doc.Components.Examples)
		}
		data, err := doc.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
			t.Errorf("pruned document does not reload: %v", err)
		}
	})
}

// Regression: an alias component ({$ref: B}) kept A but not B.
func TestPruneFollowsAlias(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},
		"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}}},
		"components":{"schemas":{"A":{"$ref":"#/components/schemas/B"},"B":{"type":"object","properties":{"c":{"$ref":"#/components/schemas/C"}}},"C":{"type":"string"},"D":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Prune(doc, []string{"GET /x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A", "B", "C"}; !slices.Equal(res.Schemas, want) {
		t.Fatalf("kept %v, want %v", res.Schemas, want)
	}
	data, _ := doc.MarshalJSON()
	if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
		t.Errorf("pruned document does not reload: %v", err)
	}
}

// Examples named by a component response (not the operation itself) are kept.
func TestPruneComponentResponseExamples(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},
		"paths":{"/x":{"get":{"responses":{"200":{"$ref":"#/components/responses/Ok"}}}}},
		"components":{"responses":{"Ok":{"description":"ok","content":{"application/json":{"schema":{"type":"string"},
			"examples":{"a":{"$ref":"#/components/examples/A"}}}}}},
		"examples":{"A":{"value":"x"},"B":{"value":"y"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Prune(doc, []string{"GET /x"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Components.Examples["A"]; !ok || len(doc.Components.Examples) != 1 {
		t.Errorf("examples kept: %v", doc.Components.Examples)
	}
	data, _ := doc.MarshalJSON()
	if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
		t.Errorf("pruned document does not reload: %v", err)
	}
}
