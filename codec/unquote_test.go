package codec_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// AppendUnquoted decodes what encoding/json decodes, and says when an
// escape is not JSON's (a cut one, an unknown one); the mapping's and the
// translator's readers of escaped string contents both use it.
func TestAppendUnquoted(t *testing.T) {
	for _, s := range []string{``, `plain`, `a\"b\\c\/d`, `\b\f\n\r\t`, `\u00e9\u00E9`, `\ud83d\ude00 x`, `\ud83d`, `\ud83dx`, `\ude00\ud83d\ude00`} {
		var want string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &want); err != nil {
			t.Fatal(err)
		}
		got, ok := codec.AppendUnquoted([]byte("pre:"), []byte(s))
		if !ok || string(got) != "pre:"+want {
			t.Errorf("%s: %q %v, want %q", s, got, ok, "pre:"+want)
		}
	}
	for _, s := range []string{`\`, `a\x`, `\u12`, `\u12g4`, `\ud83d\u12`} {
		if got, ok := codec.AppendUnquoted(nil, []byte(s)); ok {
			t.Errorf("%s: %q, ok; want not ok", s, got)
		}
	}
	// Runs of plain bytes between escapes of every kind, at every place.
	pieces := []string{"a", "xyz", "0123456789abcdef", "é", "😀", `\"`, `\\`, `\/`, `\b`, `\n`, `\t`, `\u0041`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83dz`}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+b.String()+`"`), &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := codec.AppendUnquoted(nil, []byte(b.String())); !ok || string(got) != want {
			t.Fatalf("%s: %q %v, want %q", b.String(), got, ok, want)
		}
		// In a dst with room for s exactly: the words stored stay in it
		// (guard bytes after it unwritten).
		s := b.String()
		buf := bytes.Repeat([]byte{0xee}, 4+len(s)+8)
		copy(buf, "pre:")
		if got, ok := codec.AppendUnquoted(buf[:4:4+len(s)], []byte(s)); !ok || string(got) != "pre:"+want || &got[0] != &buf[0] {
			t.Fatalf("%s: %q %v, want %q in place", s, got, ok, "pre:"+want)
		}
		for _, c := range buf[4+len(s):] {
			if c != 0xee {
				t.Fatalf("%s: written past dst's capacity: %q", s, buf[4+len(s):])
			}
		}
		// Over s itself (dst s[:0]): what is written never overtakes
		// what is still to be read, however far earlier escapes have put
		// the output behind.
		own := []byte(s)
		if got, ok := codec.AppendUnquoted(own[:0], own); !ok || string(got) != want || (len(got) > 0 && &got[0] != &own[0]) {
			t.Fatalf("%s: %q %v over itself, want %q", s, got, ok, want)
		}
	}
}

// Blank is JSON whitespace, raw or escaped: what both the mapping (an
// empty message is none) and the translator (arguments that are none) ask.
func TestBlank(t *testing.T) {
	for s, want := range map[string]bool{
		``: true, ` `: true, " \t\n\r": true, `\t\n\r`: true, `\u0020\u0009\u000a\u000D\u000A`: true,
		`x`: false, ` x `: false, `\u00a0`: false, `\u0021`: false, `\f`: false, `\`: false, `\u00`: false, `\"`: false,
	} {
		if got := codec.Blank([]byte(s)); got != want {
			t.Errorf("Blank(%q) = %v, want %v", s, got, want)
		}
	}
}
