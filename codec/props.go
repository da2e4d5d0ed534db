package codec

// Finding an object's property by its key: where the same position's
// key was last time, else among the schema's properties.

// hint is what the decoder learnt of the object last walked at a depth:
// payloads of one kind repeat their keys in one order (a stream's chunks
// above all), so the key at a position is first tried as the property
// found at that position before. It is by depth only, not by schema: a
// property tried is compared by its key, so a hint left by an object of
// another schema costs a compare, never a wrong property.
type hint [16]int16 // by the key's position in the object: 1 + the property's index; 0: none

// hintAt makes sure there is a hint for depth d.
func (x *decoder) hintAt(d int) {
	for len(x.hints) <= d {
		x.hints = append(x.hints, hint{})
	}
}

// hinted returns the property the hint at depth d has for position n
// among props, if any.
func (x *decoder) hinted(props []prop, d, n int) (int, bool) {
	if n >= len(hint{}) {
		return 0, false
	}
	g := int(x.hints[d][n]) - 1
	return g, g >= 0 && g < len(props)
}

// expected reads the key at pos if it is the one the hint at depth d
// says was at position n before, written without escapes, and the colon
// after it: the key's bytes are compared, not scanned. It returns the
// key's span and property (ok), or leaves pos where it was.
func (x *decoder) expected(s *schema, d, n int) (ks, ke, i int, ok bool) {
	g, ok := x.hinted(s.props, d, n)
	if !ok {
		return 0, 0, 0, false
	}
	k := s.props[g].key
	ks, ke = x.pos, x.pos+1+len(k)
	// A hint is only kept for a key found written without escapes: k
	// holds no quote, backslash or control character, so bytes equal to
	// it are a whole valid string.
	if ke+1 >= len(x.data) || x.data[ks] != '"' || x.data[ke] != '"' || string(x.data[ks+1:ke]) != k {
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
	return ks, ke, g, true
}

// prop finds key among s's properties, trying first where the hint at
// depth d says the key at position n was; a key found is the hint for
// the next object at d, unless it was written with escapes (esc).
func (x *decoder) prop(s *schema, d, n int, key []byte, esc bool) (int, bool) {
	if g, ok := x.hinted(s.props, d, n); ok && s.props[g].key == string(key) {
		return g, true
	}
	i, ok := findProp(s.props, key)
	if n < len(hint{}) {
		x.hints[d][n] = 0
		if ok && !esc {
			x.hints[d][n] = int16(i + 1)
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
