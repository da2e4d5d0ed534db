package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// Transform is a hand-written function of mapping/ a rule may name: the
// JSON kinds of the values it takes and gives.
type Transform struct {
	Name     string
	From, To []codec.Kind
	Receiver string // the type its first parameter points to
	File     string // where it is declared (ParseTransforms)
	Line     int
}

func (t Transform) receiver() string {
	if t.Receiver == "" {
		return "conv"
	}
	return t.Receiver
}

// Checked is a mapping file whose paths resolved.
type Checked struct {
	*File
	From codec.Schema
	To   map[string]codec.Schema // by dialect
	// Silent names the transforms the file uses that write nothing into
	// their target (their kinds end in "->"): they hand the value on.
	Silent map[string]bool
	// Stale are the entries the spec at hand lacks (FindStale): reported,
	// left out of the converters and the typed references.
	Stale []Stale
	stale staleSet
}

var dialects = chatDialects()

// Schema is the side's payload in the shape tables ds (by dialect name):
// the one lookup the generator, its stale check and the alignment matrix
// share.
func (s Side) Schema(ds map[string]*codec.Dialect) (codec.Schema, error) {
	d, ok := ds[s.Dialect]
	if !ok && s.Base != "" {
		d, ok = ds[s.Base] // a dialect that adds nothing to its base's shape
	}
	if !ok {
		return codec.Schema{}, fmt.Errorf("no dialect %q", s.Dialect)
	}
	p, ok := codec.PayloadByName(s.Payload)
	if !ok {
		return codec.Schema{}, fmt.Errorf("no payload %q (responses request, responses body, responses event, chat request, chat body, chat chunk)", s.Payload)
	}
	r, ok := d.Payload(p)
	if !ok {
		return codec.Schema{}, fmt.Errorf("%s has no %s", s.Dialect, s.Payload)
	}
	return r.Schema(), nil
}

func (s Side) schema(file string, ds map[string]*codec.Dialect) (codec.Schema, error) {
	sc, err := s.Schema(ds)
	if err != nil {
		return codec.Schema{}, &Error{file, s.Line, err.Error()}
	}
	return sc, nil
}

// Validate checks a mapping file against the shape tables of the pinned
// specs: every path is well formed, every target dialect has a rule, a
// mapped value fits its target (or goes through a transform that makes it
// fit), a lossy rule states its loss, transforms exist, take the file's
// receiver and are used (a transform only stale entries name counts as
// used). Entries the specs lack (FindStale) are not errors: they are in
// Checked.Stale, and Build and EmitFields leave them out. With complete,
// every field of the source has an entry (at its path or above it).
func Validate(f *File, transforms []Transform, complete bool) (*Checked, []error) {
	return ValidateWith(f, transforms, complete, dialects)
}

// ValidateWith is Validate against the given shape tables, by dialect name,
// instead of the compiled ones: a spec update's, loaded with
// codec.LoadDialect before anything is generated from it.
func ValidateWith(f *File, transforms []Transform, complete bool, ds map[string]*codec.Dialect) (*Checked, []error) {
	var errs []error
	errf := func(line int, format string, args ...any) {
		errs = append(errs, f.errorAt(line, fmt.Sprintf(format, args...)))
	}
	c := &Checked{File: f, To: map[string]codec.Schema{}, Silent: map[string]bool{}, Stale: FindStale(f, ds)}
	c.stale = newStaleSet(c.Stale)
	var err error
	if c.From, err = f.From.schema(f.Name, ds); err != nil {
		return nil, []error{err}
	}
	for _, t := range f.To {
		s, err := t.schema(f.Name, ds)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, dup := c.To[t.Dialect]; dup {
			errf(t.Line, "target dialect %s twice", t.Dialect)
		}
		c.To[t.Dialect] = s
	}
	if len(errs) > 0 {
		return nil, errs
	}
	byName := map[string]Transform{}
	var mine []Transform // the transforms of this file's receiver
	for _, t := range transforms {
		byName[t.Name] = t
		if t.receiver() == f.receiver() {
			mine = append(mine, t)
		}
	}
	// the top-level keys entries read (not gateway ones: nothing reads
	// those), which a rule's unless may name
	seenTop := map[string]bool{}
	for _, e := range f.Entries {
		for _, t := range f.To {
			if readsTop(e, t.Dialect) {
				key, _ := splitStep(codec.SplitPath(e.Path)[0])
				seenTop[t.Dialect+" "+key] = true
			}
		}
	}
	used := map[string]bool{}
	seen := map[string]int{}
	// transform checks what a rule's transform is, when it has one; fit
	// whether it takes src and gives what dst takes (not for a stale
	// entry or rule: the spec lacks one of them).
	transform := func(e Entry, r Rule, src codec.Schema, dialect string, dst codec.Schema, fit bool) {
		tr, ok := byName[r.Transform]
		if !ok {
			errf(r.Line, "%s: no transform %q", e.Path, r.Transform)
			return
		}
		used[r.Transform] = true
		if len(tr.To) == 0 {
			c.Silent[tr.Name] = true
		}
		if tr.receiver() != f.receiver() {
			errf(r.Line, "%s: transform %s takes *%s, not this mapping's *%s", e.Path, tr.Name, tr.receiver(), f.receiver())
			return
		}
		if !fit {
			return
		}
		if k := misfit(src, tr.From); k != "" {
			errf(r.Line, "%s: transform %s does not take %s", e.Path, tr.Name, k)
		}
		if k := misfitTarget(tr.To, dst); k != "" {
			errf(r.Line, "%s: transform %s gives %s, which %s %s does not take", e.Path, tr.Name, k, dialect, r.Target)
		}
	}
	check := func(e Entry, src codec.Schema, stale bool) {
		for d := range e.Rules {
			if _, ok := c.To[d]; d != "" && !ok {
				errf(e.Rules[d].Line, "%s: a rule for %s, which is not a target", e.Path, d)
			}
		}
		for _, t := range f.To {
			r, ok := e.RuleFor(t.Dialect)
			if !ok {
				errf(e.Line, "%s: no rule for %s", e.Path, t.Dialect)
				continue
			}
			if r.Kind == Lossy && e.Note == "" && r.Note == "" {
				errf(r.Line, "%s: lossy: state the loss in a note", e.Path)
			}
			if !stale {
				c.checkExtras(e, r, src, t.Dialect, seenTop, errf)
			}
			if _, ruleStale := c.stale.rule(t.Dialect, e.Path); r.Kind == Omit && !stale && !ruleStale {
				if _, err := c.To[t.Dialect].Lookup(r.Target); err != nil {
					errf(r.Line, "%s → %s %s: %v", e.Path, t.Dialect, r.Target, err)
				}
			}
			if r.Kind != Map && r.Kind != Lossy {
				continue
			}
			if r.Transform != "" && f.Declared() {
				errf(r.Line, "%s: a transform in a file with converter: none (nothing calls it: say what the runtime does in the note)", e.Path)
				continue
			}
			if _, ruleStale := c.stale.rule(t.Dialect, e.Path); stale || ruleStale {
				if r.Transform != "" {
					transform(e, r, src, t.Dialect, codec.Schema{}, false)
				}
				continue
			}
			dst, err := c.To[t.Dialect].Lookup(r.Target)
			if err != nil {
				errf(r.Line, "%s → %s %s: %v", e.Path, t.Dialect, r.Target, err)
				continue
			}
			if r.Transform != "" {
				transform(e, r, src, t.Dialect, dst, true)
				continue
			}
			if r.Values != nil || r.ValuesTarget {
				c.checkValues(e, r, src, t.Dialect, dst, errf)
				continue
			}
			if f.Declared() {
				continue // the hand-written runtime converts the value
			}
			if k := misfitSchemas(src, dst); k != "" {
				errf(r.Line, "%s (%s) → %s %s (%s): %s does not fit; name a transform", e.Path, src.Kinds(), t.Dialect, r.Target, dst.Kinds(), k)
			}
		}
	}
	for _, e := range f.Entries {
		if prev, dup := seen[e.Path]; dup {
			errf(e.Line, "%s: an entry at line %d already", e.Path, prev)
			continue
		}
		seen[e.Path] = e.Line
		if c.stale.entries[e.Line] {
			check(e, codec.Schema{}, true)
			continue
		}
		src, err := c.From.Lookup(e.Path)
		if err != nil {
			errf(e.Line, "unknown path: %v", err)
			continue
		}
		check(e, src, false)
	}
	// Targets: fields of each target, filled by the gateway or never set.
	seenTarget := map[string]int{}
	for _, e := range f.Targets {
		if prev, dup := seenTarget[e.Path]; dup {
			errf(e.Line, "target %s: an entry at line %d already", e.Path, prev)
			continue
		}
		seenTarget[e.Path] = e.Line
		for _, t := range f.To {
			r, ok := e.RuleFor(t.Dialect)
			if !ok {
				if !targetOf(e, t.Dialect) {
					continue // a path of the other dialects' payloads
				}
				errf(e.Line, "target %s: no rule for %s", e.Path, t.Dialect)
				continue
			}
			if r.Kind != Gateway && r.Kind != Drop {
				errf(r.Line, "target %s: a target is filled by the gateway (gateway) or never set (drop), not %s", e.Path, r.Kind)
			}
			if c.stale.targets[[2]string{t.Dialect, e.Path}] {
				continue
			}
			if _, err := c.To[t.Dialect].Lookup(e.Path); err != nil {
				errf(e.Line, "target %s: %v", e.Path, err)
			}
		}
	}
	// Events: types of the OpenAI stream event union, once each (a type
	// the spec lacks is stale).
	seenEvent := map[string]int{}
	reading := len(f.Events) > 0 && (f.Events[0].Read != "" || f.Events[0].Ignore != "")
	for _, e := range f.Events {
		if prev, dup := seenEvent[e.Type]; dup {
			errf(e.Line, "event %s: an entry at line %d already", e.Type, prev)
			continue
		}
		seenEvent[e.Type] = e.Line
		if r := e.Read != "" || e.Ignore != ""; r != reading {
			errf(e.Line, "event %s: a file's events are all emit/never (a runtime that writes the stream) or all read/ignore (one that reads it)", e.Type)
		}
	}
	for _, e := range f.Extras {
		check(e, codec.Schema{}, c.stale.entries[e.Line])
		if !below(e.Path) || c.stale.entries[e.Line] {
			continue
		}
		// An extra under the top level is read by the transform of the
		// field it is in: its parent is the spec's, its rule a gateway
		// rule saying which (nothing else is emitted for it).
		dot := strings.LastIndex(e.Path, ".")
		if dot < 0 || strings.ContainsAny(e.Path[dot+1:], "[{") {
			errf(e.Line, "%s: an extra under the top level is a member's key: parent.key", e.Path)
			continue
		}
		if _, err := c.From.Lookup(e.Path[:dot]); err != nil {
			errf(e.Line, "%s: an extra under %s, which the spec lacks: %v", e.Path, e.Path[:dot], err)
		}
		for _, t := range f.To {
			if r, ok := e.RuleFor(t.Dialect); ok && r.Kind != Gateway {
				errf(r.Line, "%s: an extra under the top level is read by the transform above it: a gateway rule says which", e.Path)
			}
		}
	}
	for _, t := range mine {
		if !used[t.Name] && !f.UsedElsewhere[t.Name] {
			file, line := t.File, t.Line
			if file == "" {
				file = f.Name
			}
			errs = append(errs, &Error{file, line, fmt.Sprintf("transform %s is never used", t.Name)})
		}
	}
	if complete {
		for _, p := range Leaves(c.From) {
			if !covered(p, seen) {
				errs = append(errs, &Error{f.Name, 0, fmt.Sprintf("%s: a field of the spec with no entry", p)})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// readsTop reports whether the converter for dialect reads the top-level
// member an entry is under (a gateway entry for the whole member is not
// read: nothing is done with it).
func readsTop(e Entry, dialect string) bool {
	if strings.ContainsAny(e.Path, ".[{") {
		return true
	}
	r, ok := e.RuleFor(dialect)
	return ok && r.Kind != Gateway
}

// checkExtras checks a rule's constants (also, set, when), its unless and
// what it refuses.
func (c *Checked) checkExtras(e Entry, r Rule, src codec.Schema, dialect string, top map[string]bool, errf func(int, string, ...any)) {
	c.checkConsts(e, r.Also, dialect, errf)
	if r.When != "" {
		if msg := misfitConst(r.When, src); msg != "" {
			errf(r.WhenLine, "%s (%s): when %s: %s", e.Path, src.Kinds(), r.When, msg)
		}
	}
	switch {
	case r.Unless == "":
	case r.Kind == Refuse:
		if msg := misfitConst(r.Unless, src); msg != "" {
			errf(r.UnlessLine, "%s (%s): unless %s: %s", e.Path, src.Kinds(), r.Unless, msg)
		}
	case !top[dialect+" "+r.unlessKey()]:
		errf(r.UnlessLine, "%s: unless %s: no entry reads that top-level key for %s", e.Path, r.unlessKey(), dialect)
	case strings.Contains(e.Path, "[]"):
		errf(r.UnlessLine, "%s: unless inside an array element: write a transform", e.Path)
	}
}

func targetOf(e Entry, dialect string) bool {
	if _, ok := e.RuleFor(dialect); ok {
		return true
	}
	return len(e.Rules) == 0
}

// covered reports whether an entry is at path or above it.
func covered(path string, entries map[string]int) bool {
	for p := path; ; {
		if _, ok := entries[p]; ok {
			return true
		}
		i := strings.LastIndexAny(p, ".[{")
		if i <= 0 {
			return false
		}
		p = p[:i]
	}
}

// Leaves lists the wire paths of a schema's fields, down to scalars,
// free-form values and the variants of unions, in a fixed order. A schema
// met again on its own path (recursive) is a leaf.
func Leaves(s codec.Schema) []string {
	var out []string
	var walk func(s codec.Schema, path string, seen []string)
	walk = func(s codec.Schema, path string, seen []string) {
		if slices.Contains(seen, s.Name()) {
			out = append(out, path)
			return
		}
		seen = append(seen, s.Name())
		join := func(key string) string {
			if path == "" {
				return key
			}
			return path + "." + key
		}
		switch s.Shape() {
		case codec.ShapeObject:
			n := 0
			for p := range s.Properties() {
				walk(p.Schema, join(p.Key), seen)
				n++
			}
			if n == 0 {
				out = append(out, path)
			}
		case codec.ShapeArray:
			walk(s.Items(), path+"[]", seen)
		case codec.ShapeTagged:
			for v := range s.Variants() {
				walk(v.Schema, path+"{"+v.Value+"}", seen)
			}
		case codec.ShapeUnion:
			var alts []codec.Schema
			for a := range s.Alternatives() {
				if a.Kinds() != "null" {
					alts = append(alts, a)
				}
			}
			if len(alts) == 1 {
				walk(alts[0], path, seen)
				return
			}
			for _, a := range alts {
				kind := kindOf(a)
				walk(a, path+"{"+kind+"}", seen)
			}
		default:
			out = append(out, path)
		}
	}
	walk(s, "", nil)
	return out
}

// kindOf names the JSON kind an alternative of a union is selected by.
func kindOf(s codec.Schema) string {
	for _, k := range jsonKinds {
		if s.Allows(k) {
			return k.String()
		}
	}
	return "null"
}

// checkConsts checks constants written at target paths: the path is the
// dialect's, the constant fits it, and it is not inside an array element.
func (c *Checked) checkConsts(e Entry, consts []Const, dialect string, errf func(int, string, ...any)) {
	for _, k := range consts {
		dst, err := c.To[dialect].Lookup(k.Target)
		if err != nil {
			errf(k.Line, "%s: constant → %s %s: %v", e.Path, dialect, k.Target, err)
			continue
		}
		if msg := misfitConst(k.JSON, dst); msg != "" {
			errf(k.Line, "%s: constant %s → %s %s (%s): %s", e.Path, k.JSON, dialect, k.Target, dst.Kinds(), msg)
		}
		if steps := codec.SplitPath(k.Target); strings.Contains(strings.Join(steps[:len(steps)-1], "."), "[]") {
			errf(k.Line, "%s: constant → %s: inside an array element; write a transform", e.Path, k.Target)
		}
	}

}
