package matrix

// The rows of each side: the paths of the spec, joined with the mapping
// entries, target declarations and events that speak for them.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/generator"
)

// paths are the rows of a schema: its leaves (generator.Leaves) and every
// union variant above them, each once, kind by kind.
func paths(s codec.Schema) map[string]string {
	out := map[string]string{}
	for _, leaf := range generator.Leaves(s) {
		for i := range len(leaf) {
			if leaf[i] == '}' && i+1 < len(leaf) {
				if _, ok := out[leaf[:i+1]]; !ok {
					out[leaf[:i+1]] = "variant"
				}
			}
		}
		kind := "field"
		if strings.HasSuffix(leaf, "}") {
			kind = "variant"
		}
		out[leaf] = kind
	}
	return out
}

// parent is the path one step up ("" at the top).
func parent(p string) string {
	i := strings.LastIndexAny(p, ".[{")
	if i <= 0 {
		return ""
	}
	return p[:i]
}

// nearest returns the path at or above p that has, or "" and false.
func nearest[V any](p string, at map[string]V) (string, bool) {
	for ; p != ""; p = parent(p) {
		if _, ok := at[p]; ok {
			return p, true
		}
	}
	return "", false
}

// statusOf is a rule kind's status: an omitted value (the target's
// default) and a set rule's constants count as aligned; a refused field
// is dropped, the note saying it is refused.
func statusOf(k generator.RuleKind) Status {
	switch k {
	case generator.Map, generator.Omit, generator.Set:
		return Aligned
	case generator.Lossy:
		return Lossy
	case generator.Drop, generator.Refuse:
		return Dropped
	case generator.Gateway:
		return Gateway
	}
	return Unmapped
}

// row is the row of path under an entry's rule. The entry's note goes
// with a rule it describes: the entry's default rule, a lossy rule (the
// note states its loss), or a rule of the same kind for every dialect —
// not a dialect's own drop beside another's mapping.
func row(path, kind string, e generator.Entry, r generator.Rule) Row {
	out := Row{Path: path, Kind: kind, Status: statusOf(r.Kind), Entry: e.Path, Transform: r.Transform}
	if r.Target != "" {
		out.Targets = []string{r.Target}
	}
	for _, k := range r.Also {
		out.Targets = append(out.Targets, k.Target)
	}
	note := e.Note
	if d, ok := e.Rules[""]; !(ok && d.Same(r)) && r.Kind != generator.Lossy {
		for _, o := range e.Rules {
			if o.Kind != r.Kind {
				note = ""
			}
		}
	}
	if r.Note != "" {
		note = r.Note // a dialect's rule, with its own note
	}
	reason := r.Reason
	switch r.Kind {
	case generator.Refuse:
		reason = "refused (a 400 naming the path): " + r.Reason
		if r.Unless != "" {
			reason += " (" + r.Unless + " passes)"
		}
	case generator.Omit:
		reason = "left out: the target's default"
	}
	switch {
	case reason != "" && note != "":
		out.Note = reason + " (" + note + ")"
	case reason != "":
		out.Note = reason
	default:
		out.Note = note
	}
	return out
}

func sortRows(rows []Row) []Row {
	slices.SortFunc(rows, func(a, b Row) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return rows
}

// staleOf is the matrix's form of the generator's stale entries.
func staleOf(list []generator.Stale) []Stale {
	var out []Stale
	for _, s := range list {
		out = append(out, Stale{Path: s.Path, Target: s.Target, Line: s.Line, Reason: s.Reason})
	}
	return out
}

// staleFor picks the stale entries of the given kinds, for a dialect
// (those stale for every dialect have none).
func staleFor(list []generator.Stale, dialect string, kinds ...generator.StaleKind) []generator.Stale {
	var out []generator.Stale
	for _, s := range list {
		if slices.Contains(kinds, s.Kind) && (s.Dialect == "" || s.Dialect == dialect) {
			out = append(out, s)
		}
	}
	return out
}

// sourceRows: every path of the source with the entry that covers it;
// the extras; the stale entries (generator.FindStale: those that name no
// path of the spec, extras that became fields of the spec, and rules
// whose target this dialect lacks — their rows are dropped, as the
// converter drops them).
func sourceRows(src codec.Schema, f *generator.File, dialect string, stale []generator.Stale) ([]Row, []Stale) {
	all := paths(src)
	mine := staleFor(stale, dialect, generator.StaleOfEntry, generator.StaleOfExtra, generator.StaleOfRule)
	gone, rules := map[int]bool{}, map[string]generator.Stale{}
	for _, s := range mine {
		if s.Kind == generator.StaleOfRule {
			rules[s.Path] = s
		} else {
			gone[s.Line] = true
		}
	}
	entries := map[string]generator.Entry{}
	for _, e := range f.Entries {
		if !gone[e.Line] {
			entries[e.Path] = e
		}
	}
	rows := make([]Row, 0, len(all)+len(f.Extras))
	for p, kind := range all {
		at, ok := nearest(p, entries)
		if !ok {
			rows = append(rows, Row{Path: p, Kind: kind, Status: Unmapped})
			continue
		}
		e := entries[at]
		r, ok := e.RuleFor(dialect)
		if !ok {
			rows = append(rows, Row{Path: p, Kind: kind, Status: Unmapped, Entry: e.Path, Note: "no rule for " + dialect})
			continue
		}
		if st, ok := staleRule(p, at, rules); ok {
			rows = append(rows, Row{Path: p, Kind: kind, Status: Dropped, Entry: e.Path, Note: st.DropReason()})
			continue
		}
		rows = append(rows, row(p, kind, e, r))
	}
	for _, e := range f.Extras {
		if gone[e.Line] {
			continue
		}
		if r, ok := e.RuleFor(dialect); ok {
			rw := row(e.Path, "extra", e, r)
			if st, ok := rules[e.Path]; ok {
				rw = Row{Path: e.Path, Kind: "extra", Status: Dropped, Entry: e.Path, Note: st.DropReason()}
			}
			rows = append(rows, rw)
		}
	}
	return byFields(sortRows(rows)), staleOf(mine)
}

// staleRule is the stale rule that covers path p under the entry at: the
// entry's own, or (an object mapped as it is) its field's on the way.
func staleRule(p, at string, rules map[string]generator.Stale) (generator.Stale, bool) {
	for q := p; len(q) >= len(at); q = parent(q) {
		if st, ok := rules[q]; ok {
			return st, true
		}
		if q == at {
			break
		}
	}
	return generator.Stale{}, false
}

// byFields gives a variant without an entry of its own, whose fields have
// theirs, the status they add up to: aligned if they all are, dropped if
// they all are, else lossy (carried in part).
func byFields(rows []Row) []Row {
	for i := range rows {
		r := &rows[i]
		if r.Status != Unmapped || r.Entry != "" || r.Kind != "variant" {
			continue
		}
		n := map[Status]int{}
		total := 0
		for _, d := range rows[i+1:] { // sorted: descendants follow
			if !strings.HasPrefix(d.Path, r.Path) || len(d.Path) == len(r.Path) {
				break
			}
			if c := d.Path[len(r.Path)]; c != '.' && c != '[' && c != '{' {
				continue // a sibling whose name starts the same
			}
			if d.Kind == "variant" && d.Entry == "" {
				continue // summed through its own fields
			}
			n[d.Status]++
			total++
		}
		switch {
		case total == 0 || n[Unmapped] == total:
		case n[Aligned] == total:
			r.Status, r.Note = Aligned, "mapped field by field: all of its fields are aligned"
		case n[Dropped] == total:
			r.Status, r.Note = Dropped, "mapped field by field: all of its fields are dropped"
		default:
			r.Status, r.Note = Lossy, fmt.Sprintf("mapped field by field, in part: %d of its %d fields aligned, %d lossy, %d dropped, %d by the gateway, %d unmapped", n[Aligned], total, n[Lossy], n[Dropped], n[Gateway], n[Unmapped])
		}
	}
	return rows
}

// targetRows: every path of the target with what produces it: the
// entries whose target is that very path (a transform's target names where
// it writes, not what fills the fields below it), else the targets
// declaration at or above it (which speaks for its whole subtree), else
// nothing: unmapped. So a field a spec update adds to the target shows up
// unmapped until a declaration says what fills it.
//
// The stale targets declarations (generator.FindStale) are the section's
// stale list; a stale entry produces nothing.
func targetRows(dst codec.Schema, f *generator.File, dialect string, stale []generator.Stale) ([]Row, []Stale) {
	all := paths(dst)
	type src struct {
		e generator.Entry
		r generator.Rule
	}
	gone := map[int]bool{} // a stale rule's target is no path of dst: no row
	for _, s := range staleFor(stale, dialect, generator.StaleOfEntry, generator.StaleOfTarget) {
		gone[s.Line] = true
	}
	mapped := map[string][]src{}
	for _, e := range f.Entries {
		r, ok := e.RuleFor(dialect)
		if !ok || gone[e.Line] {
			continue
		}
		if r.Kind == generator.Map || r.Kind == generator.Lossy || r.Kind == generator.Omit {
			mapped[r.Target] = append(mapped[r.Target], src{e, r})
		}
		for _, k := range r.Also { // constants: what the entry also writes
			mapped[k.Target] = append(mapped[k.Target], src{e, r})
		}
	}
	declared := map[string]generator.Entry{}
	for _, e := range f.Targets {
		if !gone[e.Line] {
			declared[e.Path] = e
		}
	}
	rows := make([]Row, 0, len(all))
	for p, kind := range all {
		if srcs := mapped[p]; len(srcs) > 0 {
			rw := Row{Path: p, Kind: kind, Status: Unmapped}
			var from, notes, trs []string
			for _, s := range srcs {
				if st := statusOf(s.r.Kind); st.rank() > rw.Status.rank() {
					rw.Status = st
				}
				from = append(from, s.e.Path)
				if s.r.Transform != "" && !slices.Contains(trs, s.r.Transform) {
					trs = append(trs, s.r.Transform)
				}
				if s.r.Note != "" {
					notes = append(notes, s.r.Note)
				} else if s.e.Note != "" {
					notes = append(notes, s.e.Note)
				}
			}
			rw.Entry, rw.Transform, rw.Note = strings.Join(from, ", "), strings.Join(trs, ", "), strings.Join(notes, "; ")
			rows = append(rows, rw)
			continue
		}
		dp, ok := nearest(p, declared)
		if !ok {
			rows = append(rows, Row{Path: p, Kind: kind, Status: Unmapped})
			continue
		}
		e := declared[dp]
		r, ok := e.RuleFor(dialect)
		if !ok {
			rows = append(rows, Row{Path: p, Kind: kind, Status: Unmapped, Entry: "targets: " + e.Path, Note: "no rule for " + dialect})
			continue
		}
		rw := row(p, kind, e, r)
		rw.Entry = "targets: " + e.Path
		rows = append(rows, rw)
	}
	return sortRows(rows), staleOf(staleFor(stale, dialect, generator.StaleOfTarget))
}

// eventRows: every event type of the spec's stream event union, emitted
// or read (aligned), never emitted or skipped (dropped), or unmapped.
func eventRows(ev codec.Schema, f *generator.File, stale []generator.Stale) ([]Row, []Stale) {
	byType := map[string]generator.Event{}
	for _, e := range f.Events {
		byType[e.Type] = e
	}
	var rows []Row
	known := map[string]bool{}
	for v := range ev.Variants() {
		known[v.Value] = true
		e, ok := byType[v.Value]
		switch {
		case !ok:
			rows = append(rows, Row{Path: v.Value, Kind: "event", Status: Unmapped})
		case e.Emit != "" || e.Read != "":
			rows = append(rows, Row{Path: v.Value, Kind: "event", Status: Aligned, Entry: "events: " + v.Value, Note: e.Emit + e.Read})
		default:
			rows = append(rows, Row{Path: v.Value, Kind: "event", Status: Dropped, Entry: "events: " + v.Value, Note: e.Never + e.Ignore})
		}
	}
	return sortRows(rows), staleOf(staleFor(stale, "", generator.StaleOfEvent))
}

// withValues gives each field row of s whose schema is closed to an enum
// (or a union of such and null) its values.
func withValues(rows []Row, s codec.Schema) {
	for i := range rows {
		r := &rows[i]
		if r.Kind != "field" {
			continue
		}
		f, err := s.Lookup(r.Path)
		if err != nil {
			continue
		}
		r.Values = valuesOf(f)
	}
}

func valuesOf(s codec.Schema) []string {
	if s.Shape() != codec.ShapeUnion {
		return s.Values()
	}
	var out []string
	for a := range s.Alternatives() {
		for _, v := range a.Values() {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}
