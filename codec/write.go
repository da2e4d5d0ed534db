package codec

// Writing: a Builder's payload as JSON, its keys and strings.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// AppendJSON appends the payload to dst.
func (b *Builder) AppendJSON(dst []byte) []byte {
	b.init()
	dst, _ = b.appendNode(dst, 0)
	return dst
}

// appendNode appends node i and reports whether it holds anything (empty
// says): a container's members are appended one by one, and one that
// turns out empty is taken back, so that each node is looked at once
// (asking empty first would walk each container once for every level
// above it).
func (b *Builder) appendNode(dst []byte, i int32) ([]byte, bool) {
	n := &b.nodes[i]
	if n.kind == bRaw {
		return append(dst, n.raw...), n.raw != ""
	}
	open, close := byte('{'), byte('}')
	if n.kind == bArray {
		open, close = '[', ']'
	}
	dst = append(dst, open)
	some := false
	for c := n.first; c != 0; c = b.nodes[c].next {
		m := &b.nodes[c]
		if m.kind == bRaw && m.raw == "" {
			continue
		}
		mark := len(dst)
		if some {
			dst = append(dst, ',')
		}
		if n.kind == bObject {
			if m.lit {
				dst = appendLitKey(dst, m.key)
			} else {
				dst = appendKey(dst, m.key)
			}
		}
		if m.kind == bRaw { // most nodes: written here, without a call
			dst = append(dst, m.raw...)
			some = true
			continue
		}
		var full bool
		if dst, full = b.appendNode(dst, c); full {
			some = true
		} else {
			dst = dst[:mark]
		}
	}
	return append(dst, close), some
}

// appendKey appends "key": — keys are short and plain (a mapping's
// names, a spec's): a key of four bytes or more is copied a word at a
// time (two overlapping words where its length is not a multiple of
// theirs), each word checked as it is copied, with one check of dst's
// capacity; a key with a byte to escape is written again by AppendString.
func appendKey(dst []byte, key string) []byte {
	n, l := len(dst), len(key)
	if cap(dst)-n < l+3 {
		dst = append(dst[:n:n], make([]byte, l+3)...)
	}
	out := dst[:n+l+3]
	out[n] = '"'
	out[n+1+l] = '"'
	out[n+2+l] = ':'
	b := unsafe.Slice(unsafe.StringData(key), l)
	k := &specialConsts
	switch {
	case l >= 8:
		var m uint64
		for i := 0; i < l-8; i += 8 {
			w := load8(b, i)
			m |= k.special(w)
			store8(out, n+1+i, w)
		}
		w := load8(b, l-8)
		if m|k.special(w) != 0 {
			return append(AppendString(dst[:n], key), ':')
		}
		store8(out, n+1+l-8, w)
	case l >= 4:
		w, v := load4(b, 0), load4(b, l-4)
		if k.special32(w)|k.special32(v) != 0 {
			return append(AppendString(dst[:n], key), ':')
		}
		store4(out, n+1, w)
		store4(out, n+1+l-4, v)
	default:
		for i := 0; i < l; i++ {
			if !plain[b[i]] {
				return append(AppendString(dst[:n], key), ':')
			}
			out[n+1+i] = b[i]
		}
	}
	return out
}

// appendLitKey appends "key": for a key that needs no escaping.
func appendLitKey(dst []byte, key string) []byte {
	n, l := len(dst), len(key)
	if cap(dst)-n < l+3 {
		dst = append(dst[:n:n], make([]byte, l+3)...)
	}
	dst = dst[:n+l+3]
	dst[n] = '"'
	copy(dst[n+1:], key)
	dst[n+1+l] = '"'
	dst[n+2+l] = ':'
	return dst
}

// store8 writes w at d[i:i+8] (little-endian), which the caller has
// checked are in d.
func store8(d []byte, i int, w uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(d)), i))[:], w)
}

// store4 is store8 for four bytes.
func store4(d []byte, i int, w uint32) {
	binary.LittleEndian.PutUint32((*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(d)), i))[:], w)
}

// AppendString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD; <, > and &
// are left as they are.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start, i := 0, 0
	for {
		// Plain runs (most strings are one: keys, names) eight bytes at a
		// time, then what needs escaping or checking byte by byte.
		if i += plainPrefix(s[i:]); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainPrefix is how many of the first bytes of s a JSON string holds as
// they are (printable ASCII but the quote and the backslash). The
// scanner's str has its eight-byte loop written out (called there, once
// per run between escapes, it cost 21% more instructions on the 193 KB
// request: an escape every 8 bytes); the short strings' words are this
// one's (keys and names: str reads long values).
func plainPrefix(s string) int {
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	if len(b) < 8 { // most keys and names: two words of four, or bytes
		if len(b) < 4 {
			i := 0
			for i < len(b) && plain[b[i]] {
				i++
			}
			return i
		}
		k := specialConsts
		if m := k.special32(load4(b, 0)); m != 0 {
			return bits.TrailingZeros32(m) >> 3
		}
		j := len(b) - 4 // the last four (those before 4 plain)
		if m := k.special32(load4(b, j)); m != 0 {
			return j + bits.TrailingZeros32(m)>>3
		}
		return len(b)
	}
	k := specialConsts
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := k.special(load8(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if i == len(b) {
		return i
	}
	// The last word of the string, those of its bytes before i plain.
	j := len(b) - 8
	if m := k.special(load8(b, j)); m != 0 {
		return j + bits.TrailingZeros64(m)>>3
	}
	return len(b)
}

const hexDigit = "0123456789abcdef"
