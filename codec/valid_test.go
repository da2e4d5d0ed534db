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

// Every sequence of up to three bytes of non-ASCII lead, alone or before
// an ASCII letter, is valid in a string exactly when it is UTF-8 (the
// decoder checks two- and three-byte sequences itself, scan.go); the
// string is cut short too, and at the end of the data.
func TestValidUTF8(t *testing.T) {
	thirds := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff}
	check := func(seq []byte) {
		for _, s := range [][]byte{seq, append(seq[:len(seq):len(seq)], 'a')} {
			want := utf8.Valid(s)
			for _, c := range s {
				if c < 0x20 || c == '"' || c == '\\' {
					want = false
				}
			}
			data := append(append([]byte{'"'}, s...), '"')
			if got := Valid(data); got != want {
				t.Fatalf("Valid(%q) = %v, want %v", data, got, want)
			}
			if Valid(data[:len(data)-1]) { // unterminated
				t.Fatalf("Valid(%q) is true", data[:len(data)-1])
			}
		}
	}
	for b0 := 0x80; b0 <= 0xff; b0++ {
		check([]byte{byte(b0)})
		for b1 := 0; b1 <= 0xff; b1++ {
			check([]byte{byte(b0), byte(b1)})
			for _, b2 := range thirds {
				check([]byte{byte(b0), byte(b1), b2})
				check([]byte{byte(b0), byte(b1), b2, 0x80})
			}
		}
	}
}
