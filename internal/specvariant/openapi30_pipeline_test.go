package specvariant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/openapi"
)

// The pinned OpenAI spec rendered as OpenAPI 3.0 goes through the pipeline
// and gives what the 3.1 original gives: the same Go types and code (doc
// comments aside: a description 3.1 writes beside an anyOf is the
// property's own in 3.0, so ogen prints it) and the same shape table, up to
// how a nullable scalar is written: 3.1's anyOf [{type: string}, {type:
// null}] is a union of two scalars in the table, 3.0's nullable string one
// scalar taking null; the codec reads both alike (see tableEqual).
func TestPinnedSpecOpenAI30Generates(t *testing.T) {
	s, data := pinnedSpec(t, "openai")
	rendered, err := OpenAPI30(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := openapi.Generate(s, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := openapi.Generate(s, rendered)
	if err != nil {
		t.Fatalf("the 3.0 rendering: %v", err)
	}
	if !maps.Equal(got.Types, want.Types) {
		t.Errorf("Go types differ:\n got %v\nwant %v", got.Types, want.Types)
	}
	for _, name := range slices.Sorted(maps.Keys(want.Files)) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		g, w := withoutComments(t, name, got.Files[name]), withoutComments(t, name, want.Files[name])
		if !bytes.Equal(g, w) {
			t.Errorf("%s differs beyond comments", name)
		}
	}
	if len(got.Files) != len(want.Files) {
		t.Errorf("files: got %d, want %d", len(got.Files), len(want.Files))
	}
	// The 3.0 forms are what the report says was rewritten.
	fired := map[string]int{}
	for _, r := range got.Rules.Rules {
		fired[r.Name] = len(r.Hits)
	}
	for _, rule := range []string{"ref-allof", "nullable-keyword"} {
		if fired[rule] == 0 {
			t.Errorf("rule %s did not fire on the 3.0 rendering", rule)
		}
	}

	wantTable, err := openapi.TablesJSON(s, data)
	if err != nil {
		t.Fatal(err)
	}
	gotTable, err := openapi.TablesJSON(s, rendered)
	if err != nil {
		t.Fatal(err)
	}
	if err := tableEqual(gotTable, wantTable); err != nil {
		t.Error(err)
	}
}

func withoutComments(t *testing.T, name string, src []byte) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		t.Fatal(err)
	}
	// The printer keeps the lines the comments took, and a comment line
	// ends a block of aligned struct fields: drop empty lines, and compare
	// each line's words.
	var out []byte
	for line := range bytes.Lines(buf.Bytes()) {
		if words := bytes.Fields(line); len(words) > 0 {
			out = append(append(out, bytes.Join(words, []byte(" "))...), '\n')
		}
	}
	return out
}

// table is the JSON shape table (openapi.TablesJSON).
type table struct {
	Payloads   []int32  `json:"payloads"`
	Components [][2]any `json:"components"`
	Schemas    []entry  `json:"schemas"`
}

type entry struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Mask     []string `json:"mask"`
	Props    [][3]any `json:"props"`
	Open     bool     `json:"open"`
	Nonull   bool     `json:"nonull"`
	Items    int32    `json:"items"`
	Values   []string `json:"values"`
	Alts     []int32  `json:"alts"`
	Tag      string   `json:"tag"`
	Dflt     int32    `json:"dflt"`
	Cases    [][2]any `json:"cases"`
	Untagged []int32  `json:"untagged"`
}

// tableEqual compares two shape tables as graphs, from each component and
// payload: same kinds, masks, values, keys, tags and cases, and the same
// shapes below them; the indexes and the names of inline entries may differ.
// A union of scalars with at most one enum (anyOf [{type: string, enum},
// {type: null}]) is compared as the one scalar its mask says (type: string,
// nullable: true): the codec checks a scalar's JSON kind against the mask
// and a string against the values either way.
func tableEqual(gotJSON, wantJSON []byte) error {
	var got, want table
	if err := json.Unmarshal(gotJSON, &got); err != nil {
		return err
	}
	if err := json.Unmarshal(wantJSON, &want); err != nil {
		return err
	}
	c := &tableCmp{a: &got, b: &want, seen: map[[2]int32]bool{}}
	if len(got.Components) != len(want.Components) {
		return fmt.Errorf("components: got %d, want %d", len(got.Components), len(want.Components))
	}
	for i := range want.Components {
		if got.Components[i][0] != want.Components[i][0] {
			return fmt.Errorf("component %d: got %v, want %v", i, got.Components[i][0], want.Components[i][0])
		}
		c.cmp(index(got.Components[i][1]), index(want.Components[i][1]), fmt.Sprint(want.Components[i][0]))
	}
	for i := range want.Payloads {
		c.cmp(got.Payloads[i], want.Payloads[i], fmt.Sprintf("payload %d", i))
	}
	if len(c.diffs) > 0 {
		return fmt.Errorf("shape tables differ (%d):\n%s", len(c.diffs), strings.Join(c.diffs, "\n"))
	}
	return nil
}

type tableCmp struct {
	a, b  *table
	seen  map[[2]int32]bool
	diffs []string
}

func index(v any) int32 { f, _ := v.(float64); return int32(f) }

// canon returns the entry, a union with null folded into the one entry it
// makes nullable, and a union of scalars into one scalar.
func (c *tableCmp) canon(t *table, i int32) entry {
	e := t.Schemas[i]
	if e.Kind != "kindAlts" || len(e.Alts) < 2 {
		return e
	}
	var rest []int32
	for _, a := range e.Alts {
		if alt := t.Schemas[a]; alt.Kind != "kindScalar" || !slices.Equal(alt.Mask, []string{"mNull"}) || alt.Values != nil {
			rest = append(rest, a)
		}
	}
	if len(rest) == 1 && len(rest) < len(e.Alts) {
		one := c.canon(t, rest[0])
		one.Name, one.Mask, one.Nonull = e.Name, e.Mask, e.Nonull
		return one
	}
	var values []string
	for _, a := range e.Alts {
		alt := t.Schemas[a]
		if alt.Kind != "kindScalar" {
			return e
		}
		if alt.Values != nil {
			if values != nil {
				return e
			}
			values = alt.Values
		}
	}
	return entry{Name: e.Name, Kind: "kindScalar", Mask: e.Mask, Nonull: e.Nonull, Values: values}
}

func (c *tableCmp) cmp(ai, bi int32, path string) {
	if c.seen[[2]int32{ai, bi}] || len(c.diffs) > 20 {
		return
	}
	c.seen[[2]int32{ai, bi}] = true
	a, b := c.canon(c.a, ai), c.canon(c.b, bi)
	diff := func(what string, got, want any) {
		c.diffs = append(c.diffs, fmt.Sprintf("%s (%s / %s): %s: got %v, want %v", path, a.Name, b.Name, what, got, want))
	}
	if a.Kind != b.Kind {
		diff("kind", a.Kind, b.Kind)
		return
	}
	am, bm := slices.Sorted(slices.Values(a.Mask)), slices.Sorted(slices.Values(b.Mask))
	if !slices.Equal(am, bm) {
		diff("mask", am, bm)
	}
	if a.Open != b.Open || a.Nonull != b.Nonull || a.Tag != b.Tag {
		diff("open/nonull/tag", []any{a.Open, a.Nonull, a.Tag}, []any{b.Open, b.Nonull, b.Tag})
	}
	if !slices.Equal(a.Values, b.Values) || (a.Values == nil) != (b.Values == nil) {
		diff("values", a.Values, b.Values)
	}
	if len(a.Props) != len(b.Props) {
		diff("properties", len(a.Props), len(b.Props))
	} else {
		for k := range b.Props {
			if a.Props[k][0] != b.Props[k][0] || a.Props[k][2] != b.Props[k][2] {
				diff("property", a.Props[k], b.Props[k])
				continue
			}
			c.cmp(index(a.Props[k][1]), index(b.Props[k][1]), path+"."+fmt.Sprint(b.Props[k][0]))
		}
	}
	if len(a.Cases) != len(b.Cases) {
		diff("cases", len(a.Cases), len(b.Cases))
	} else {
		for k := range b.Cases {
			if a.Cases[k][0] != b.Cases[k][0] {
				diff("case", a.Cases[k][0], b.Cases[k][0])
				continue
			}
			c.cmp(index(a.Cases[k][1]), index(b.Cases[k][1]), path+"{"+fmt.Sprint(b.Cases[k][0])+"}")
		}
	}
	c.list("alts", a.Alts, b.Alts, path, diff)
	c.list("untagged", a.Untagged, b.Untagged, path, diff)
	if a.Kind == "kindArray" {
		c.cmp(a.Items, b.Items, path+"[]")
	}
	if a.Tag != "" && (a.Dflt > 0) == (b.Dflt > 0) && b.Dflt > 0 {
		c.cmp(a.Dflt, b.Dflt, path+"(default)")
	} else if (a.Dflt > 0) != (b.Dflt > 0) {
		diff("default variant", a.Dflt, b.Dflt)
	}
}

func (c *tableCmp) list(what string, a, b []int32, path string, diff func(string, any, any)) {
	if len(a) != len(b) {
		diff(what, len(a), len(b))
		return
	}
	for k := range b {
		c.cmp(a[k], b[k], fmt.Sprintf("%s|%s%d", path, what, k))
	}
}

// tableEqual takes a nullable scalar written either way and finds a
// changed enum, mask or key.
func TestTableEqual(t *testing.T) {
	const base = `{"payloads": [0,0,0,0,0,0], "components": [["A", 0]], "schemas": [
		{"name": "A", "kind": "kindObject", "mask": ["mObject"], "props": [["k", 1, true]]},
		%s]}`
	alts := fmt.Sprintf(base, `{"name": "A/k", "kind": "kindAlts", "mask": ["mString", "mNull"], "alts": [2, 3]},
		{"name": "A/k/anyOf/0", "kind": "kindScalar", "mask": ["mString"], "values": ["x"]},
		{"name": "A/k/anyOf/1", "kind": "kindScalar", "mask": ["mNull"], "values": null}`)
	for _, tc := range []struct {
		name, k string
		equal   bool
	}{
		{"nullable scalar", `{"name": "A/k", "kind": "kindScalar", "mask": ["mNull", "mString"], "values": ["x"]}`, true},
		{"other value", `{"name": "A/k", "kind": "kindScalar", "mask": ["mNull", "mString"], "values": ["y"]}`, false},
		{"not nullable", `{"name": "A/k", "kind": "kindScalar", "mask": ["mString"], "values": ["x"]}`, false},
		{"array", `{"name": "A/k", "kind": "kindArray", "mask": ["mArray", "mNull"], "items": 0, "values": null}`, false},
	} {
		err := tableEqual([]byte(fmt.Sprintf(base, tc.k)), []byte(alts))
		if (err == nil) != tc.equal {
			t.Errorf("%s: err %v, want equal %v", tc.name, err, tc.equal)
		}
	}
}
