package codec

import (
	"iter"
	"unsafe"
)

// Builder builds a JSON payload out of copied bytes: the converters set
// the members of the payload they write at the target paths of a mapping,
// in whatever order the mapping reads its source, and the Builder keeps
// them together: an object's members in the order they were first set, an
// array's elements in the order they were appended. Values are raw JSON
// (bytes of the source payload, not copied until AppendJSON) or objects
// and arrays of the Builder's own.
//
// Objects and arrays the Builder made that end up empty are left out of
// the payload (with their key): a mapping creates a target object when
// it has something to put there, and an array of tools all of which were
// dropped is no array. A raw {} or [] is kept.
//
// The zero Builder holds an empty object at Top. A Builder may be Reset
// and reused; it is not safe for concurrent use.
type Builder struct {
	nodes []bnode
	buf   []byte
}

// Ref is an object or array of a Builder.
type Ref int32

// Top is the payload's top-level object.
const Top Ref = 0

type bkind uint8

const (
	bRaw bkind = iota
	bObject
	bArray
)

type bnode struct {
	key string // the member's key ("" for an array element)
	// raw (bRaw): its bytes ("" for none) as a string, 16 bytes where a
	// slice is 24: a node is 48 bytes, not 56 (a fresh Builder's first
	// nodes one allocation of 1,536 bytes, not 1,792), and a string is
	// appended without a conversion. Its bytes are the payload's or the
	// Builder's, neither written to while the node is there.
	raw               string
	kind              bkind
	lit               bool   // key is a literal the generator checked: written without a check
	keys              uint16 // keyBit of each member's key, or'ed (in the padding: no larger a node)
	first, last, next int32  // children (0: none; the top is never a child)
}

// keyBit is key's bit in a bnode's keys: from its length alone, which
// costs no load. A key whose bit an object's keys lack is none of its
// members, known without a walk over them (most keys a converter sets
// are new: the walks cost the 1.1 KB request about 160 instructions
// more). What adds a member with a key sets its bit (add does not: it
// would not be inlined then); a member removed leaves its bit, which only
// costs a walk. TestBuilderMembersModel holds them to a model.
func keyBit(key string) uint16 { return 1 << (uint(len(key)) & 15) }

// Reset empties the Builder to an empty top-level object, keeping its
// memory.
func (b *Builder) Reset() {
	if cap(b.nodes) == 0 {
		b.nodes = make([]bnode, 0, firstNodes)
	}
	b.nodes = append(b.nodes[:0], bnode{kind: bObject})
	b.buf = b.buf[:0]
}

// firstNodes is what a new Builder starts with: enough for a small
// payload, at once rather than growing to it.
const firstNodes = 32

func (b *Builder) init() {
	if len(b.nodes) == 0 { // a zero Builder: its top (buf may hold a value already)
		if cap(b.nodes) == 0 {
			b.nodes = make([]bnode, 0, firstNodes)
		}
		b.nodes = append(b.nodes, bnode{kind: bObject})
	}
}

// add appends a node to parent's members or elements; parent is a node
// of b (its callers make the top first, init).
func (b *Builder) add(parent Ref, key string, raw string, kind bkind, lit bool) Ref {
	i := int32(len(b.nodes))
	// Grown, then filled field by field, as the tape's entries are: a
	// bnode literal appended is built on the stack and copied in 16-byte
	// loads that wait on its 8-byte stores.
	b.nodes = append(b.nodes, bnode{})
	n := &b.nodes[i]
	n.key, n.raw, n.kind, n.lit = key, raw, kind, lit
	p := &b.nodes[parent]
	if p.last != 0 {
		b.nodes[p.last].next = i
	} else {
		p.first = i
	}
	p.last = i
	return Ref(i)
}

// member returns the member key of obj (0 if none).
func (b *Builder) member(obj Ref, key string) int32 {
	if int(obj) >= len(b.nodes) {
		return 0 // a zero Builder's top, which has none
	}
	n := &b.nodes[obj]
	if n.keys&keyBit(key) == 0 {
		return 0
	}
	for i := n.first; i != 0; i = b.nodes[i].next {
		if b.nodes[i].key == key {
			return i
		}
	}
	return 0
}

// Has reports whether obj has the member key.
func (b *Builder) Has(obj Ref, key string) bool { return b.member(obj, key) != 0 }

// Object returns obj's member key, an object, adding it if there is none.
// An existing member that is not a Builder object is replaced by one.
func (b *Builder) Object(obj Ref, key string) Ref { return b.container(obj, key, bObject, false) }

// The …Lit methods are those of the same names for generated code, whose
// keys are literals its generator checked need no escaping (a
// mapping's target keys): written as they are, where another key's every
// byte is checked. Not for a key that comes from a payload.

// ObjectLit is Object for a literal key.
func (b *Builder) ObjectLit(obj Ref, key string) Ref { return b.container(obj, key, bObject, true) }

// ArrayLit is Array for a literal key.
func (b *Builder) ArrayLit(obj Ref, key string) Ref { return b.container(obj, key, bArray, true) }

// SetLit is Set for a literal key.
func (b *Builder) SetLit(obj Ref, key string, raw []byte) { b.set(obj, key, rawString(raw), true) }

// SetNewLit is SetNew for a literal key.
func (b *Builder) SetNewLit(obj Ref, key string, raw []byte) {
	b.setNew(obj, key, rawString(raw), true)
}

// SetStringLit is SetString for a literal key.
func (b *Builder) SetStringLit(obj Ref, key, s string) { b.SetLit(obj, key, b.quote(s)) }

// SetJSONLit is SetJSON for a literal key.
func (b *Builder) SetJSONLit(obj Ref, key, raw string) { b.set(obj, key, raw, true) }

// ObjectOnce is ObjectLit for generated code that writes several members of
// one object, where nothing else writes to the object holding it: *r keeps
// the object from the first call on (0, Top, never a member, until then),
// and later calls return it without looking for key.
func (b *Builder) ObjectOnce(obj Ref, key string, r *Ref) Ref {
	if *r == 0 {
		*r = b.container(obj, key, bObject, true)
	}
	return *r
}

// Array returns obj's member key, an array, adding it if there is none.
func (b *Builder) Array(obj Ref, key string) Ref { return b.container(obj, key, bArray, false) }

func (b *Builder) container(obj Ref, key string, k bkind, lit bool) Ref {
	b.init()
	if i := b.member(obj, key); i != 0 {
		if n := &b.nodes[i]; n.kind != k {
			*n = bnode{key: key, kind: k, lit: lit, next: n.next}
		}
		return Ref(i)
	}
	r := b.add(obj, key, "", k, lit)
	b.nodes[obj].keys |= keyBit(key)
	return r
}

// Set sets obj's member key to raw, a JSON value, keeping the member's
// place if it is set already.
func (b *Builder) Set(obj Ref, key string, raw []byte) { b.set(obj, key, rawString(raw), false) }

// set is Set, SetLit, SetJSON and SetJSONLit: raw as a node holds it.
func (b *Builder) set(obj Ref, key, raw string, lit bool) {
	b.init()
	if i := b.member(obj, key); i != 0 {
		b.nodes[i] = bnode{key: key, raw: raw, lit: lit, next: b.nodes[i].next}
		return
	}
	b.add(obj, key, raw, bRaw, lit)
	b.nodes[obj].keys |= keyBit(key)
}

// SetNew sets obj's member key to raw if obj has no such member yet (a
// mapping's earlier entry keeps what it set), with one look for it.
func (b *Builder) SetNew(obj Ref, key string, raw []byte) { b.setNew(obj, key, rawString(raw), false) }

// setNew is SetNew and SetNewLit.
func (b *Builder) setNew(obj Ref, key, raw string, lit bool) {
	b.init()
	if b.member(obj, key) == 0 {
		b.add(obj, key, raw, bRaw, lit)
		b.nodes[obj].keys |= keyBit(key)
	}
}

// SetJSON sets obj's member key to raw, a JSON value held in a string (a
// constant: `"assistant"`), without copying it.
func (b *Builder) SetJSON(obj Ref, key, raw string) { b.set(obj, key, raw, false) }

// SetString sets obj's member key to the JSON string s.
func (b *Builder) SetString(obj Ref, key, s string) {
	b.Set(obj, key, b.quote(s))
}

// SetBool sets obj's member key to true or false.
func (b *Builder) SetBool(obj Ref, key string, v bool) {
	if v {
		b.SetJSON(obj, key, "true")
	} else {
		b.SetJSON(obj, key, "false")
	}
}

// Delete removes obj's member key, if it has one.
func (b *Builder) Delete(obj Ref, key string) {
	b.Filter(obj, func(m Ref) bool { return b.nodes[m].key != key })
}

// Filter keeps the elements (or members) of r for which keep is true, in
// one pass.
func (b *Builder) Filter(r Ref, keep func(Ref) bool) {
	b.init()
	prev := int32(0)
	for i := b.nodes[r].first; i != 0; i = b.nodes[i].next {
		if keep(Ref(i)) {
			if prev == 0 {
				b.nodes[r].first = i
			} else {
				b.nodes[prev].next = i
			}
			prev = i
		}
	}
	if prev == 0 {
		b.nodes[r].first = 0
	} else {
		b.nodes[prev].next = 0
	}
	b.nodes[r].last = prev
}

// Child returns obj's member key if it is an object or array of the
// Builder's.
func (b *Builder) Child(obj Ref, key string) (Ref, bool) {
	if i := b.member(obj, key); i != 0 && b.nodes[i].kind != bRaw {
		return Ref(i), true
	}
	return 0, false
}

// Elem returns the i-th element of arr (or member of an object) as
// AppendJSON writes them (empty Builder objects and arrays left out), and
// whether it is a Builder object or array (false: a raw value).
func (b *Builder) Elem(arr Ref, i int) (r Ref, built, ok bool) {
	b.init()
	for j := b.nodes[arr].first; j != 0; j = b.nodes[j].next {
		if b.empty(j) {
			continue
		}
		if i == 0 {
			return Ref(j), b.nodes[j].kind != bRaw, true
		}
		i--
	}
	return 0, false, false
}

// AppendObject appends an empty object to arr and returns it.
func (b *Builder) AppendObject(arr Ref) Ref { return b.add(arr, "", "", bObject, false) }

// AppendRaw appends raw, a JSON value, to arr.
func (b *Builder) AppendRaw(arr Ref, raw []byte) { b.add(arr, "", rawString(raw), bRaw, false) }

// AppendConst appends raw, a JSON value held in a string (a constant),
// to the array arr, without copying it.
func (b *Builder) AppendConst(arr Ref, raw string) {
	b.add(arr, "", raw, bRaw, false)
}

// Len is the number of members or elements of obj or arr.
func (b *Builder) Len(r Ref) int {
	b.init()
	n := 0
	for i := b.nodes[r].first; i != 0; i = b.nodes[i].next {
		if !b.empty(i) {
			n++
		}
	}
	return n
}

// Empty reports whether obj or arr has no member or element AppendJSON
// would write: Len(r) == 0, answered at the first there is.
func (b *Builder) Empty(r Ref) bool {
	b.init()
	for i := b.nodes[r].first; i != 0; i = b.nodes[i].next {
		if !b.empty(i) {
			return false
		}
	}
	return true
}

// Objects iterates over the elements of arr (or the members of an object)
// that are Builder objects, in order.
func (b *Builder) Objects(arr Ref) func(yield func(Ref) bool) {
	return func(yield func(Ref) bool) {
		b.init()
		for i := b.nodes[arr].first; i != 0; i = b.nodes[i].next {
			if b.nodes[i].kind == bObject && !yield(Ref(i)) {
				return
			}
		}
	}
}

// Members iterates over obj's members in order, as set: each key and its
// node (RawOf reads a raw value; an object or array is a Ref to read on),
// empty Builder objects and arrays included. One pass reads them all,
// where a Raw or Child each would step over the members before it again.
func (b *Builder) Members(obj Ref) iter.Seq2[string, Ref] {
	return func(yield func(string, Ref) bool) {
		b.init()
		for i := b.nodes[obj].first; i != 0; i = b.nodes[i].next {
			if !yield(b.nodes[i].key, Ref(i)) {
				return
			}
		}
	}
}

// Raw returns obj's member key if it is a raw value (nil if not): the
// bytes it was set to, which may be the payload's or read-only (SetJSON):
// not to be written to.
func (b *Builder) Raw(obj Ref, key string) []byte {
	if i := b.member(obj, key); i != 0 {
		return b.nodes[i].rawBytes()
	}
	return nil
}

// RawOf returns the bytes of r if it is a raw value (nil for a Builder
// object or array): an array's element, as Filter and Objects give them.
// Not to be written to.
func (b *Builder) RawOf(r Ref) []byte {
	b.init()
	return b.nodes[r].rawBytes()
}

// rawBytes is the node's raw value (nil for none or a container).
func (n *bnode) rawBytes() []byte { return unsafe.Slice(unsafe.StringData(n.raw), len(n.raw)) }

// rawString is raw as a node holds it: "" for none (an empty raw is no
// JSON value either).
func rawString(raw []byte) string { return unsafe.String(unsafe.SliceData(raw), len(raw)) }

// quote returns s as a JSON string, in the Builder's memory.
func (b *Builder) quote(s string) []byte {
	start := len(b.buf)
	b.buf = AppendString(b.buf, s)
	return b.buf[start:len(b.buf):len(b.buf)]
}

// Bytes copies raw into the Builder's memory (for a value built in a
// scratch buffer).
func (b *Builder) Bytes(raw []byte) []byte {
	start := len(b.buf)
	b.buf = append(b.buf, raw...)
	return b.buf[start:len(b.buf):len(b.buf)]
}

// Quote copies contents, a JSON string's contents (escaped), into the
// Builder's memory as that JSON string, quoted.
func (b *Builder) Quote(contents []byte) []byte {
	start := len(b.buf)
	b.buf = append(append(append(b.buf, '"'), contents...), '"')
	return b.buf[start:len(b.buf):len(b.buf)]
}

// empty reports whether node i is a Builder object or array with nothing
// in it (after leaving out its own empty containers).
func (b *Builder) empty(i int32) bool {
	n := &b.nodes[i]
	if n.kind == bRaw {
		return n.raw == ""
	}
	for c := n.first; c != 0; c = b.nodes[c].next {
		if !b.empty(c) {
			return false
		}
	}
	return true
}
