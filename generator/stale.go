package generator

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// StaleKind is what a stale mapping entry is.
type StaleKind string

const (
	StaleOfEntry  StaleKind = "entry"  // an entries: path the source payload lacks
	StaleOfRule   StaleKind = "rule"   // a map or lossy rule whose target the target dialect's payload lacks
	StaleOfTarget StaleKind = "target" // a targets: path the target payload lacks
	StaleOfEvent  StaleKind = "event"  // an events: type the stream event union lacks
	StaleOfExtra  StaleKind = "extra"  // an extras: key that is now a field of the spec
)

// Stale is a mapping entry (or one dialect's rule of it) that the spec at
// hand does not have: a field, variant, target or event type a spec
// release removed (or, for an extra, added). It is a warning, never an
// error: the generator leaves it out of the converters and the typed
// references (a stale rule's source field is dropped, with a warning, for
// that dialect only), and the alignment matrix lists it.
type Stale struct {
	File string
	Line int
	Kind StaleKind
	// Path is the entry's path, the extra's key, the target's path or the
	// event's type.
	Path string
	// Dialect is the target dialect a rule or a targets: path is stale
	// for ("" for entries, extras and events: stale for every target).
	Dialect string
	// Target is a stale rule's target path.
	Target string
	Reason string
}

// String is the report's line: "mapping/x.yaml:LINE: stale: <what> (<why>)".
func (s Stale) String() string {
	return fmt.Sprintf("%s:%d: stale: %s (%s)", s.File, s.Line, s.What(), s.Reason)
}

// What names the stale thing: "entry P", "entry P → DIALECT T",
// "target DIALECT P", "event TYPE", "extra KEY".
func (s Stale) What() string {
	switch s.Kind {
	case StaleOfRule:
		return fmt.Sprintf("entry %s → %s %s", s.Path, s.Dialect, s.Target)
	case StaleOfTarget:
		return fmt.Sprintf("target %s %s", s.Dialect, s.Path)
	}
	return string(s.Kind) + " " + s.Path
}

// DropReason is what the converter for a stale rule's dialect warns when
// the source field comes: not carried, since the target lacks its place.
func (s Stale) DropReason() string {
	return "not carried: the pinned " + s.Dialect + " spec has no " + s.Target
}

// The reasons of stale extras and events, as the alignment matrix words
// them.
const (
	staleExtraReason = "an extra that is now a field of the spec: make it an entry"
	staleEventReason = "not a stream event type of the spec"
)

// FindStale classifies the entries of f against the shape tables ds (by
// dialect name): the one place that says what is stale, for the
// generator (which leaves it out) and the alignment matrix (which lists
// it). A path that is not a wire path at all (malformed), a dialect or
// payload that does not exist, are not stale: ValidateWith reports them
// as errors. In line order.
func FindStale(f *File, ds map[string]*codec.Dialect) []Stale {
	var out []Stale
	add := func(s Stale) {
		s.File, s.Line = f.At(s.Line)
		out = append(out, s)
	}
	src, err := f.From.Schema(ds)
	if err != nil {
		return nil
	}
	type target struct {
		dialect string
		schema  codec.Schema
	}
	var targets []target
	for _, t := range f.To {
		if s, err := t.Schema(ds); err == nil {
			targets = append(targets, target{t.Dialect, s})
		}
	}
	rules := func(e Entry, from codec.Schema) {
		for _, t := range targets {
			r, ok := e.RuleFor(t.dialect)
			if !ok || r.Kind != Map && r.Kind != Lossy && r.Kind != Omit || malformed(r.Target) != nil {
				continue
			}
			if _, err := t.schema.Lookup(r.Target); errors.Is(err, codec.ErrAbsent) {
				add(Stale{Line: r.Line, Kind: StaleOfRule, Path: e.Path, Dialect: t.dialect, Target: r.Target, Reason: err.Error()})
				continue
			}
			if r.Transform != "" || f.Declared() || !from.Valid() || from.Shape() != codec.ShapeObject {
				continue
			}
			// an object mapped as it is (Build): each field to the same key
			// (not in a declared file: the runtime converts it as a whole)
			for p := range from.Properties() {
				tp := r.Target + "." + p.Key
				if _, err := t.schema.Lookup(tp); errors.Is(err, codec.ErrAbsent) {
					add(Stale{Line: r.Line, Kind: StaleOfRule, Path: e.Path + "." + p.Key, Dialect: t.dialect, Target: tp, Reason: err.Error()})
				}
			}
		}
	}
	for _, e := range f.Entries {
		if malformed(e.Path) != nil {
			continue
		}
		s, err := src.Lookup(e.Path)
		if errors.Is(err, codec.ErrAbsent) {
			add(Stale{Line: e.Line, Kind: StaleOfEntry, Path: e.Path, Reason: err.Error()})
			continue
		}
		if err != nil {
			continue // a path that does not fit the spec's shape: ValidateWith's error
		}
		rules(e, s)
	}
	for _, e := range f.Extras {
		if known(src, e.Path) {
			add(Stale{Line: e.Line, Kind: StaleOfExtra, Path: e.Path, Reason: staleExtraReason})
			continue
		}
		rules(e, codec.Schema{})
	}
	for _, e := range f.Targets {
		if malformed(e.Path) != nil {
			continue
		}
		for _, t := range targets {
			if !targetOf(e, t.dialect) {
				continue // declared for the other dialects only
			}
			if _, err := t.schema.Lookup(e.Path); errors.Is(err, codec.ErrAbsent) {
				add(Stale{Line: e.Line, Kind: StaleOfTarget, Path: e.Path, Dialect: t.dialect, Reason: err.Error()})
			}
		}
	}
	if known, ok := eventTypes(ds); ok {
		for _, e := range f.Events {
			if e.Type != "" && !known[e.Type] {
				add(Stale{Line: e.Line, Kind: StaleOfEvent, Path: e.Type, Reason: staleEventReason})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Stale) int { return a.Line - b.Line })
	return out
}

// eventTypes are the types of the OpenAI stream event union (the events:
// of every mapping file are its).
func eventTypes(ds map[string]*codec.Dialect) (map[string]bool, bool) {
	d := ds[codec.OpenAI.Name()]
	if d == nil {
		return nil, false
	}
	ev, ok := d.Payload(codec.ResponsesEvent)
	if !ok {
		return nil, false
	}
	known := map[string]bool{}
	for v := range ev.Schema().Variants() {
		known[v.Value] = true
	}
	return known, true
}

// malformed says why path is not a wire path (codec.Schema.Lookup's):
// keys joined by dots, each with selectors [] or {name}; only the first
// key may be empty (a path that starts with a selector). A well-formed
// path Lookup cannot resolve names something the spec lacks: stale.
func malformed(path string) error {
	if path == "" {
		return fmt.Errorf("an empty path")
	}
	for i, step := range codec.SplitPath(path) {
		key, sels := splitStep(step)
		if key == "" && (i > 0 || sels == "") {
			return fmt.Errorf("%s: an empty key", path)
		}
		if strings.ContainsAny(key, "]}") {
			return fmt.Errorf("%s: %q is not a key", path, key)
		}
		for sels != "" {
			switch {
			case strings.HasPrefix(sels, "[]"):
				sels = sels[2:]
			case strings.HasPrefix(sels, "{"):
				end := strings.IndexByte(sels, '}')
				if end < 0 {
					return fmt.Errorf("%s: unclosed {", path)
				}
				if name := sels[1:end]; name == "" || strings.ContainsAny(name, "{[") {
					return fmt.Errorf("%s: bad selector %q", path, sels[:end+1])
				}
				sels = sels[end+1:]
			default:
				return fmt.Errorf("%s: bad selector %q", path, sels)
			}
		}
	}
	return nil
}

// staleSet indexes a stale list for the generator's passes.
type staleSet struct {
	entries map[int]bool        // by line: stale entries, extras and events
	rules   map[[2]string]Stale // (dialect, source path) → the stale rule
	targets map[[2]string]bool  // (dialect, targets: path)
}

func newStaleSet(list []Stale) staleSet {
	s := staleSet{entries: map[int]bool{}, rules: map[[2]string]Stale{}, targets: map[[2]string]bool{}}
	for _, st := range list {
		switch st.Kind {
		case StaleOfRule:
			s.rules[[2]string{st.Dialect, st.Path}] = st
		case StaleOfTarget:
			s.targets[[2]string{st.Dialect, st.Path}] = true
		default:
			s.entries[st.Line] = true
		}
	}
	return s
}

// rule is the stale rule of the entry at path for a dialect, if its
// target is.
func (s staleSet) rule(dialect, path string) (Stale, bool) {
	st, ok := s.rules[[2]string{dialect, path}]
	return st, ok
}

// known reports whether the spec src has the extra key: a top-level
// property, or a path below it.
func known(src codec.Schema, key string) bool {
	if below(key) {
		_, err := src.Lookup(key)
		return err == nil
	}
	_, ok := src.Property(key)
	return ok
}
