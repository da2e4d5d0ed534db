package codec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContAt: a reused Doc finds each container by its offset (contAt,
// not cleared between Decodes) exactly as the search by halves does, at
// every offset of every payload, whatever the payloads before it left in
// contAt: the forward request cases one after another, and payloads whose
// containers move by a byte, or become strings, from one to the next.
func TestContAt(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "forward", "request-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no forward request cases: %v", err)
	}
	var inputs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	inputs = append(inputs,
		[]byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":"a"}]}],"metadata":{"a":"b"}}`),
		[]byte(`{"input":[{"role":"user" ,"content":[{"type":"input_text","text":"a"}]}],"metadata":{"a":"b"}}`),
		[]byte(`{"input":"[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\"}]}]","metadata":{}}`),
		[]byte(`{"model":"m","input":[{"role":"user","content":"`+strings.Repeat("x", maxContAt)+`"}]}`),
		[]byte(`{"input":[{"role":"user","content":[]}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}]}`),
	)
	r, _ := OpenAI.Payload(ResponsesRequest)
	var d Doc
	indexed := 0
	for n, data := range inputs {
		if err := d.Decode(r, data); err != nil {
			t.Fatalf("input %d: %v", n, err)
		}
		switch {
		case n == 0 && len(d.contAt) != 0:
			t.Fatal("a Doc's first Decode made contAt")
		case n > 0 && len(data) <= maxContAt && len(d.contAt) != len(data):
			t.Fatalf("input %d: contAt has %d entries for %d bytes", n, len(d.contAt), len(data))
		case len(data) > maxContAt && len(d.contAt) != 0:
			t.Fatalf("input %d: contAt kept for %d bytes", n, len(data))
		}
		if len(d.contAt) > 0 {
			indexed++
		}
		at := d.contAt
		for i := range len(data) + 1 {
			got := d.cont(int32(i))
			d.contAt = nil
			want := d.cont(int32(i))
			d.contAt = at
			if got != want {
				t.Fatalf("input %d, offset %d: contAt finds %v, the search %v", n, i, got, want)
			}
		}
	}
	if indexed < len(inputs)-2 {
		t.Fatalf("contAt was used for %d of %d payloads", indexed, len(inputs))
	}
}
