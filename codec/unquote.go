package codec

import (
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A JSON string's contents: escapes, decoding them, whitespace.

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// unquote decodes the escapes of a JSON string's contents (already
// validated by the decoder); it returns s itself if there are none.
func unquote(s []byte) []byte {
	if !hasEscape(s) {
		return s
	}
	out, ok := AppendUnquoted(make([]byte, 0, len(s)), s)
	if !ok { // not from a decoded payload: the rest as it is
		out = append(out[:0], s...)
	}
	return out
}

// AppendUnquoted appends what the contents of a JSON string (its bytes
// between the quotes, escaped) say, decoded (a surrogate pair is one
// rune, a lone surrogate U+FFFD). ok is false for an escape JSON does not
// have or a cut one; dst then holds what came before it.
//
// What it appends is never longer than s: dst grows once, and the bytes
// are stored by index (an append per byte checks the capacity each time),
// eight at a time up to the next backslash (each word stored whole). It
// decodes in place too (dst s[:0], or any dst over s): then a word with a
// backslash is stored only up to it, byte by byte — whole, it would
// overwrite the escape, not yet read, once earlier escapes have put the
// output behind the input.
func AppendUnquoted(dst, s []byte) ([]byte, bool) {
	if cap(dst)-len(dst) < len(s) {
		dst = append(dst, make([]byte, len(s))...)[:len(dst)]
	}
	n := len(dst)
	out := dst[:n+len(s)]
	over := overlap(out, s)
	k := &specialConsts
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			w := load8(s, i)
			m := hasZero(w^k.backslash, k.lo) & k.hi // the lowest marks the first backslash
			if m == 0 {
				store8(out, n, w)
				i, n = i+8, n+8
				continue
			}
			j := bits.TrailingZeros64(m) >> 3
			if over {
				copy(out[n:n+j], s[i:i+j]) // memmove: the bytes before the backslash only
			} else {
				store8(out, n, w)
			}
			i, n = i+j, n+j
		} else if ch := s[i]; ch != '\\' {
			out[n] = ch
			i, n = i+1, n+1
			continue
		}
		// s[i] is a backslash.
		if i+1 >= len(s) {
			return out[:n], false
		}
		if c := unescaped[s[i+1]]; c != 0 {
			out[n] = c
			i, n = i+2, n+1
			continue
		}
		if s[i+1] != 'u' {
			return out[:n], false
		}
		r, ok := hex4(s[i+2:])
		if !ok {
			return out[:n], false
		}
		i += 6 // past the escape
		if utf16.IsSurrogate(r) && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if r2, ok := hex4(s[i+2:]); ok {
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				}
			}
		}
		n += utf8.EncodeRune(out[n:], r)
	}
	return out[:n], true
}

// overlap reports whether a and b share memory.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// unescaped is what the one-character escapes (\" \\ \/ \b \f \n \r \t)
// stand for, by the character after the backslash; 0 for the others.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads the four hex digits of a \u escape.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Blank reports whether the contents of a JSON string (escaped, between
// the quotes) are empty or JSON whitespace only: space, tab, line feed,
// carriage return, raw or escaped (\t, \n, \r, \u0020, \u0009, \u000a,
// \u000d in either case).
func Blank(s []byte) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '\\':
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case 't', 'n', 'r':
				i++
				continue
			case 'u':
				if r, ok := hex4(s[i+2:]); ok && (r == ' ' || r == '\t' || r == '\n' || r == '\r') {
					i += 5
					continue
				}
			}
		}
		return false
	}
	return true
}
