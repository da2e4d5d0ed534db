package codec

import (
	"errors"
	"fmt"
)

// MaxDepth is how deeply arrays and objects may nest in a payload.
const MaxDepth = 1000

// SyntaxError is a payload that is not JSON (or nests deeper than MaxDepth).
// Offset counts bytes from the start of the payload; Path is where the
// decoder was, in the notation of Finding.Path.
type SyntaxError struct {
	Offset int
	Path   string
	Reason string
	Err    error // ErrDuplicateKey, ErrTooDeep, or nil
}

// Unwrap returns Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

func (e *SyntaxError) Error() string {
	where := e.Path
	if where == "" {
		where = "the top level"
	}
	return fmt.Sprintf("codec: invalid JSON at offset %d (%s): %s", e.Offset, where, e.Reason)
}

var (
	// ErrDuplicateKey is wrapped by the SyntaxError of a key that an object
	// the schema walks repeats: which of the two a reader believes differs
	// between parsers, so such a payload is refused. (Free-form values and
	// unknown items are kept as bytes, not read, and may repeat keys.)
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrTooDeep is wrapped by the SyntaxError of a payload that nests
	// arrays and objects deeper than MaxDepth.
	ErrTooDeep = errors.New("nested too deeply")
)

// Decode decodes data against r into d, reusing d's memory; d keeps data
// (it does not copy it), and whatever d returns points into it.
//
// It fails only on data that is not JSON, with a *SyntaxError. Everything
// the spec does not know is kept and reported as a Finding: unknown keys,
// unknown union types (whose Node says so), unknown enum values, values of
// the wrong JSON kind, missing required keys.
func (d *Doc) Decode(r Root, data []byte) error {
	if r.d == nil {
		return errors.New("codec: decode with a zero Root")
	}
	if d.skel.ok && d.root == r && d.like(data) {
		return nil
	}
	// Field by field: a Doc literal would copy the decoder's scratch
	// twice over.
	d.root, d.data = r, data
	d.truncate()
	if cap(d.ents) == 0 {
		d.firstMemory()
	} else {
		d.contIndex(len(data))
	}
	dec := &d.scratch
	dec.reset(d, &r.d.tables)
	dec.ws()
	if err := dec.value(r.i); err != nil {
		return err
	}
	if dec.ws(); dec.pos < len(data) {
		return dec.syntax("data after the top-level value")
	}
	if dec.recSlots {
		d.keep()
	}
	return nil
}

// Quiet makes the Decodes after it report no Finding for a top-level key
// the spec does not declare if extra(key) is true (the key unquoted):
// keys the caller handles itself, such as a mapping's extras (an
// upstream's provider). Their values are read as any member's; a repeated
// one is refused as any repeated key. nil ends it.
func (d *Doc) Quiet(extra func(key []byte) bool) { d.quiet, d.skel.ok = extra, false }

// Release lets go of the payload d decoded, keeping d's memory for its
// next Decode: a Doc kept between uses (in a pool) does not keep its last
// payload alive. What d returned (Values, Nodes, Findings) is not to be
// used after it.
func (d *Doc) Release() {
	d.data, d.scratch.data = nil, nil
	clear(d.finds[:cap(d.finds)])           // their Raw point into the payload
	clear(d.skel.bytes[:cap(d.skel.bytes)]) // copies of payloads
	d.skel.bytes = d.skel.bytes[:0]
	d.truncate()
}

// truncate drops what d read of its payload, keeping the memory.
func (d *Doc) truncate() {
	d.skel.ok = false
	d.nodes, d.finds, d.segs, d.npaths, d.spans, d.conts, d.ents = d.nodes[:0], d.finds[:0], d.segs[:0], d.npaths[:0], d.spans[:0], d.conts[:0], d.ents[:0]
}

// Decode decodes data against r (see Doc.Decode).
func Decode(r Root, data []byte) (*Doc, error) {
	d := new(Doc)
	if err := d.Decode(r, data); err != nil {
		return nil, err
	}
	return d, nil
}

// seg is one step of a JSON path: a key (a span of the payload, the quoted
// string's contents) or an array index.
type seg struct {
	start, end int32 // key span; start < 0 for an index
	index      int32
}

// decoder is the state of one Decode; it lives in its Doc, so its stacks
// are reused by the next Decode.
type decoder struct {
	doc   *Doc
	data  []byte
	pos   int
	tab   *tables
	t     []schema // tab.schemas
	path  []seg    // where the decoder is
	steps []int32  // for each step of path, its index in doc.segs once recorded, else -1
	seen  []uint64 // bitsets of the properties each open object has had
	depth int
	hops  int   // unions passed through for the current value (maxHops)
	keys  []seg // scratch: the keys of an object without its tag (untagged)
	// The keys each open object has that its schema does not declare, to
	// refuse a repeated one: the first maxUndeclared by their spans (then
	// in a set of the object's walk).
	undeclared []seg
	parent     int32     // the innermost node being walked, or -1
	esc        bool      // the last string str read has escapes
	escapes    [2]int    // where str met the escapes before the last one and the last one
	hints      []hintSet // by the depth of an object: where its keys were last
	spare      []hint    // hintMemory's hints, for newHint
	decoded    bool      // the Doc has decoded before (hints are kept from its second Decode)
	hintsOf    *schema   // the table the hints' schemas are of (its first)
	// Skeletons (skeleton.go): the free scalars are recorded; d.skel.on,
	// kept here for the scalars' path (one load, not two).
	recSlots bool
}

// reset readies x for a Decode into d, every field but its memory (and
// the hints) as new.
func (x *decoder) reset(d *Doc, tab *tables) {
	t := tab.schemas
	x.doc, x.data, x.tab, x.t, x.pos = d, d.data, tab, t, 0
	x.path, x.steps, x.seen, x.keys, x.undeclared = x.path[:0], x.steps[:0], x.seen[:0], x.keys[:0], x.undeclared[:0]
	x.depth, x.hops, x.parent, x.esc = 0, 0, -1, false
	x.recSlots = d.skel.on
	if x.recSlots {
		d.skel.slots = d.skel.slots[:0]
	}
	if x.decoded && cap(x.hints) == 0 {
		x.hintMemory()
	}
	x.decoded = true
	if len(t) > 0 && x.hintsOf != &t[0] { // guesses name schemas of a table
		x.forget()
		x.hintsOf = &t[0]
	}
}

func (x *decoder) syntax(reason string) error {
	return &SyntaxError{Offset: x.pos, Path: x.doc.pathString(x.path), Reason: reason}
}

func (x *decoder) tooDeep() error {
	e := x.syntax(ErrTooDeep.Error()).(*SyntaxError)
	e.Err = ErrTooDeep
	return e
}

// kindAt reads the JSON kind of the value at pos without consuming it;
// numbers are scanned to tell integers apart (end is where they stop).
func (x *decoder) kindAt() (m mask, end int, err error) {
	if x.pos >= len(x.data) {
		return 0, 0, x.unexpected()
	}
	switch c := x.data[x.pos]; {
	case c == '{':
		return mObject, 0, nil
	case c == '[':
		return mArray, 0, nil
	case c == '"':
		return mString, 0, nil
	case c == 't' || c == 'f':
		return mBool, 0, nil
	case c == 'n':
		return mNull, 0, nil
	case c == '-' || c >= '0' && c <= '9':
		end, k, err := x.number()
		return k, end, err
	}
	return 0, 0, x.unexpected()
}

// walk is value without the span and without its shortcut for scalars: a
// value of any kind against any schema.
func (x *decoder) walk(si int32) error {
	s := &x.t[si]
	if s.kind == kindAny {
		return x.skip()
	}
	vk, numEnd, err := x.kindAt()
	if err != nil {
		return err
	}
	if vk&s.mask == 0 {
		start := x.pos
		if err := x.skip(); err != nil {
			return err
		}
		f := x.findAt(WrongKind, start, x.pos, 0, 0)
		if n := len(x.path); n > 0 && x.path[n-1].start >= 0 {
			f.nameStart, f.nameEnd = x.path[n-1].start, x.path[n-1].end
		}
		f.want = s.mask
		return nil
	}
	switch vk {
	case mObject:
		switch s.kind {
		case kindObject:
			return x.object(si)
		case kindTagged:
			return x.tagged(si)
		case kindAlts:
			return x.via(x.alt(s, mObject))
		}
	case mArray:
		switch s.kind {
		case kindArray:
			return x.array(s.items)
		case kindAlts:
			return x.via(x.alt(s, mArray))
		}
	case mString:
		start := x.pos
		end, err := x.str()
		if err != nil {
			return err
		}
		if !x.knows(si, x.data[start+1:end], x.esc) {
			x.findAt(UnknownValue, start, x.pos, start+1, end)
		}
		return nil
	}
	if numEnd > 0 {
		x.pos = numEnd
		return nil
	}
	return x.skip()
}

// maxHops bounds how many schemas (union → alternative → …) the decoder
// goes through for one value: a spec whose unions refer to themselves must
// not make it loop.
const maxHops = 16

// via walks the value at pos as schema si, reached from a union without
// consuming anything.
func (x *decoder) via(si int32) error {
	if x.hops >= maxHops {
		return x.skip()
	}
	x.hops++
	err := x.value(si)
	x.hops--
	return err
}

// alt picks the alternative of a union that takes values of kind k.
func (x *decoder) alt(s *schema, k mask) int32 {
	alts := x.tab.altsOf(s)
	for _, a := range alts {
		if x.t[a].mask&k != 0 {
			return a
		}
	}
	return alts[0] // unreachable: the union's mask has k
}

// knows reports whether schema si allows the string value v (the quoted
// string's contents; esc if it has escapes).
func (x *decoder) knows(si int32, v []byte, esc bool) bool {
	s := &x.t[si]
	switch s.kind {
	case kindScalar:
		if !s.enum {
			return true
		}
		if esc {
			v = unquote(v)
		}
		return x.tab.hasValue(s.values, v)
	case kindAlts:
		for _, a := range x.tab.altsOf(s) {
			if x.t[a].mask&mString != 0 && x.knows(a, v, esc) {
				return true
			}
		}
		return false
	}
	return true
}

func (x *decoder) array(items int32) error {
	if len(x.path) >= MaxDepth {
		return x.tooDeep()
	}
	defer x.leave(x.enter())
	t := x.open()
	x.pos++ // [
	x.ws()
	if x.pos < len(x.data) && x.data[x.pos] == ']' {
		x.pos++
		t.close(x.doc, x.pos)
		return nil
	}
	for i := int32(0); ; i++ {
		x.step(seg{start: -1, index: i}) // no push: array checked the depth on entry
		vs := x.pos
		if err := x.value(items); err != nil {
			return err
		}
		t.add(x.doc, 0, 0, int32(vs), int32(x.pos), false)
		x.path = x.path[:len(x.path)-1]
		if x.comma() {
			continue
		}
		if more, err := x.nextSlow(']'); !more {
			if err == nil {
				t.close(x.doc, x.pos)
			}
			return err
		}
	}
}

// missing records a required key that the object at the current path lacks.
func (x *decoder) missing(key string) {
	f := x.finding(MissingField)
	f.name = key
}

// finding records a finding about the value at the current path and
// returns it for the caller to fill in.
func (x *decoder) finding(k FindingKind) *Finding {
	x.doc.finds = append(x.doc.finds, Finding{Kind: k, d: x.doc, path: x.record()})
	return &x.doc.finds[len(x.doc.finds)-1]
}

// findAt records a finding about the value data[start:end] at the current
// path, named by data[nameStart:nameEnd].
func (x *decoder) findAt(k FindingKind, start, end, nameStart, nameEnd int) *Finding {
	f := x.finding(k)
	f.Raw, f.start = x.data[start:end:end], int32(start)
	f.nameStart, f.nameEnd = int32(nameStart), int32(nameEnd)
	return f
}
