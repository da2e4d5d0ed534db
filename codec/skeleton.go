package codec

// Skeletons: a stream's chunks are alike. Each has the same keys in the
// same order, the same id, model and provider, and differs from the one
// before in a few scalars: the text of a delta, a piece of a tool call's
// arguments. A Doc that keeps skeletons (Skeletons) remembers, of each
// payload it decoded whole, the bytes around its free scalars — the
// strings and numbers whose schema takes any value of their kind, which
// make no finding and choose nothing (a union's tag is never one) — and
// where those scalars were.
//
// Its next payload is first read against that skeleton: each part of
// the skeleton compared byte for byte, each free scalar between them
// scanned and checked as Decode checks it (a string's escapes, control
// characters and UTF-8; a number's grammar and kind). A payload that
// matches is the last one with other scalars: decoding it whole would
// record what the last Decode recorded, every offset moved by what the
// scalars before it grew or shrank. So that is what is kept, moved;
// nothing else is walked. Any other payload (or one that fails) is
// decoded whole, and its skeleton is the next one's.

// slot is a free scalar of the last payload: its span, the length of the
// skeleton's part before it, and the kinds its schema takes (mString: a
// string, else numbers).
type slot struct {
	start, end, pre int32
	kinds           mask
}

// move is an offset from which the last payload's offsets move by by.
type move struct{ at, by int32 }

// moves are a payload's moves, in order of at.
type moves []move

// maxMoves is the most moves a payload read against a skeleton may have:
// each of the record's offsets is moved by a scan of them (a chunk's are
// one to three: its delta's text, a piece of arguments). A payload with
// more (every number of a long list changing length) is decoded whole,
// which costs less than moving it would.
const maxMoves = 8

// at is where offset o of the last payload is in the next.
func (m moves) at(o int32) int32 {
	for i := len(m) - 1; i >= 0; i-- {
		if o >= m[i].at {
			return o + m[i].by
		}
	}
	return o
}

// span moves the span start:end of the last payload to the next.
func (m moves) span(start, end *int32) { *start, *end = m.at(*start), m.at(*end) }

// skeleton is what a Doc keeps of its last payload (Skeletons).
type skeleton struct {
	on, ok bool   // ok: of the payload d decoded last, against d.root
	bytes  []byte // the payload without its slots, in order
	slots  []slot
	moves  moves  // scratch
	next   []span // scratch: the slots of the payload read
	hits   int    // the payloads read against a skeleton (SkeletonHits)
}

// Skeletons makes each Decode of d after it try first to read its
// payload as the last one with other free scalars (the top of this file):
// for a stream's chunks, which are alike. What it records is what
// decoding the payload whole records. Off (the default), every Decode
// walks its payload whole.
func (d *Doc) Skeletons(on bool) {
	d.skel.on, d.skel.ok = on, false
}

// SkeletonHits is how many of its payloads d has read against a skeleton
// (Skeletons) rather than walked whole.
func (d *Doc) SkeletonHits() int { return d.skel.hits }

// slot records a free scalar that ends at pos (Skeletons): the string or
// number at start, of kinds.
func (x *decoder) slot(start int, kinds mask) {
	x.doc.skel.slots = append(x.doc.skel.slots, slot{start: int32(start), end: int32(x.pos), kinds: kinds})
}

// maxSkeleton is the largest payload kept as a skeleton: a stream's
// chunks are far smaller, and a Doc kept for reuse (a pooled translator's)
// does not hold a copy of a large one.
const maxSkeleton = 64 << 10

// keep makes the payload just decoded the skeleton, if it can be one.
func (d *Doc) keep() {
	s := &d.skel
	if len(d.data) > maxSkeleton {
		return
	}
	// A union's tag chooses its variant: never a slot, whatever its
	// schema. Nor a long scalar: a string's span is recorded (spans.go).
	slots, end := s.slots[:0], int32(0)
	for _, sl := range s.slots {
		if sl.start < end {
			// A scalar walked again (no walk does so today: a union's
			// object is scanned, then walked once): no skeleton.
			return
		}
		end = sl.end
		if sl.end-sl.start >= minStringSpan || d.isTag(sl.start) {
			continue
		}
		slots = append(slots, sl)
	}
	s.slots = slots
	s.bytes = s.bytes[:0]
	at := int32(0)
	for i := range s.slots {
		sl := &s.slots[i]
		sl.pre = sl.start - at
		s.bytes = append(s.bytes, d.data[at:sl.start]...)
		at = sl.end
	}
	s.bytes = append(s.bytes, d.data[at:]...)
	s.ok = true
}

// isTag reports whether a union's tag value starts at i.
func (d *Doc) isTag(i int32) bool {
	for k := range d.nodes {
		if d.nodes[k].tagStart == i && d.nodes[k].tagEnd > i {
			return true
		}
	}
	return false
}

// like reads data against the skeleton; if it matches, d's record is
// moved to it and like returns true. Else d's record is as it was (its
// decoder's state is not: Decode resets it to walk data whole).
func (d *Doc) like(data []byte) bool {
	s := &d.skel
	x := &d.scratch
	x.data, x.path = data, x.path[:0] // (a string's SyntaxError names the path)
	s.next = s.next[:0]
	p, b := 0, 0 // in data, in s.bytes
	for i := range s.slots {
		sl := &s.slots[i]
		n := int(sl.pre)
		if len(data)-p < n+1 || string(data[p:p+n]) != string(s.bytes[b:b+n]) {
			return false
		}
		p, b = p+n, b+n
		x.pos = p
		if sl.kinds == mString {
			if data[p] != '"' {
				return false
			}
			if _, err := x.str(); err != nil || x.pos-p >= minStringSpan {
				return false
			}
		} else {
			if c := data[p]; c != '-' && (c < '0' || c > '9') {
				return false // (not number's error: it would name the path)
			}
			end, k, err := x.number()
			if err != nil || k&sl.kinds == 0 {
				return false
			}
			x.pos = end
		}
		s.next = append(s.next, span{int32(p), int32(x.pos)})
		p = x.pos
	}
	if len(data)-p != len(s.bytes)-b || string(data[p:]) != string(s.bytes[b:]) {
		return false
	}
	// A match: the offsets move at the end of each slot whose end moved
	// by other than the one before's, by what its end moved.
	s.moves = s.moves[:0]
	by := int32(0)
	for i := range s.slots {
		if n := s.next[i].end - s.slots[i].end; n != by {
			if len(s.moves) == maxMoves {
				return false
			}
			by = n
			s.moves = append(s.moves, move{s.slots[i].end, by})
		}
	}
	d.move(s.moves, data)
	for i := range s.slots {
		s.slots[i].start, s.slots[i].end = s.next[i].start, s.next[i].end
	}
	s.hits++
	return true
}

// move makes d's record of the last payload that of data: each offset
// moved as m.at says. (m.at and m.span called, not method values of
// them: those are a call each, not inlined, and were a third of a text
// chunk's time.)
func (d *Doc) move(m moves, data []byte) {
	d.data, d.scratch.data = data, data
	if len(m) > 0 {
		for i := range d.ents {
			e := &d.ents[i]
			if e.keyEnd > 0 {
				m.span(&e.keyStart, &e.keyEnd)
			}
			m.span(&e.start, &e.end)
		}
		for i := range d.conts {
			m.span(&d.conts[i].start, &d.conts[i].end)
		}
		for i := range d.nodes {
			r := &d.nodes[i]
			m.span(&r.start, &r.end)
			if r.tagEnd > 0 {
				m.span(&r.tagStart, &r.tagEnd)
			}
		}
		for i := range d.segs {
			if g := &d.segs[i].seg; g.start >= 0 {
				m.span(&g.start, &g.end)
			}
		}
		for i := range d.npaths {
			if g := &d.npaths[i]; g.start >= 0 {
				m.span(&g.start, &g.end)
			}
		}
		for i := range d.spans {
			m.span(&d.spans[i].start, &d.spans[i].end)
		}
	}
	// The findings' bytes are data's, moved or not (m.at of no moves is
	// where they were).
	for i := range d.finds {
		f := &d.finds[i]
		if f.Raw != nil {
			end := m.at(f.start + int32(len(f.Raw)))
			f.start = m.at(f.start)
			f.Raw = data[f.start:end:end]
		}
		if f.nameEnd > f.nameStart {
			m.span(&f.nameStart, &f.nameEnd)
		}
	}
	// The containers by offset, for this payload's length.
	if len(d.contAt) != len(data) || len(m) > 0 {
		d.contIndex(len(data))
		for i := range d.conts {
			if c := d.conts[i].start; int(c) < len(d.contAt) {
				d.contAt[c] = uint16(i)
			}
		}
	}
}
