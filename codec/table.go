package codec

import (
	"slices"
	"strings"
)

// The shape tables: what the decoder needs of a normalized spec, generated
// into <dialect>_tables_gen.go by `go generate ./...` (openapi/internal/tables).
// Nothing here reads a spec at run time.

// kind says how the decoder walks a value of a schema.
type kind uint8

const (
	kindAny    kind = iota // free-form: validated and kept as it is, not walked
	kindObject             // properties by key; the others are unknown unless open
	kindArray              // every element by items
	kindScalar             // a JSON kind check, and an enum check if values is set
	kindAlts               // alternatives told apart by the value's JSON kind
	kindTagged             // objects told apart by a discriminator property
)

// mask is a set of JSON kinds.
type mask uint8

const (
	mNull mask = 1 << iota
	mBool
	mNumber  // a number with a fraction or an exponent; a schema of type number also sets mInteger
	mInteger // a number without fraction or exponent
	mString
	mArray
	mObject

	mAll = mNull | mBool | mNumber | mInteger | mString | mArray | mObject
)

func (m mask) String() string {
	var names []string
	for _, k := range [...]struct {
		m    mask
		name string
	}{{mObject, "an object"}, {mArray, "an array"}, {mString, "a string"}, {mNumber, "a number"}, {mInteger, "an integer"}, {mBool, "a boolean"}, {mNull, "null"}} {
		if m&k.m != 0 && (k.m != mInteger || m&mNumber == 0) {
			names = append(names, k.name)
		}
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// schema is one entry of a shape table. Schemas refer to each other by
// index, and to their names, keys and lists by ref into their tables: a
// table holds no pointer (but the few of tables), so the garbage collector
// has nothing to scan in it (it scanned the 1.3 MB of the generated ones
// on every cycle when they held strings and slices).
type schema struct {
	name  ref  // component name, or a JSON pointer for an inline schema (text)
	kind  kind //
	mask  mask // the JSON kinds a value may have
	open  bool // kindObject: keys besides props are allowed (not unknown)
	enum  bool // kindScalar: values is the closed set of string values (else any string)
	props ref  // kindObject: in props, sorted by key
	nreq  int32
	// null is in mask only because the normalizer let optional properties
	// be null
	nonull bool
	items  int32 // kindArray
	values ref   // kindScalar, enum: in values, sorted
	alts   ref   // kindAlts: in ints
	tag    ref   // kindTagged: the discriminator property (text)
	cases  ref   // kindTagged: in cases, sorted by value
	dflt   int32 // kindTagged: the variant when the tag is absent, or -1
	// kindTagged: the variants an object without the tag may be, the
	// default first, in ints; set if there are several. It is the first
	// whose required keys the object has.
	untagged ref
}

// ref is a run of one of a dialect's tables: text[off:off+n] for a
// string, or the n entries from off of a list.
type ref struct{ off, n int32 }

type prop struct {
	key      ref // text
	schema   int32
	required bool // required by the spec (x-spec-required): missing → a MissingField finding
}

type tagCase struct {
	value  ref // text
	schema int32
}

type component struct {
	name   ref // text
	schema int32
}

// tables are a dialect's shape tables: its schemas and what they refer to.
type tables struct {
	schemas []schema
	props   []prop
	cases   []tagCase
	ints    []int32 // alternatives and untagged variants
	values  []ref   // enums' values (text)
	text    string  // every name, key, tag and value
}

func (t *tables) str(r ref) string { return t.text[r.off : r.off+r.n] }

// is reports whether the string r is b: by length first, the text sliced
// only for one of b's.
func (t *tables) is(r ref, b []byte) bool {
	return int(r.n) == len(b) && t.text[r.off:r.off+r.n] == string(b)
}

// hasValue reports whether the enum values r hold v.
func (t *tables) hasValue(r ref, v []byte) bool {
	for _, known := range t.values[r.off : r.off+r.n] {
		if int(known.n) == len(v) && t.text[known.off:known.off+known.n] == string(v) {
			return true
		}
	}
	return false
}

func (t *tables) propsOf(s *schema) []prop {
	return t.props[s.props.off : s.props.off+s.props.n]
}

func (t *tables) casesOf(s *schema) []tagCase {
	return t.cases[s.cases.off : s.cases.off+s.cases.n]
}

func (t *tables) altsOf(s *schema) []int32 {
	return t.ints[s.alts.off : s.alts.off+s.alts.n]
}

func (t *tables) untaggedOf(s *schema) []int32 {
	return t.ints[s.untagged.off : s.untagged.off+s.untagged.n]
}

func (t *tables) valuesOf(s *schema) []ref {
	return t.values[s.values.off : s.values.off+s.values.n]
}

// Dialect is the shape table of one spec (OpenAI's, OpenRouter's).
// Dialects are immutable.
type Dialect struct {
	name string
	spec string // the spec file it was generated from
	tables
	components []component // sorted by name
	payloads   [numPayloads]int32
}

// Name is the dialect's short name, as in openapi/manifest.yaml.
func (d *Dialect) Name() string { return d.name }

// Spec is the file of the pinned spec the dialect was generated from.
func (d *Dialect) Spec() string { return d.spec }

// Payload is what a body or a stream event is, in any of the APIs. A
// dialect whose spec lacks the operation has no root for it (OpenRouter's
// has no conversations): Dialect.Payload says ok false.
type Payload uint8

const (
	ResponsesRequest Payload = iota // POST /responses: the request body
	ResponsesBody                   // POST /responses: the response body (a Response object)
	ResponsesEvent                  // POST /responses: one event of the stream
	ChatRequest                     // POST /chat/completions: the request body
	ChatBody                        // POST /chat/completions: the response body
	ChatChunk                       // POST /chat/completions: one chunk of the stream

	ConversationCreateRequest      // POST /conversations: the request body (items, metadata)
	ConversationUpdateRequest      // POST /conversations/{conversation_id}: the request body (metadata)
	ConversationItemsCreateRequest // POST /conversations/{conversation_id}/items: the request body (items)
	// A conversation object: the answer of POST /conversations, GET and
	// POST /conversations/{conversation_id} and DELETE
	// /conversations/{conversation_id}/items/{item_id}.
	ConversationBody
	ConversationDeletedBody // DELETE /conversations/{conversation_id}: the answer
	// A list of conversation items: the answer of GET and POST
	// /conversations/{conversation_id}/items.
	ConversationItemsBody
	ConversationItemBody // GET /conversations/{conversation_id}/items/{item_id}: one item
	numPayloads
)

var payloadNames = [numPayloads]string{
	"responses request", "responses body", "responses event", "chat request", "chat body", "chat chunk",
	"conversation create request", "conversation update request", "conversation items create request",
	"conversation body", "conversation deleted body", "conversation items body", "conversation item body",
}

func (p Payload) String() string {
	if p < numPayloads {
		return payloadNames[p]
	}
	return "payload(?)"
}

// PayloadByName is the payload of a name String gives ("responses
// request", …).
func PayloadByName(s string) (Payload, bool) {
	for p := ResponsesRequest; p < numPayloads; p++ {
		if payloadNames[p] == s {
			return p, true
		}
	}
	return 0, false
}

// Root is the schema a document is decoded against.
type Root struct {
	d *Dialect
	i int32
}

// Payload returns the root for a payload of the dialect's API. A dialect
// whose spec lacks the operation has none (ok false).
func (d *Dialect) Payload(p Payload) (Root, bool) {
	if p >= numPayloads || d.payloads[p] < 0 {
		return Root{}, false
	}
	return Root{d, d.payloads[p]}, true
}

// Component returns the root for a component schema of the spec, by name.
func (d *Dialect) Component(name string) (Root, bool) {
	i, ok := slices.BinarySearchFunc(d.components, name, func(c component, n string) int { return strings.Compare(d.str(c.name), n) })
	if !ok {
		return Root{}, false
	}
	return Root{d, d.components[i].schema}, true
}

// Name is the schema's component name (or JSON pointer into the spec).
func (r Root) Name() string {
	if r.d == nil {
		return ""
	}
	return r.d.str(r.d.schemas[r.i].name)
}
