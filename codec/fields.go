package codec

import (
	"fmt"
	"sort"
)

// Fields is the set of keys a converter reads of an object, each with its
// slot: the generated converters read an object's members with one call
// (Value.Fields) that every object of every converter shares, rather than
// a loop and a switch over the keys inlined at each object. The code a
// converter runs on a payload is then mostly its rules: a Response's
// conversion ran 10 KB of code inlined for its objects' members, more than
// its rules, and the instruction cache the hot path misses is 32 KB.
//
// A Fields is made once (NewFields, in a package variable) and only read.
type Fields struct {
	keys  []string // sorted by length, then bytes
	slots []uint8  // the slot of keys[i]
	// byLen[n]:byLen[n+1] are the keys of length n.
	byLen []uint8
	n     int // how many slots
}

// MaxFields is how many keys a Fields can hold.
const MaxFields = 255

// NewFields returns the set of keys, slot i for keys[i]. It panics if a
// key is repeated or there are more than MaxFields: the generator makes
// the lists, and a wrong one is a bug in it.
func NewFields(keys ...string) *Fields {
	if len(keys) > MaxFields {
		panic(fmt.Sprintf("codec.NewFields: %d keys, more than %d", len(keys), MaxFields))
	}
	f := &Fields{keys: append([]string(nil), keys...), slots: make([]uint8, len(keys)), n: len(keys)}
	for i := range f.slots {
		f.slots[i] = uint8(i)
	}
	sort.Sort(byLength{f})
	longest := 0
	for i, k := range f.keys {
		if i > 0 && f.keys[i-1] == k {
			panic(fmt.Sprintf("codec.NewFields: %q twice", k))
		}
		longest = max(longest, len(k))
	}
	f.byLen = make([]uint8, longest+2)
	j := 0
	for n := range f.byLen {
		for j < len(f.keys) && len(f.keys[j]) < n {
			j++
		}
		f.byLen[n] = uint8(j)
	}
	return f
}

type byLength struct{ f *Fields }

func (s byLength) Len() int { return len(s.f.keys) }
func (s byLength) Less(i, j int) bool {
	a, b := s.f.keys[i], s.f.keys[j]
	return len(a) < len(b) || len(a) == len(b) && a < b
}
func (s byLength) Swap(i, j int) {
	s.f.keys[i], s.f.keys[j] = s.f.keys[j], s.f.keys[i]
	s.f.slots[i], s.f.slots[j] = s.f.slots[j], s.f.slots[i]
}

// Len is how many slots f has.
func (f *Fields) Len() int { return f.n }

// Slot returns the slot of key (unescaped), or -1 if f does not hold it.
func (f *Fields) Slot(key []byte) int {
	n := len(key)
	if n+1 >= len(f.byLen) {
		return -1
	}
	// The first byte tells most keys of a length apart before the call
	// that compares the bytes.
	for j := int(f.byLen[n]); j < int(f.byLen[n+1]); j++ {
		if k := f.keys[j]; (n == 0 || k[0] == key[0]) && k == string(key) {
			return int(f.slots[j])
		}
	}
	return -1
}

// Fields reads the members of object v whose keys f holds, each into
// dst at its slot, and returns the slots filled below 64 as bits. A
// member that is null is absent (left out, as a missing one); of a
// repeated key (only a Parse'd payload has them: Decode refuses them) the
// last is kept. dst must have f.Len() elements; those of the keys v lacks
// are left as they are (zero, when dst is new).
func (v Value) Fields(f *Fields, dst []Value) (set uint64) {
	e := v.first('{')
	if e < 0 {
		if e == notOnTape {
			return v.scanFields(f, dst)
		}
		return 0
	}
	data, ents := v.d.data, v.d.ents
	for ; e >= 0; e = ents[e].next {
		r := &ents[e]
		if data[r.start] == 'n' { // null (a member's value is never empty)
			continue
		}
		key := data[r.keyStart:r.keyEnd]
		if r.esc && hasEscape(key) {
			key = unquote(key)
		}
		if i := f.Slot(key); i >= 0 {
			dst[i] = Value{v.d, r.start, r.end}
			if i < 64 {
				set |= 1 << uint(i)
			}
		}
	}
	return set
}

// scanFields is Fields of an object Decode did not walk (apart, as
// scanMembers).
func (v Value) scanFields(f *Fields, dst []Value) (set uint64) {
	for k, m := range v.Members() {
		if !m.Present() {
			continue
		}
		if i := f.Slot(k.Bytes()); i >= 0 {
			dst[i] = m
			if i < 64 {
				set |= 1 << uint(i)
			}
		}
	}
	return set
}
