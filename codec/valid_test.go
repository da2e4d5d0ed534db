package codec

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Valid agrees with encoding/json on JSON text (codec is stricter on
// invalid UTF-8 and on nesting past MaxDepth), and does not allocate.
func TestValid(t *testing.T) {
	for _, s := range []string{
		`{}`, ` {"a":[1,2.5e3,-0,true,false,null,"x\u00e9\n"]} `, `"s"`, `0`, `[]`, `{"a":{"b":{}}}`,
		``, ` `, `{`, `{"a"}`, `{"a":}`, `[1,]`, `{} {}`, `01`, `"\x"`, `tru`, `{"a":1,}`, `"unterminated`, `nul`, `-`, `1.`, `[1 2]`,
	} {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	}
	if Valid([]byte("\"\xff\"")) {
		t.Error("invalid UTF-8 in a string is valid")
	}
	if deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1); Valid([]byte(deep)) {
		t.Error("nesting past MaxDepth is valid")
	}
	data := []byte(`{"cmd":["ls","-l"],"n":{"x":[1,2,3]},"s":"caf\u00e9"}`)
	if n := testing.AllocsPerRun(100, func() { Valid(data) }); n != 0 {
		t.Errorf("Valid allocates %v times", n)
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,"b",null]}`, `[1,]`, `"\u12"`, `-1.5e+3`, ` true `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := Valid(data), json.Valid(data)
		if got && !want {
			t.Fatalf("Valid accepts what encoding/json refuses: %q", data)
		}
		// (stricter only on invalid UTF-8 and nesting past MaxDepth, which
		// needs more than MaxDepth bytes)
		if !got && want && utf8.Valid(data) && len(data) <= MaxDepth {
			t.Fatalf("Valid refuses what encoding/json accepts: %q", data)
		}
	})
}
