package codec

// The spans index: Decode records where long strings end, so that a
// Value steps over them (Members, Elems, Get) without scanning them again;
// where objects and arrays end is on the tape.

// span is a long string's extent. Decode records them in order of start.
type span struct{ start, end int32 }

// Strings shorter than this are not recorded: scanning them is as fast.
const minStringSpan = 256

// skip returns where the value at i ends: a recorded end, else by
// scanning.
func (d *Doc) skip(i int) int {
	switch d.data[i] {
	case '{', '[':
		if end, ok := d.end(int32(i)); ok {
			return int(end)
		}
	case '"':
		s := d.spans
		lo, hi := 0, len(s)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if int(s[m].start) < i {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(s) && int(s[lo].start) == i {
			return int(s[lo].end)
		}
	}
	return skipValue(d.data, i)
}

// value walks the value at pos (whitespace skipped) against schema si,
// recording its span if it is a long string (objects and arrays are on
// the tape).
func (x *decoder) value(si int32) error {
	start := x.pos
	if start >= len(x.data) || x.data[start] != '"' {
		return x.walk(si)
	}
	err := x.walk(si)
	if x.pos-start >= minStringSpan {
		x.doc.spans = append(x.doc.spans, span{int32(start), int32(x.pos)})
	}
	return err
}
