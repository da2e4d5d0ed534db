package codec_test

import (
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
