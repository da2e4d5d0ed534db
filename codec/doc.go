// Package codec is the JSON layer the converters use, above the generated
// types in gen/ and below mapping/: forward-compatible, deterministic
// decoding and encoding of requests, responses and stream events.
//
// Decoding walks a payload once, against the shape table of its spec
// (OpenAI, OpenRouter: generated from the normalized specs by `go generate`),
// and keeps the payload's bytes. It reads each union's type tag first and
// goes straight to the variant; it does not decode strings or numbers, and
// it steps over free-form values (tool schemas, metadata) without walking
// them. What it finds is
//
//   - a Node for every value of a discriminated union (input items, content
//     parts, tools, tool choices, output items, stream events, …): its type,
//     the variant it is, or that the type is unknown, its JSON path and its
//     bytes. A typed value (the generated type of the variant) is a
//     Node.Decode away;
//   - a Finding for everything the spec does not know or does not allow:
//     unknown keys (and undeclared keys an open object allows), unknown
//     types, unknown enum values, values of the wrong JSON kind, missing
//     required keys; each with its JSON path and bytes.
//
// Nothing of that fails the decoding: the layer above decides whether to
// warn, pass through, or reject (naming the type and the path). Only bytes
// that are not JSON fail, with a *SyntaxError giving the offset and path.
//
// A Doc decoding a stream's payloads one after another (Doc.Skeletons, as
// Stream's does) reads each against the last one's bytes first: a payload
// that differs from it only in free strings and numbers (a delta's text) is
// checked there, and its record is the last one's, moved.
//
// Encoding is copying: a Doc re-encodes as exactly its input (AppendJSON),
// and each node and finding as exactly its bytes, so nothing is lost, nothing
// added (no defaults), and the output is byte-stable. Converters build new
// payloads from typed values and copied bytes.
//
// Its subpackage sse frames Server-Sent Events.
package codec

import (
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// Doc is a decoded payload. The zero Doc is ready for Decode; a Doc may be
// reused, and is not safe for concurrent Decodes.
type Doc struct {
	root    Root
	data    []byte
	nodes   []nodeRec
	finds   []Finding
	segs    []pathSeg // the paths of findings, as a tree
	npaths  []seg     // the paths of nodes, each whole (nodeRec.pathAt)
	spans   []span    // where large values end, by start (Value skips them in one step)
	conts   []cont    // the objects and arrays Decode walked, by start (see tape.go)
	ents    []ent     // their members and elements
	contAt  []uint16  // a reused Doc's, for a payload up to maxContAt: by offset, the cont there (see cont)
	scratch decoder
	quiet   func(key []byte) bool // top-level keys that are no finding (Quiet)
	skel    skeleton              // the last payload's, for the next (Skeletons)
}

// HasTag reports whether a union value of the payload has the type tag
// (its Tag: a value without a tag has its default variant's).
func (d *Doc) HasTag(tag string) bool {
	// bytes: tag has no backslash, so a tag string of its bytes is tag.
	bytes := strings.IndexByte(tag, '\\') < 0
	for i := range d.nodes {
		// A tag string of tag's length is tag or not by its bytes (with
		// an escape it would not be: it holds fewer); a shorter one is not
		// tag (an escape makes the string longer than what it holds): Tag,
		// and the tables it reads, only for a longer one and for a node
		// without a tag (its default variant's). A conversion asks for
		// item_reference every time.
		if r := &d.nodes[i]; bytes && r.tagEnd != 0 && d.data[r.tagStart] == '"' {
			if n := int(r.tagEnd-r.tagStart) - 2; n == len(tag) {
				if string(d.data[r.tagStart+1:r.tagEnd-1]) == tag {
					return true
				}
				continue
			} else if n < len(tag) {
				continue
			}
		}
		if (Node{d, int32(i)}).Tag() == tag {
			return true
		}
	}
	return false
}

type nodeFlags uint8

const nodeDefault nodeFlags = 1 // the tag is absent: the union's default variant

type nodeRec struct {
	union, variant   int32 // schemas; variant -1: unknown type
	tcase            int32 // the case of the union the tag's value is, or -1
	start, end       int32 // the value's span
	tagStart, tagEnd int32 // the tag value's span (with quotes); 0, 0 if absent
	pathAt, pathLen  int32 // its path: Doc.npaths[pathAt:][:pathLen]
	parent           int32 // the enclosing node, or -1
	flags            nodeFlags
}

// pathSeg is a step of a path kept in a Doc: the steps of all recorded
// paths form a tree, each step pointing to the one before it, so a
// finding deep in a payload costs one step, not its whole path.
type pathSeg struct {
	seg
	parent int32 // -1 at the top level
}

// steps returns the path that ends at step i, from the top level.
func (d *Doc) steps(i int32) []seg {
	n := 0
	for j := i; j >= 0; j = d.segs[j].parent {
		n++
	}
	var buf [16]seg
	out := buf[:0]
	if n > len(buf) {
		out = make([]seg, 0, n)
	}
	out = out[:n]
	for j := i; j >= 0; j = d.segs[j].parent {
		n--
		out[n] = d.segs[j].seg
	}
	return out
}

// Bytes returns the payload as decoded (not a copy).
func (d *Doc) Bytes() []byte { return d.data }

// Root is the schema the payload was decoded against.
func (d *Doc) Root() Root { return d.root }

// AppendJSON appends the payload's encoding to dst: its bytes, unchanged.
func (d *Doc) AppendJSON(dst []byte) []byte { return append(dst, d.data...) }

// Findings are what the spec does not know or allow, in document order
// (a missing key comes after the keys of its object).
func (d *Doc) Findings() []Finding { return d.finds }

// Len is the number of nodes.
func (d *Doc) Len() int { return len(d.nodes) }

// Node returns the i-th node in document order (a parent before its children).
func (d *Doc) Node(i int) Node { return Node{d, int32(i)} }

// Nodes iterates over every node in document order.
func (d *Doc) Nodes() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		for i := range d.nodes {
			if !yield(Node{d, int32(i)}) {
				return
			}
		}
	}
}

// Node is a value of a discriminated union: an input item, a content part, a
// tool, a stream event, ….
type Node struct {
	d *Doc
	i int32
}

func (n Node) rec() *nodeRec { return &n.d.nodes[n.i] }

// Union is the name of the union schema (e.g. "InputItem").
func (n Node) Union() string { t := &n.d.root.d.tables; return t.str(t.schemas[n.rec().union].name) }

// Known reports whether the spec has a variant for the node's type.
func (n Node) Known() bool { return n.rec().variant >= 0 }

// Variant is the name of the variant's schema (e.g. "FunctionToolCall"), or
// "" if the type is unknown.
func (n Node) Variant() string {
	if v := n.rec().variant; v >= 0 {
		t := &n.d.root.d.tables
		return t.str(t.schemas[v].name)
	}
	return ""
}

// Type is the value of the node's type tag ("" if it has none, or if the tag
// is not a string).
func (n Node) Type() string {
	r := n.rec()
	if r.tagEnd == 0 || n.d.data[r.tagStart] != '"' {
		return ""
	}
	return string(unquote(n.d.data[r.tagStart+1 : r.tagEnd-1]))
}

// Tag is the node's type: the value of its tag, or for a node without one
// the tag value of the default variant it decoded as ("message"); "" if
// the tag is absent and there is no default, or is not a string.
func (n Node) Tag() string {
	r := n.rec()
	if r.tagEnd == 0 && r.flags&nodeDefault != 0 {
		t := &n.d.root.d.tables
		for _, c := range t.casesOf(&t.schemas[r.union]) {
			if c.schema == r.variant {
				return t.str(c.value)
			}
		}
		return ""
	}
	if r.tcase >= 0 {
		// A known type: the spec's own string, without allocating.
		t := &n.d.root.d.tables
		return t.str(t.casesOf(&t.schemas[r.union])[r.tcase].value)
	}
	return n.Type()
}

// NodeAt returns the node of a value: the innermost node that starts where
// v does (ok false if v is not a value of a union).
func (d *Doc) NodeAt(v Value) (Node, bool) {
	if v.d != d || !v.Exists() {
		return Node{}, false
	}
	lo, hi := 0, len(d.nodes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.nodes[m].start <= v.start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 || d.nodes[lo-1].start != v.start {
		return Node{}, false
	}
	return Node{d, int32(lo - 1)}, true
}

// Defaulted reports whether the node has no type tag and is the union's
// default variant (a message item without "type").
func (n Node) Defaulted() bool { return n.rec().flags&nodeDefault != 0 }

// Raw is the node's JSON, as in the payload (not a copy).
func (n Node) Raw() []byte {
	r := n.rec()
	return n.d.data[r.start:r.end:r.end]
}

// Offset is where the node starts in the payload.
func (n Node) Offset() int { return int(n.rec().start) }

// Path is the node's JSON path, e.g. "input[3].content[0]" ("" for the top
// level).
func (n Node) Path() string {
	r := n.rec()
	return n.d.pathString(n.d.npaths[r.pathAt : r.pathAt+r.pathLen])
}

// Parent is the innermost node the node is in.
func (n Node) Parent() (Node, bool) {
	if p := n.rec().parent; p >= 0 {
		return Node{n.d, p}, true
	}
	return Node{}, false
}

// Children iterates over the nodes whose parent is n, in document order.
func (n Node) Children() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		end := n.rec().end
		for i := n.i + 1; int(i) < len(n.d.nodes) && n.d.nodes[i].start < end; i++ {
			if n.d.nodes[i].parent == n.i && !yield(Node{n.d, i}) {
				return
			}
		}
	}
}

// Decode decodes the node into v, typically the generated type of its variant
// (openai.FunctionToolCall for a "function_call" input item); errors name
// the node's path. The generated types know only what the spec knows: a
// node with unknown nodes or values inside may not decode, and unknown keys
// are left out — the Doc's findings have them.
func (n Node) Decode(v json.Unmarshaler) error {
	if err := v.UnmarshalJSON(n.Raw()); err != nil {
		return fmt.Errorf("codec: %s: %w", displayPath(n.Path()), err)
	}
	return nil
}

// FindingKind says what a finding is.
type FindingKind uint8

const (
	UnknownField FindingKind = iota + 1 // a key the object's schema does not declare
	UnknownType                         // a union type tag no variant has (the node says so too)
	UnknownValue                        // a string the enum does not list
	WrongKind                           // a value of a JSON kind the schema does not allow
	MissingField                        // a key the spec requires is absent
	ExtraField                          // a key the object's schema does not declare but allows (additional properties)
)

var findingNames = [...]string{UnknownField: "unknown field", UnknownType: "unknown type", UnknownValue: "unknown value", WrongKind: "wrong kind", MissingField: "missing field", ExtraField: "extra field"}

func (k FindingKind) String() string {
	if int(k) < len(findingNames) && findingNames[k] != "" {
		return findingNames[k]
	}
	return "finding(" + strconv.Itoa(int(k)) + ")"
}

// Finding is one thing in a payload that its spec does not know or allow.
// The value stays in the payload; the finding points at it. Like the Doc's
// nodes, a finding is valid until the Doc decodes again.
type Finding struct {
	Kind FindingKind
	// Raw is the value's JSON as in the payload (nil for MissingField).
	Raw []byte

	d                  *Doc
	start              int32  // where Raw is in the payload
	path               int32  // the last step of the value's path in d.segs, -1 for the top level
	nameStart, nameEnd int32  // the name's span in the payload (contents of a quoted string), if name is ""
	name               string // a name from the spec: a missing key, a tag key
	want               mask   // WrongKind
}

// Value is the finding's value, read as the payload's other Values are
// (absent for MissingField).
func (f Finding) Value() Value {
	if f.Raw == nil {
		return Value{}
	}
	return Value{f.d, f.start, f.start + int32(len(f.Raw))}
}

// NameBytes is Name as bytes, without a copy when the payload's key has
// no escapes (for a per-chunk check that must not allocate).
func (f Finding) NameBytes() []byte {
	if f.name != "" || f.nameEnd <= f.nameStart {
		return []byte(f.name)
	}
	raw := f.d.data[f.nameStart:f.nameEnd]
	if !hasEscape(raw) {
		return raw
	}
	return unquote(raw)
}

// Name is the unknown, extra or missing key, the unknown type, the unknown
// value, or for WrongKind the key whose value it is ("" in an array).
func (f Finding) Name() string {
	if f.name != "" || f.nameEnd <= f.nameStart {
		return f.name
	}
	return string(unquote(f.d.data[f.nameStart:f.nameEnd]))
}

// Want is what a WrongKind value should have been, e.g. "a string or null".
func (f Finding) Want() string {
	if f.Kind != WrongKind {
		return ""
	}
	return f.want.String()
}

// Path is the JSON path of the value ("input[2].content[0].type"; for a
// missing key, the path it would have).
func (f Finding) Path() string {
	var buf [128]byte
	p := f.d.appendPath(buf[:0], f.d.steps(f.path))
	if f.Kind == MissingField {
		p = appendKeyTo(p, []byte(f.name))
	}
	return string(p)
}

// At reports whether the finding's path is pattern, written as Path
// writes it but with each array index as [] ("choices[].message.tool_calls[].index"),
// without making the path: the keys are compared from the last one up.
// The pattern's keys are identifiers (letters, digits, _), as Path writes
// them after a dot.
func (f Finding) At(pattern string) bool {
	p := pattern
	if f.Kind == MissingField { // its path ends at the missing key
		if !strings.HasSuffix(p, f.name) {
			return false
		}
		if p = p[:len(p)-len(f.name)]; f.path >= 0 {
			if !strings.HasSuffix(p, ".") {
				return false
			}
			p = p[:len(p)-1]
		}
	}
	for j := f.path; j >= 0; j = f.d.segs[j].parent {
		s := f.d.segs[j]
		if s.start < 0 {
			if !strings.HasSuffix(p, "[]") {
				return false
			}
			p = p[:len(p)-2]
			continue
		}
		key := f.d.data[s.start:s.end]
		if hasEscape(key) {
			key = unquote(key)
		}
		// (p[…] != string(key), not HasSuffix(p, string(key)): a
		// comparison does not convert the key, a call's argument does.)
		if len(p) < len(key) || p[len(p)-len(key):] != string(key) {
			return false
		}
		if p = p[:len(p)-len(key)]; s.parent >= 0 {
			if !strings.HasSuffix(p, ".") {
				return false
			}
			p = p[:len(p)-1]
		}
	}
	return p == ""
}

// TopLevel reports whether the finding is of a key or value of the
// payload's top-level object (an unknown top-level field).
func (f Finding) TopLevel() bool {
	if f.Kind == MissingField {
		return f.path < 0
	}
	return f.path >= 0 && f.d.segs[f.path].parent < 0
}

func (f Finding) String() string {
	s := displayPath(f.Path()) + ": " + f.Kind.String()
	switch f.Kind {
	case UnknownType, UnknownValue:
		s += " " + strconv.Quote(f.Name())
	case WrongKind:
		s += ": want " + f.Want()
	}
	return s
}

func displayPath(p string) string {
	if p == "" {
		return "(top level)"
	}
	return p
}
