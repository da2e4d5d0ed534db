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
// the tape). A scalar the schema takes as it is (a string of an open set,
// a number, null, a boolean of its kinds) is stepped over here, and an
// object or array of its kind walked: walk would find no more.
func (x *decoder) value(si int32) error {
	start := x.pos
	if start >= len(x.data) {
		return x.walk(si)
	}
	s := &x.t[si]
	switch c := x.data[start]; {
	case c == '"':
		var err error
		if s.kind == kindAny || s.kind == kindScalar && !s.enum && s.mask&mString != 0 {
			if _, err = x.str(); x.recSlots && err == nil {
				x.slot(start, mString)
			}
		} else {
			err = x.walk(si)
		}
		if x.pos-start >= minStringSpan {
			x.doc.spans = append(x.doc.spans, span{int32(start), int32(x.pos)})
		}
		return err
	case c == '{' && s.kind == kindObject && s.mask&mObject != 0:
		return x.object(si) // walk's way, without its kindAt and switch
	case c == '[' && s.kind == kindArray && s.mask&mArray != 0:
		return x.array(s.items)
	case c == 'n':
		if s.mask&mNull != 0 || s.kind == kindAny {
			if x.atLit("null") {
				return nil
			}
			return x.invalidLiteral()
		}
	case c == 't':
		if s.mask&mBool != 0 || s.kind == kindAny {
			if x.atLit("true") {
				return nil
			}
			return x.invalidLiteral()
		}
	case c == 'f':
		if s.mask&mBool != 0 || s.kind == kindAny {
			if x.atLit("false") {
				return nil
			}
			return x.invalidLiteral()
		}
	case c == '-' || c >= '0' && c <= '9':
		end, vk, err := x.number()
		if err != nil {
			return err
		}
		if vk&s.mask != 0 || s.kind == kindAny {
			x.pos = end
			if x.recSlots {
				k := s.mask & (mNumber | mInteger)
				if s.kind == kindAny {
					k = mNumber | mInteger
				}
				x.slot(start, k)
			}
			return nil
		}
	}
	return x.walk(si)
}
