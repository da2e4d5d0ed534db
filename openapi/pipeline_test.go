package openapi_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi"
)

func specsDir(t *testing.T) string {
	t.Helper()
	dir, err := openapi.SpecsDir("..")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return dir
}

// generated is one run of the whole pipeline, shared by the tests that only
// read it.
var generated struct {
	sync.Once
	gens []*openapi.Generated
}

func generateOnce(t *testing.T) []*openapi.Generated {
	t.Helper()
	generated.Do(func() { generated.gens = generateAll(t) })
	if generated.gens == nil {
		t.Fatal("the shared pipeline run failed")
	}
	return generated.gens
}

func generateAll(t *testing.T) []*openapi.Generated {
	t.Helper()
	m, err := openapi.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	dir := specsDir(t)
	var out []*openapi.Generated
	for _, s := range m.Specs {
		data, err := s.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := openapi.Generate(s, data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// The committed gen/ equals a fresh run and every schema has a Go type.
func TestPipeline(t *testing.T) {
	for _, g := range generateOnce(t) {
		if diff, err := openapi.Stale("..", g); err != nil {
			t.Fatal(err)
		} else if len(diff) > 0 {
			t.Errorf("%s: generated files are stale (run make generate):\n%s", g.Spec.Name, strings.Join(diff, "\n"))
		}
		if m := g.Missing(); len(m) > 0 {
			t.Errorf("%s: schemas without a Go type: %v", g.Spec.Name, m)
		}
		if !strings.Contains(string(g.Files[openapi.ReportFile]), "DO NOT EDIT") {
			t.Errorf("%s: report lacks its generated header", g.Spec.Name)
		}
	}
}

// On the pinned specs, every overlay patch is needed and a rule no spec
// needs is either listed as kept for other releases (with the test that
// shows it firing) or reported (it stays harmless, but can go). Which
// rules and patches a release needs is its content: other releases leave
// others stale, and are reported, not refused.
func TestPinnedSpecRulesUsed(t *testing.T) {
	gens := generateOnce(t)
	stale := map[string]int{}
	for _, g := range gens {
		for _, r := range g.Rules.StaleRules() {
			stale[r]++
		}
		for _, o := range g.Overlays {
			if o.Stale != "" {
				t.Errorf("%s: overlay %s is stale: %s", g.Spec.Name, o.Target, o.Stale)
			}
		}
	}
	for r, n := range stale {
		if n == len(gens) && keptForOtherReleases[r] == "" {
			t.Errorf("rule %s matches nothing in any spec: remove it or explain why it stays", r)
		}
	}
}

// keptForOtherReleases lists the rules no pinned spec needs that stay for
// other releases of the specs, each with the test that shows it firing.
var keptForOtherReleases = map[string]string{
	"ref-allof":           "OpenAPI 3.0 descriptions: internal/specvariant TestPinnedSpecOpenAI30Generates",
	"inline-events":       "OpenRouter late 2025: internal/specvariant TestPinnedSpecOpenRouter2025Generates",
	"infer-discriminator": "OpenRouter late 2025: internal/specvariant TestPinnedSpecOpenRouter2025Generates",
	"same-kind-variants":  "OpenRouter late 2025: internal/specvariant TestPinnedSpecOpenRouter2025Generates",
}

// Generation is deterministic: two runs give the same files, byte for byte.
func TestDeterministic(t *testing.T) {
	first := generateOnce(t)
	second := generateAll(t)
	for i := range first {
		a, b := first[i].Files, second[i].Files
		if len(a) != len(b) {
			t.Errorf("%s: %d files, then %d", first[i].Spec.Name, len(a), len(b))
		}
		for name := range b {
			if string(a[name]) != string(b[name]) {
				t.Errorf("%s: %s differs between two runs", first[i].Spec.Name, name)
			}
		}
	}
}

func TestChecksumMismatch(t *testing.T) {
	m, _ := openapi.LoadManifest()
	s, _ := m.Lookup("openai")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, s.File), []byte("openapi: 3.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Read(dir)
	var ce *openapi.ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("want a ChecksumError, got %v", err)
	}
	if ce.Want != s.SHA256 || ce.Got == s.SHA256 || !strings.Contains(err.Error(), ce.Got) || !strings.Contains(err.Error(), ce.Want) {
		t.Errorf("error does not show both hashes: %v", err)
	}
}

func TestManifest(t *testing.T) {
	m, err := openapi.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	oa, ok := m.Lookup("openai")
	if !ok {
		t.Fatal("no openai spec")
	}
	for _, op := range []string{"POST /responses", "GET /responses/{response_id}", "DELETE /responses/{response_id}", "GET /responses/{response_id}/input_items", "POST /chat/completions",
		"POST /conversations", "GET /conversations/{conversation_id}", "POST /conversations/{conversation_id}", "DELETE /conversations/{conversation_id}",
		"GET /conversations/{conversation_id}/items", "POST /conversations/{conversation_id}/items",
		"GET /conversations/{conversation_id}/items/{item_id}", "DELETE /conversations/{conversation_id}/items/{item_id}"} {
		if !slices.Contains(oa.Operations, op) {
			t.Errorf("openai: %s not kept", op)
		}
	}
	if _, err := openapi.ParseManifest([]byte("specs:\n  - name: x\n")); err == nil {
		t.Error("incomplete manifest accepted")
	}
	upper := "specs:\n  - {name: x, file: x.yaml, url: u, package: x, output: gen/x, operations: [GET /x], sha256: " + strings.Repeat("A", 64) + "}\n"
	// Derived dialects: from a spec with a chat operation, each named once,
	// each with its overlay and table; their specs are their base's file,
	// pin and overlay with theirs after.
	ds, ok := m.Lookup("openai")
	if d := m.Derived(); !ok || len(d) == 0 || d[0].File != ds.File || d[0].SHA256 != ds.SHA256 || d[0].Overlay != ds.Overlay || d[0].Extra == "" || !slices.Equal(d[0].Operations, []string{openapi.DialectOperation}) {
		t.Errorf("derived: %+v", m.Derived())
	}
	spec := "specs:\n  - {name: x, file: x.yaml, url: u, package: x, output: gen/x, operations: [POST /chat/completions], sha256: " + strings.Repeat("a", 64) + "}\n"
	for bad, want := range map[string]string{
		"dialects:\n  - {name: d, base: y, overlay: o.yaml, tables: t.go, dialect: D}\n": `no spec "y"`,
		"dialects:\n  - {name: d, base: x, tables: t.go, dialect: D}\n":                  "are required",
		"dialects:\n  - {name: x, base: x, overlay: o.yaml, tables: t.go, dialect: D}\n": "listed twice",
	} {
		if _, err := openapi.ParseManifest([]byte(spec + bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", bad, err, want)
		}
	}
	noChat := strings.Replace(spec, "POST /chat/completions", "POST /responses", 1)
	if _, err := openapi.ParseManifest([]byte(noChat + "dialects:\n  - {name: d, base: x, overlay: o.yaml, tables: t.go, dialect: D}\n")); err == nil || !strings.Contains(err.Error(), "has no POST /chat/completions") {
		t.Errorf("a dialect of a spec without chat: %v", err)
	}
	if _, err := openapi.ParseManifest([]byte(upper)); err == nil || !strings.Contains(err.Error(), "hex") {
		t.Errorf("upper-case pin accepted: %v", err)
	}
}

// A request body written inline and without a type, as OpenAI writes
// POST /conversations/{conversation_id}/items ({"items": […]}), becomes a
// component (inline-bodies) and an object (object-type): a Go struct, and
// the codec's payload root. Without the rules the shape tables refuse the
// inline schema and ogen makes it jx.Raw.
func TestInlineUntypedBody(t *testing.T) {
	const doc = `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
		"paths": {"/conversations/{conversation_id}/items": {"post": {"operationId": "createConversationItems",
			"parameters": [{"in": "path", "name": "conversation_id", "required": true, "schema": {"type": "string"}}],
			"requestBody": {"required": true, "content": {"application/json": {"schema": {"required": ["items"],
				"properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}}}}}},
			"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}}}}}},
		"components": {"schemas": {"Item": {"type": "object", "properties": {"id": {"type": "string"}}}}}}`
	s := openapi.Spec{Name: "t", File: "t.json", Package: "t", Output: "gen/t", Tables: "codec/t_tables_gen.go", Dialect: "T",
		Operations: []string{"POST /conversations/{conversation_id}/items"}}
	g, err := openapi.Generate(s, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if typ, ok := g.GoType("CreateConversationItemsRequest"); !ok || typ != "CreateConversationItemsRequest" {
		t.Errorf("the body's Go type: %q, %v", typ, ok)
	}
	if src := string(g.Files["oas_schemas_gen.go"]); !strings.Contains(src, "type CreateConversationItemsRequest struct {") {
		t.Errorf("the body is not a struct:\n%s", src)
	}
	if len(g.Tables) == 0 {
		t.Fatal("no Go table")
	}
	// The table's entries by name: its JSON form (the Go one holds offsets).
	js, err := openapi.TablesJSON(s, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var tab struct {
		Components [][2]any `json:"components"`
		Schemas    []struct {
			Name  string   `json:"name"`
			Kind  string   `json:"kind"`
			Props [][3]any `json:"props"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal(js, &tab); err != nil {
		t.Fatal(err)
	}
	idx := -1
	for _, c := range tab.Components {
		if c[0] == "CreateConversationItemsRequest" {
			idx = int(c[1].(float64))
		}
	}
	if idx < 0 {
		t.Fatalf("no component in the tables:\n%s", js)
	}
	if !strings.Contains(string(g.Tables), "ConversationItemsCreateRequest: "+strconv.Itoa(idx)+",") {
		t.Errorf("ConversationItemsCreateRequest is not the body's schema %d:\n%s", idx, g.Tables)
	}
	if e := tab.Schemas[idx]; e.Name != "CreateConversationItemsRequest" || e.Kind != "kindObject" || len(e.Props) == 0 || e.Props[0][0] != "items" {
		t.Errorf("the body's table entry is not an object with items: %+v", e)
	}
}

// requiredOf lists the keys a schema requires, its allOf parts' included,
// and those of X in a nullable X (anyOf [X, null], which the normalizer
// makes X with null allowed).
func requiredOf(s *openapi3.Schema, depth int) []string {
	out := slices.Clone(s.Required)
	for _, p := range s.AllOf {
		if p.Value != nil && depth < 16 {
			out = append(out, requiredOf(p.Value, depth+1)...)
		}
	}
	var nonNull []*openapi3.SchemaRef
	for _, v := range append(slices.Clone(s.AnyOf), s.OneOf...) {
		if v.Value != nil && !(v.Value.Type != nil && v.Value.Type.Is(openapi3.TypeNull)) {
			nonNull = append(nonNull, v)
		}
	}
	if len(nonNull) == 1 && nonNull[0].Ref == "" && depth < 16 { // (a single $ref is an alias: its target is compared itself)
		out = append(out, requiredOf(nonNull[0].Value, depth+1)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// specRequiredOf lists the keys x-spec-required keeps for a normalized
// schema, its allOf parts' included (as the codec's table generator reads them).
func specRequiredOf(t *testing.T, s *openapi3.Schema, depth int) []string {
	var out []string
	switch list := s.Extensions["x-spec-required"].(type) {
	case []string:
		out = slices.Clone(list)
	case nil:
	default:
		t.Fatalf("x-spec-required is %T", list)
	}
	for _, p := range s.AllOf {
		if p.Value != nil && depth < 16 {
			out = append(out, specRequiredOf(t, p.Value, depth+1)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The normalizer relaxes required lists and keeps the originals in
// x-spec-required: what the codec's tables (and so the conformance
// checker) call "required by the spec". For every schema the pinned spec
// and the normalized one share (not merged by the normalizer), the two
// lists are the same (allOf parts' lists included).
func TestSpecRequiredKept(t *testing.T) {
	dir := specsDir(t)
	for _, g := range generateOnce(t) {
		data, err := g.Spec.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		l := openapi3.NewLoader()
		raw, err := l.LoadFromData(data)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for name, ref := range g.Doc.Components.Schemas {
			orig := raw.Components.Schemas[name]
			if ref.Value == nil || orig == nil || orig.Value == nil || ref.Value.Extensions["x-merged-from"] != nil {
				continue
			}
			want := requiredOf(orig.Value, 0)
			got := specRequiredOf(t, ref.Value, 0)
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%s %s: x-spec-required %v, the spec's required %v", g.Spec.Name, name, got, want)
			}
			checked++
		}
		if checked < 300 {
			t.Errorf("%s: only %d schemas compared", g.Spec.Name, checked)
		}
	}
}
