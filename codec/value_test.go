package codec_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

// generic builds what encoding/json (UseNumber) would make of a value,
// through the Value API only.
func generic(t testing.TB, v codec.Value) any {
	switch v.Kind() {
	case codec.Object:
		m := map[string]any{}
		for k, mv := range v.Members() {
			m[k.String()] = generic(t, mv)
		}
		return m
	case codec.Array:
		a := []any{}
		for i, e := range v.Elems() {
			if i != len(a) {
				t.Fatalf("index %d after %d elements", i, len(a))
			}
			a = append(a, generic(t, e))
		}
		return a
	case codec.String:
		s, _ := v.Str()
		return s
	case codec.Number:
		return json.Number(v.Raw())
	case codec.Bool:
		b, _ := v.Bool()
		return b
	case codec.Null:
		return nil
	}
	t.Fatalf("a value of kind %v", v.Kind())
	return nil
}

func viaJSON(t testing.TB, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Reading a payload through Values gives what encoding/json reads, for
// every recorded payload and benchmark fixture.
func TestValuesReadWhatJSONReads(t *testing.T) {
	payloads := append(must(fixtures.Corpus(shared(t))), must(fixtures.Bench(shared(t)))...)
	payloads = append(payloads, forward(t)...)
	var doc codec.Doc
	for _, p := range payloads {
		r, _ := codec.OpenAI.Payload(p.Kind)
		if err := doc.Decode(r, p.Data); err != nil {
			t.Fatal(err)
		}
		if got, want := generic(t, doc.Value()), viaJSON(t, p.Data); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read differently", p.Name)
		}
		for n := range doc.Nodes() {
			if !bytes.Equal(n.Value().Raw(), n.Raw()) {
				t.Errorf("%s: node %s", p.Name, n.Path())
			}
		}
	}
}

func TestValueAccessors(t *testing.T) {
	body := ` {"model":"m\u00e9","max_output_tokens":100,"temperature":0.5,"stream":true,"user":null,` +
		`"metadata":{"a\"b":"x"},"input":[{"role":"user","content":"hi \"there\""},{"type":"function_call_output","call_id":"c","output":"[1,2]"}]} `
	r, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	doc, err := codec.Decode(r, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	root := doc.Value()
	if s, ok := root.Get("model").Str(); !ok || s != "mé" {
		t.Errorf("model %q", s)
	}
	if string(root.Get("model").Raw()) != `"m\u00e9"` {
		t.Errorf("raw model %s", root.Get("model").Raw())
	}
	// IsStr: an escaped string is compared by its value; another kind is
	// no string; a plain one allocates nothing.
	if m := root.Get("model"); !m.IsStr("mé") || m.IsStr(`m\u00e9`) || m.IsStr("m") {
		t.Errorf("IsStr of %s", m.Raw())
	}
	if root.Get("max_output_tokens").IsStr("100") || root.Get("user").IsStr("null") || root.Get("absent").IsStr("") {
		t.Error("IsStr of a value that is no string")
	}
	role := root.Get("input")
	for _, e := range role.Elems() {
		role = e.Get("role")
		break
	}
	if a := testing.AllocsPerRun(10, func() {
		if !role.IsStr("user") {
			t.Fatal("role is not user")
		}
	}); a != 0 {
		t.Errorf("IsStr of a plain string: %v allocations", a)
	}
	if n, ok := root.Get("max_output_tokens").Int(); !ok || n != 100 {
		t.Errorf("max_output_tokens %d", n)
	}
	if f, ok := root.Get("temperature").Float(); !ok || f != 0.5 {
		t.Errorf("temperature %v", f)
	}
	if _, ok := root.Get("temperature").Int(); ok {
		t.Error("0.5 read as an integer")
	}
	if b, ok := root.Get("stream").Bool(); !ok || !b {
		t.Error("stream")
	}
	if k := root.Get("user").Kind(); k != codec.Null {
		t.Errorf("user is %v", k)
	}
	if v := root.Get("absent"); v.Exists() || v.Kind() != codec.Invalid || v.Raw() != nil {
		t.Errorf("absent: %v", v.Kind())
	}
	if s, _ := root.Get("metadata").Get(`a"b`).Str(); s != "x" {
		t.Errorf("escaped key: %q", s)
	}
	var contents []string
	for _, it := range root.Get("input").Elems() {
		if c := it.Get("content"); c.Exists() {
			s, _ := c.Str()
			contents = append(contents, s)
		}
		if o := it.Get("output"); o.Exists() {
			contents = append(contents, string(o.Raw()))
		}
	}
	if !reflect.DeepEqual(contents, []string{`hi "there"`, `"[1,2]"`}) {
		t.Errorf("contents %q", contents)
	}
	if doc.Node(1).Value().Get("call_id").Kind() != codec.String {
		t.Error("node value")
	}
	if root.Get("input").Get("x").Exists() || len(root.Get("model").Raw()) == 0 {
		t.Error("Get on an array")
	}
}

// Present is Kind() > Null: for every kind, and for a value that is not
// there.
func TestValuePresent(t *testing.T) {
	v, ok := codec.Parse([]byte(`{"o":{},"a":[],"s":"","n":0,"t":true,"f":false,"z":null}`))
	if !ok {
		t.Fatal("not JSON")
	}
	for _, k := range []string{"o", "a", "s", "n", "t", "f", "z", "absent"} {
		m := v.Get(k)
		if m.Present() != (m.Kind() > codec.Null) {
			t.Errorf("%s: Present %v, Kind %v", k, m.Present(), m.Kind())
		}
	}
	if (codec.Value{}).Present() {
		t.Error("the zero Value is present")
	}
}

// Int reads small numbers itself and leaves the rest to strconv: both
// give what strconv.ParseInt gives.
func TestValueInt(t *testing.T) {
	for _, raw := range []string{"0", "7", "12", "999", "9999", "10000", "123456789012", "-1", "-0", "1.5", "1e3", "1E3", "-9999", "9223372036854775807", "9223372036854775808"} {
		v, ok := codec.Parse([]byte(raw))
		if !ok {
			t.Fatalf("%s: not JSON", raw)
		}
		n, ok := v.Int()
		want, err := strconv.ParseInt(raw, 10, 64)
		if ok != (err == nil) || ok && n != want {
			t.Errorf("%s: Int %d %v, strconv %d %v", raw, n, ok, want, err)
		}
	}
}
