package codec_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// A table in JSON decodes payloads as the compiled ones do (the matrix
// test in cmd/transponder checks a whole normalized spec against the
// compiled table); a malformed one is an error naming what is wrong.
func TestLoadDialect(t *testing.T) {
	// One payload of the 13: the others are -1 (none).
	table := `{"name":"tiny","spec":"tiny.yaml","payloads":[0` + strings.Repeat(",-1", 12) + `],"components":[["Req",0]],"schemas":[
		{"name":"Req","kind":"kindObject","mask":["mObject"],"props":[["model",1,true],["n",2,false]],"values":null},
		{"name":"Req/model","kind":"kindScalar","mask":["mString"],"values":["a","b"]},
		{"name":"Req/n","kind":"kindScalar","mask":["mInteger","mNull"],"values":null}]}`
	d, err := codec.LoadDialect([]byte(table))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "tiny" || d.Spec() != "tiny.yaml" {
		t.Errorf("%s %s", d.Name(), d.Spec())
	}
	r, ok := d.Payload(codec.ResponsesRequest)
	if !ok {
		t.Fatal("no request payload")
	}
	doc, err := codec.Decode(r, []byte(`{"model":"c","x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range doc.Findings() {
		kinds = append(kinds, f.Kind.String()+" "+f.Path())
	}
	if got := strings.Join(kinds, ", "); got != "unknown value model, unknown field x" {
		t.Errorf("findings: %s", got)
	}
	if _, ok := d.Payload(codec.ChatBody); ok {
		t.Error("a payload the table does not have")
	}
	for _, c := range []struct{ table, want string }{
		{`{`, "codec: a dialect's table"},
		{strings.Replace(table, `"kindScalar"`, `"kindWeird"`, 1), `schema 1: kind "kindWeird"`},
		{strings.Replace(table, `"mNull"`, `"mMaybe"`, 1), `schema 2: mask "mMaybe"`},
		{strings.Replace(table, `["model",1,true]`, `["model",9,true]`, 1), `schema 0: property "model"`},
		{strings.Replace(table, `[0,-1`, `[7,-1`, 1), `payload 0: schema 7 of 3`},
		{strings.Replace(table, `[0`+strings.Repeat(",-1", 12)+`]`, `[0,-1,-1,-1,-1,-1]`, 1), `6 payloads, want 13`},
		{strings.Replace(table, `["model",1,true],["n",2,false]`, `["n",2,false],["model",1,true]`, 1), `properties not sorted by key at "model"`},
		{strings.Replace(table, `"mask":["mString"]`, `"mask":[]`, 1), `schema 1: no mask`},
	} {
		if _, err := codec.LoadDialect([]byte(c.table)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40s…: %v, want %q", c.table, err, c.want)
		}
	}
}

// A Doc's hints (props.go) are of the schema they were found in: after an
// object of another schema at the same depth, or of another table, a key
// is read as a fresh Doc reads it, whatever the keys of the schemas are
// (these have a quote, a backslash and a tab in them).
func TestHintsAcrossSchemas(t *testing.T) {
	// Table one has A at 0 and B at 1, table two the other way round.
	const (
		schemaA = `{"name":"A","kind":"kindObject","mask":["mObject"],"props":[["ab",2,false],["cd",2,false]]}`
		schemaB = `{"name":"B","kind":"kindObject","mask":["mObject"],"props":[["a\tb",2,false],["a\"b",2,false],["a\\b",2,false]]}`
		schemaN = `{"name":"N","kind":"kindScalar","mask":["mInteger"]}`
	)
	one, err := codec.LoadDialect([]byte(`{"name":"one","spec":"s.yaml","payloads":[0,-1,-1,1` + strings.Repeat(",-1", 9) +
		`],"components":[["A",0],["B",1]],"schemas":[` + schemaA + `,` + schemaB + `,` + schemaN + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	two, err := codec.LoadDialect([]byte(`{"name":"two","spec":"s.yaml","payloads":[1,-1,-1,0` + strings.Repeat(",-1", 9) +
		`],"components":[["A",1],["B",0]],"schemas":[` + schemaB + `,` + schemaA + `,` + schemaN + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := one.Payload(codec.ResponsesRequest)
	b, _ := one.Payload(codec.ChatRequest)
	b2, _ := two.Payload(codec.ChatRequest)
	var reused codec.Doc
	for _, step := range []struct {
		root codec.Root
		data string
	}{
		{a, `{"ab":1,"cd":2}`}, {b, `{"a\b":1}`},
		{a, `{"ab":1,"cd":2}`}, {b, `{"a"b":1}`},
		{a, `{"ab":1,"cd":2}`}, {b, "{\"a\tb\":1}"},
		{a, `{"ab":1,"cd":2}`}, {b, `{"a\tb":1,"a\"b":2,"a\\b":3}`},
		{b, `{"a\tb":1,"a\"b":2,"a\\b":3}`}, {b2, `{"a\tb":1,"a\"b":2,"a\\b":3}`},
		{b2, `{"ab":1,"cd":2}`}, {a, `{"a\tb":1,"a\"b":2}`},
		{a, `{"ab":1,"cd":2}`}, {b2, "{\"a\tb\":1}"}, // B is at A's index in table two
		{a, `{"ab":1,"cd":2}`}, {b2, `{"a"b":1}`},
	} {
		errReused := reused.Decode(step.root, []byte(step.data))
		fresh, errFresh := codec.Decode(step.root, []byte(step.data))
		if fmt.Sprint(errReused) != fmt.Sprint(errFresh) {
			t.Fatalf("%s: reused Doc: %v; fresh Doc: %v", step.data, errReused, errFresh)
		}
		if errFresh != nil {
			continue
		}
		if got, want := summary(&reused), summary(fresh); !slices.Equal(got, want) {
			t.Fatalf("%s: the reused Doc reports\n%s\nwant\n%s", step.data, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A key compared with the hint's (as bytes, not scanned): every key one
// byte off the hint's, a byte more or less, or at the payload's end is
// found as a fresh Doc finds it.
func TestHintsKeyLengths(t *testing.T) {
	keys := []string{"a", "ab", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghijklmnopqrst"}
	var props []string
	for _, k := range keys {
		props = append(props, `["`+k+`",1,false]`)
	}
	d, err := codec.LoadDialect([]byte(`{"name":"k","spec":"s.yaml","payloads":[0` + strings.Repeat(",-1", 12) +
		`],"components":[["K",0]],"schemas":[{"name":"K","kind":"kindObject","mask":["mObject"],"props":[` + strings.Join(props, ",") +
		`]},{"name":"N","kind":"kindScalar","mask":["mInteger"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := d.Payload(codec.ResponsesRequest)
	var reused codec.Doc
	for _, k := range keys {
		variants := []string{k, k + "x", k[:len(k)-1], "x" + k}
		for i := range k {
			variants = append(variants, k[:i]+"z"+k[i+1:])
		}
		for _, v := range variants {
			for _, data := range []string{`{"` + v + `":1}`, `{"` + v + `":1,"` + k + `":2}`, `{"` + v + `" :1}`, `{"` + v + `"`} {
				decodesAsFresh(t, &reused, root, `{"`+k+`":1}`, data) // the hint: k first
			}
		}
	}
}

// decodesAsFresh decodes data with reused after hint (what the hints
// learn) and checks that it reports what a fresh Doc does.
func decodesAsFresh(t *testing.T, reused *codec.Doc, root codec.Root, hint, data string) {
	t.Helper()
	if err := reused.Decode(root, []byte(hint)); err != nil {
		t.Fatal(err)
	}
	errReused := reused.Decode(root, []byte(data))
	fresh, errFresh := codec.Decode(root, []byte(data))
	if fmt.Sprint(errReused) != fmt.Sprint(errFresh) {
		t.Fatalf("%s after %s: reused Doc: %v; fresh Doc: %v", data, hint, errReused, errFresh)
	}
	if errFresh != nil {
		return
	}
	if got, want := summary(reused), summary(fresh); !slices.Equal(got, want) {
		t.Fatalf("%s after %s: the reused Doc reports\n%s\nwant\n%s", data, hint, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An object of more than 64 properties: the first 64 seen are kept in a
// word of the walk, the others in the decoder's stack of words, nested
// objects of the same schema each with their own. A repeated property and
// a missing required one are found on either side of 64, and at each
// level.
func TestManyProperties(t *testing.T) {
	var props []string
	for i := range 130 {
		required := i == 1 || i == 70 || i == 129
		schema := 1 // an integer
		if i == 0 {
			schema = 0 // the object itself
		}
		props = append(props, fmt.Sprintf(`["p%03d",%d,%t]`, i, schema, required))
	}
	d, err := codec.LoadDialect([]byte(`{"name":"m","spec":"s.yaml","payloads":[0` + strings.Repeat(",-1", 12) +
		`],"components":[["M",0]],"schemas":[{"name":"M","kind":"kindObject","mask":["mObject"],"props":[` + strings.Join(props, ",") +
		`]},{"name":"N","kind":"kindScalar","mask":["mInteger"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := d.Payload(codec.ResponsesRequest)
	const all = `"p001":1,"p070":1,"p129":1`
	for _, c := range []struct{ data, want string }{
		{`{` + all + `,"p000":{` + all + `}}`, ""},
		{`{"p001":1,"p000":{"p070":1}}`, "p000.p001: missing p001; p000.p129: missing p129; p070: missing p070; p129: missing p129"},
		{`{` + all + `,"p003":1,"p003":2}`, `duplicate "p003"`},
		{`{` + all + `,"p100":1,"p100":2}`, `duplicate "p100"`},
		{`{` + all + `,"p100":1,"p000":{` + all + `,"p100":1}}`, ""},
		{`{` + all + `,"p000":{` + all + `,"p100":1,"p100":2}}`, `duplicate "p100"`},
		{`{"p000":{` + all + `},` + all + `,"p000":{}}`, `duplicate "p000"`},
		// a property past 64 is not taken for the one 64 (or 128) before it
		{`{"p065":1,"p001":1,"p070":1,"p129":1}`, ""},
		{`{"p065":1,"p070":1,"p129":1}`, "p001: missing p001"},
		{`{"p128":1,"p000":{` + all + `},` + all + `}`, ""},
	} {
		var reused codec.Doc
		for _, doc := range []func() (*codec.Doc, error){
			func() (*codec.Doc, error) { return codec.Decode(root, []byte(c.data)) },
			func() (*codec.Doc, error) { return &reused, reused.Decode(root, []byte(c.data)) },
		} {
			doc, err := doc()
			var got []string
			if err != nil {
				if !errors.Is(err, codec.ErrDuplicateKey) {
					t.Fatalf("%s: %v", c.data, err)
				}
				got = append(got, "duplicate "+err.Error()[strings.LastIndex(err.Error(), `"p`):])
			} else {
				for _, f := range doc.Findings() {
					if f.Kind != codec.MissingField {
						t.Fatalf("%s: %v", c.data, f)
					}
					p := f.Path()
					if p != "" {
						p += ": "
					}
					got = append(got, p+"missing "+f.Name())
				}
			}
			if g := strings.Join(got, "; "); g != c.want {
				t.Errorf("%s: %q, want %q", c.data, g, c.want)
			}
		}
	}
}

// A key the schema does not declare is remembered at its place too (an
// upstream's extra, in each chunk): every key one byte off it, a byte more
// or less, at the payload's end, or repeated is found as a fresh Doc finds
// it, for keys up to a word long and past it.
func TestHintsUndeclared(t *testing.T) {
	d, err := codec.LoadDialect([]byte(`{"name":"u","spec":"s.yaml","payloads":[0` + strings.Repeat(",-1", 12) +
		`],"components":[["U",0]],"schemas":[{"name":"U","kind":"kindObject","mask":["mObject"],"props":[["a",1,false]]},{"name":"N","kind":"kindScalar","mask":["mInteger"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := d.Payload(codec.ResponsesRequest)
	var reused codec.Doc
	for _, k := range []string{"b", "provider", "provide", "providers", "pro\u00e9"} {
		variants := []string{k, k + "x", k[:len(k)-1], "x" + k, "a"}
		for i := range k {
			variants = append(variants, k[:i]+"z"+k[i+1:])
		}
		for _, v := range variants {
			for _, data := range []string{`{"` + v + `":1}`, `{"` + v + `":1,"` + k + `":2}`, `{"` + v + `":1,"` + v + `":2}`, `{"` + v + `" :1}`, `{"` + v + `"`, `{"` + v + `":1,"a":2}`} {
				decodesAsFresh(t, &reused, root, `{"`+k+`":1,"a":1}`, data) // the hint: k first
			}
		}
	}
}

// Doc.Quiet takes the top-level keys of a payload whose schema declares
// none too (an object of no properties), not those of the objects in it.
func TestQuietWithoutProperties(t *testing.T) {
	d, err := codec.LoadDialect([]byte(`{"name":"q","spec":"s.yaml","payloads":[0` + strings.Repeat(",-1", 12) +
		`],"components":[["Q",0]],"schemas":[{"name":"Q","kind":"kindObject","mask":["mObject"],"open":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := d.Payload(codec.ResponsesRequest)
	var doc codec.Doc
	doc.Quiet(func(key []byte) bool { return string(key) == "x" })
	if err := doc.Decode(root, []byte(`{"x":{"x":1},"y":2}`)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range doc.Findings() {
		got = append(got, f.Path())
	}
	if want := []string{"y"}; !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}
