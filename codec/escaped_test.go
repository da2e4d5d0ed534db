package codec

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refStr is str written byte by byte, as the JSON grammar reads: the end
// of the string at data[pos] (its closing quote), whether it has escapes,
// or where it is invalid and why.
func refStr(d []byte, pos int) (end int, esc bool, errAt int, reason string) {
	for i := pos + 1; i < len(d); {
		switch c := d[i]; {
		case c == '"':
			return i, esc, -1, ""
		case c == '\\':
			esc = true
			switch {
			case i+1 >= len(d):
				return 0, esc, i, "unterminated string"
			case unescaped[d[i+1]] != 0:
				i += 2
			case d[i+1] == 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					return 0, esc, i, `invalid \u escape`
				}
				i += 6
			default:
				return 0, esc, i, "invalid escape"
			}
		case c < 0x20:
			return 0, esc, i, "control character in string"
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				return 0, esc, i, "invalid UTF-8"
			}
			i += size
		default:
			i++
		}
	}
	return 0, esc, len(d), "unterminated string"
}

// str (with escaped, for long strings dense with escapes) agrees with
// refStr on strings of escapes, quotes, UTF-8 and invalid bytes, valid
// and not, cut anywhere: runs of backslashes and UTF-8 sequences across
// escaped's 64-byte blocks included.
func TestStrAgainstReference(t *testing.T) {
	// Pieces of valid strings (non-ASCII bytes with the low 7 bits of a
	// quote or a backslash among them: ¢ and ܜ), and pieces that end a
	// string or make it invalid, seldom.
	valid := []string{
		"a", "bc", "word ", `\"`, `\\`, `\\\\`, `\\\"`, `\n`, `\t`, `\/`, `\u00e9`, `\uD83D\uDE00`,
		"é", "€", "😀", "¢", "ܜ", "\x7f", "u", "0f",
	}
	rare := []string{`"`, `\`, "\x01", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", `\u12`, `\x`}
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 40000 {
		b.Reset()
		b.WriteByte('"')
		// A run of plain bytes first, of a length that moves the blocks
		// against the pieces: escaped takes over past 64 bytes.
		b.WriteString(strings.Repeat("p", rng.IntN(100)))
		// Mostly valid pieces (so the string goes on for blocks), with an
		// invalid one at times.
		for range rng.IntN(120) {
			switch rng.IntN(200) {
			case 0:
				b.WriteString(rare[rng.IntN(len(rare))])
			case 1, 2, 3: // prose: escaped hands the string back
				b.WriteString(strings.Repeat("plain ", 6+rng.IntN(20)))
			default:
				b.WriteString(valid[rng.IntN(len(valid))])
			}
		}
		if rng.IntN(8) != 0 {
			b.WriteByte('"')
		}
		b.WriteString(strings.Repeat(`,"tail \" \\ `, rng.IntN(12)))
		data := []byte(b.String())
		if rng.IntN(4) == 0 {
			data = data[:rng.IntN(len(data)+1)]
			if len(data) == 0 {
				continue
			}
		}
		checkStr(t, data)
	}
}

// checkStr fails t if str and refStr disagree on the string at data[0].
func checkStr(t *testing.T, data []byte) {
	t.Helper()
	wantEnd, wantEsc, wantAt, wantReason := refStr(data, 0)
	x := decoder{doc: &Doc{data: data}, data: data}
	end, err := x.str()
	var se *SyntaxError
	switch {
	case wantAt < 0 && err != nil:
		t.Fatalf("str(%q): %v, want the end at %d", data, err, wantEnd)
	case wantAt < 0 && (end != wantEnd || x.pos != end+1 || x.esc != wantEsc):
		t.Fatalf("str(%q) = %d (pos %d, esc %v), want %d (esc %v)", data, end, x.pos, x.esc, wantEnd, wantEsc)
	case wantAt >= 0 && !errors.As(err, &se):
		t.Fatalf("str(%q) = %d, %v; want an error at %d: %s", data, end, err, wantAt, wantReason)
	case wantAt >= 0 && (se.Offset != wantAt || se.Reason != wantReason):
		t.Fatalf("str(%q): error at %d: %s; want at %d: %s", data, se.Offset, se.Reason, wantAt, wantReason)
	}
}

// FuzzStr: str agrees with refStr on a string of 70 plain bytes and then
// the input (so that escaped reads what follows its third escape; the
// seeds are dense with escaped quotes).
func FuzzStr(f *testing.F) {
	for _, s := range []string{`a\\"b"`, `\\\\\\"x"`, "\\u00e9\\n\xc3\xa9\"", `\u12"`, "\xe2\x82\xac\\t\"", `\`} {
		f.Add([]byte(strings.Repeat(`\"x`, 30) + s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkStr(t, append([]byte(`"`+strings.Repeat("p", 70)), in...))
	})
}

// escaped reads a valid string dense with escapes to its end, whatever
// its blocks cut (escapes, runs of backslashes, UTF-8 sequences, \u
// escapes), and hands it back only at a block without an escape.
func TestEscapedReadsToTheEnd(t *testing.T) {
	pieces := []string{`\"`, `\\`, `\\\"`, `\\\\`, `\n`, `\u00e9`, "é", "€", "😀", "¢", "ܜ", "a", "bc"}
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for range 20000 {
		b.Reset()
		b.WriteString(`\"`)
		for b.Len() < 64+rng.IntN(300) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		end := b.Len()
		b.WriteString(`"` + strings.Repeat(" ", 64)) // a whole block after the string
		data := []byte(b.String())
		got, ok := escaped(data, 0)
		if !ok || got != end {
			t.Fatalf("escaped(%q) = %d, %v; want %d, true", data, got, ok, end)
		}
	}
	// A block without an escape (the second): handed back after it.
	data := []byte(`\"` + strings.Repeat("plain ", 30) + `"` + strings.Repeat(" ", 64))
	if got, ok := escaped(data, 0); ok || got != 128 {
		t.Errorf("escaped on prose = %d, %v; want 128, false", got, ok)
	}
}

// Every pattern of backslashes in a block, with a run carried in or not,
// escapes what counting the run before each byte says.
func TestEscapedMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		bs := rng.Uint64() & rng.Uint64() // runs of every length
		if rng.IntN(4) == 0 {
			bs |= rng.Uint64()
		}
		carry := rng.Uint64() & 1
		starts := bs &^ carry
		codes := ((starts<<1 | odd) - starts) ^ odd
		esc := codes ^ (bs | carry)
		out := (codes & bs) >> 63
		// The reference: read left to right, a backslash not escaped
		// escapes the byte after it.
		var want uint64
		next := carry == 1
		for i := range 64 {
			switch {
			case next:
				want |= 1 << i
				next = false
			case bs>>i&1 == 1:
				next = true
			}
		}
		run := uint64(0)
		if next {
			run = 1
		}
		if esc != want || out != run {
			t.Fatalf("bs %064b carry %d: escaped %064b carry out %d, want %064b %d", bs, carry, esc, out, want, run)
		}
	}
}
