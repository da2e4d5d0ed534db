package matrix

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Delta is what changed from one matrix to the next (after a spec or
// mapping update): paths added and removed, statuses changed, mapping
// entries newly stale and no longer stale, coverage before and after,
// section by section.
type Delta struct {
	Before, After Coverage
	Sections      []SectionDelta
}

// SectionDelta is one section's changes (Before is zero for an added
// section, After for a removed one).
type SectionDelta struct {
	ID, Title string
	Added     []Row // in the new matrix only
	Removed   []Row // in the old one only
	Changed   []Change
	// Stale are the section's stale entries the old matrix did not list,
	// Unstale those it did that the new one does not (its spec has the
	// path again, or the entry was edited or removed). An entry is the
	// same by its path and target, not its line.
	Stale, Unstale []Stale
	// Values are the fields whose enum values changed.
	Values        []ValueChange
	Before, After Coverage
	New, Gone     bool // the section itself was added or removed
}

// Change is a path whose status changed.
type Change struct {
	Path     string
	From, To Row
}

// ValueChange is a field whose enum values the new spec has added or
// removed (in the new spec's order, then the old one's).
type ValueChange struct {
	Path           string
	Added, Removed []string
}

// Worse reports whether the change is to a worse status.
func (c Change) Worse() bool { return c.To.Status.rank() < c.From.Status.rank() }

// Diff compares two matrices.
func Diff(old, new *Matrix) *Delta {
	d := &Delta{Before: old.Coverage, After: new.Coverage}
	olds := map[string]*Section{}
	for i := range old.Sections {
		olds[old.Sections[i].ID] = &old.Sections[i]
	}
	seen := map[string]bool{}
	for i := range new.Sections {
		ns := &new.Sections[i]
		seen[ns.ID] = true
		os := olds[ns.ID]
		sd := SectionDelta{ID: ns.ID, Title: ns.Title, After: ns.Coverage}
		if os == nil {
			sd.New, sd.Added, sd.Stale = true, ns.Rows, ns.Stale
			d.Sections = append(d.Sections, sd)
			continue
		}
		sd.Stale, sd.Unstale = staleDiff(os.Stale, ns.Stale), staleDiff(ns.Stale, os.Stale)
		sd.Before = os.Coverage
		before := map[string]Row{}
		for _, r := range os.Rows {
			before[r.Path] = r
		}
		after := map[string]bool{}
		for _, r := range ns.Rows {
			after[r.Path] = true
			b, ok := before[r.Path]
			switch {
			case !ok:
				sd.Added = append(sd.Added, r)
			case b.Status != r.Status:
				sd.Changed = append(sd.Changed, Change{Path: r.Path, From: b, To: r})
			}
			if vc := (ValueChange{Path: r.Path, Added: minus(r.Values, b.Values), Removed: minus(b.Values, r.Values)}); ok && len(vc.Added)+len(vc.Removed) > 0 {
				sd.Values = append(sd.Values, vc)
			}
		}
		for _, r := range os.Rows {
			if !after[r.Path] {
				sd.Removed = append(sd.Removed, r)
			}
		}
		if len(sd.Added)+len(sd.Removed)+len(sd.Changed)+len(sd.Stale)+len(sd.Unstale)+len(sd.Values) > 0 || sd.Before != sd.After {
			d.Sections = append(d.Sections, sd)
		}
	}
	for i := range old.Sections {
		if os := &old.Sections[i]; !seen[os.ID] {
			d.Sections = append(d.Sections, SectionDelta{ID: os.ID, Title: os.Title, Gone: true, Removed: os.Rows, Before: os.Coverage})
		}
	}
	return d
}

// signed is "+added −removed", each value in turn.
func (v ValueChange) signed() string {
	var parts []string
	for _, a := range v.Added {
		parts = append(parts, "+"+a)
	}
	for _, r := range v.Removed {
		parts = append(parts, "-"+r)
	}
	return strings.Join(parts, " ")
}

// minus lists the values of a that b lacks.
func minus(a, b []string) []string {
	var out []string
	for _, v := range a {
		if !slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

// staleDiff lists the stale entries of b that a lacks.
func staleDiff(a, b []Stale) []Stale {
	in := map[[2]string]bool{}
	for _, s := range a {
		in[[2]string{s.Path, s.Target}] = true
	}
	var out []Stale
	for _, s := range b {
		if !in[[2]string{s.Path, s.Target}] {
			out = append(out, s)
		}
	}
	return out
}

// Worse reports whether a path became unmapped (a new one without an
// entry, or one whose entry is gone) or a status got worse: what a user's
// CI gates on (transponder matrix diff exits 1). An entry newly stale is
// not worse in itself — the generator goes on without it — but what it
// costs is: a source field whose target the spec removed is dropped now
// (worse), a spec field that comes back without its entry is unmapped.
func (d *Delta) Worse() bool {
	for _, s := range d.Sections {
		for _, r := range s.Added {
			if r.Status == Unmapped {
				return true
			}
		}
		for _, c := range s.Changed {
			if c.Worse() {
				return true
			}
		}
	}
	return false
}

// Empty reports whether nothing changed.
func (d *Delta) Empty() bool { return len(d.Sections) == 0 }

// Text renders the delta for a terminal.
func (d *Delta) Text() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if d.Empty() {
		p("no change (coverage %s)\n", pct(d.After))
		return b.Bytes()
	}
	p("coverage: %s → %s\n", pct(d.Before), pct(d.After))
	for _, s := range d.Sections {
		p("\n%s (%s)", s.Title, s.ID)
		switch {
		case s.New:
			p(": new section\n")
		case s.Gone:
			p(": section removed\n")
		default:
			p(": coverage %s → %s\n", pct(s.Before), pct(s.After))
		}
		for _, r := range s.Added {
			p("  + %s  %s%s\n", r.Path, r.Status, suffix(r.Note))
		}
		for _, r := range s.Removed {
			p("  - %s  (was %s)\n", r.Path, r.Status)
		}
		for _, c := range s.Changed {
			mark := ""
			if c.Worse() {
				mark = "  WORSE"
			}
			p("  ~ %s  %s → %s%s%s\n", c.Path, c.From.Status, c.To.Status, suffix(c.To.Note), mark)
		}
		for _, st := range s.Stale {
			p("  ! stale %s%s\n", st.label(), suffix(st.Reason))
		}
		for _, st := range s.Unstale {
			p("  = no longer stale %s\n", st.label())
		}
		for _, v := range s.Values {
			p("  ~ %s  values %s\n", v.Path, v.signed())
		}
	}
	if d.Worse() {
		p("\na path became unmapped or a status got worse\n")
	}
	return b.Bytes()
}

// Markdown renders the delta for a pull-request comment.
func (d *Delta) Markdown() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("### Alignment matrix\n\n")
	if d.Empty() {
		p("No change (coverage %s).\n", pct(d.After))
		return b.Bytes()
	}
	if d.Worse() {
		p("**A path became unmapped or a status got worse.**\n\n")
	}
	p("Coverage: %s → %s\n", pct(d.Before), pct(d.After))
	for _, s := range d.Sections {
		p("\n#### %s\n\n", s.Title)
		switch {
		case s.New:
			p("New section.\n\n")
		case s.Gone:
			p("Section removed.\n\n")
		default:
			p("Coverage: %s → %s\n\n", pct(s.Before), pct(s.After))
		}
		if len(s.Added)+len(s.Removed)+len(s.Changed)+len(s.Stale)+len(s.Unstale)+len(s.Values) == 0 {
			continue
		}
		p("| | Path | Status | Note |\n|---|---|---|---|\n")
		for _, r := range s.Added {
			p("| added | `%s` | %s %s | %s |\n", r.Path, r.Status.Mark(), r.Status, cell(r.Note))
		}
		for _, r := range s.Removed {
			p("| removed | `%s` | was %s %s | |\n", r.Path, r.Status.Mark(), r.Status)
		}
		for _, c := range s.Changed {
			what := "changed"
			if c.Worse() {
				what = "**worse**"
			}
			p("| %s | `%s` | %s %s → %s %s | %s |\n", what, c.Path, c.From.Status.Mark(), c.From.Status, c.To.Status.Mark(), c.To.Status, cell(c.To.Note))
		}
		for _, st := range s.Stale {
			p("| newly stale | %s | stale entry | %s |\n", st.mdLabel(), cell(st.Reason))
		}
		for _, st := range s.Unstale {
			p("| no longer stale | %s | | |\n", st.mdLabel())
		}
		for _, v := range s.Values {
			p("| values | `%s` | | %s |\n", v.Path, cell(v.signed()))
		}
	}
	return b.Bytes()
}

// label names a stale entry in the text: its path, → its target.
func (st Stale) label() string {
	if st.Target != "" {
		return st.Path + " → " + st.Target
	}
	return st.Path
}

func (st Stale) mdLabel() string {
	if st.Target != "" {
		return "`" + st.Path + "` → `" + st.Target + "`"
	}
	return "`" + st.Path + "`"
}

func pct(c Coverage) string {
	return fmt.Sprintf("%.1f%% of %d paths (%d unmapped)", c.CoveredPercent, c.Total, c.Unmapped)
}

func suffix(note string) string {
	if note == "" {
		return ""
	}
	if len(note) > 100 {
		cut := strings.LastIndexByte(note[:100], ' ')
		if cut < 60 {
			cut = 100
			for cut > 0 && !utf8.RuneStart(note[cut]) {
				cut--
			}
		}
		note = note[:cut] + "…"
	}
	return ": " + note
}
