package codec

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Findings and nodes deep in a payload share their paths' steps: a
// request nested nearly MaxDepth deep (file search filters refer to
// themselves) with many unknown keys at the bottom records each step once,
// not once per finding.
func TestPathsShareSteps(t *testing.T) {
	const depth, keys = 400, 2000
	var b strings.Builder
	b.WriteString(`{"tools":[{"type":"file_search","vector_store_ids":[],"filters":`)
	for range depth {
		b.WriteString(`{"type":"and","filters":[`)
	}
	b.WriteString(`{"type":"eq","key":"k","value":1`)
	for i := range keys {
		b.WriteString(`,"x` + strconv.Itoa(i) + `":0`)
	}
	b.WriteString("}")
	for range depth {
		b.WriteString("]}")
	}
	b.WriteString("}]}")
	r, _ := OpenAI.Payload(ResponsesRequest)
	d, err := Decode(r, []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(d.Findings()); got != keys {
		t.Fatalf("%d findings, want %d", got, keys)
	}
	// The filters' path: tools[0].filters, then .filters[0] per level.
	if steps := len(d.segs); steps > 2*depth+keys+10 {
		t.Errorf("%d path steps recorded for %d findings %d deep", steps, keys, depth)
	}
	want := "tools[0].filters" + strings.Repeat(".filters[0]", depth) + ".x1999"
	if got := d.Findings()[keys-1].Path(); got != want {
		t.Errorf("path %.80s…, want %.80s…", got, want)
	}
	if d.Len() != depth+2 { // the tool and every filter
		t.Errorf("%d nodes", d.Len())
	}
	if p := d.Node(depth + 1).Path(); p != "tools[0].filters"+strings.Repeat(".filters[0]", depth) {
		t.Errorf("innermost node at %.80s…", p)
	}
}

// Paths and errors name keys; they do not echo a long one whole.
func TestLongKeysClipped(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	r, _ := OpenAI.Payload(ResponsesRequest)
	d, err := Decode(r, []byte(`{"`+long+`":1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `["` + strings.Repeat("é", 32) + `…"]`
	if p := d.Findings()[0].Path(); p != want {
		t.Errorf("path %s, want %s", p, want)
	}
	if n := d.Findings()[0].Name(); n != long {
		t.Errorf("the name is clipped: %s", n)
	}
	_, err = Decode(r, []byte(`{"`+long+`":1,"`+long+`":2}`))
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "…") {
		t.Errorf("error %q", err)
	}
	_, err = Decode(r, []byte(`{"`+long+`":[tru]}`))
	if se, ok := err.(*SyntaxError); !ok || se.Path != want+"[0]" {
		t.Errorf("error %v", err)
	}
}

// Objects with more than 64 properties keep their seen-keys bitset in
// several words: the duplicate check and the required check work across
// them. (No spec object is that large yet.)
func TestManyProperties(t *testing.T) {
	const n = 70
	text := "BigBig/properties/*"
	d := &Dialect{name: "test", tables: tables{schemas: []schema{{name: ref{0, 3}, kind: kindObject, mask: mObject, props: ref{0, n}}, {name: ref{3, 16}, kind: kindScalar, mask: mInteger}}}}
	for i := range n {
		d.props = append(d.props, prop{key: ref{int32(len(text)), 4}, schema: 1, required: i == 69})
		text += fmt.Sprintf("p%03d", i)
	}
	d.text = text
	d.schemas[0].nreq = 1
	root := Root{d, 0}
	var all []string
	for i := range n {
		all = append(all, fmt.Sprintf(`"p%03d":%d`, i, i))
	}
	doc, err := Decode(root, []byte("{"+strings.Join(all, ",")+"}"))
	if err != nil || len(doc.Findings()) != 0 {
		t.Fatalf("%v %v", err, doc.Findings())
	}
	if _, err := Decode(root, []byte(`{"p069":1,"p001":2,"p069":3}`)); err == nil || !strings.Contains(err.Error(), `duplicate key "p069"`) {
		t.Errorf("a repeated 70th key: %v", err)
	}
	doc, err = Decode(root, []byte(`{"p001":1,"p068":2}`))
	if err != nil || len(doc.Findings()) != 1 || doc.Findings()[0].Path() != "p069" {
		t.Errorf("the missing 70th key: %v %v", err, doc.Findings())
	}
}
