package codec

import (
	"bytes"
	"encoding/json"
	"iter"
	"strconv"
)

// Value is a JSON value of a decoded payload: a span of its bytes, read on
// demand. The layers above read the fields they map through Values (or
// decode a node into its generated type); strings stay escaped until asked
// for, so a converter can copy them as they are.
//
// The zero Value is absent: Kind Invalid, Raw nil.
type Value struct {
	d          *Doc
	start, end int32
}

// Kind is the JSON kind of a Value.
type Kind uint8

const (
	Invalid Kind = iota // absent
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"absent", "null", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string { return kindNames[k] }

// Value is the whole payload.
func (d *Doc) Value() Value { return Value{d, 0, int32(len(d.data))}.trim() }

// Value is the node's value.
func (n Node) Value() Value {
	r := n.rec()
	return Value{n.d, r.start, r.end}
}

func (v Value) trim() Value {
	for v.start < v.end && isSpace(v.d.data[v.start]) {
		v.start++
	}
	for v.end > v.start && isSpace(v.d.data[v.end-1]) {
		v.end--
	}
	return v
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Parse is data as a Value with no schema behind it (Get, Members, Elems,
// Raw read it); ok false if data is not one JSON value.
func Parse(data []byte) (Value, bool) {
	if !json.Valid(data) {
		return Value{}, false
	}
	d := &Doc{data: data}
	return d.Value(), true
}

// Exists reports whether the value is present. (Only the zero Value has
// no Doc, and its span is empty: the converters inline this at every
// field, so it is the one comparison.)
func (v Value) Exists() bool { return v.end > v.start }

// Present reports whether v exists and is not null: Kind() > Null, the
// first byte read without the switch over kinds (a converter asks it of
// every field it maps).
func (v Value) Present() bool { return v.Exists() && v.d.data[v.start] != 'n' }

// Raw is the value's JSON, as in the payload (not a copy).
func (v Value) Raw() []byte {
	if !v.Exists() {
		return nil
	}
	return v.d.data[v.start:v.end:v.end]
}

// Offset is where the value starts in the payload.
func (v Value) Offset() int { return int(v.start) }

// Kind is the value's JSON kind.
func (v Value) Kind() Kind {
	if !v.Exists() {
		return Invalid
	}
	return kinds[v.d.data[v.start]]
}

// kinds is the kind of a value by its first byte (a table rather than a
// switch: Kind is inlined at every converter's use).
var kinds = func() (t [256]Kind) {
	for c := range t {
		t[c] = Number
	}
	t['{'], t['['], t['"'], t['t'], t['f'], t['n'] = Object, Array, String, Bool, Bool, Null
	return t
}()

// Get returns the member key of an object (Invalid if v is not an object
// or has no such member). The payload was validated by Decode, so this is
// a scan without checks. Objects the schema walks have no repeated keys
// (Decode refuses them); in a free-form value (metadata, tool parameters)
// Get returns the first of a repeated key, Members yields them all.
func (v Value) Get(key string) Value {
	for k, m := range v.Members() {
		if k.Is(key) {
			return m
		}
	}
	return Value{}
}

// Key is an object member's key, as in the payload.
type Key struct {
	raw   []byte // the quoted string's contents, escaped
	plain bool   // raw is known to have no escapes
}

// Is reports whether the key is s. (Inlined: Get and the transforms
// call it for every member they pass; a key with escapes is compared
// apart.)
func (k Key) Is(s string) bool {
	if len(k.raw) == len(s) && string(k.raw) == s {
		return true
	}
	return !k.plain && k.isEscaped(s)
}

func (k Key) isEscaped(s string) bool {
	return hasEscape(k.raw) && string(unquote(k.raw)) == s
}

// String is the key, unescaped.
func (k Key) String() string { return string(unquote(k.raw)) }

// Bytes is the key, unescaped: its bytes in the payload unless it has
// escapes. For a switch on the key without allocating:
//
//	switch string(k.Bytes()) { case "model": … }
func (k Key) Bytes() []byte {
	if k.plain { // inlined: the converters' switches read every key
		return k.raw
	}
	return k.unescaped()
}

func (k Key) unescaped() []byte {
	if hasEscape(k.raw) {
		return unquote(k.raw)
	}
	return k.raw
}

// Raw is the key's JSON string contents, escaped as in the payload.
func (k Key) Raw() []byte { return k.raw }

// Members iterates over an object's members in order (nothing if v is not
// an object).
func (v Value) Members() iter.Seq2[Key, Value] {
	return func(yield func(Key, Value) bool) {
		e := v.first('{')
		if e < 0 {
			if e == notOnTape {
				v.scanMembers(yield)
			}
			return
		}
		data, ents := v.d.data, v.d.ents
		for ; e >= 0; e = ents[e].next {
			r := &ents[e]
			if !yield(Key{data[r.keyStart:r.keyEnd:r.keyEnd], !r.esc}, Value{v.d, r.start, r.end}) {
				return
			}
		}
	}
}

// notOnTape is first's answer for a container Decode did not walk.
const notOnTape = -2

// first returns the first member or element on the tape of v, an object
// or array (open is its first byte); -1 if it has none or is not of that
// kind, notOnTape if Decode did not walk it. Not inlined: the loops of
// Members and Elems are, at every converter's range over them, and this
// is what they would each hold of code the instruction cache then lacks.
//
//go:noinline
func (v Value) first(open byte) int32 {
	if !v.Exists() || v.d.data[v.start] != open {
		return -1
	}
	if e, ok := v.d.tape(v.start); ok {
		return e
	}
	return notOnTape
}

// scanMembers is Members of an object Decode did not walk (free-form, or
// of a Parse'd payload): by scanning. (Apart, so that the loops the
// converters inline are small: the code of a converter's hot path is
// what the instruction cache holds.)
func (v Value) scanMembers(yield func(Key, Value) bool) {
	d, i := v.d.data[:v.end], int(v.start)+1
	for {
		i = skipSpace(d, i)
		if i >= len(d) || d[i] != '"' {
			return
		}
		ke := skipString(d, i)
		key := Key{raw: d[i+1 : ke-1]}
		i = skipSpace(d, ke)
		i = skipSpace(d, i+1) // :
		vs := i
		i = v.d.skip(i)
		if !yield(key, Value{v.d, int32(vs), int32(i)}) {
			return
		}
		i = skipSpace(d, i)
		if i >= len(d) || d[i] != ',' {
			return
		}
		i++
	}
}

// Elems iterates over an array's elements in order (nothing if v is not an
// array).
func (v Value) Elems() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		e := v.first('[')
		if e < 0 {
			if e == notOnTape {
				v.scanElems(yield)
			}
			return
		}
		ents := v.d.ents
		for n := 0; e >= 0; n, e = n+1, ents[e].next {
			if !yield(n, Value{v.d, ents[e].start, ents[e].end}) {
				return
			}
		}
	}
}

// scanElems is Elems of an array Decode did not walk (see scanMembers).
func (v Value) scanElems(yield func(int, Value) bool) {
	d, i := v.d.data[:v.end], skipSpace(v.d.data[:v.end], int(v.start)+1)
	if i < len(d) && d[i] == ']' {
		return
	}
	for n := 0; ; n++ {
		i = skipSpace(d, i)
		vs := i
		i = v.d.skip(i)
		if !yield(n, Value{v.d, int32(vs), int32(i)}) {
			return
		}
		i = skipSpace(d, i)
		if i >= len(d) || d[i] != ',' {
			return
		}
		i++
	}
}

// Str returns a string value, unescaped (ok false for another kind).
func (v Value) Str() (string, bool) {
	if v.Kind() != String {
		return "", false
	}
	return string(unquote(v.d.data[v.start+1 : v.end-1])), true
}

// IsStr reports whether v is a string holding s; it allocates only for a
// string with escapes (the per-chunk checks of a type need no Str).
func (v Value) IsStr(s string) bool {
	if v.Kind() != String {
		return false
	}
	raw := v.d.data[v.start+1 : v.end-1]
	if !hasEscape(raw) {
		return string(raw) == s
	}
	return string(unquote(raw)) == s
}

// Unquote returns the string a JSON string holds, given the string's bytes
// as a decoded payload has them (ok false if raw is not a string): names a
// converter reads back from the payload it builds.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	return string(unquote(raw[1 : len(raw)-1])), true
}

// Int returns an integer value (ok false for another kind, a fraction or
// an overflow).
func (v Value) Int() (int64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	raw := v.Raw()
	if n, ok := digits(raw); ok {
		return n, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

// digits reads a number of 1 to 4 digits (an index, a count: what a
// stream's chunks carry); ok false for anything else (a sign, a fraction,
// an exponent, more digits), left to strconv.
func digits(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 4 {
		return 0, false
	}
	n := int64(0)
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Float returns a number value.
func (v Value) Float() (float64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v.Raw()), 64)
	return f, err == nil
}

// Bool returns a boolean value.
func (v Value) Bool() (b, ok bool) {
	if v.Kind() != Bool {
		return false, false
	}
	return v.d.data[v.start] == 't', true
}

// The scanners below step over JSON that Decode already validated.

func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at i.
func skipString(d []byte, i int) int {
	i++
	// Keys and tags are short: a loop is faster than IndexByte's call.
	for end := min(i+24, len(d)); i < end; i++ {
		switch d[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	if i > len(d) {
		return len(d)
	}
	for {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return len(d)
		}
		i += j
		// The quote is escaped if an odd number of backslashes precede it.
		n := 0
		for k := i - 1; k >= 0 && d[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// skipValue returns the index after the value that starts at i.
func skipValue(d []byte, i int) int {
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i = skipString(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(d) && !isSpace(d[i]) && d[i] != ',' && d[i] != '}' && d[i] != ']' {
		i++
	}
	return i
}

// Valid reports whether data is one JSON value (whitespace around it
// allowed), with the decoder's scanner: strings must be valid UTF-8 and
// nesting at most MaxDepth deep. It does not allocate.
func Valid(data []byte) bool {
	// No Doc (512 bytes to clear): skipFast reads only the data, and
	// the errors it makes, which name their path, have none here.
	x := decoder{data: data}
	x.ws()
	if x.skipFast() != nil {
		return false
	}
	x.ws()
	return x.pos == len(data)
}
