package generator

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// The IR: for each target dialect, the source payload as a tree of the
// values the mapping reads (objects, arrays, unions), with a rule at each
// leaf. The emitter sees only this.

// Converter is the IR of one mapping file for one target dialect.
type Converter struct {
	Dialect string
	Root    *Node
	File    *File // where its rules are (File.At)
	// Below are the extras under the top level (their paths, [] for an
	// index, in the file's order): fields the spec lacks that the
	// transform of a field above them reads, which are no unknown field.
	Below []string
}

// below reports whether an extra's key is a path under the top level
// ("choices[].message.tool_calls[].index"), not a top-level key.
func below(key string) bool { return strings.ContainsAny(key, ".[") }

// NodeKind is how the converter reads a source value.
type NodeKind uint8

const (
	Leaf   NodeKind = iota // a rule applies to the value
	Object                 // its members, by key
	Array                  // each element
	Tagged                 // its variant, by tag value
	Kinds                  // its alternative, by JSON kind
)

// Node is a source value the converter reads.
type Node struct {
	Kind NodeKind
	Key  string // a member's key
	Case string // a case of its parent: a tag value, or a JSON kind
	// Path is the source wire path (codec.Schema.Lookup), Array the path
	// of the array it is in ("" if none) and Rel its JSON path inside
	// that array's element (or from the top).
	Path, Array, Rel string
	Fields           []*Node // Object: in the mapping's order
	Extras           []*Node // the top-level Object: keys the spec does not know
	Elem             *Node   // Array
	Cases            []*Node // Tagged, Kinds
	Leaf             *Target // Leaf
	Line             int
}

// Target is what happens to a leaf.
type Target struct {
	Rule Rule
	Note string
	// Silent: the rule's transform writes nothing into the target, so
	// the converter makes no target object for it.
	Silent bool
	// Steps of the target path, for map and lossy.
	Steps []Step
	// Consts are the rule's constants (also, set), each with the steps of
	// its target path.
	Consts []ConstSteps
	// Values: a map rule's value table (values: target spelled out from
	// the target's enum).
	Values []ValuePair
	// Tag: a refuse of a whole variant of a tagged union names the tag's
	// member (messages[1].role), the value that chose it.
	Tag string
}

// ConstSteps is a constant and the steps of its target path.
type ConstSteps struct {
	Const
	Steps []Step
}

// Step is a key of a target path; Elem marks an array whose elements the
// source's elements become (tools[]).
type Step struct {
	Key  string
	Elem bool
}

func (s Step) String() string {
	if s.Elem {
		return s.Key + "[]"
	}
	return s.Key
}

// Build makes the IR of a checked mapping file for one of its targets.
// Stale entries and extras (Checked.Stale) are left out; a rule whose
// target this dialect lacks becomes a drop (the source field is not
// carried, with a warning, rather than read by nothing).
func Build(c *Checked, dialect string) (*Converter, []error) {
	b := &builder{c: c, dialect: dialect}
	root := &Node{Kind: Object}
	for _, e := range c.Entries {
		if c.stale.entries[e.Line] {
			continue
		}
		b.add(root, e, b.rule(e))
	}
	var under []string
	for _, e := range c.Extras {
		if c.stale.entries[e.Line] {
			continue
		}
		if below(e.Path) { // read by a transform above it: nothing to emit for it
			under = append(under, e.Path)
			continue
		}
		r := b.rule(e)
		n := &Node{Key: e.Path, Path: e.Path, Rel: e.Path, Line: e.Line}
		n.Leaf = b.target(e, r, codec.Schema{})
		root.Extras = append(root.Extras, n)
	}
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	return &Converter{Dialect: dialect, Root: root, File: c.File, Below: under}, nil
}

type builder struct {
	c       *Checked
	dialect string
	errs    []error
}

// rule is an entry's rule for the builder's dialect; a drop if its target
// is stale.
func (b *builder) rule(e Entry) Rule {
	r, _ := e.RuleFor(b.dialect)
	if st, ok := b.c.stale.rule(b.dialect, e.Path); ok {
		return staleDrop(r, st)
	}
	return r
}

// staleDrop is the drop a stale rule becomes.
func staleDrop(r Rule, st Stale) Rule {
	return Rule{Line: r.Line, Kind: Drop, Reason: st.DropReason()}
}

func (b *builder) errf(line int, format string, args ...any) {
	b.errs = append(b.errs, b.c.File.errorAt(line, fmt.Sprintf(format, args...)))
}

// add puts an entry's rule at its path, making the nodes on the way.
func (b *builder) add(root *Node, e Entry, r Rule) {
	cur := root
	path := ""
	steps := codec.SplitPath(e.Path)
	for i, step := range steps {
		key, sels := splitStep(step)
		if path != "" {
			path += "."
		}
		path += key
		cur = b.member(cur, key, path, e.Line)
		if cur == nil {
			return
		}
		for sels != "" {
			switch {
			case strings.HasPrefix(sels, "[]"):
				path += "[]"
				sels = sels[2:]
				cur = b.elem(cur, path, e.Line)
			default:
				end := strings.IndexByte(sels, '}')
				sel := sels[1:end]
				sels = sels[end+1:]
				cur = b.variant(cur, sel, path, e.Line)
				path += "{" + sel + "}"
			}
			if cur == nil {
				return
			}
		}
		if i == len(steps)-1 {
			b.leaf(cur, e, r, path)
		}
	}
}

func (b *builder) schema(path string, line int) (codec.Schema, bool) {
	s, err := b.c.From.Lookup(path)
	if err != nil {
		b.errf(line, "%v", err)
		return s, false
	}
	return s, true
}

// become makes a node of kind k out of a node not yet made.
func (b *builder) become(n *Node, k NodeKind, line int) bool {
	if n.Leaf != nil {
		b.errf(line, "%s: an entry at line %d is the whole value already", n.Path, n.Line)
		return false
	}
	if n.Kind != Leaf && n.Kind != k || n.Kind == Leaf && (n.Fields != nil || n.Elem != nil || n.Cases != nil) {
		b.errf(line, "%s: read two ways", n.Path)
		return false
	}
	n.Kind = k
	return true
}

func (b *builder) member(n *Node, key, path string, line int) *Node {
	if !b.become(n, Object, line) {
		return nil
	}
	for _, f := range n.Fields {
		if f.Key == key {
			return f
		}
	}
	f := &Node{Key: key, Path: path, Array: n.Array, Rel: join(n.Rel, key), Line: line}
	n.Fields = append(n.Fields, f)
	return f
}

func (b *builder) elem(n *Node, path string, line int) *Node {
	if n.Array != "" {
		b.errf(line, "%s: an array in an array element: write a transform", path)
		return nil
	}
	if !b.become(n, Array, line) {
		return nil
	}
	if n.Elem == nil {
		n.Elem = &Node{Path: path, Array: n.Rel, Line: line}
	}
	return n.Elem
}

func (b *builder) variant(n *Node, sel, path string, line int) *Node {
	s, ok := b.schema(path, line)
	if !ok {
		return nil
	}
	kind := Tagged
	if isKindName(sel) && s.Shape() == codec.ShapeUnion {
		kind = Kinds
	} else if s.Shape() == codec.ShapeUnion {
		// a tag value through a union by JSON kind: its object alternative
		n = b.variant(n, "object", path, line)
		if n == nil {
			return nil
		}
		path += "{object}"
	}
	if !b.become(n, kind, line) {
		return nil
	}
	for _, c := range n.Cases {
		if c.Case == sel {
			return c
		}
	}
	c := &Node{Case: sel, Path: path + "{" + sel + "}", Array: n.Array, Rel: n.Rel, Line: line}
	n.Cases = append(n.Cases, c)
	return c
}

// isKindName reports whether a selector names a JSON kind (not null).
func isKindName(s string) bool {
	k, ok := codec.KindByName(s)
	return ok && k != codec.Null
}

func (b *builder) leaf(n *Node, e Entry, r Rule, path string) {
	if n.Kind != Leaf || n.Leaf != nil || n.Fields != nil || n.Elem != nil || n.Cases != nil {
		b.errf(e.Line, "%s: an entry for the whole value and entries inside it", path)
		return
	}
	n.Line = e.Line
	src, _ := b.c.From.Lookup(path)
	if (r.Kind == Map || r.Kind == Lossy) && r.Transform == "" && src.Shape() == codec.ShapeObject && (r.Also != nil || r.Unless != "") {
		b.errf(r.Line, "%s: also or unless on a whole object mapped field by field: put them on one of its fields", path)
		return
	}
	if (r.Kind == Map || r.Kind == Lossy) && r.Transform == "" && src.Shape() == codec.ShapeObject {
		// A whole object mapped as it is: each of its fields to the same
		// key of the target.
		n.Kind = Object
		for p := range src.Properties() {
			f := &Node{Key: p.Key, Path: path + "." + p.Key, Array: n.Array, Rel: join(n.Rel, p.Key), Line: e.Line}
			rr := r
			rr.Target = r.Target + "." + p.Key
			if st, ok := b.c.stale.rule(b.dialect, f.Path); ok {
				f.Leaf = b.target(e, staleDrop(r, st), p.Schema)
				n.Fields = append(n.Fields, f)
				continue
			}
			if _, err := b.c.To[b.dialect].Lookup(rr.Target); err != nil {
				b.errf(r.Line, "%s → %s: %v", path, r.Target, err)
				continue
			}
			f.Leaf = b.target(e, rr, p.Schema)
			n.Fields = append(n.Fields, f)
		}
		return
	}
	n.Leaf = b.target(e, r, src)
	if n.Leaf != nil && r.Kind == Refuse && strings.HasSuffix(path, "}") {
		if ps, err := b.c.From.Lookup(path[:strings.LastIndexByte(path, '{')]); err == nil && ps.Shape() == codec.ShapeTagged {
			n.Leaf.Tag = ps.Tag()
		}
	}
	if n.Leaf != nil {
		for _, s := range n.Leaf.Steps {
			if s.Elem && n.Array == "" && r.Transform == "" {
				b.errf(r.Line, "%s → %s: one value to an array element: write a transform", path, r.Target)
			}
		}
	}
}

func (b *builder) target(e Entry, r Rule, src codec.Schema) *Target {
	note := e.Note
	if r.Note != "" {
		note = r.Note
	}
	t := &Target{Rule: r, Note: note, Silent: r.Transform != "" && b.c.Silent[r.Transform]}
	for _, k := range r.Also {
		steps, ok := b.steps(k.Line, k.Target)
		if !ok {
			return nil
		}
		t.Consts = append(t.Consts, ConstSteps{Const: k, Steps: steps})
	}
	if r.Kind != Map && r.Kind != Lossy {
		return t
	}
	var ok bool
	if t.Steps, ok = b.steps(r.Line, r.Target); !ok {
		return nil
	}
	t.Values = slices.Clone(r.Values)
	for i, p := range t.Values {
		p.setSteps = nil
		for _, k := range p.Set {
			steps, ok := b.steps(k.Line, k.Target)
			if !ok {
				return nil
			}
			p.setSteps = append(p.setSteps, steps)
		}
		t.Values[i] = p
	}
	if r.ValuesTarget {
		dst, err := b.c.To[b.dialect].Lookup(r.Target)
		if err != nil {
			b.errf(r.ValuesLine, "%v", err)
			return nil
		}
		for _, v := range dst.Values() {
			js, _ := json.Marshal(v)
			t.Values = append(t.Values, ValuePair{Line: r.ValuesLine, From: string(js), To: string(js)})
		}
	}
	return t
}

// steps are the steps of a target path.
func (b *builder) steps(line int, target string) ([]Step, bool) {
	var out []Step
	for _, step := range codec.SplitPath(target) {
		key, sels := splitStep(step)
		if !plainKey(key) {
			// the converters write target keys as they are (Builder's
			// …Lit methods)
			b.errf(line, "%s: the key %q needs escaping in JSON: write a transform", target, key)
			return nil, false
		}
		if key != "" {
			out = append(out, Step{Key: key})
		}
		if strings.Contains(sels, "[]") {
			if strings.Count(sels, "[]") > 1 || len(out) == 0 {
				b.errf(line, "%s: an array of arrays: write a transform", target)
				return nil, false
			}
			out[len(out)-1].Elem = true
		}
	}
	return out, true
}

// plainKey reports whether key is written in JSON as it is: printable
// ASCII without a quote or a backslash.
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// splitStep splits a step of a wire path into its key and selectors:
// "tools[]{function}" → "tools", "[]{function}".
func splitStep(step string) (key, sels string) {
	if j := strings.IndexAny(step, "[{"); j >= 0 {
		return step[:j], step[j:]
	}
	return step, ""
}
