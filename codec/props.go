package codec

import "encoding/binary"

// Finding an object's property by its key: where the same position's
// key was last time, else among the schema's properties.

// hint is what the decoder learnt of the objects last walked at a depth:
// payloads of one kind repeat their keys in one order (a stream's chunks
// above all), so the key at a position is first tried as the property
// found at that position before in an object of the same schema.
type hint [16]guess // by the key's position in the object

// guess is the property found at a position: of schema (an index in the
// decoder's table; the hints are cleared when the table changes), prop
// its index + 1 (0: none), or -1 for a key the schema does not declare (an
// upstream's extra, in each of its chunks) of klen ≤ 8 bytes, kw (little-
// endian, zeros after).
type guess struct {
	schema int32
	prop   int16
	klen   uint8
	kw     uint64
}

// undeclaredGuess is the guess for key, undeclared in schema si: none if
// it is longer than a word.
func undeclaredGuess(si int32, key []byte) guess {
	if len(key) == 0 || len(key) > 8 {
		return guess{}
	}
	var w uint64
	for i, c := range key {
		w |= uint64(c) << (8 * i)
	}
	return guess{schema: si, prop: -1, klen: uint8(len(key)), kw: w}
}

// hintAt makes sure there is a hint for depth d.
func (x *decoder) hintAt(d int) {
	for len(x.hints) <= d {
		x.hints = append(x.hints, hint{})
	}
}

// guessed returns the guess at depth d for position n, and the property
// of schema si it names, if any.
func (x *decoder) guessed(si int32, d, n int) (*guess, int, bool) {
	if n >= len(hint{}) {
		return nil, 0, false
	}
	g := &x.hints[d][n]
	return g, int(g.prop) - 1, g.prop > 0 && g.schema == si
}

// expected reads the key at pos if it is the one the hint at depth d
// says was at position n before, written without escapes, and the colon
// after it: the key's bytes are compared, not scanned. It returns the
// key's span and property (ok; i < 0 for an undeclared key), or leaves pos
// where it was.
func (x *decoder) expected(si int32, d, n int) (ks, ke, i int, ok bool) {
	g, i, ok := x.guessed(si, d, n)
	ks = x.pos
	switch {
	case ok:
		// A guess is only kept for a key of this schema found written
		// without escapes (keyAt's condition). keyAt's body, written out:
		// it is not inlined, and a call per key costs 2% of a stream's
		// chunk.
		k := x.t[si].props[i].key
		ke = ks + 1 + len(k)
		if ke+1 >= len(x.data) || x.data[ks] != '"' || x.data[ke] != '"' || string(x.data[ks+1:ke]) != k {
			return 0, 0, 0, false
		}
	case g != nil && g.prop < 0 && g.schema == si:
		if ke, i = x.undeclaredAt(g), -1; ke < 0 {
			return 0, 0, 0, false
		}
	default:
		return 0, 0, 0, false
	}
	x.pos = ke + 1
	if x.ws(); x.pos >= len(x.data) || x.data[x.pos] != ':' {
		x.pos = ks
		return 0, 0, 0, false
	}
	x.pos++
	x.ws()
	x.esc = false
	return ks, ke, i, true
}

// undeclaredAt returns where the key at pos ends (its closing quote) if
// it is the undeclared key of guess g, else -1.
func (x *decoder) undeclaredAt(g *guess) int {
	ks, ke := x.pos, x.pos+1+int(g.klen)
	if ks+9 > len(x.data) || ke+1 >= len(x.data) || x.data[ks] != '"' || x.data[ke] != '"' ||
		binary.LittleEndian.Uint64(x.data[ks+1:])&(1<<(8*uint(g.klen))-1) != g.kw {
		return -1
	}
	return ke
}

// keyAt reads the key at pos if it is name, written as it is (name has
// no quote, backslash or control character, so bytes equal to it are a
// whole valid string), and the colon after it, leaving pos at the value:
// the key's bytes are compared, not scanned. It returns the key's span,
// or leaves pos where it was.
func (x *decoder) keyAt(name string) (ks, ke int, ok bool) {
	ks, ke = x.pos, x.pos+1+len(name)
	if ke+1 >= len(x.data) || x.data[ks] != '"' || x.data[ke] != '"' || string(x.data[ks+1:ke]) != name {
		return 0, 0, false
	}
	x.pos = ke + 1
	if x.ws(); x.pos >= len(x.data) || x.data[x.pos] != ':' {
		x.pos = ks
		return 0, 0, false
	}
	x.pos++
	x.ws()
	return ks, ke, true
}

// prop finds key among the properties of schema si, trying first the
// hint at depth d for position n; a key found is the guess for the next
// object at d, unless it was written with escapes (esc).
func (x *decoder) prop(si int32, d, n int, key []byte, esc bool) (int, bool) {
	props := x.t[si].props
	g, i, ok := x.guessed(si, d, n)
	if ok && props[i].key == string(key) {
		return i, true
	}
	i, ok = findProp(props, key)
	if g != nil {
		switch {
		case esc:
			*g = guess{}
		case ok:
			*g = guess{schema: si, prop: int16(i + 1)}
		default:
			*g = undeclaredGuess(si, key)
		}
	}
	return i, ok
}

// findProp finds key among props (sorted by key) without allocating.
func findProp(props []prop, key []byte) (int, bool) {
	if len(props) <= 32 && len(key) > 0 {
		// Few enough to compare each: by length and first byte before the
		// call that compares the bytes.
		for i := range props {
			if k := props[i].key; len(k) == len(key) && k[0] == key[0] && k == string(key) {
				return i, true
			}
		}
		return 0, false
	}
	lo, hi := 0, len(props)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if props[m].key < string(key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(props) && props[lo].key == string(key)
}
