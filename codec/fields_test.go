package codec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// Fields reads the members whose keys the set holds into their slots, on
// the tape of a decoded payload as by scanning a Parse'd one: a null one
// is absent, a key the set lacks is passed over, an escaped key is found
// by its value.
func TestFields(t *testing.T) {
	set := codec.NewFields("model", "user", "input", "stream", "store", "metadata", "instructions")
	body := `{"model":"m","user":null,"inp\u0075t":[1],"top_p":1,"stream":true,"metadata":{"a":"b"},"store" : false}`
	want := map[int]string{0: `"m"`, 2: `[1]`, 3: `true`, 4: `false`, 5: `{"a":"b"}`}
	r, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	doc, err := codec.Decode(r, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	parsed, ok := codec.Parse([]byte(body))
	if !ok {
		t.Fatal("Parse")
	}
	for name, v := range map[string]codec.Value{"decoded": doc.Value(), "parsed": parsed} {
		dst := make([]codec.Value, set.Len())
		got := v.Fields(set, dst)
		var wantSet uint64
		for i := range dst {
			w, ok := want[i]
			if ok {
				wantSet |= 1 << i
			}
			if string(dst[i].Raw()) != w {
				t.Errorf("%s: slot %d is %s, want %s", name, i, dst[i].Raw(), w)
			}
		}
		if got != wantSet {
			t.Errorf("%s: set %b, want %b", name, got, wantSet)
		}
	}
	// not an object, or absent: nothing
	arr, _ := codec.Parse([]byte(`["model"]`))
	for _, v := range []codec.Value{arr, {}, doc.Value().Get("input")} {
		dst := make([]codec.Value, set.Len())
		if got := v.Fields(set, dst); got != 0 || dst[0].Exists() {
			t.Errorf("Fields of %s: %b", v.Raw(), got)
		}
	}
}

// Slot finds each key among keys of one length and of many, and no other.
func TestFieldsSlot(t *testing.T) {
	keys := []string{"a", "b", "ab", "ba", "index", "inde", "type", "text", "tool_choice", "tool_calls", ""}
	set := codec.NewFields(keys...)
	if set.Len() != len(keys) {
		t.Fatalf("Len %d", set.Len())
	}
	for i, k := range keys {
		if got := set.Slot([]byte(k)); got != i {
			t.Errorf("Slot(%q) = %d, want %d", k, got, i)
		}
	}
	for _, k := range []string{"c", "abc", "indexes", "Type", "tool_call", strings.Repeat("x", 300)} {
		if got := set.Slot([]byte(k)); got != -1 {
			t.Errorf("Slot(%q) = %d, want -1", k, got)
		}
	}
	if got := codec.NewFields().Slot([]byte("a")); got != -1 {
		t.Errorf("an empty set finds %d", got)
	}
}

// Past 64 slots the members still fill theirs; only the first 64 come
// back as bits.
func TestFieldsWide(t *testing.T) {
	var keys, members []string
	for i := range 70 {
		keys = append(keys, fmt.Sprintf("k%d", i))
		if i%3 == 0 {
			members = append(members, fmt.Sprintf(`"k%d":%d`, i, i))
		}
	}
	set := codec.NewFields(keys...)
	v, _ := codec.Parse([]byte("{" + strings.Join(members, ",") + "}"))
	dst := make([]codec.Value, set.Len())
	got := v.Fields(set, dst)
	var want uint64
	for i := range 70 {
		if i%3 == 0 && i < 64 {
			want |= 1 << i
		}
		if n, ok := dst[i].Int(); ok != (i%3 == 0) || ok && n != int64(i) {
			t.Errorf("slot %d: %s", i, dst[i].Raw())
		}
	}
	if got != want {
		t.Errorf("set %b, want %b", got, want)
	}
}

// A repeated key is the generator's bug: NewFields refuses it.
func TestNewFieldsRepeated(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `"b" twice`) {
			t.Errorf("recovered %v", r)
		}
	}()
	codec.NewFields("a", "b", "c", "b")
}
