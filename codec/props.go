package codec

// Finding an object's property by its key: where the same position's
// key was last time, else among the schema's properties.

// hint is what the decoder learnt of the object last walked at a depth:
// payloads of one kind repeat their keys in one order (a stream's chunks
// above all), so the key at a position is first tried as the property
// found at that position before.
type hint struct {
	s    *schema
	prop [16]int16 // by the key's position in the object; -1: not known
}

// hintAt returns the hint slot of an object of schema s at depth d.
func (x *decoder) hintAt(d int, s *schema) *hint {
	for len(x.hints) <= d {
		x.hints = append(x.hints, hint{})
	}
	h := &x.hints[d]
	if h.s != s {
		h.s = s
		for i := range h.prop {
			h.prop[i] = -1
		}
	}
	return h
}

// prop finds key among s's properties, trying first where the hint at
// depth d says the key at position n was.
func (x *decoder) prop(s *schema, d, n int, key []byte) (int, bool) {
	h := &x.hints[d]
	if n < len(h.prop) {
		if g := h.prop[n]; g >= 0 && s.props[g].key == string(key) {
			return int(g), true
		}
	}
	i, ok := findProp(s.props, key)
	if ok && n < len(h.prop) {
		h.prop[n] = int16(i)
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
