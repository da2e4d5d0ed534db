// Package matrix computes the alignment matrix: for every field and union
// variant of the specs a mapping reads or writes, how it maps — aligned,
// lossy, dropped, served by the gateway, or unmapped (no entry: what a spec
// update produces) — with the target and the note. It is computed from the
// shape tables of the normalized specs and the mapping YAML alone (not from
// the generated converters), so it can be rendered right after a spec
// update, when the converters cannot be generated yet.
//
// Sections, in order: for each mapping file (the requests first — the
// Responses request → chat, the reverse request chat → Responses — then
// the answers: chat → Responses, the reverse answer Responses → chat), its
// source side once per target dialect; for a file with targets, the
// target side (every field of the target: what produces it); for a file
// with events, the stream event types (which the runtime emits and which
// it never does and why; for the reverse answer, which the parser reads
// and which it skips and why).
//
// Rendered as Markdown (Markdown: a table per section, coverage per
// section and overall) and as JSON (JSON; the schema is documented on
// Matrix), both deterministic. Diff compares two JSON renderings.
package matrix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/generator"
)

// Schema names the JSON format; a change that breaks readers changes it.
const Schema = "transponder.alignment/v1"

// Status is how a path maps.
type Status string

const (
	Aligned  Status = "aligned"  // carried as it is
	Lossy    Status = "lossy"    // carried; the note says what is lost
	Dropped  Status = "dropped"  // not carried (never set, on a target side); the note says why ("refused …": the request is refused with a 400)
	Gateway  Status = "gateway"  // served by the gateway layer (runtime, serving), not by the mapping
	Unmapped Status = "unmapped" // no entry: the mapping does not say
)

// rank orders statuses from worst to best: a change to a lower rank is a
// status that got worse. Gateway ranks with lossy, below aligned: the
// gateway may serve a field whole (store) or refuse it for now
// (background), so a field that moves from the mapping to the gateway is
// one to look at.
func (s Status) rank() int {
	switch s {
	case Aligned:
		return 4
	case Lossy, Gateway:
		return 3
	case Dropped:
		return 1
	}
	return 0
}

// Matrix is the alignment matrix. Its JSON form (schema
// "transponder.alignment/v1"; JSON writes it, Load reads it):
//
//	{
//	  "schema": "transponder.alignment/v1",
//	  "specs": [{"dialect": "openai", "file": "openai.openapi.yaml"}, …],
//	  "coverage": {…},                      // over every section
//	  "sections": [{
//	    "id": "responses_chat/openrouter",  // stable: the mapping file's stem / what it is
//	    "title": "…",
//	    "mapping": "mapping/responses_chat.yaml",
//	    "side": "source" | "target" | "events",
//	    "from": "openai responses request", "to": "openrouter chat request",
//	    "note": "…",                        // (files of an older v1 had a "placeholder" side with a note, no rows)
//	    "coverage": {"total": n, "aligned": n, "lossy": n, "dropped": n, "gateway": n,
//	                 "unmapped": n, "covered_percent": 100.0},
//	    "entries": [                        // what the rows under one entry share, sorted
//	      {"entry": "model", "status": "aligned", "targets": ["model"],
//	       "transform": "model", "note": "…"}],
//	    "rows": [                           // a path each, sorted, one per line
//	      {"path": "model", "kind": "field" | "variant" | "extra" | "event",
//	       "status": "aligned", "entry": "model",
//	       "note": "…",                     // note only on a row without entry
//	       "values": ["low", "high"]}],     // a field closed to an enum: its values
//	    "stale": [{"path": "…", "target": "…", "line": n, "reason": "…"}]
//	  }]
//	}
//
// A section's stale list (omitted when empty) holds the mapping entries
// the spec at hand lacks, as generator.FindStale classifies them — what go
// generate reports and leaves out of the converters: on a source side, the
// entries whose path the source lacks, the extras that became fields of
// the spec, and the rules whose target this section's dialect lacks (with
// "target": their rows are dropped, as the converter drops them); on a
// target side, the targets declarations the target lacks; on the events
// side, the event types the stream event union lacks. "line" is the
// entry's (or rule's) line in the mapping file; "target" and "line" were
// added to v1 (readers of the older form see the same paths and reasons).
//
// A row's entry is the mapping entry that covers it (at its path or above
// it); on a target side, the source paths whose entries map to that very
// path, or "targets: P" for the targets declaration at or above it; on the
// events side, "events: TYPE". Every leaf field and union variant of a
// section's side of the spec is a row, once; extras are rows of kind
// extra.
type Matrix struct {
	Schema   string    `json:"schema"`
	Specs    []Spec    `json:"specs"`
	Coverage Coverage  `json:"coverage"`
	Sections []Section `json:"sections"`
}

// Spec names a pinned spec the matrix was computed from.
type Spec struct {
	Dialect string `json:"dialect"`
	File    string `json:"file"`
}

// Section is one direction and dialect (or one side of it).
type Section struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Mapping  string   `json:"mapping,omitempty"`
	Side     string   `json:"side"`
	From     string   `json:"from,omitempty"`
	To       string   `json:"to,omitempty"`
	Coverage Coverage `json:"coverage"`
	Rows     []Row    `json:"-"` // in the JSON: entries and rows (JSON)
	Stale    []Stale  `json:"stale,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// Row is one path of a section.
type Row struct {
	Path      string   `json:"path"`
	Kind      string   `json:"kind"`
	Status    Status   `json:"status"`
	Entry     string   `json:"entry,omitempty"`
	Targets   []string `json:"targets,omitempty"`
	Transform string   `json:"transform,omitempty"`
	Note      string   `json:"note,omitempty"`
	// Values are the values of a field the spec closes to an enum (in
	// the spec's order): a spec update that adds or removes one shows in
	// the diff though the path stays.
	Values []string `json:"values,omitempty"`
}

// Stale is a mapping entry the spec at hand lacks (a field the spec
// removed, say): generator.Stale, as the matrix lists it.
type Stale struct {
	Path string `json:"path"` // the entry's path, extra's key, target's path or event type
	// Target is a stale rule's target path, which the section's dialect
	// lacks (the entry at Path is live).
	Target string `json:"target,omitempty"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
}

// Coverage counts a section's rows by status.
type Coverage struct {
	Total    int `json:"total"`
	Aligned  int `json:"aligned"`
	Lossy    int `json:"lossy"`
	Dropped  int `json:"dropped"`
	Gateway  int `json:"gateway"`
	Unmapped int `json:"unmapped"`
	// CoveredPercent is the share of rows with an entry (not unmapped),
	// rounded down to a tenth.
	CoveredPercent float64 `json:"covered_percent"`
}

func (c *Coverage) add(s Status) {
	c.Total++
	switch s {
	case Aligned:
		c.Aligned++
	case Lossy:
		c.Lossy++
	case Dropped:
		c.Dropped++
	case Gateway:
		c.Gateway++
	default:
		c.Unmapped++
	}
}

func (c *Coverage) sum(o Coverage) {
	c.Total += o.Total
	c.Aligned += o.Aligned
	c.Lossy += o.Lossy
	c.Dropped += o.Dropped
	c.Gateway += o.Gateway
	c.Unmapped += o.Unmapped
}

func (c *Coverage) percent() {
	c.CoveredPercent = 0
	if c.Total > 0 {
		c.CoveredPercent = float64((c.Total-c.Unmapped)*1000/c.Total) / 10
	}
}

// Input is what a matrix is computed from.
type Input struct {
	// Dialects are the shape tables by dialect name: the compiled ones
	// (codec.OpenAI, codec.OpenRouter), or ones loaded from freshly
	// normalized specs (codec.LoadDialect).
	Dialects map[string]*codec.Dialect
	// Mappings are the mapping files (generator.Load), by their path
	// from the module root ("mapping/responses_chat.yaml").
	Mappings []*generator.File
}

// Build computes the matrix.
func Build(in Input) (*Matrix, error) {
	m := &Matrix{Schema: Schema}
	names := make([]string, 0, len(in.Dialects))
	for n := range in.Dialects {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		m.Specs = append(m.Specs, Spec{Dialect: n, File: in.Dialects[n].Spec()})
	}
	files := slices.Clone(in.Mappings)
	order := func(f *generator.File) int {
		p, _ := codec.PayloadByName(f.From.Payload)
		return slices.Index(sectionOrder, p)
	}
	slices.SortStableFunc(files, func(a, b *generator.File) int {
		if c := order(a) - order(b); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, f := range files {
		secs, err := in.sections(f)
		if err != nil {
			return nil, err
		}
		m.Sections = append(m.Sections, secs...)
	}
	for i := range m.Sections {
		s := &m.Sections[i]
		s.Coverage = Coverage{}
		for _, r := range s.Rows {
			s.Coverage.add(r.Status)
		}
		s.Coverage.percent()
		m.Coverage.sum(s.Coverage)
	}
	m.Coverage.percent()
	return m, nil
}

// sectionOrder orders the mapping files by their source payload: the
// requests (forward, reverse), then the answers (forward: a chat
// completion, a chunk; reverse: a Response, whose file declares the
// stream's events too).
var sectionOrder = []codec.Payload{codec.ResponsesRequest, codec.ChatRequest, codec.ChatBody, codec.ChatChunk, codec.ResponsesBody, codec.ResponsesEvent}

func (in Input) schema(s generator.Side) (codec.Schema, error) {
	sc, err := s.Schema(in.Dialects)
	if err != nil {
		return codec.Schema{}, fmt.Errorf("matrix: %w", err)
	}
	return sc, nil
}

func sideName(s generator.Side) string { return s.Dialect + " " + s.Payload }

func stem(file string) string {
	file = file[strings.LastIndexByte(file, '/')+1:]
	return strings.TrimSuffix(file, ".yaml")
}

// sections are a mapping file's: its source side per target dialect, its
// target side (if it declares targets), its events (if it declares them).
func (in Input) sections(f *generator.File) ([]Section, error) {
	src, err := in.schema(f.From)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	stale := generator.FindStale(f, in.Dialects) // what the generator leaves out
	var out []Section
	for _, t := range f.To {
		s := Section{
			ID:      stem(f.Name) + "/" + t.Dialect,
			Title:   fmt.Sprintf("%s → %s", sideName(f.From), sideName(t)),
			Mapping: f.Name, Side: "source", From: sideName(f.From), To: sideName(t),
		}
		s.Rows, s.Stale = sourceRows(src, f, t.Dialect, stale)
		withValues(s.Rows, src)
		out = append(out, s)
	}
	if len(f.Targets) > 0 && len(f.To) > 0 {
		t := f.To[0]
		dst, err := in.schema(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		s := Section{
			ID:      stem(f.Name) + "/" + t.Dialect + "-target",
			Title:   fmt.Sprintf("%s: what produces each field (from %s)", sideName(t), sideName(f.From)),
			Mapping: f.Name, Side: "target", From: sideName(f.From), To: sideName(t),
		}
		s.Rows, s.Stale = targetRows(dst, f, t.Dialect, stale)
		withValues(s.Rows, dst)
		out = append(out, s)
	}
	if len(f.Events) > 0 {
		d, ok := in.Dialects["openai"]
		if !ok {
			return nil, fmt.Errorf("%s: events: no openai dialect", f.Name)
		}
		ev, _ := d.Payload(codec.ResponsesEvent)
		s := Section{
			ID:      stem(f.Name) + "/events",
			Title:   "openai responses event types: which the translator emits (from " + sideName(f.From) + ")",
			Mapping: f.Name, Side: "events", From: sideName(f.From), To: "openai responses event",
		}
		if reads(f) {
			to := generator.Side{Dialect: f.To[0].Dialect, Payload: "chat chunk"}
			s.Title = "openai responses event types: which the parser reads (into " + sideName(to) + "s)"
			s.From, s.To = "openai responses event", sideName(to)
		}
		s.Rows, s.Stale = eventRows(ev.Schema(), f, stale)
		out = append(out, s)
	}
	return out, nil
}

// reads reports whether a file's events are read by the runtime (the
// reverse answer: read or ignore), not emitted (emit or never).
func reads(f *generator.File) bool {
	return len(f.Events) > 0 && len(f.To) > 0 && (f.Events[0].Read != "" || f.Events[0].Ignore != "")
}
