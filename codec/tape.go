package codec

// The tape: Decode records, for every object and array it walks, where its
// members (keys and values) and elements are, so that Members, Elems and
// Get on a decoded payload step from one to the next without scanning the
// bytes again. A converter reads each object it maps once, member by
// member; without the tape it would scan every byte of the payload a
// second time (and more for nested values), after Decode scanned it once.
//
// Free-form values (metadata, tool parameters) are stepped over by Decode,
// not walked: they have no tape, and Values over them scan, as Values of a
// Parse'd payload do.

// cont is an object or array Decode walked: its span and its first
// member or element in Doc.ents (-1: empty).
type cont struct {
	start, end, first int32
}

// ent is a member of an object (its key's contents, escaped, at
// keyStart:keyEnd; esc if the key has escapes) or an element of an array
// (keyStart = keyEnd = 0), its value at start:end, and the next one of its
// container (-1: the last).
type ent struct {
	keyStart, keyEnd, start, end, next int32
	esc                                bool
}

// taping is a container being walked.
type taping struct {
	cont, last int32
}

// open records the container at pos, about to be walked.
func (x *decoder) open() taping {
	d := x.doc
	if x.pos < len(d.contAt) {
		d.contAt[x.pos] = uint16(len(d.conts))
	}
	d.conts = append(d.conts, cont{start: int32(x.pos), end: -1, first: -1})
	return taping{cont: int32(len(d.conts) - 1), last: -1}
}

// add records the next member or element of the container.
func (t *taping) add(d *Doc, keyStart, keyEnd, start, end int32, esc bool) {
	e := int32(len(d.ents))
	// Grown, then filled field by field: a struct literal appended is
	// built on the stack and copied, which stalls on its own stores.
	d.ents = append(d.ents, ent{})
	r := &d.ents[e]
	r.keyStart, r.keyEnd, r.start, r.end, r.next, r.esc = keyStart, keyEnd, start, end, -1, esc
	if t.last < 0 {
		d.conts[t.cont].first = e
	} else {
		d.ents[t.last].next = e
	}
	t.last = e
}

// close records where the container ends: only a closed container is
// read from the tape (a walk cut by a syntax error leaves no Doc to read,
// but a half-recorded container must never be mistaken for a whole one).
func (t *taping) close(d *Doc, end int) { d.conts[t.cont].end = int32(end) }

// tape returns the first entry of the container that starts at i, if
// Decode walked it.
func (d *Doc) tape(i int32) (first int32, ok bool) {
	if c := d.cont(i); c != nil {
		return c.first, true
	}
	return 0, false
}

// end returns where the container that starts at i ends, if Decode walked
// it.
func (d *Doc) end(i int32) (end int32, ok bool) {
	if c := d.cont(i); c != nil {
		return c.end, true
	}
	return 0, false
}

// cont returns the closed container that starts at i, or nil: from
// contAt where the Doc keeps it, else by halves.
func (d *Doc) cont(i int32) *cont {
	c := d.conts
	if uint(i) < uint(len(d.contAt)) {
		// The entry is the cont's if one starts at i (each is written as
		// it opens); another offset's entry is stale, or 0: checked.
		if j := int(d.contAt[i]); j < len(c) && c[j].start == i && c[j].end >= 0 {
			return &c[j]
		}
		return nil
	}
	lo, hi := 0, len(c)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c[m].start < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(c) && c[lo].start == i && c[lo].end >= 0 {
		return &c[lo]
	}
	return nil
}

// maxContAt is the largest payload whose containers a Doc finds by offset
// (contAt): a stream's chunks, a chat completion, most requests; larger
// ones by halves, which then cost little beside the rest of their reading.
// (Its entries are uint16: a payload this size has fewer containers.)
const maxContAt = 1 << 16

// contIndex readies contAt for a payload of n bytes: on a Doc's second
// and later Decodes (a Doc decoding once has no use for it). Not cleared:
// what a stale entry names is checked.
func (d *Doc) contIndex(n int) {
	switch {
	case n > maxContAt:
		d.contAt = d.contAt[:0]
	case n <= cap(d.contAt):
		d.contAt = d.contAt[:n]
	default:
		d.contAt = make([]uint16, n, min(max(n, 2*cap(d.contAt)), maxContAt))
	}
}
