package codec

import "encoding/binary"

// Finding an object's property by its key: where the same position's
// key was last time, else among the schema's properties.

// hint is what the decoder learnt of the objects of a schema last walked
// at a depth: payloads of one kind repeat their keys in one order (a
// stream's chunks above all), so the key at a position is first tried as
// the property found at that position before in such an object.
type hint [16]guess // by the key's position in the object

// hintWays is how many schemas' hints a depth keeps: a chat completion
// has a choice and the usage's two details at one depth, a request its
// input items of three types and its tools.
const hintWays = 4

// hintSet is a depth's hints: of schema[w] in way[w] (nil: none yet),
// next the way a new schema takes.
type hintSet struct {
	schema [hintWays]int32
	way    [hintWays]*hint
	next   uint8
}

// guess is the property found at a position: of schema (an index in the
// decoder's table; the hints are cleared when the table changes), prop
// its index + 1 (0: none), or -1 for a key the schema does not declare (an
// upstream's extra, in each of its chunks). pat is the key as compact
// JSON writes it with its colon, `"key":`, little-endian in two words
// (zeros after), plen its length; 0 if longer than 16 bytes (a declared
// key is then compared as it is; an undeclared one has no guess).
type guess struct {
	pat    [2]uint64
	schema int32
	prop   int16
	plen   uint8
}

// newGuess is the guess of key (written without escapes) at a position
// in an object of schema si: property prop (as guess.prop).
func newGuess(si int32, prop int16, key []byte) guess {
	g := guess{schema: si, prop: prop}
	if n := len(key) + 3; n <= 16 {
		var b [16]byte
		b[0] = '"'
		copy(b[1:], key)
		b[n-2], b[n-1] = '"', ':'
		g.pat = [2]uint64{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])}
		g.plen = uint8(n)
	} else if prop < 0 {
		return guess{}
	}
	return g
}

// patMask is, for a pattern of n bytes, the masks of its two words.
var patMask = func() (m [17][2]uint64) {
	for n := range m {
		for i := range n {
			m[n][i/8] |= 0xff << (8 * (i % 8))
		}
	}
	return m
}()

// hintFor returns the hint for an object of schema si at depth d: the
// one the depth keeps for si, else the way a new schema takes.
func (x *decoder) hintFor(si int32, d int) *hint {
	for len(x.hints) <= d {
		x.hints = append(x.hints, hintSet{})
	}
	s := &x.hints[d]
	if s.way[0] != nil && s.schema[0] == si { // the usual: one schema a depth
		return s.way[0]
	}
	for w := 1; w < hintWays; w++ {
		if s.way[w] != nil && s.schema[w] == si {
			return s.way[w]
		}
	}
	// A new schema: the next way, its guesses left as they are (each
	// names its schema, and is checked against the key).
	w := s.next
	s.next = (w + 1) % hintWays
	if s.way[w] == nil {
		s.way[w] = x.newHint()
	}
	s.schema[w] = si
	return s.way[w]
}

// newHint returns a new hint, from hintMemory's while it has some.
func (x *decoder) newHint() *hint {
	if n := len(x.spare); n < cap(x.spare) {
		x.spare = x.spare[:n+1]
		return &x.spare[n]
	}
	return new(hint)
}

// forget clears every hint (their schemas are of another table).
func (x *decoder) forget() {
	for i := range x.hints {
		s := &x.hints[i]
		for _, h := range s.way {
			if h != nil {
				*h = hint{}
			}
		}
		s.schema = [hintWays]int32{-1, -1, -1, -1}
	}
}

// guessed returns the guess of hint h for position n, and the property
// of schema si it names, if any.
func (x *decoder) guessed(si int32, h *hint, n int) (*guess, int, bool) {
	if n >= len(hint{}) {
		return nil, 0, false
	}
	g := &h[n]
	return g, int(g.prop) - 1, g.prop > 0 && g.schema == si
}

// expected reads the key at pos if it is the one hint h says was at
// position n before, written without escapes, and the colon
// after it: the key's bytes are compared, not scanned. It returns the
// key's span and property (ok; i < 0 for an undeclared key), or leaves pos
// where it was.
func (x *decoder) expected(si int32, h *hint, n int) (ks, ke, i int, ok bool) {
	if n >= len(hint{}) {
		return 0, 0, 0, false
	}
	g := &h[n]
	if g.prop == 0 || g.schema != si {
		return 0, 0, 0, false
	}
	ks, i = x.pos, int(g.prop)-1
	if g.prop < 0 {
		i = -1
	}
	// The key, its quotes and its colon as two words, as compact JSON
	// writes them.
	if m := &patMask[g.plen]; g.plen != 0 && ks+16 <= len(x.data) &&
		load8(x.data, ks)&m[0] == g.pat[0] && load8(x.data, ks+8)&m[1] == g.pat[1] {
		x.pos = ks + int(g.plen)
		ke = x.pos - 2
	} else {
		if g.prop < 0 {
			return 0, 0, 0, false
		}
		// keyAt's body, written out: it is not inlined, and a call per
		// key costs 2% of a stream's chunk.
		k := x.tab.str(x.tab.props[int(x.t[si].props.off)+i].key)
		ke = ks + 1 + len(k)
		if ke+1 >= len(x.data) || x.data[ks] != '"' || x.data[ke] != '"' || string(x.data[ks+1:ke]) != k {
			return 0, 0, 0, false
		}
		x.pos = ke + 1
		if x.ws(); x.pos >= len(x.data) || x.data[x.pos] != ':' {
			x.pos = ks
			return 0, 0, 0, false
		}
		x.pos++
	}
	x.ws()
	x.esc = false
	return ks, ke, i, true
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

// prop finds key among the properties of schema si, trying first hint h
// for position n; a key found is the guess for the next object of si at
// its depth, unless it was written with escapes (esc).
func (x *decoder) prop(si int32, h *hint, n int, key []byte, esc bool) (int, bool) {
	props := x.tab.propsOf(&x.t[si])
	g, i, ok := x.guessed(si, h, n)
	if ok && x.tab.is(props[i].key, key) {
		return i, true
	}
	i, ok = x.tab.findProp(props, key)
	if g != nil {
		switch {
		case esc:
			*g = guess{}
		case ok:
			*g = newGuess(si, int16(i+1), key)
		default:
			*g = newGuess(si, -1, key)
		}
	}
	return i, ok
}

// findProp finds key among props (sorted by key) without allocating.
func (t *tables) findProp(props []prop, key []byte) (int, bool) {
	if len(props) <= 32 && len(key) > 0 {
		// Few enough to compare each: by length and first byte before the
		// call that compares the bytes.
		for i := range props {
			if k := props[i].key; int(k.n) == len(key) && t.text[k.off] == key[0] && t.str(k) == string(key) {
				return i, true
			}
		}
		return 0, false
	}
	lo, hi := 0, len(props)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.str(props[m].key) < string(key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(props) && t.is(props[lo].key, key)
}
