package codec

// The spans index: Decode records where large values end, so that a
// Value steps over them (Members, Elems, Get) without scanning them again.

// span is a value's extent. Decode records the objects and arrays that
// hold more than a few bytes and the long strings, in order of start, so
// that reading the fields of a large payload through Values does not scan
// it again.
type span struct{ start, end int32 }

// Spans below these sizes are not recorded: scanning them is as fast.
const (
	minContainerSpan = 128
	minStringSpan    = 256
)

// skip returns where the value at i ends: a recorded span's end, else
// by scanning.
func (d *Doc) skip(i int) int {
	if c := d.data[i]; c == '{' || c == '[' || c == '"' {
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
// recording its span if it is large.
func (x *decoder) value(si int32) error {
	start := x.pos
	if start >= len(x.data) {
		return x.walk(si)
	}
	switch x.data[start] {
	case '{', '[':
		d := x.doc
		i := len(d.spans)
		d.spans = append(d.spans, span{int32(start), 0})
		err := x.walk(si)
		if len(d.spans) == i+1 && x.pos-start < minContainerSpan {
			d.spans = d.spans[:i] // small, and nothing inside recorded
		} else {
			d.spans[i].end = int32(x.pos)
		}
		return err
	case '"':
		err := x.walk(si)
		if x.pos-start >= minStringSpan {
			x.doc.spans = append(x.doc.spans, span{int32(start), int32(x.pos)})
		}
		return err
	}
	return x.walk(si)
}
