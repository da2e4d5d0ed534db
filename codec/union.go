package codec

// Discriminated unions: the tag read first, the variant walked, the node
// recorded; objects without a tag.

import (
	"slices"
)

// tagged walks an object of a discriminated union: it reads the tag first,
// then walks the object again as the variant the tag names. The node it
// records says which variant that was, or that the tag is unknown.
func (x *decoder) tagged(si int32) error {
	s := &x.t[si]
	start := x.pos
	tag := x.tab.str(s.tag)
	ks, ke, ts, te, tagKind, err := x.findTag(tag)
	x.depth = 0
	if err != nil {
		x.pos = start
		if terr := x.trace(); terr != nil {
			return terr // names the path in the object
		}
		return err
	}
	x.pos = start
	variant, tcase, flags := int32(-1), int32(-1), nodeFlags(0)
	switch {
	case tagKind == mString:
		v := x.data[ts+1 : te-1]
		if hasEscape(v) {
			v = unquote(v)
		}
		cases := x.tab.casesOf(s)
		if tcase = x.tab.findCase(cases, v); tcase >= 0 {
			variant = cases[tcase].schema
		}
	case (tagKind == 0 || tagKind == mNull) && s.dflt >= 0:
		// No tag (or a null one, which the variant's walk checks): the
		// default variant, or among the variants whose tag is optional the
		// first whose required keys are there.
		variant, flags = x.untagged(s, start), nodeDefault
	}
	// The node's path, copied whole: a copy of its steps (a node's path
	// is rarely asked for), where adding them to the findings' tree cost
	// a chunk's reasoning detail 330 instructions.
	at := int32(len(x.doc.npaths))
	x.doc.npaths = append(x.doc.npaths, x.path...)
	x.doc.nodes = append(x.doc.nodes, nodeRec{union: si, variant: variant, tcase: tcase, start: int32(start), tagStart: int32(ts), tagEnd: int32(te), parent: x.parent, flags: flags, pathAt: at, pathLen: int32(len(x.path))})
	n := int32(len(x.doc.nodes) - 1)
	switch {
	case variant >= 0:
		parent := x.parent
		x.parent = n
		err = x.via(variant)
		x.parent = parent
	case tagKind == 0:
		x.missing(tag)
		err = x.skip()
	case x.repeatedTag(tag, start) >= 0:
		// Not walked, so the walk would not see the tag repeated: an
		// unknown first value must not hide a known second one.
		x.step(seg{})
		err = x.duplicate(x.pos)
	case tagKind != mString:
		if err = x.skip(); err == nil {
			x.step(seg{start: int32(ks + 1), end: int32(ke)})
			f := x.findAt(WrongKind, ts, te, 0, 0)
			f.name, f.want = tag, mString
			x.path = x.path[:len(x.path)-1]
		}
	default:
		if err = x.skip(); err == nil {
			x.findAt(UnknownType, start, x.pos, ts+1, te-1)
		}
	}
	x.doc.nodes[n].end = int32(x.pos)
	return err
}

// findCase is the index of the case of value v among cases (sorted), or
// -1.
func (t *tables) findCase(cases []tagCase, v []byte) int32 {
	if len(cases) <= 32 && len(v) > 0 {
		// Few: each compared, by length and first byte before the bytes
		// (a reasoning detail's four types have four lengths), as
		// findProp does. A binary search's string comparisons cost an
		// input item's type 570 instructions.
		for i := range cases {
			if c := cases[i].value; int(c.n) == len(v) && t.text[c.off] == v[0] && t.str(c) == string(v) {
				return int32(i)
			}
		}
		return -1
	}
	lo, hi := 0, len(cases)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.str(cases[m].value) < string(v) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(cases) && t.is(cases[lo].value, v) {
		return int32(lo)
	}
	return -1
}

// members calls fn with the span of each key of the object at pos (pos at
// the key's value), stepping over the values, until fn returns false (pos
// left at that value) or the object ends (pos after it). It is the scan of
// an object that tagged does before walking it: values are checked by
// skipFast, not walked, and an error is a syntax error in the object.
func (x *decoder) members(fn func(ks, ke int) bool) error {
	x.pos++ // {
	x.ws()
	if x.pos < len(x.data) && x.data[x.pos] == '}' {
		x.pos++
		return nil
	}
	for {
		ks, ke, err := x.key()
		if err != nil {
			return err
		}
		if !fn(ks, ke) {
			return nil
		}
		if err := x.skipFast(); err != nil {
			return err
		}
		if more, err := x.next('}'); !more {
			return err
		}
	}
}

// keyIs reports whether the key data[ks+1:ke] (a quoted string's contents)
// is name.
func (x *decoder) keyIs(ks, ke int, name string) bool {
	key := x.data[ks+1 : ke]
	return string(key) == name || hasEscape(key) && string(unquote(key)) == name
}

// findTag scans the object at pos for its key tag and returns the spans of
// the key and of its value, and that value's JSON kind (0 if the object has
// no such key). It stops at the tag, so the usual object (tag first) costs
// little.
func (x *decoder) findTag(tag string) (keyStart, keyEnd, start, end int, k mask, err error) {
	if ks, ke, ok := x.tagFirst(tag); ok {
		start = x.pos
		if k, _, err = x.kindAt(); err == nil {
			err = x.skipFast()
		}
		return ks, ke, start, x.pos, k, err
	}
	found := false
	err = x.members(func(ks, ke int) bool {
		if !x.keyIs(ks, ke, tag) {
			return true
		}
		keyStart, keyEnd, start, found = ks, ke, x.pos, true
		return false
	})
	if err != nil || !found {
		return 0, 0, 0, 0, 0, err
	}
	if k, _, err = x.kindAt(); err == nil {
		err = x.skipFast()
	}
	return keyStart, keyEnd, start, x.pos, k, err
}

// tagFirst reads the object at pos up to its first member's value if
// that member's key is tag, written without escapes (as every upstream
// writes its tags, first): the scan of members with its call per key is
// for the others. It leaves pos where it was if not.
func (x *decoder) tagFirst(tag string) (ks, ke int, ok bool) {
	start := x.pos
	x.pos++ // {
	x.ws()
	if ks, ke, ok = x.keyAt(tag); !ok {
		x.pos = start
	}
	return ks, ke, ok
}

// untagged picks the variant of an object of union s that has no tag: the
// first of s.untagged whose required keys it has, else the default.
func (x *decoder) untagged(s *schema, start int) int32 {
	if s.untagged.n == 0 {
		return s.dflt
	}
	x.keys = x.keys[:0]
	x.pos = start
	_ = x.members(func(ks, ke int) bool { // (a syntax error: the walk reports it)
		x.keys = append(x.keys, seg{start: int32(ks + 1), end: int32(ke)})
		return true
	})
	x.pos, x.depth = start, 0
	for _, v := range x.tab.untaggedOf(s) {
		if x.hasRequired(&x.t[v], x.tab.str(s.tag)) {
			return v
		}
	}
	return s.dflt
}

// hasRequired reports whether the keys in x.keys include every key v
// requires (but the tag).
func (x *decoder) hasRequired(v *schema, tag string) bool {
	for _, p := range x.tab.propsOf(v) {
		key := x.tab.str(p.key)
		if !p.required || key == tag {
			continue
		}
		if !slices.ContainsFunc(x.keys, func(k seg) bool { return x.keyIs(int(k.start)-1, int(k.end), key) }) {
			return false
		}
	}
	return true
}

// repeatedTag returns where the object at start has its tag key a second
// time (pos left there), or -1 (pos left at start). A syntax error is left
// for the walk to report.
func (x *decoder) repeatedTag(tag string, start int) int {
	second, n := -1, 0
	x.pos = start
	defer func() {
		if second >= 0 {
			x.pos = second // for the error
		}
	}()
	_ = x.members(func(ks, ke int) bool {
		if x.keyIs(ks, ke, tag) {
			if n++; n == 2 {
				second = ks
				return false
			}
		}
		return true
	})
	x.pos, x.depth = start, 0
	return second
}
