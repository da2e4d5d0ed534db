package codec

import (
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
