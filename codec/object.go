package codec

// Objects: the walk of an object's members against its schema's
// properties (the usual member in object, the rest apart).

import (
	"bytes"
	"fmt"
)

// enter and leave bracket the walk of an object's or array's members: the
// members are new values, so they start with no hops.
func (x *decoder) enter() (hops int) { hops, x.hops = x.hops, 0; return hops }
func (x *decoder) leave(hops int)    { x.hops = hops }

func (x *decoder) object(si int32) error {
	s := &x.t[si]
	if len(x.path) >= MaxDepth { // this object would be level MaxDepth+1
		return x.tooDeep()
	}
	defer x.leave(x.enter())
	t := x.open()
	var h *hint                            // nil: no property to find, or no hints kept
	if s.props.n > 0 && cap(x.hints) > 0 { // (none on a Doc's first Decode)
		h = x.hintFor(si, len(x.path))
	}
	n, nreq := 0, 0
	x.pos++ // {
	// The properties seen: the first 64 in a word of the stack, those of
	// a larger object after them in x.seen.
	var seen0 uint64
	base := len(x.seen)
	if s.props.n > 64 {
		x.seen = append(x.seen, make([]uint64, (s.props.n-1)/64)...)
	}
	// The keys the object has that its schema does not declare (from
	// ubase in x.undeclared, then in set).
	u := undeclared{base: len(x.undeclared), top: len(x.path) == 0}
	x.ws()
	if x.pos < len(x.data) && x.data[x.pos] == '}' {
		x.pos++
	} else {
		// The usual member (its key where the hint says, a property) is
		// walked here; what else there is, apart (undeclaredMember, findKey,
		// nullRequired): the code the processor holds for each member is
		// what it runs, not what it might.
		for {
			var ks, ke, i int
			var ok bool
			var err error
			if h != nil {
				ks, ke, i, ok = x.expected(si, h, n)
			}
			var key []byte // read unless the hint found the property
			if !ok {
				if ks, ke, i, key, ok, err = x.findKey(si, h, n); err != nil {
					return err
				}
			} else if i < 0 { // the undeclared key the hint remembers
				key, ok = x.data[ks+1:ke], false
			}
			vs, esc := x.pos, x.esc
			// Stepped without push's check: object checked the depth on entry.
			x.step(seg{start: int32(ks + 1), end: int32(ke)})
			n++
			if ok {
				bit := uint64(1) << (uint(i) % 64)
				if i >= 64 {
					if err = x.seeWide(base+i/64-1, bit, ks); err != nil {
						return err
					}
				} else if seen0&bit != 0 {
					return x.duplicate(ks)
				} else {
					seen0 |= bit
				}
				p := &x.tab.props[int(s.props.off)+i]
				if !p.required {
					err = x.value(p.schema)
				} else if nreq++; x.pos < len(x.data) && x.data[x.pos] == 'n' && x.t[p.schema].nonull {
					err = x.nullRequired(p, ks, ke)
				} else {
					err = x.value(p.schema)
				}
			} else {
				err = x.undeclaredMember(&u, s, key, ks, ke, vs)
			}
			if err != nil {
				return err
			}
			t.add(x.doc, int32(ks+1), int32(ke), int32(vs), int32(x.pos), esc)
			x.path = x.path[:len(x.path)-1]
			if x.comma() {
				continue
			}
			if more, err := x.nextSlow('}'); err != nil {
				return err
			} else if !more {
				break
			}
		}
	}
	if nreq < int(s.nreq) {
		x.missingRequired(s, seen0, base)
	}
	x.seen, x.undeclared = x.seen[:base], x.undeclared[:u.base]
	t.close(x.doc, x.pos)
	return nil
}

// findKey reads the key at pos (the hint did not name it) and finds it
// among the properties of schema si (h nil: without hints): its span,
// its contents unquoted and its property i, if ok.
func (x *decoder) findKey(si int32, h *hint, n int) (ks, ke, i int, key []byte, ok bool, err error) {
	if ks, ke, err = x.key(); err != nil {
		return 0, 0, 0, nil, false, err
	}
	if key = x.data[ks+1 : ke]; x.esc {
		key = unquote(key)
	}
	if h != nil {
		i, ok = x.prop(si, h, n, key, x.esc)
	} else {
		i, ok = x.tab.findProp(x.tab.propsOf(&x.t[si]), key)
	}
	return ks, ke, i, key, ok, nil
}

// seeWide marks property bit of word w of x.seen seen (a property past
// the 64th), refusing it seen before.
func (x *decoder) seeWide(w int, bit uint64, ks int) error {
	if x.seen[w]&bit != 0 {
		return x.duplicate(ks)
	}
	x.seen[w] |= bit
	return nil
}

// nullRequired steps over null in required property p, which the spec
// does not let be null (the normalizer let every property be null): a
// finding.
func (x *decoder) nullRequired(p *prop, ks, ke int) error {
	start := x.pos
	err := x.skip()
	if err == nil {
		f := x.findAt(WrongKind, start, x.pos, ks+1, ke)
		f.want = x.t[p.schema].mask &^ mNull
	}
	return err
}

// missingRequired records the required properties of s that the object
// lacks (seen0 and x.seen from base: those it has).
func (x *decoder) missingRequired(s *schema, seen0 uint64, base int) {
	for i, p := range x.tab.propsOf(s) {
		w := seen0
		if i >= 64 {
			w = x.seen[base+i/64-1]
		}
		if p.required && w&(uint64(1)<<(i%64)) == 0 {
			x.missing(x.tab.str(p.key))
		}
	}
}

// undeclared is what an object's walk knows of the keys it has that its
// schema does not declare: the first maxUndeclared from base in
// x.undeclared, by their spans, then all of them in set; top if the
// object is the payload's (Doc.Quiet).
type undeclared struct {
	base int
	set  map[string]bool
	top  bool
}

// undeclaredMember steps over the member ks:ke (key) of an object of schema s
// that s does not declare, refusing one the object had before; a finding
// unless Doc.Quiet takes it.
func (x *decoder) undeclaredMember(u *undeclared, s *schema, key []byte, ks, ke, vs int) error {
	if u.set != nil {
		if u.set[string(key)] {
			return x.duplicate(ks)
		}
		u.set[string(key)] = true
	} else {
		for _, k := range x.undeclared[u.base:] {
			if bytes.Equal(unquote(x.data[k.start:k.end]), key) {
				return x.duplicate(ks)
			}
		}
		if len(x.undeclared)-u.base < maxUndeclared {
			x.undeclared = append(x.undeclared, seg{start: int32(ks + 1), end: int32(ke)})
		} else {
			u.set = map[string]bool{string(key): true}
			for _, k := range x.undeclared[u.base:] {
				u.set[string(unquote(x.data[k.start:k.end]))] = true
			}
		}
	}
	kind := UnknownField
	if s.open {
		kind = ExtraField
	}
	err := x.skip()
	if err == nil && !(u.top && x.doc.quiet != nil && x.doc.quiet(key)) {
		x.findAt(kind, vs, x.pos, ks+1, ke)
	}
	return err
}

// maxUndeclared is how many undeclared keys of an object are compared
// with each next one before they go into a set.
const maxUndeclared = 8

func (x *decoder) duplicate(keyStart int) error {
	x.pos = keyStart
	x.path = x.path[:len(x.path)-1]
	return &SyntaxError{Offset: keyStart, Path: x.doc.pathString(x.path), Reason: fmt.Sprintf("%v %q", ErrDuplicateKey, clip(unquote(x.data[keyStart+1:x.keyEnd(keyStart)]))), Err: ErrDuplicateKey}
}

func (x *decoder) keyEnd(start int) int {
	save := x.pos
	x.pos = start
	end, _ := x.str()
	x.pos = save
	return end
}
