package codec

// The JSON scanner the decoder walks with: whitespace, strings, numbers,
// literals, and stepping over a value (fast, or keeping track of the path
// when it finds an error).

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

func (x *decoder) unexpected() error {
	if x.pos >= len(x.data) {
		return x.syntax("unexpected end of input")
	}
	if c := x.data[x.pos]; c < utf8.RuneSelf {
		return x.syntax(fmt.Sprintf("unexpected %q", c))
	}
	return x.syntax(fmt.Sprintf("unexpected byte 0x%02x", x.data[x.pos]))
}

func (x *decoder) ws() {
	if x.pos < len(x.data) && x.data[x.pos] > ' ' {
		return // compact JSON: no whitespace between tokens
	}
	x.wsSlow()
}

func (x *decoder) wsSlow() {
	for x.pos < len(x.data) {
		switch x.data[x.pos] {
		case ' ', '\t', '\n', '\r':
			x.pos++
		default:
			return
		}
	}
}

// skip validates and steps over the value at pos. On an error it goes over
// the value again keeping track of the path, so that the error names where
// in the value it is.
func (x *decoder) skip() error {
	start, depth := x.pos, x.depth
	err := x.skipFast()
	if err != nil {
		x.pos, x.depth = start, depth
		if terr := x.trace(); terr != nil {
			return terr
		}
	}
	return err
}

// trace is skip keeping track of the path: the slow way, for errors.
func (x *decoder) trace() error {
	if x.pos >= len(x.data) {
		return x.unexpected()
	}
	base := len(x.path)
	defer func() { x.path = x.path[:base] }()
	if c := x.data[x.pos]; (c == '{' || c == '[') && len(x.path) >= MaxDepth {
		return x.tooDeep() // as skipFast: on the bracket of level MaxDepth+1
	}
	switch x.data[x.pos] {
	case '{':
		x.pos++
		x.ws()
		if x.pos < len(x.data) && x.data[x.pos] == '}' {
			x.pos++
			return nil
		}
		for {
			ks, ke, err := x.key()
			if err != nil {
				return err
			}
			if err := x.push(seg{start: int32(ks + 1), end: int32(ke)}); err != nil {
				return err
			}
			if err := x.trace(); err != nil {
				return err
			}
			x.path = x.path[:base]
			if more, err := x.next('}'); !more {
				return err
			}
		}
	case '[':
		x.pos++
		x.ws()
		if x.pos < len(x.data) && x.data[x.pos] == ']' {
			x.pos++
			return nil
		}
		for i := int32(0); ; i++ {
			if err := x.push(seg{start: -1, index: i}); err != nil {
				return err
			}
			if err := x.trace(); err != nil {
				return err
			}
			x.path = x.path[:base]
			if more, err := x.next(']'); !more {
				return err
			}
		}
	}
	return x.skipFast()
}

// skipFast validates and steps over the value at pos. It reads only the
// data, not the Doc (Valid has none), and names no path in its errors
// (it keeps none).
func (x *decoder) skipFast() error {
	if x.pos >= len(x.data) {
		return x.unexpected()
	}
	switch c := x.data[x.pos]; {
	case c == '"':
		_, err := x.str()
		return err
	case c == '{':
		if x.depth++; x.depth+len(x.path) > MaxDepth {
			return x.tooDeep()
		}
		x.pos++
		x.ws()
		if x.pos < len(x.data) && x.data[x.pos] == '}' {
			x.pos++
			x.depth--
			return nil
		}
		for {
			if _, _, err := x.key(); err != nil {
				return err
			}
			if err := x.skipFast(); err != nil {
				return err
			}
			if x.comma() {
				continue
			}
			if more, err := x.nextSlow('}'); !more {
				x.depth--
				return err
			}
		}
	case c == '[':
		if x.depth++; x.depth+len(x.path) > MaxDepth {
			return x.tooDeep()
		}
		x.pos++
		x.ws()
		if x.pos < len(x.data) && x.data[x.pos] == ']' {
			x.pos++
			x.depth--
			return nil
		}
		for {
			if err := x.skipFast(); err != nil {
				return err
			}
			if x.comma() {
				continue
			}
			if more, err := x.nextSlow(']'); !more {
				x.depth--
				return err
			}
		}
	case c == 't':
		if x.atLit("true") {
			return nil
		}
		return x.invalidLiteral()
	case c == 'f':
		if x.atLit("false") {
			return nil
		}
		return x.invalidLiteral()
	case c == 'n':
		if x.atLit("null") {
			return nil
		}
		return x.invalidLiteral()
	case c == '-' || c >= '0' && c <= '9':
		end, _, err := x.number()
		x.pos = end
		return err
	}
	return x.unexpected()
}

// atLit steps over the literal lit (true, false or null) at pos if it is
// there; else invalidLiteral is the error. Inlined where value and
// skipFast read one: compared with the constant lit, it is a load or two,
// not a call to memequal.
func (x *decoder) atLit(lit string) bool {
	if i := x.pos; i+len(lit) <= len(x.data) && string(x.data[i:i+len(lit)]) == lit {
		x.pos = i + len(lit)
		return true
	}
	return false
}

func (x *decoder) invalidLiteral() error { return x.syntax("invalid literal") }

// number scans the number at pos without consuming it: where it ends and
// its kinds (mNumber, and mInteger if it has neither fraction nor
// exponent).
func (x *decoder) number() (end int, k mask, err error) {
	d, i := x.data, x.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i++; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	default:
		return 0, 0, &SyntaxError{Offset: i, Path: x.doc.pathString(x.path), Reason: "invalid number"}
	}
	integral := true
	if i < len(d) && d[i] == '.' {
		integral = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return 0, 0, &SyntaxError{Offset: i, Path: x.doc.pathString(x.path), Reason: "invalid number"}
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integral = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return 0, 0, &SyntaxError{Offset: i, Path: x.doc.pathString(x.path), Reason: "invalid number"}
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	if integral {
		return i, mNumber | mInteger, nil
	}
	return i, mNumber, nil
}

// plain marks the bytes a string holds as they are: printable ASCII but the
// quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str validates the string at pos and steps over it; end is the index of
// its closing quote. x.esc says whether it has escapes.
func (x *decoder) str() (end int, err error) {
	d := x.data
	i := x.pos + 1
	x.esc = false
	k := specialConsts // on the stack: each constant one short load
	for {
		// Eight bytes at a time while none is a quote, a backslash, a
		// control character or non-ASCII; then byte by byte.
		for ; i+8 <= len(d); i += 8 {
			if m := k.special(load8(d, i)); m != 0 {
				// The lowest bit marks the first such byte exactly.
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
		}
		for i < len(d) && plain[d[i]] {
			i++
		}
	found:
		if i >= len(d) {
			x.pos = i
			return 0, x.syntax("unterminated string")
		}
		switch c := d[i]; {
		case c == '"':
			x.pos = i + 1
			return i, nil
		case c == '\\':
			x.esc = true
			// Dense escapes (three within 33 bytes: escapes[0], of this
			// string if after its start and before i, a union's object
			// being read twice) past the string's first 64 bytes: the rest
			// to escaped. The escapes are kept in x, not in locals, which
			// would be spilled in the loop above; and only past 32 bytes,
			// where they can count.
			if i-x.pos > minEscapedRun/2 {
				if i-x.pos > minEscapedRun && x.escapes[0] > x.pos && uint(i-x.escapes[0]) <= 32 && i+64 <= len(d) {
					next, ok := escaped(d, i)
					if ok {
						x.pos = next + 1
						return next, nil
					}
					if next > i {
						i = next
						continue
					}
				}
				x.escapes = [2]int{x.escapes[1], i}
			}
			if i+1 >= len(d) {
				x.pos = i
				return 0, x.syntax("unterminated string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					x.pos = i
					return 0, x.syntax("invalid \\u escape")
				}
				i += 6
			default:
				x.pos = i
				return 0, x.syntax("invalid escape")
			}
		case c < 0x20:
			x.pos = i
			return 0, x.syntax("control character in string")
		default:
			// Two- and three-byte sequences checked here (Unicode's table
			// of well-formed UTF-8); four bytes and errors by utf8.
			if i+1 < len(d) && c >= 0xc2 && c <= 0xdf && d[i+1]&0xc0 == 0x80 {
				i += 2
				continue
			}
			if i+2 < len(d) && c >= 0xe0 && c <= 0xef && d[i+2]&0xc0 == 0x80 {
				first, last := byte(0x80), byte(0xbf) // the second byte's range
				switch c {
				case 0xe0:
					first = 0xa0
				case 0xed:
					last = 0x9f
				}
				if b := d[i+1]; b >= first && b <= last {
					i += 3
					continue
				}
			}
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				x.pos = i
				return 0, x.syntax("invalid UTF-8")
			}
			i += size
		}
	}
}

const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// special has the high bit set of the first byte of w (the lowest) that a
// JSON string does not hold as it is: a quote, a backslash, a control
// character or non-ASCII (and maybe of bytes after it). Its constants
// are c's (specialConsts, never written), which the loops calling it
// copy to the stack: as constants, Go loads each anew in every
// iteration, with a 10-byte instruction.
//
// Below the first such byte no subtraction borrows, and each byte is
// printable ASCII but the quote and the backslash: w − 0x20 in [0, 0x5f],
// w^'"' and w^'\\' in [1, 0x7f], so less one in [0, 0x7e]: none is
// marked. The first is: a quote or a backslash by its xor's 0 − 1, a
// control character by its borrow, non-ASCII by w^'"' − 1, which keeps
// its high bit (all but 0xa2, whose w − 0x20 keeps it). So neither
// hasZero's &^ w nor or-ing w in is needed: three of eleven instructions
// fewer, each eight bytes of every string the decoder reads (the 193 KB
// request: 11% fewer instructions). TestSpecialMarksFirst checks it.
func (c *swarConsts) special(w uint64) uint64 {
	return ((w - c.ctl) | ((w ^ c.quote) - c.lo) | ((w ^ c.backslash) - c.lo)) & c.hi
}

// special32 is special for four bytes.
func (c *swarConsts) special32(w uint32) uint32 {
	lo := uint32(c.lo)
	return ((w - uint32(c.ctl)) | ((w ^ uint32(c.quote)) - lo) | ((w ^ uint32(c.backslash)) - lo)) & uint32(c.hi)
}

type swarConsts struct{ lo, hi, ctl, quote, backslash uint64 }

var specialConsts = swarConsts{lo, hi, lo * 0x20, lo * '"', lo * '\\'}

// hasZero has the high bit of each byte of w that is zero set (and maybe
// others, but only above a byte that is zero or has its high bit set); lo
// is the constant lo, passed in.
func hasZero(w, lo uint64) uint64 { return (w - lo) &^ w }

// load8 reads the eight bytes of d at i (little-endian), which the caller
// has checked are in d: i ≥ 0, i+8 ≤ len(d). Without the checks and the
// pointer arithmetic of d[i:] again, which cost the hot loops a third of
// their instructions.
func load8(d []byte, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(d)), i))[:])
}

// load4 is load8 for four bytes: i ≥ 0, i+4 ≤ len(d).
func load4(d []byte, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(d)), i))[:])
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// key reads an object member's key and its colon: ks and ke span the
// quoted key; pos is left at the value.
func (x *decoder) key() (ks, ke int, err error) {
	if x.pos >= len(x.data) || x.data[x.pos] != '"' {
		return 0, 0, x.unexpected()
	}
	ks = x.pos
	if ke, err = x.str(); err != nil {
		return 0, 0, err
	}
	if x.ws(); x.pos >= len(x.data) || x.data[x.pos] != ':' {
		return 0, 0, x.unexpected()
	}
	x.pos++
	x.ws()
	return ks, ke, nil
}

// next reads what follows a member or an element: a comma (more: pos is
// left at the next one) or the closing bracket close.
func (x *decoder) next(close byte) (more bool, err error) {
	if x.comma() {
		return true, nil
	}
	return x.nextSlow(close)
}

// comma steps over compact JSON's comma with a token right after it, if
// that is what is at pos: what next reads most, inlined where an object's
// members and an array's elements are walked (nextSlow reads the rest).
func (x *decoder) comma() bool {
	if d, i := x.data, x.pos+1; uint(i) < uint(len(d)) && d[i-1] == ',' && d[i] > ' ' {
		x.pos = i
		return true
	}
	return false
}

func (x *decoder) nextSlow(close byte) (more bool, err error) {
	x.ws()
	if x.pos < len(x.data) {
		switch x.data[x.pos] {
		case ',':
			x.pos++
			x.ws()
			return true, nil
		case close:
			x.pos++
			return false, nil
		}
	}
	return false, x.unexpected()
}
