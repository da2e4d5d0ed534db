package normalize

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Helpers

// schemasDoc wraps component schemas (a JSON object) into a minimal OpenAPI
// 3.1 document without operations.
func schemasDoc(schemas string) string {
	return `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
		"components": {"schemas": ` + schemas + `}}`
}

func load(t *testing.T, src string) *openapi3.T {
	t.Helper()
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = false
	doc, err := l.LoadFromData([]byte(src))
	if err != nil {
		t.Fatalf("load: %v\n%s", err, src)
	}
	return doc
}

func ruleByName(t *testing.T, name string) Rule {
	t.Helper()
	for _, r := range Rules() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no rule %q in Rules()", name)
	return Rule{}
}

// applyRule runs only the named rule on doc and returns its hits.
func applyRule(t *testing.T, doc *openapi3.T, name string) []Hit {
	t.Helper()
	rep, err := Normalize(doc, []Rule{ruleByName(t, name)})
	if err != nil {
		t.Fatalf("Normalize: %v", err)
	}
	if len(rep.Rules) != 1 || rep.Rules[0].Name != name {
		t.Fatalf("report: want one entry for %s, got %+v", name, rep.Rules)
	}
	for _, h := range rep.Rules[0].Hits {
		if h.Rule != name {
			t.Errorf("hit %+v: Rule = %q, want %q", h, h.Rule, name)
		}
	}
	return rep.Rules[0].Hits
}

// generic returns the document as plain JSON values (maps, slices, …).
func generic(t *testing.T, doc *openapi3.T) any {
	t.Helper()
	raw, err := doc.MarshalJSON()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return v
}

// lookup resolves a JSON pointer (RFC 6901) in a plain JSON value.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func indent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// assertAt checks that the value at ptr in the document equals want (JSON),
// compared semantically.
func assertAt(t *testing.T, doc any, ptr, want string) {
	t.Helper()
	got, ok := lookup(doc, ptr)
	if !ok {
		t.Errorf("%s: missing", ptr)
		return
	}
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expected JSON: %v", ptr, err)
	}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("%s:\n got %s\nwant %s", ptr, indent(got), indent(w))
	}
}

// wantHit is an expected hit. Detail, when set, must be a substring of the
// hit's detail.
type wantHit struct {
	Schema  string
	Pointer string
	Detail  string
}

func assertHits(t *testing.T, got []Hit, want []wantHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d hits, want %d:\n%s", len(got), len(want), indent(got))
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Schema != w.Schema || g.Pointer != w.Pointer || !strings.Contains(g.Detail, w.Detail) {
			t.Errorf("hit %d:\n got {Schema:%q Pointer:%q Detail:%q}\nwant {Schema:%q Pointer:%q Detail:~%q}",
				i, g.Schema, g.Pointer, g.Detail, w.Schema, w.Pointer, w.Detail)
		}
	}
}

// ruleCase is a document a rule must rewrite.
type ruleCase struct {
	name   string
	doc    string
	hits   []wantHit
	want   map[string]string // JSON pointer → expected JSON value after the rule
	absent []string          // JSON pointers that must not exist after the rule
}

func runRuleCases(t *testing.T, rule string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := load(t, tc.doc)
			hits := applyRule(t, doc, rule)
			assertHits(t, hits, tc.hits)
			out := generic(t, doc)
			for _, ptr := range slices.Sorted(func(yield func(string) bool) {
				for k := range tc.want {
					if !yield(k) {
						return
					}
				}
			}) {
				assertAt(t, out, ptr, tc.want[ptr])
			}
			for _, ptr := range tc.absent {
				if v, ok := lookup(out, ptr); ok {
					t.Errorf("%s: want absent, got %s", ptr, indent(v))
				}
			}
		})
	}
}

// runUntouched checks that the rule neither records a hit nor changes any of
// the documents.
func runUntouched(t *testing.T, rule string, docs map[string]string) {
	t.Helper()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range docs {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Run("untouched/"+name, func(t *testing.T) {
			doc := load(t, docs[name])
			before := generic(t, doc)
			if hits := applyRule(t, doc, rule); len(hits) != 0 {
				t.Errorf("want no hits, got %s", indent(hits))
			}
			if after := generic(t, doc); !reflect.DeepEqual(before, after) {
				t.Errorf("document changed:\nbefore %s\nafter  %s", indent(before), indent(after))
			}
		})
	}
}

// ---------------------------------------------------------------------------
// The rule list and the report

func TestEveryRuleHasNameAndReason(t *testing.T) {
	want := []string{
		"sse-as-json", "inline-events", "inline-bodies", "object-type", "recursive-ref", "ref-siblings", "ref-allof", "scalar-allof", "nullable-keyword", "int-bounds", "allof-override",
		"additional-properties", "free-form", "infer-discriminator", "same-kind-variants", "shared-values", "string-union", "object-union",
		"nullable-component", "inline-names", "optional-const", "relax-required", "spec-validation", "required-arrays", "optional-nullable", "defaults-aside", "unknown-fields",
	}
	var names []string
	seen := map[string]bool{}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for i, r := range Rules() {
		names = append(names, r.Name)
		if !kebab.MatchString(r.Name) {
			t.Errorf("rule %d: name %q is not kebab-case", i, r.Name)
		}
		if seen[r.Name] {
			t.Errorf("rule %d: duplicate name %q", i, r.Name)
		}
		seen[r.Name] = true
		if strings.TrimSpace(r.Reason) == "" {
			t.Errorf("rule %s: empty reason", r.Name)
		}
		if strings.ContainsAny(r.Reason, "\r\n") {
			t.Errorf("rule %s: reason is not one line: %q", r.Name, r.Reason)
		}
		if r.Reason != strings.TrimSpace(r.Reason) {
			t.Errorf("rule %s: reason has surrounding space: %q", r.Name, r.Reason)
		}
		if r.Apply == nil {
			t.Errorf("rule %s: nil Apply", r.Name)
		}
	}
	// Every rule has a TestRule… in this file; a new rule needs one too.
	if !slices.Equal(names, want) {
		t.Errorf("Rules() names (a new rule needs a test here):\n got %v\nwant %v", names, want)
	}
}

func TestStaleRulesReported(t *testing.T) {
	var all []string
	for _, r := range Rules() {
		all = append(all, r.Name)
	}
	tests := []struct {
		name    string
		doc     string
		matched string // the one rule that must not be stale, "" for none (unknown-fields matches every object with properties)
	}{
		{
			name: "nothing matches",
			doc:  schemasDoc(`{"Name": {"type": ["string", "null"]}}`),
		},
		{
			name:    "a default",
			doc:     schemasDoc(`{"Pet": {"type": "object", "properties": {"name": {"type": ["string", "null"], "default": "rex"}}}}`),
			matched: "defaults-aside",
		},
		{
			name:    "an out-of-range integer bound",
			doc:     schemasDoc(`{"Pet": {"type": "object", "properties": {"age": {"type": ["integer", "null"], "maximum": 9223372036854775807}}}}`),
			matched: "int-bounds",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Normalize(load(t, tc.doc), Rules())
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rules) != len(all) {
				t.Fatalf("report has %d rules, want %d", len(rep.Rules), len(all))
			}
			for i, rr := range rep.Rules {
				if rr.Name != all[i] || rr.Reason != Rules()[i].Reason {
					t.Errorf("report rule %d = %q, want %q in Rules() order with its reason", i, rr.Name, all[i])
				}
				if rr.Stale() != (rr.Name != tc.matched && (rr.Name != "unknown-fields" || tc.matched == "")) {
					t.Errorf("rule %s: Stale() = %v, hits %s", rr.Name, rr.Stale(), indent(rr.Hits))
				}
			}
			want := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == tc.matched || tc.matched != "" && n == "unknown-fields" })
			if got := rep.StaleRules(); !slices.Equal(got, want) {
				t.Errorf("StaleRules():\n got %v\nwant %v", got, want)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// One test per rule

func TestRuleSSEAsJSON(t *testing.T) {
	const rule = "sse-as-json"
	runRuleCases(t, rule, []ruleCase{{
		name: "event stream response",
		doc: `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
			"paths": {"/responses": {"post": {"responses": {
				"200": {"description": "ok", "content": {"text/event-stream": {"schema": {"$ref": "#/components/schemas/Event"}}}},
				"400": {"description": "bad", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Event"}}}}
			}}}},
			"components": {"schemas": {"Event": {"type": "object", "properties": {"type": {"type": "string"}}}}}}`,
		hits: []wantHit{{Schema: "", Pointer: "/paths/~1responses/post/responses/200/content/text~1event-stream", Detail: StreamMediaType}},
		want: map[string]string{
			"/paths/~1responses/post/responses/200/content": `{"application/x-sse-event+json": {"schema": {"$ref": "#/components/schemas/Event"}}}`,
			"/paths/~1responses/post/responses/400/content": `{"application/json": {"schema": {"$ref": "#/components/schemas/Event"}}}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"json only": `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
			"paths": {"/responses": {"post": {"responses": {
				"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
			}}}}}`,
	})
}

// bodyDoc is a document with POST /conversations/{conversation_id}/items
// (operationId op, "" for none) taking req and answering res (schemas).
func bodyDoc(op, req, res string) string {
	id := ""
	if op != "" {
		id = `"operationId": "` + op + `", `
	}
	return `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
		"paths": {"/conversations/{conversation_id}/items": {"post": {` + id + `
			"requestBody": {"required": true, "content": {"application/json": {"schema": ` + req + `}}},
			"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": ` + res + `}}},
				"400": {"description": "bad", "content": {"application/json": {"schema": {"type": "object", "properties": {"error": {"type": "string"}}}}}}}}}},
		"components": {"schemas": {"List": {"type": "object", "properties": {"data": {"type": "array"}}}}}}`
}

func TestRuleInlineBodies(t *testing.T) {
	const rule = "inline-bodies"
	const base = "/paths/~1conversations~1{conversation_id}~1items/post"
	const reqPtr = base + "/requestBody/content/application~1json/schema"
	const resPtr = base + "/responses/200/content/application~1json/schema"
	items := `{"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {"type": "string"}}}}`
	list := `{"$ref": "#/components/schemas/List"}`
	runRuleCases(t, rule, []ruleCase{{
		name: "a request body, by operationId",
		doc:  bodyDoc("createConversationItems", items, list),
		hits: []wantHit{{Pointer: reqPtr, Detail: "moved to component CreateConversationItemsRequest"}},
		want: map[string]string{
			reqPtr: `{"$ref": "#/components/schemas/CreateConversationItemsRequest"}`,
			"/components/schemas/CreateConversationItemsRequest": items,
			resPtr: list,
		},
	}, {
		// An error response stays inline: no payload names it.
		name: "a request and a response, by title and by method and path",
		doc:  bodyDoc("", items, `{"title": "item list", "type": "object", "properties": {"data": {"type": "array"}}}`),
		hits: []wantHit{
			{Pointer: reqPtr, Detail: "moved to component PostConversationsConversationIdItemsRequest"},
			{Pointer: resPtr, Detail: "moved to component ItemList"},
		},
		want: map[string]string{
			resPtr: `{"$ref": "#/components/schemas/ItemList"}`,
			base + "/responses/400/content/application~1json/schema": `{"type": "object", "properties": {"error": {"type": "string"}}}`,
		},
	}, {
		name: "a name already taken",
		doc:  bodyDoc("list", list, `{"title": "list", "type": "object"}`),
		hits: []wantHit{{Pointer: resPtr, Detail: "moved to component List2"}},
		want: map[string]string{resPtr: `{"$ref": "#/components/schemas/List2"}`, "/components/schemas/List": `{"type": "object", "properties": {"data": {"type": "array"}}}`},
	}})
	runUntouched(t, rule, map[string]string{
		"components already": bodyDoc("create", list, list),
		"no operations":      schemasDoc(`{"List": {"type": "object"}}`),
	})
}

func TestRuleObjectType(t *testing.T) {
	const rule = "object-type"
	const ptr = "/paths/~1conversations~1{conversation_id}~1items/post/requestBody/content/application~1json/schema"
	runRuleCases(t, rule, []ruleCase{{
		name: "a component with properties and required, no type",
		doc:  schemasDoc(`{"Body": {"required": ["items"], "properties": {"items": {"type": "array", "items": {"type": "string"}}}}}`),
		hits: []wantHit{{Schema: "Body", Pointer: "/components/schemas/Body", Detail: "type object"}},
		want: map[string]string{"/components/schemas/Body": `{"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {"type": "string"}}}}`},
	}, {
		name: "an inline request body",
		doc:  bodyDoc("create", `{"properties": {"items": {"type": "array"}}}`, `{"$ref": "#/components/schemas/List"}`),
		hits: []wantHit{{Pointer: ptr, Detail: "type object"}},
		want: map[string]string{ptr: `{"type": "object", "properties": {"items": {"type": "array"}}}`},
	}})
	runUntouched(t, rule, map[string]string{
		"typed":               schemasDoc(`{"Body": {"type": "object", "properties": {"a": {"type": "string"}}}, "Null": {"type": ["object", "null"], "properties": {"a": {}}}}`),
		"a union's parts say": schemasDoc(`{"Body": {"properties": {"a": {}}, "allOf": [{"type": "object"}]}, "Any": {}}`),
	})
}

func TestRuleRecursiveRef(t *testing.T) {
	const rule = "recursive-ref"
	runRuleCases(t, rule, []ruleCase{{
		name: "recursive anchor on the component root",
		doc: schemasDoc(`{"Node": {"$recursiveAnchor": true, "type": "object", "properties": {
			"children": {"type": "array", "items": {"$recursiveRef": "#"}}}}}`),
		hits: []wantHit{
			{Schema: "Node", Pointer: "/components/schemas/Node", Detail: "dropped $recursiveAnchor"},
			{Schema: "Node", Pointer: "/components/schemas/Node/properties/children/items", Detail: "$recursiveRef # -> $ref Node"},
		},
		want: map[string]string{
			"/components/schemas/Node": `{"type": "object", "properties": {
				"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"plain self reference": schemasDoc(`{"Tree": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Tree"}}}}`),
		"unknown target":       schemasDoc(`{"Tree": {"type": "object", "properties": {"next": {"$recursiveRef": "#/$defs/node"}}}}`),
		"under an operation": `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
			"paths": {"/x": {"get": {"responses": {"200": {"description": "ok",
				"content": {"application/json": {"schema": {"type": "array", "items": {"$recursiveRef": "#"}}}}}}}}},
			"components": {"schemas": {}}}`,
	})
}

func TestRuleRefSiblings(t *testing.T) {
	const rule = "ref-siblings"
	runRuleCases(t, rule, []ruleCase{{
		name: "default and description beside $ref",
		doc: `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
			"paths": {"/x": {"get": {"responses": {"200": {"description": "ok",
				"content": {"application/json": {"schema": {"$ref": "#/components/schemas/B", "description": "the response"}}}}}}}},
			"components": {"schemas": {
				"A": {"type": "object", "properties": {
					"b": {"$ref": "#/components/schemas/B", "description": "the b", "default": null, "x-keep": true},
					"plain": {"$ref": "#/components/schemas/B"}}},
				"B": {"type": "object", "description": "B's own", "properties": {"x": {"type": "string"}}}}}}`,
		hits: []wantHit{
			{Schema: "A", Pointer: "/components/schemas/A/properties/b", Detail: "dropped default, description beside $ref"},
			{Schema: "", Pointer: "/paths/~1x/get/responses/200/content/application~1json/schema", Detail: "dropped description beside $ref"},
		},
		want: map[string]string{
			"/components/schemas/A": `{"type": "object", "properties": {
				"b": {"$ref": "#/components/schemas/B", "x-keep": true},
				"plain": {"$ref": "#/components/schemas/B"}}}`,
			"/components/schemas/B": `{"type": "object", "description": "B's own", "properties": {"x": {"type": "string"}}}`,
			"/paths/~1x/get/responses/200/content/application~1json/schema": `{"$ref": "#/components/schemas/B"}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"bare refs and extensions": schemasDoc(`{
			"A": {"type": "object", "properties": {
				"b": {"$ref": "#/components/schemas/B"},
				"c": {"$ref": "#/components/schemas/B", "x-note": "kept"}}},
			"B": {"type": "object", "description": "B", "default": {}}}`),
	})
}

func TestRuleIntBounds(t *testing.T) {
	const rule = "int-bounds"
	runRuleCases(t, rule, []ruleCase{{
		name: "int64 extremes",
		doc: schemasDoc(`{
			"Big": {"type": "integer", "format": "int64", "minimum": -9223372036854775808, "maximum": 9223372036854775807},
			"Limits": {"type": "object", "properties": {"n": {"type": ["integer", "null"], "minimum": 0, "maximum": 9223372036854775807}}}}`),
		hits: []wantHit{
			{Schema: "Big", Pointer: "/components/schemas/Big", Detail: "dropped minimum"},
			{Schema: "Big", Pointer: "/components/schemas/Big", Detail: "dropped maximum"},
			{Schema: "Limits", Pointer: "/components/schemas/Limits/properties/n", Detail: "dropped maximum"},
		},
		want: map[string]string{
			"/components/schemas/Big":    `{"type": "integer", "format": "int64"}`,
			"/components/schemas/Limits": `{"type": "object", "properties": {"n": {"type": ["integer", "null"], "minimum": 0}}}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"bounds in range": schemasDoc(`{"N": {"type": "integer", "minimum": -100, "maximum": 9007199254740991}}`),
		"not an integer":  schemasDoc(`{"N": {"type": "number", "minimum": -9223372036854775808, "maximum": 9223372036854775807}}`),
	})
}

func TestRuleAllOfOverride(t *testing.T) {
	const rule = "allof-override"
	runRuleCases(t, rule, []ruleCase{{
		name: "later part restates a property",
		doc: schemasDoc(`{
			"Base": {"type": "object", "required": ["id"], "properties": {
				"id": {"type": "string"}, "kind": {"type": "string"}}},
			"Derived": {"description": "derived", "allOf": [
				{"$ref": "#/components/schemas/Base"},
				{"type": "object", "required": ["kind", "id"], "properties": {
					"kind": {"type": "string", "enum": ["a"]}, "extra": {"type": "integer"}}}]}}`),
		hits: []wantHit{{Schema: "Derived", Pointer: "/components/schemas/Derived", Detail: "later part wins for [kind]"}},
		want: map[string]string{
			"/components/schemas/Derived": `{"type": "object", "description": "derived", "required": ["id", "kind"], "properties": {
				"id": {"type": "string"}, "kind": {"type": "string", "enum": ["a"]}, "extra": {"type": "integer"}}}`,
			"/components/schemas/Base": `{"type": "object", "required": ["id"], "properties": {
				"id": {"type": "string"}, "kind": {"type": "string"}}}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"disjoint parts": schemasDoc(`{
			"Base": {"type": "object", "properties": {"id": {"type": "string"}}},
			"Derived": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {"name": {"type": "string"}}}]}}`),
		"same ref restated": schemasDoc(`{
			"Meta": {"type": "object", "properties": {"k": {"type": "string"}}},
			"Base": {"type": "object", "properties": {"meta": {"$ref": "#/components/schemas/Meta"}}},
			"Derived": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {"meta": {"$ref": "#/components/schemas/Meta"}}}]}}`),
		"a part is a union": schemasDoc(`{
			"Derived": {"allOf": [
				{"type": "object", "properties": {"id": {"type": "string"}}},
				{"oneOf": [{"type": "object", "properties": {"id": {"type": "integer"}}}]}]}}`),
	})
}

func TestRuleAdditionalProperties(t *testing.T) {
	const rule = "additional-properties"
	runRuleCases(t, rule, []ruleCase{{
		name: "false, true and a schema beside properties",
		doc: schemasDoc(`{
			"Closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false},
			"Open": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true},
			"Typed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}}`),
		hits: []wantHit{
			{Schema: "Closed", Pointer: "/components/schemas/Closed", Detail: "dropped additionalProperties: false"},
			{Schema: "Open", Pointer: "/components/schemas/Open", Detail: "open object: declared properties typed"},
			{Schema: "Typed", Pointer: "/components/schemas/Typed", Detail: "open object: declared properties typed"},
		},
		want: map[string]string{
			"/components/schemas/Closed": `{"type": "object", "properties": {"a": {"type": "string"}}}`,
			"/components/schemas/Open":   `{"type": "object", "properties": {"a": {"type": "string"}}, "x-open-object": true}`,
			"/components/schemas/Typed":  `{"type": "object", "properties": {"a": {"type": "string"}}, "x-open-object": true}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"map without properties": schemasDoc(`{"M": {"type": "object", "additionalProperties": {"type": "string"}}}`),
		"closed empty object":    schemasDoc(`{"M": {"type": "object", "additionalProperties": false}}`),
		"properties only":        schemasDoc(`{"M": {"type": "object", "properties": {"a": {"type": "string"}}}}`),
	})
}

func TestRuleFreeForm(t *testing.T) {
	const rule = "free-form"
	runRuleCases(t, rule, []ruleCase{
		{
			name: "map",
			doc: schemasDoc(`{
				"Meta": {"type": "object", "description": "metadata", "additionalProperties": {"type": "string"}},
				"Holder": {"type": "object", "properties": {
					"params": {"type": "object"}, "name": {"type": "string"}, "metadata": {"$ref": "#/components/schemas/Meta"}}}}`),
			hits: []wantHit{
				{Schema: "Holder", Pointer: "/components/schemas/Holder/properties/metadata", Detail: "$ref Meta inlined as any JSON value"},
				{Schema: "Holder", Pointer: "/components/schemas/Holder/properties/params", Detail: "map -> any JSON value"},
				{Schema: "Meta", Pointer: "/components/schemas/Meta", Detail: "map -> any JSON value"},
			},
			want: map[string]string{
				"/components/schemas/Meta": `{"description": "metadata", "x-free-form": true}`,
				"/components/schemas/Holder": `{"type": "object", "properties": {
					"params": {"x-free-form": true}, "name": {"type": "string"},
					"metadata": {"description": "metadata", "x-free-form": "Meta"}}}`,
			},
		},
		{
			name: "union with a map",
			doc: schemasDoc(`{
				"Value": {"description": "any", "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "object", "additionalProperties": true}]},
				"Either": {"oneOf": [{"type": "string"}, {"$ref": "#/components/schemas/Dict"}]},
				"Dict": {"type": "object", "additionalProperties": {"type": "integer"}}}`),
			hits: []wantHit{
				{Schema: "Dict", Pointer: "/components/schemas/Dict", Detail: "map -> any JSON value"},
				{Schema: "Either", Pointer: "/components/schemas/Either", Detail: "union with an any-JSON variant"},
				{Schema: "Value", Pointer: "/components/schemas/Value", Detail: "union with an any-JSON variant"},
				// The map variant is visited after its union collapsed; the
				// rule still records it.
				{Schema: "Value", Pointer: "/components/schemas/Value/anyOf/2", Detail: "map -> any JSON value"},
			},
			want: map[string]string{
				"/components/schemas/Value":  `{"description": "any", "x-free-form": true}`,
				"/components/schemas/Either": `{"x-free-form": true}`,
				"/components/schemas/Dict":   `{"x-free-form": true}`,
			},
		},
	})
	runUntouched(t, rule, map[string]string{
		"object with properties": schemasDoc(`{"O": {"type": "object", "properties": {"a": {"type": "string"}}}}`),
		"closed empty object":    schemasDoc(`{"O": {"type": "object", "additionalProperties": false}}`),
		"primitive union":        schemasDoc(`{"U": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}`),
		"already any":            schemasDoc(`{"A": {"description": "anything"}}`),
	})
}

func TestRuleStringUnion(t *testing.T) {
	const rule = "string-union"
	runRuleCases(t, rule, []ruleCase{
		{
			name: "open vs closed",
			doc: schemasDoc(`{
				"Model": {"anyOf": [{"type": "string"}, {"type": "string", "enum": ["gpt-4o", "gpt-5"]}]},
				"ChatModel": {"anyOf": [{"$ref": "#/components/schemas/Model"}, {"type": "string", "enum": ["o3"]}]},
				"Voice": {"description": "voice", "oneOf": [
					{"type": "string", "enum": ["alloy", "echo"]}, {"type": "string", "const": "fable"}, {"type": "string", "enum": ["echo"]}]},
				"Tier": {"anyOf": [{"type": "string", "enum": ["auto"]}, {"type": "string", "enum": ["flex"]}, {"type": "null"}]}}`),
			hits: []wantHit{
				{Schema: "ChatModel", Pointer: "/components/schemas/ChatModel", Detail: "open string, 3 known values"},
				{Schema: "Model", Pointer: "/components/schemas/Model", Detail: "open string, 2 known values"},
				{Schema: "Tier", Pointer: "/components/schemas/Tier", Detail: "closed enum of 2 values"},
				{Schema: "Voice", Pointer: "/components/schemas/Voice", Detail: "closed enum of 3 values"},
			},
			want: map[string]string{
				"/components/schemas/Model":     `{"type": "string", "x-known-values": ["gpt-4o", "gpt-5"]}`,
				"/components/schemas/ChatModel": `{"type": "string", "x-known-values": ["gpt-4o", "gpt-5", "o3"]}`,
				"/components/schemas/Voice":     `{"description": "voice", "type": "string", "enum": ["alloy", "echo", "fable"]}`,
				"/components/schemas/Tier":      `{"type": ["string", "null"], "enum": ["auto", "flex"]}`,
			},
		},
		{
			name: "strings merged in a mixed union",
			doc: schemasDoc(`{"ToolChoice": {"anyOf": [
				{"type": "string", "enum": ["none"]},
				{"type": "string", "enum": ["auto", "required"]},
				{"type": "object", "properties": {"type": {"type": "string", "const": "function"}}}]}}`),
			hits: []wantHit{{Schema: "ToolChoice", Pointer: "/components/schemas/ToolChoice", Detail: "2 string variants merged: closed enum of 3 values"}},
			want: map[string]string{
				"/components/schemas/ToolChoice": `{"anyOf": [
					{"type": "string", "enum": ["none", "auto", "required"]},
					{"type": "object", "properties": {"type": {"type": "string", "const": "function"}}}]}`,
			},
		},
	})
	runUntouched(t, rule, map[string]string{
		"nullable string":      schemasDoc(`{"S": {"anyOf": [{"type": "string"}, {"type": "null"}]}}`),
		"one string beside":    schemasDoc(`{"S": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"a": {"type": "string"}}}]}}`),
		"string and integer":   schemasDoc(`{"S": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}`),
		"plain enum, no union": schemasDoc(`{"S": {"type": "string", "enum": ["a", "b"]}}`),
	})
}

// objectUnionSchemas are variants shared by the object-union cases.
const objectUnionSchemas = `
	"Message": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "const": "message"}}},
	"FunctionCall": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["function_call"]}}},
	"WebSearchCall": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "const": "web_search_call"}}}`

func TestRuleObjectUnion(t *testing.T) {
	const rule = "object-union"
	const (
		msg = `{"$ref": "#/components/schemas/Message"}`
		fn  = `{"$ref": "#/components/schemas/FunctionCall"}`
		web = `{"$ref": "#/components/schemas/WebSearchCall"}`
	)
	runRuleCases(t, rule, []ruleCase{
		{
			name: "nested union flattened",
			doc: schemasDoc(`{` + objectUnionSchemas + `,
				"Item": {"oneOf": [` + msg + `, {"$ref": "#/components/schemas/ToolCall"}]},
				"ToolCall": {"anyOf": [` + fn + `, ` + web + `]}}`),
			hits: []wantHit{
				{Schema: "Item", Pointer: "/components/schemas/Item", Detail: `oneOf by "type": 3 values over 3 variants; flattened 1 nested union(s)`},
				{Schema: "ToolCall", Pointer: "/components/schemas/ToolCall", Detail: `oneOf by "type": 2 values over 2 variants`},
			},
			want: map[string]string{
				"/components/schemas/Item": `{"oneOf": [` + msg + `, ` + fn + `, ` + web + `], "discriminator": {"propertyName": "type", "mapping": {
					"message": "#/components/schemas/Message",
					"function_call": "#/components/schemas/FunctionCall",
					"web_search_call": "#/components/schemas/WebSearchCall"}}}`,
				"/components/schemas/ToolCall": `{"oneOf": [` + fn + `, ` + web + `], "discriminator": {"propertyName": "type", "mapping": {
					"function_call": "#/components/schemas/FunctionCall",
					"web_search_call": "#/components/schemas/WebSearchCall"}}}`,
			},
		},
		{
			name: "inline variants become components",
			doc: schemasDoc(`{` + objectUnionSchemas + `,
				"Event": {"oneOf": [
					{"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "const": "response.created"}, "id": {"type": "string"}}},
					` + msg + `]},
				"Holder": {"type": "object", "properties": {"content": {"anyOf": [
					{"type": "object", "required": ["type"], "properties": {"type": {"const": "input_text"}}},
					{"type": "object", "required": ["type"], "properties": {"type": {"const": "input_image"}}}]}}}}`),
			hits: []wantHit{
				{Schema: "Event", Pointer: "/components/schemas/Event", Detail: `inline variant "response.created" moved to component EventResponseCreated`},
				{Schema: "Event", Pointer: "/components/schemas/Event", Detail: `oneOf by "type": 2 values over 2 variants`},
				{Schema: "Holder", Pointer: "/components/schemas/Holder/properties/content", Detail: `inline variant "input_text" moved to component HolderContentInputText`},
				{Schema: "Holder", Pointer: "/components/schemas/Holder/properties/content", Detail: `inline variant "input_image" moved to component HolderContentInputImage`},
				{Schema: "Holder", Pointer: "/components/schemas/Holder/properties/content", Detail: `oneOf by "type": 2 values over 2 variants`},
			},
			want: map[string]string{
				"/components/schemas/Event": `{"oneOf": [{"$ref": "#/components/schemas/EventResponseCreated"}, ` + msg + `],
					"discriminator": {"propertyName": "type", "mapping": {
						"response.created": "#/components/schemas/EventResponseCreated",
						"message": "#/components/schemas/Message"}}}`,
				"/components/schemas/EventResponseCreated": `{"type": "object", "required": ["type"], "properties": {
					"type": {"type": "string", "const": "response.created"}, "id": {"type": "string"}}}`,
				"/components/schemas/Holder/properties/content": `{"oneOf": [
					{"$ref": "#/components/schemas/HolderContentInputText"}, {"$ref": "#/components/schemas/HolderContentInputImage"}],
					"discriminator": {"propertyName": "type", "mapping": {
						"input_text": "#/components/schemas/HolderContentInputText",
						"input_image": "#/components/schemas/HolderContentInputImage"}}}`,
				"/components/schemas/HolderContentInputText":  `{"type": "object", "required": ["type"], "properties": {"type": {"const": "input_text"}}}`,
				"/components/schemas/HolderContentInputImage": `{"type": "object", "required": ["type"], "properties": {"type": {"const": "input_image"}}}`,
			},
		},
		{
			name: "shared value goes to the first variant",
			doc: schemasDoc(`{
				"A": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["message"]}}},
				"B": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["message", "reasoning"]}}},
				"Union": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}}`),
			hits: []wantHit{{Schema: "Union", Pointer: "/components/schemas/Union", Detail: `2 values over 2 variants; "message" of B goes to A`}},
			want: map[string]string{
				"/components/schemas/Union": `{"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}],
					"discriminator": {"propertyName": "type", "mapping": {
						"message": "#/components/schemas/A", "reasoning": "#/components/schemas/B"}}}`,
			},
		},
		{
			name: "open type variant has no key",
			doc: schemasDoc(`{` + objectUnionSchemas + `,
				"Open": {"type": "object", "properties": {"type": {"type": "string"}}},
				"Union": {"anyOf": [` + msg + `, {"$ref": "#/components/schemas/Open"}]}}`),
			// The open variant leaves the union: ogen would key it by its
			// schema name and write "type":"Open" on the wire.
			hits: []wantHit{{Schema: "Union", Pointer: "/components/schemas/Union", Detail: `1 values over 1 variants; Open has an open "type" and no key; Open left the union (no key of its own)`}},
			want: map[string]string{
				"/components/schemas/Union": `{"oneOf": [` + msg + `],
					"discriminator": {"propertyName": "type", "mapping": {"message": "#/components/schemas/Message"}}}`,
			},
		},
		{
			name: "primitives beside objects",
			doc: schemasDoc(`{` + objectUnionSchemas + `,
				"Input": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, ` + msg + `, ` + fn + `]}}`),
			hits: []wantHit{{Schema: "Input", Pointer: "/components/schemas/Input", Detail: `2 object variant(s) nested in a oneOf by "type" beside 2 primitive(s)`}},
			want: map[string]string{
				"/components/schemas/Input": `{"oneOf": [
					{"type": "string"},
					{"type": "array", "items": {"type": "string"}},
					{"oneOf": [` + msg + `, ` + fn + `], "discriminator": {"propertyName": "type", "mapping": {
						"message": "#/components/schemas/Message", "function_call": "#/components/schemas/FunctionCall"}}}]}`,
			},
		},
		{
			name: "declared discriminator property and allOf variants",
			doc: schemasDoc(`{
				"Base": {"type": "object", "properties": {"id": {"type": "string"}}},
				"Cat": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "cat"}}}]},
				"Dog": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["dog"]}}},
				"Pet": {"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}], "discriminator": {"propertyName": "kind"}}}`),
			hits: []wantHit{{Schema: "Pet", Pointer: "/components/schemas/Pet", Detail: `oneOf by "kind"`}},
			want: map[string]string{
				"/components/schemas/Pet": `{"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
					"discriminator": {"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"}}}`,
			},
		},
		{
			name: "optional key marks the default variant",
			doc: schemasDoc(`{` + objectUnionSchemas + `,
				"EasyMessage": {"type": "object", "properties": {"type": {"type": "string", "enum": ["message"]}, "role": {"type": "string"}}},
				"Input": {"oneOf": [` + fn + `, {"$ref": "#/components/schemas/EasyMessage"}]}}`),
			hits: []wantHit{{Schema: "Input", Pointer: "/components/schemas/Input", Detail: `oneOf by "type": 2 values over 2 variants; without "type": EasyMessage`}},
			want: map[string]string{
				"/components/schemas/Input": `{"oneOf": [` + fn + `, {"$ref": "#/components/schemas/EasyMessage"}],
					"discriminator": {"propertyName": "type", "mapping": {
						"function_call": "#/components/schemas/FunctionCall", "message": "#/components/schemas/EasyMessage"}},
					"x-default-variant": "EasyMessage"}`,
			},
		},
		{
			name: "inline union with a default variant becomes a component",
			doc: schemasDoc(`{` + objectUnionSchemas + `,
				"EasyMessage": {"type": "object", "properties": {"type": {"type": "string", "enum": ["message"]}, "role": {"type": "string"}}},
				"Request": {"type": "object", "properties": {"input": {"oneOf": [` + fn + `, {"$ref": "#/components/schemas/EasyMessage"}]}}}}`),
			hits: []wantHit{{
				Schema:  "Request",
				Pointer: "/components/schemas/Request/properties/input",
				Detail:  `without "type": EasyMessage; moved to component RequestInputItem`,
			}},
			want: map[string]string{
				"/components/schemas/Request/properties/input": `{"$ref": "#/components/schemas/RequestInputItem"}`,
				"/components/schemas/RequestInputItem": `{"oneOf": [` + fn + `, {"$ref": "#/components/schemas/EasyMessage"}],
					"discriminator": {"propertyName": "type", "mapping": {
						"function_call": "#/components/schemas/FunctionCall", "message": "#/components/schemas/EasyMessage"}},
					"x-default-variant": "EasyMessage"}`,
			},
		},
	})
	runUntouched(t, rule, map[string]string{
		"primitive beside one object": schemasDoc(`{` + objectUnionSchemas + `,
			"U": {"anyOf": [{"type": "string"}, ` + msg + `]}}`),
		"objects without a key": schemasDoc(`{
			"P": {"type": "object", "properties": {"a": {"type": "string"}}},
			"Q": {"type": "object", "properties": {"b": {"type": "string"}}},
			"U": {"oneOf": [{"$ref": "#/components/schemas/P"}, {"$ref": "#/components/schemas/Q"}]}}`),
		"primitives only": schemasDoc(`{"U": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}`),
		"union beside allOf": schemasDoc(`{` + objectUnionSchemas + `,
			"U": {"allOf": [{"type": "object"}], "oneOf": [` + msg + `, ` + fn + `]}}`),
	})
}

func TestRuleNullableComponent(t *testing.T) {
	const rule = "nullable-component"
	runRuleCases(t, rule, []ruleCase{{
		name: "enum and allOf object",
		doc: schemasDoc(`{
			"Verbosity": {"description": "how verbose", "anyOf": [{"type": "string", "enum": ["low", "medium", "high"]}, {"type": "null"}]},
			"PromptBase": {"type": "object", "properties": {"id": {"type": "string"}}},
			"Prompt": {"x-note": "kept", "oneOf": [
				{"allOf": [{"$ref": "#/components/schemas/PromptBase"}, {"type": "object", "properties": {"version": {"type": "string"}}}]},
				{"type": "null"}]}}`),
		hits: []wantHit{
			{Schema: "Prompt", Pointer: "/components/schemas/Prompt", Detail: "nullable object"},
			{Schema: "Verbosity", Pointer: "/components/schemas/Verbosity", Detail: "nullable string"},
		},
		want: map[string]string{
			"/components/schemas/Verbosity": `{"description": "how verbose", "type": ["string", "null"], "enum": ["low", "medium", "high"]}`,
			"/components/schemas/Prompt": `{"x-note": "kept", "type": ["object", "null"], "allOf": [
				{"$ref": "#/components/schemas/PromptBase"}, {"type": "object", "properties": {"version": {"type": "string"}}}]}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"ref variant": schemasDoc(`{
			"E": {"type": "string", "enum": ["a"]},
			"N": {"anyOf": [{"$ref": "#/components/schemas/E"}, {"type": "null"}]}}`),
		"two variants and null": schemasDoc(`{"N": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}}`),
		"no null":               schemasDoc(`{"N": {"anyOf": [{"type": "string", "enum": ["a"]}]}}`),
		"inline, not a component": schemasDoc(`{"H": {"type": "object", "properties": {
			"n": {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}}}}`),
		"inner union": schemasDoc(`{"N": {"anyOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]}}`),
	})
}

func TestRuleInlineNames(t *testing.T) {
	const rule = "inline-names"
	runRuleCases(t, rule, []ruleCase{
		{
			name: "reasoning.effort vs reasoning_effort",
			doc: schemasDoc(`{"Chat": {"type": "object", "properties": {
				"reasoning": {"type": "object", "properties": {"effort": {"type": "string", "enum": ["low", "high"]}}},
				"reasoning_effort": {"type": "string", "enum": ["low", "high"]}}}}`),
			hits: []wantHit{{
				Schema:  "Chat",
				Pointer: "/components/schemas/Chat/properties/reasoning/properties/effort",
				Detail:  "named ChatReasoningEffort2 (ogen would name it ChatReasoningEffort",
			}},
			want: map[string]string{
				"/components/schemas/Chat": `{"type": "object", "properties": {
					"reasoning": {"type": "object", "properties": {
						"effort": {"type": "string", "enum": ["low", "high"], "x-ogen-name": "ChatReasoningEffort2"}}},
					"reasoning_effort": {"type": "string", "enum": ["low", "high"]}}}`,
			},
		},
		{
			name: "inline type named like a component",
			doc: schemasDoc(`{
				"Chat": {"type": "object", "properties": {"tool": {"type": "object", "properties": {"name": {"type": "string"}}}}},
				"ChatTool": {"type": "object", "properties": {"id": {"type": "string"}}}}`),
			hits: []wantHit{{Schema: "Chat", Pointer: "/components/schemas/Chat/properties/tool", Detail: "named ChatTool2"}},
			want: map[string]string{
				"/components/schemas/Chat/properties/tool": `{"type": "object", "properties": {"name": {"type": "string"}}, "x-ogen-name": "ChatTool2"}`,
				"/components/schemas/ChatTool":             `{"type": "object", "properties": {"id": {"type": "string"}}}`,
			},
		},
		{
			name: "component named like an inline sum type's kind",
			doc: schemasDoc(`{
				"Moderation": {"type": "object", "properties": {"input": {"oneOf": [
					{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}},
				"ModerationInputType": {"type": "string", "enum": ["text", "image"]}}`),
			hits: []wantHit{{
				Schema:  "ModerationInputType",
				Pointer: "/components/schemas/ModerationInputType",
				Detail:  "named ModerationInputType2 (ogen names the kind of sum type ModerationInput ModerationInputType)",
			}},
			want: map[string]string{
				"/components/schemas/ModerationInputType": `{"type": "string", "enum": ["text", "image"], "x-ogen-name": "ModerationInputType2"}`,
				"/components/schemas/Moderation": `{"type": "object", "properties": {"input": {"oneOf": [
					{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}}`,
			},
		},
		{
			name: "component named like a component sum type's kind",
			doc: schemasDoc(`{
				"Foo": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
				"FooType": {"type": "string", "enum": ["a"]}}`),
			hits: []wantHit{{Schema: "FooType", Pointer: "/components/schemas/FooType", Detail: "named FooType2"}},
			want: map[string]string{
				"/components/schemas/FooType": `{"type": "string", "enum": ["a"], "x-ogen-name": "FooType2"}`,
			},
		},
	})
	runUntouched(t, rule, map[string]string{
		"primitives collide": schemasDoc(`{"Chat": {"type": "object", "properties": {
			"reasoning": {"type": "object", "properties": {"effort": {"type": "string"}}},
			"reasoning_effort": {"type": "string"}}}}`),
		"distinct names": schemasDoc(`{"Chat": {"type": "object", "properties": {
			"reasoning": {"type": "object", "properties": {"effort": {"type": "string", "enum": ["low"]}}},
			"effort": {"type": "string", "enum": ["low"]}}}}`),
		"FooType beside an object Foo": schemasDoc(`{
			"Foo": {"type": "object", "properties": {"a": {"type": "string"}}},
			"FooType": {"type": "string", "enum": ["a"]}}`),
	})
}

func TestRuleOptionalConst(t *testing.T) {
	const rule = "optional-const"
	runRuleCases(t, rule, []ruleCase{{
		name: "optional const property",
		doc: schemasDoc(`{"Req": {"type": "object", "required": ["type"], "properties": {
			"type": {"type": "string", "const": "message"},
			"store": {"type": "boolean", "const": false},
			"nested": {"type": "object", "properties": {"mode": {"const": "auto"}}}}}}`),
		hits: []wantHit{
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/nested/properties/mode", Detail: "const of optional property mode -> one-value enum"},
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/store", Detail: "const of optional property store -> one-value enum"},
		},
		want: map[string]string{
			"/components/schemas/Req": `{"type": "object", "required": ["type"], "properties": {
				"type": {"type": "string", "const": "message"},
				"store": {"type": "boolean", "enum": [false]},
				"nested": {"type": "object", "properties": {"mode": {"enum": ["auto"]}}}}}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"required const": schemasDoc(`{"Req": {"type": "object", "required": ["type"], "properties": {"type": {"const": "message"}}}}`),
		"const component by ref": schemasDoc(`{
			"Kind": {"type": "string", "const": "message"},
			"Req": {"type": "object", "properties": {"type": {"$ref": "#/components/schemas/Kind"}}}}`),
		"no const": schemasDoc(`{"Req": {"type": "object", "properties": {"type": {"type": "string", "enum": ["message"]}}}}`),
	})
}

func TestRuleRelaxRequired(t *testing.T) {
	const rule = "relax-required"
	runRuleCases(t, rule, []ruleCase{{
		name: "required lists kept aside",
		doc: schemasDoc(`{
			"Tool": {"type": "object", "required": ["name", "strict"], "properties": {
				"name": {"type": "string"},
				"strict": {"type": ["boolean", "null"]},
				"fn": {"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}}}}}}`),
		hits: []wantHit{
			{Schema: "Tool", Pointer: "/components/schemas/Tool", Detail: "required [name strict] relaxed"},
			{Schema: "Tool", Pointer: "/components/schemas/Tool/properties/fn", Detail: "required [x] relaxed"},
		},
		want: map[string]string{
			"/components/schemas/Tool": `{"type": "object", "x-spec-required": ["name", "strict"], "properties": {
				"name": {"type": "string"},
				"strict": {"type": ["boolean", "null"]},
				"fn": {"type": "object", "x-spec-required": ["x"], "properties": {"x": {"type": "string"}}}}}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"nothing required": schemasDoc(`{"Tool": {"type": "object", "properties": {"strict": {"type": ["boolean", "null"]}}}}`),
	})
}

func TestRuleOptionalNullable(t *testing.T) {
	const rule = "optional-nullable"
	runRuleCases(t, rule, []ruleCase{{
		name: "optional properties accept null",
		doc: schemasDoc(`{
			"Usage": {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}},
			"Kind": {"oneOf": [{"$ref": "#/components/schemas/A"}], "discriminator": {"propertyName": "type"}},
			"A": {"type": "object", "properties": {"type": {"type": ["string", "null"]}}},
			"Chunk": {"type": "object", "required": ["id"], "properties": {
				"id": {"type": "string"},
				"user": {"type": "string"},
				"usage": {"$ref": "#/components/schemas/Usage"},
				"mode": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
				"kind": {"$ref": "#/components/schemas/Kind"},
				"raw": {},
				"object": {"const": "chunk"},
				"done": {"type": ["boolean", "null"]}}}}`),
		hits: []wantHit{{Schema: "Chunk", Pointer: "/components/schemas/Chunk", Detail: "optional [kind mode usage user] may be null"}},
		want: map[string]string{
			"/components/schemas/Chunk/properties/id":     `{"type": "string"}`,
			"/components/schemas/Chunk/properties/user":   `{"type": ["string", "null"], "x-null-added": true}`,
			"/components/schemas/Chunk/properties/usage":  `{"anyOf": [{"$ref": "#/components/schemas/Usage"}, {"type": "null"}], "x-null-added": true}`,
			"/components/schemas/Chunk/properties/mode":   `{"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "x-null-added": true}`,
			"/components/schemas/Chunk/properties/raw":    `{}`,
			"/components/schemas/Chunk/properties/object": `{"const": "chunk"}`,
			"/components/schemas/Chunk/properties/done":   `{"type": ["boolean", "null"]}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"required or already nullable": schemasDoc(`{"Chunk": {"type": "object", "required": ["id"], "properties": {
			"id": {"type": "string"}, "n": {"type": ["integer", "null"]}}}}`),
		"a discriminated union (ogen cannot merge null into it)": schemasDoc(`{"Chunk": {"type": "object", "properties": {
			"item": {"oneOf": [{"type": "object", "properties": {"type": {"type": ["string", "null"]}}}], "discriminator": {"propertyName": "type"}}}}}`),
	})
}

func TestRuleDefaultsAside(t *testing.T) {
	const rule = "defaults-aside"
	runRuleCases(t, rule, []ruleCase{{
		name: "scalar and object defaults",
		doc: `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
			"paths": {"/items": {"get": {
				"parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}}],
				"responses": {"200": {"description": "ok"}}}}},
			"components": {"schemas": {"Req": {"type": "object", "properties": {
				"n": {"type": "integer", "default": 1},
				"store": {"type": "boolean", "default": false},
				"opts": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x"}}}}}}}`,
		hits: []wantHit{
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/n", Detail: "default moved aside"},
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/opts", Detail: "default moved aside"},
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/store", Detail: "default moved aside"},
			{Schema: "", Pointer: "/paths/~1items/get/parameters/0/schema", Detail: "default moved aside"},
		},
		want: map[string]string{
			"/components/schemas/Req": `{"type": "object", "properties": {
				"n": {"type": "integer", "x-spec-default": 1},
				"store": {"type": "boolean", "x-spec-default": false},
				"opts": {"type": "object", "properties": {"a": {"type": "string"}}, "x-spec-default": {"a": "x"}}}}`,
			"/paths/~1items/get/parameters/0/schema": `{"type": "integer", "x-spec-default": 20}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"no defaults": schemasDoc(`{"Req": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}}`),
	})
}

// Regression: flattening a nested union whose variants were inline made each
// variant a component twice (ItemA and ItemA2, or ItemA and ToolCallA), and
// which one won depended on how component names sorted.
func TestObjectUnionFlattenMovesInlineVariantsOnce(t *testing.T) {
	variants := `{"type":"object","required":["type"],"properties":{"type":{"const":"a"}}},
		{"type":"object","required":["type"],"properties":{"type":{"const":"b"}}}`
	msg := `"Message": {"type":"object","required":["type"],"properties":{"type":{"const":"message"}}}`
	for _, tc := range []struct{ name, owner, doc string }{
		{"nested inline", "Item", schemasDoc(`{` + msg + `,
			"Item": {"oneOf":[{"$ref":"#/components/schemas/Message"}, {"anyOf":[` + variants + `]}]}}`)},
		{"nested component sorted after", "ToolCall", schemasDoc(`{` + msg + `,
			"ToolCall": {"anyOf":[` + variants + `]},
			"Item": {"oneOf":[{"$ref":"#/components/schemas/Message"}, {"$ref":"#/components/schemas/ToolCall"}]}}`)},
		{"nested component sorted before", "AToolCall", schemasDoc(`{` + msg + `,
			"AToolCall": {"anyOf":[` + variants + `]},
			"Item": {"oneOf":[{"$ref":"#/components/schemas/Message"}, {"$ref":"#/components/schemas/AToolCall"}]}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := load(t, tc.doc)
			before := len(doc.Components.Schemas)
			applyRule(t, doc, "object-union")
			// One component per wire object, whatever the names.
			seen := map[*openapi3.Schema]string{}
			for name, ref := range doc.Components.Schemas {
				if prev, dup := seen[ref.Value]; dup && ref.Ref == "" {
					t.Errorf("one schema is two components: %s and %s", prev, name)
				}
				seen[ref.Value] = name
			}
			if n := len(doc.Components.Schemas); n != before+2 {
				t.Errorf("got %d components, want %d (a and b added once): %v", n, before+2, keys(doc.Components.Schemas))
			}
			item := doc.Components.Schemas["Item"].Value
			if item.Discriminator == nil || len(item.Discriminator.Mapping) != 3 {
				t.Fatalf("Item not mapped by type: %+v", item.Discriminator)
			}
			for _, v := range []string{"a", "b"} {
				// Named after the union that declares the variant, whatever
				// the order in which the rule met the unions.
				want := "#/components/schemas/" + tc.owner + strings.ToUpper(v)
				if ref := item.Discriminator.Mapping[v].Ref; ref != want {
					t.Errorf("mapping %q -> %s, want %s", v, ref, want)
				}
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// schemasDoc30 is schemasDoc as an OpenAPI 3.0 document.
func schemasDoc30(schemas string) string {
	return strings.Replace(schemasDoc(schemas), `"3.1.0"`, `"3.0.3"`, 1)
}

// OpenAPI 3.0 writes a description or nullable: true beside a reference as
// allOf [$ref]; with it nullable, ogen failed on OpenAI's 3.0 rendering (sum
// types with same names: InputItemMessagePhase).
func TestRuleRefAllOf(t *testing.T) {
	const rule = "ref-allof"
	runRuleCases(t, rule, []ruleCase{{
		name: "allOf [$ref] is the reference, nullable a null union",
		doc: schemasDoc30(`{
			"Phase": {"type": "string", "enum": ["commentary", "final_answer"]},
			"Alias": {"allOf": [{"$ref": "#/components/schemas/Phase"}], "nullable": true},
			"Plain": {"allOf": [{"$ref": "#/components/schemas/Phase"}], "description": "kept: a component keeps its type"},
			"Msg": {"type": "object", "properties": {
				"phase": {"allOf": [{"$ref": "#/components/schemas/Phase"}], "nullable": true, "description": "d"},
				"label": {"allOf": [{"$ref": "#/components/schemas/Phase"}], "description": "d", "default": "commentary", "x-k": 1},
				"list": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/Phase"}]}},
				"merged": {"allOf": [{"$ref": "#/components/schemas/Phase"}], "maxLength": 4}}}}`),
		hits: []wantHit{
			{Schema: "Alias", Pointer: "/components/schemas/Alias", Detail: "allOf [$ref], nullable -> anyOf [$ref, null]"},
			{Schema: "Msg", Pointer: "/components/schemas/Msg/properties/label", Detail: "allOf [$ref] -> $ref; dropped default, x-k"},
			{Schema: "Msg", Pointer: "/components/schemas/Msg/properties/list/items", Detail: "allOf [$ref] -> $ref"},
			{Schema: "Msg", Pointer: "/components/schemas/Msg/properties/phase", Detail: "allOf [$ref], nullable -> anyOf [$ref, null]"},
		},
		want: map[string]string{
			"/components/schemas/Alias":                     `{"anyOf": [{"$ref": "#/components/schemas/Phase"}, {"type": "null"}]}`,
			"/components/schemas/Plain":                     `{"allOf": [{"$ref": "#/components/schemas/Phase"}], "description": "kept: a component keeps its type"}`,
			"/components/schemas/Msg/properties/phase":      `{"anyOf": [{"$ref": "#/components/schemas/Phase"}, {"type": "null"}], "description": "d"}`,
			"/components/schemas/Msg/properties/label":      `{"$ref": "#/components/schemas/Phase"}`,
			"/components/schemas/Msg/properties/list/items": `{"$ref": "#/components/schemas/Phase"}`,
			"/components/schemas/Msg/properties/merged":     `{"allOf": [{"$ref": "#/components/schemas/Phase"}], "maxLength": 4}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"two parts": schemasDoc30(`{"A": {"type": "object"}, "B": {"type": "object", "properties": {
			"p": {"allOf": [{"$ref": "#/components/schemas/A"}, {"type": "object", "properties": {"n": {"type": "string"}}}]}}}}`),
		"3.1 null union": schemasDoc(`{"A": {"type": "string"}, "B": {"type": "object", "properties": {
			"p": {"anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]}}}}`),
	})
}

func TestRuleNullableKeyword(t *testing.T) {
	const rule = "nullable-keyword"
	runRuleCases(t, rule, []ruleCase{{
		name: "3.0 nullable becomes a null type",
		doc: schemasDoc(`{
			"Stop": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}], "nullable": true},
			"Req": {"type": "object", "properties": {
				"n": {"type": "integer", "nullable": true},
				"either": {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true},
				"one": {"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": true}}}}`),
		hits: []wantHit{
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/either", Detail: "nullable: true -> null type"},
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/n", Detail: "nullable: true -> null type"},
			{Schema: "Req", Pointer: "/components/schemas/Req/properties/one", Detail: "nullable: true -> null type"},
			{Schema: "Stop", Pointer: "/components/schemas/Stop", Detail: "null is accepted where it is used"},
		},
		want: map[string]string{
			"/components/schemas/Req/properties/n":      `{"type": ["integer", "null"]}`,
			"/components/schemas/Req/properties/either": `{"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}`,
			"/components/schemas/Req/properties/one":    `{"anyOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]}`,
			"/components/schemas/Stop":                  `{"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"3.1 null types": schemasDoc(`{"Req": {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}}`),
	})
}

// Regression: nullable: true beside a $ref was dropped with the other
// siblings, so OpenAI's chunk usage (null but in the last chunk) failed to
// decode.
func TestRefSiblingNullableKept(t *testing.T) {
	doc := load(t, schemasDoc(`{"Usage": {"type": "object", "properties": {"n": {"type": "integer"}}},
		"Chunk": {"type": "object", "properties": {"usage": {"$ref": "#/components/schemas/Usage", "nullable": true, "description": "d"}}}}`))
	hits := applyRule(t, doc, "ref-siblings")
	if len(hits) != 2 {
		t.Fatalf("hits: %s", indent(hits))
	}
	assertAt(t, generic(t, doc), "/components/schemas/Chunk/properties/usage",
		`{"anyOf": [{"$ref": "#/components/schemas/Usage"}, {"type": "null"}]}`)
}

func TestRuleSharedValues(t *testing.T) {
	const rule = "shared-values"
	doc := load(t, schemasDoc(`{
		"Easy": {"type": "object", "required": ["role", "content"], "properties": {
			"type": {"type": "string", "enum": ["message"]},
			"role": {"type": "string", "enum": ["user", "assistant"]},
			"content": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/components/schemas/InPart"}}]}}},
		"Out": {"type": "object", "required": ["type", "id", "role", "content"], "properties": {
			"type": {"type": "string", "enum": ["message"]},
			"id": {"type": "string"},
			"role": {"type": "string", "enum": ["assistant"]},
			"n": {"type": ["integer", "null"]},
			"meta": {"type": "object", "properties": {"a": {"type": "string"}}},
			"content": {"type": "array", "items": {"$ref": "#/components/schemas/OutPart"}}}},
		"Other": {"type": "object", "properties": {
			"type": {"type": "string", "enum": ["message"]},
			"n": {"type": "integer"},
			"meta": {"type": "object", "properties": {"b": {"type": "string"}}}}},
		"Call": {"type": "object", "properties": {"type": {"type": "string", "enum": ["function_call"]}}},
		"InPart": {"oneOf": [{"type": "object", "properties": {"type": {"const": "input_text"}}}]},
		"OutPart": {"oneOf": [{"type": "object", "properties": {"type": {"const": "output_text"}}}]},
		"Item": {"oneOf": [{"$ref": "#/components/schemas/Out"}, {"$ref": "#/components/schemas/Call"}]},
		"Input": {"oneOf": [{"$ref": "#/components/schemas/Easy"}, {"$ref": "#/components/schemas/Item"}, {"$ref": "#/components/schemas/Other"}]},
		"Plain": {"oneOf": [{"$ref": "#/components/schemas/Easy"}, {"$ref": "#/components/schemas/Call"}]}}`))
	hits := applyRule(t, doc, rule)
	assertHits(t, hits, []wantHit{
		{Schema: "Input", Pointer: "/components/schemas/Input", Detail: `"message" of [Easy Out Other] merged into InputMessage`},
	})
	g := generic(t, doc)
	// The union: the merged variant where the first member stood, the
	// members gone, the unshared variant kept.
	assertAt(t, g, "/components/schemas/Input/oneOf", `[{"$ref": "#/components/schemas/InputMessage"}, {"$ref": "#/components/schemas/Call"}]`)
	m := "/components/schemas/InputMessage"
	assertAt(t, g, m+"/x-merged-from", `["Easy", "Out", "Other"]`)
	// Required: only what every member requires.
	if _, ok := lookup(g, m+"/required"); ok {
		t.Errorf("merged variant requires fields not every member requires")
	}
	assertAt(t, g, m+"/properties/type", `{"type": "string", "enum": ["message"]}`)
	assertAt(t, g, m+"/properties/id", `{"type": "string"}`)
	// Strings merge into one enum; a nullable and a plain integer into one
	// nullable integer; two object shapes into one object.
	assertAt(t, g, m+"/properties/role", `{"type": "string", "enum": ["user", "assistant"]}`)
	assertAt(t, g, m+"/properties/n", `{"anyOf": [{"type": "integer"}, {"type": "null"}]}`)
	assertAt(t, g, m+"/properties/meta", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}`)
	// string | list of input parts, and a list of output parts: a string or
	// one list whose items are either kind of part.
	assertAt(t, g, m+"/properties/content", `{"anyOf": [{"type": "string"}, {"type": "array", "items": {"anyOf": [
		{"$ref": "#/components/schemas/InPart"}, {"$ref": "#/components/schemas/OutPart"}]}}]}`)
	// The members are untouched.
	assertAt(t, g, "/components/schemas/Easy/properties/role", `{"type": "string", "enum": ["user", "assistant"]}`)

	runUntouched(t, rule, map[string]string{
		"no shared value": schemasDoc(`{
			"A": {"type": "object", "properties": {"type": {"enum": ["a"]}}},
			"B": {"type": "object", "properties": {"type": {"enum": ["b"]}}},
			"U": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}}`),
	})
}

func TestRuleUnknownFields(t *testing.T) {
	const rule = "unknown-fields"
	runRuleCases(t, rule, []ruleCase{{
		name: "objects with properties carry undeclared keys",
		doc: schemasDoc(`{
			"Tool": {"type": "object", "properties": {
				"name": {"type": "string"},
				"fn": {"type": "object", "properties": {"x": {"type": "string"}}}}},
			"Req": {"allOf": [{"$ref": "#/components/schemas/Tool"}, {"type": "object", "properties": {"y": {"type": "string"}}}]}}`),
		hits: []wantHit{
			{Schema: "Req", Pointer: "/components/schemas/Req", Detail: "undeclared keys carried"},
			{Schema: "Req", Pointer: "/components/schemas/Req/allOf/1", Detail: "undeclared keys carried"},
			{Schema: "Tool", Pointer: "/components/schemas/Tool", Detail: "undeclared keys carried"},
			{Schema: "Tool", Pointer: "/components/schemas/Tool/properties/fn", Detail: "undeclared keys carried"},
		},
		want: map[string]string{
			"/components/schemas/Tool/properties/fn": `{"type": "object", "additionalProperties": true, "x-unknown-fields": true, "properties": {"x": {"type": "string"}}}`,
		},
	}})
	runUntouched(t, rule, map[string]string{
		"free-form, unions, spec-open objects": schemasDoc(`{
			"Any": {},
			"U": {"oneOf": [{"type": "string"}, {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}]},
			"Open": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}}`),
	})
}

func TestRuleSpecValidation(t *testing.T) {
	const rule = "spec-validation"
	runRuleCases(t, rule, []ruleCase{{
		name: "required lists and exclusive groups, merged over allOf",
		doc: schemasDoc(`{
			"Base": {"type": "object", "x-spec-required": ["b"], "properties": {"b": {"type": "string"}}},
			"R": {"type": "object", "x-exclusive": [["s", "g"]], "properties": {"s": {"type": "string"}, "g": {"type": "string"}}},
			"Req": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "x-spec-required": ["a"], "properties": {"a": {"type": "string"}}}]}}`),
		hits: []wantHit{
			{Schema: "Base", Pointer: "/components/schemas/Base", Detail: "required [b]"},
			{Schema: "R", Pointer: "/components/schemas/R", Detail: "exclusive [[s g]]"},
			{Schema: "Req", Pointer: "/components/schemas/Req", Detail: "required [a b]"},
			{Schema: "Req", Pointer: "/components/schemas/Req/allOf/1", Detail: "required [a]"},
		},
	}})
	runUntouched(t, rule, map[string]string{
		"nothing required": schemasDoc(`{"T": {"type": "object", "properties": {"a": {"type": "string"}}}}`),
	})
}

// opDoc wraps component schemas into a document with one operation whose
// request body is Req and whose response is Resp.
func opDoc(schemas string) string {
	return `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
		"paths": {"/x": {"post": {
			"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Req"}}}},
			"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Resp"}}}}}}}},
		"components": {"schemas": ` + schemas + `}}`
}

func TestRuleRequiredArrays(t *testing.T) {
	const rule = "required-arrays"
	runRuleCases(t, rule, []ruleCase{{
		// Text is an output item a server makes, which a request replays
		// (input); Choice a request carries too (and the response echoes):
		// a request without its tools must round-trip without them, so
		// only Text's array is written [] from nil.
		name: "required non-null arrays of the objects a server makes are tagged",
		doc: opDoc(`{
			"Req": {"type": "object", "properties": {"choice": {"$ref": "#/components/schemas/Choice"}, "input": {"type": "array", "items": {"$ref": "#/components/schemas/Text"}}}},
			"Resp": {"type": "object", "properties": {
				"choice": {"$ref": "#/components/schemas/Choice"},
				"output": {"type": "array", "items": {"$ref": "#/components/schemas/Text"}}}},
			"Choice": {"type": "object", "x-spec-required": ["tools"], "properties": {"tools": {"type": "array", "items": {"type": "string"}}}},
			"Text": {"type": "object", "x-spec-required": ["annotations", "n"], "properties": {
				"annotations": {"type": "array", "items": {"type": "string"}},
				"logprobs": {"type": "array", "items": {"type": "string"}},
				"n": {"type": ["array", "null"], "items": {"type": "string"}}}}}`),
		hits: []wantHit{{Schema: "Text", Pointer: "/components/schemas/Text", Detail: "required arrays [annotations]"}},
		want: map[string]string{
			"/components/schemas/Text/properties/annotations": `{"type": "array", "items": {"type": "string"}, "x-required-array": true, "x-oapi-codegen-extra-tags": {"transponder": "encode-empty"}}`,
			"/components/schemas/Text/properties/logprobs":    `{"type": "array", "items": {"type": "string"}}`,
			"/components/schemas/Choice/properties/tools":     `{"type": "array", "items": {"type": "string"}, "x-required-array": true}`,
		},
	}})
}
