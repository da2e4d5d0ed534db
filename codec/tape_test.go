package codec_test

import (
	"bytes"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

// Members, Elems and Get read a decoded payload from the tape Decode
// records; they must read exactly what scanning the bytes reads (a Parse'd
// payload has no tape): every payload of the recorded corpus, in both
// dialects, each value compared down to the leaves.
func TestTapeReadsAsScanning(t *testing.T) {
	payloads, err := fixtures.Corpus(shared(t))
	if err != nil {
		t.Fatal(err)
	}
	var doc codec.Doc
	n := 0
	for _, d := range dialects {
		for _, p := range payloads {
			r, ok := d.Payload(p.Kind)
			if !ok {
				continue
			}
			if err := doc.Decode(r, p.Data); err != nil {
				t.Fatalf("%s %s: %v", d.Name(), p.Name, err)
			}
			scanned, ok := codec.Parse(p.Data)
			if !ok {
				t.Fatalf("%s: not JSON", p.Name)
			}
			n += sameValue(t, d.Name()+" "+p.Name, doc.Value(), scanned)
		}
	}
	if n == 0 {
		t.Fatal("no value compared")
	}
}

// sameValue compares a decoded value with the scanned one, recursively,
// and returns how many values it compared.
func sameValue(t *testing.T, path string, tape, scan codec.Value) int {
	t.Helper()
	if tape.Offset() != scan.Offset() || !bytes.Equal(tape.Raw(), scan.Raw()) {
		t.Errorf("%s: %q at %d, scanning reads %q at %d", path, tape.Raw(), tape.Offset(), scan.Raw(), scan.Offset())
		return 1
	}
	n := 1
	switch tape.Kind() {
	case codec.Object:
		var keys [][]byte
		var vals []codec.Value
		for k, v := range scan.Members() {
			keys, vals = append(keys, k.Raw()), append(vals, v)
		}
		i := 0
		for k, v := range tape.Members() {
			if i >= len(keys) || !bytes.Equal(k.Raw(), keys[i]) {
				t.Errorf("%s: member %d is %q, scanning reads %d members", path, i, k.Raw(), len(keys))
				return n
			}
			n += sameValue(t, path+"."+string(k.Raw()), v, vals[i])
			if g := tape.Get(k.String()); !bytes.Equal(g.Raw(), scan.Get(k.String()).Raw()) {
				t.Errorf("%s: Get(%q) differs", path, k.String())
			}
			i++
		}
		if i != len(keys) {
			t.Errorf("%s: %d members, scanning reads %d", path, i, len(keys))
		}
	case codec.Array:
		var vals []codec.Value
		for _, v := range scan.Elems() {
			vals = append(vals, v)
		}
		i := 0
		for j, v := range tape.Elems() {
			if j != i || i >= len(vals) {
				t.Errorf("%s: element %d, scanning reads %d", path, j, len(vals))
				return n
			}
			n += sameValue(t, path+"[]", v, vals[i])
			i++
		}
		if i != len(vals) {
			t.Errorf("%s: %d elements, scanning reads %d", path, i, len(vals))
		}
	}
	return n
}
