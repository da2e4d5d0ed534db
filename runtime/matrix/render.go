package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// JSON renders the matrix (schema on Matrix): one row per line, so that
// a spec update's diff reads path by path; byte-stable (fields in a fixed
// order, rows and sections sorted), with a final newline.
func (m *Matrix) JSON() []byte {
	var b bytes.Buffer
	p := func(s string) { b.WriteString(s) }
	p("{\n  \"schema\": " + js(m.Schema) + ",\n  \"specs\": " + js(m.Specs) + ",\n  \"coverage\": " + js(m.Coverage) + ",\n  \"sections\": [")
	for i, s := range m.Sections {
		if i > 0 {
			p(",")
		}
		p("\n    {\n")
		for _, f := range []struct {
			key  string
			val  any
			omit bool
		}{
			{"id", s.ID, false}, {"title", s.Title, false}, {"mapping", s.Mapping, s.Mapping == ""}, {"side", s.Side, false},
			{"from", s.From, s.From == ""}, {"to", s.To, s.To == ""}, {"note", s.Note, s.Note == ""},
			{"coverage", s.Coverage, false},
		} {
			if !f.omit {
				p("      " + js(f.key) + ": " + js(f.val) + ",\n")
			}
		}
		entries, rows := s.wire()
		p("      \"entries\": " + jsList(entries) + ",\n      \"rows\": " + jsList(rows))
		if len(s.Stale) > 0 {
			p(",\n      \"stale\": " + jsList(s.Stale))
		}
		p("\n    }")
	}
	if len(m.Sections) > 0 {
		p("\n  ")
	}
	p("]\n}\n")
	return b.Bytes()
}

// jsList is a list's JSON, an item a line (at the depth of a section's
// lists).
func jsList[T any](items []T) string {
	if len(items) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteString("[")
	for i, it := range items {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n        " + js(it))
	}
	b.WriteString("\n      ]")
	return b.String()
}

// js is v's JSON, compact, without HTML escaping.
func js(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // plain data: cannot fail
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wireEntry is what rows under one entry share (in the JSON, once).
type wireEntry struct {
	Entry     string   `json:"entry"`
	Status    Status   `json:"status"`
	Targets   []string `json:"targets,omitempty"`
	Transform string   `json:"transform,omitempty"`
	Note      string   `json:"note,omitempty"`
}

// wireRow is a row in the JSON: its outcome is its entry's.
type wireRow struct {
	Path   string   `json:"path"`
	Kind   string   `json:"kind"`
	Status Status   `json:"status"`
	Entry  string   `json:"entry,omitempty"`
	Note   string   `json:"note,omitempty"` // only for a row without entry
	Values []string `json:"values,omitempty"`
}

// wire splits a section's rows into the entries' outcomes (sorted) and
// slim rows.
func (s *Section) wire() ([]wireEntry, []wireRow) {
	byEntry := map[string]wireEntry{}
	rows := make([]wireRow, len(s.Rows))
	for i, r := range s.Rows {
		rows[i] = wireRow{Path: r.Path, Kind: r.Kind, Status: r.Status, Entry: r.Entry, Values: r.Values}
		if r.Entry == "" {
			rows[i].Note = r.Note
			continue
		}
		if _, ok := byEntry[r.Entry]; !ok {
			byEntry[r.Entry] = wireEntry{Entry: r.Entry, Status: r.Status, Targets: r.Targets, Transform: r.Transform, Note: r.Note}
		}
	}
	entries := make([]wireEntry, 0, len(byEntry))
	for _, e := range byEntry {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b wireEntry) int { return strings.Compare(a.Entry, b.Entry) })
	return entries, rows
}

// wireSection is a section as the JSON has it.
type wireSection struct {
	Section
	Entries []wireEntry `json:"entries"`
	Rows    []wireRow   `json:"rows"`
}

// Load reads a matrix from its JSON rendering.
func Load(data []byte) (*Matrix, error) {
	var w struct {
		Schema   string        `json:"schema"`
		Specs    []Spec        `json:"specs"`
		Coverage Coverage      `json:"coverage"`
		Sections []wireSection `json:"sections"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	if w.Schema != Schema {
		return nil, fmt.Errorf("matrix: schema %q, want %q", w.Schema, Schema)
	}
	m := &Matrix{Schema: w.Schema, Specs: w.Specs, Coverage: w.Coverage}
	for _, ws := range w.Sections {
		s := ws.Section
		entries := map[string]wireEntry{}
		for _, e := range ws.Entries {
			entries[e.Entry] = e
		}
		s.Rows = make([]Row, len(ws.Rows))
		for i, r := range ws.Rows {
			row := Row{Path: r.Path, Kind: r.Kind, Status: r.Status, Entry: r.Entry, Note: r.Note, Values: r.Values}
			if e, ok := entries[r.Entry]; ok && r.Entry != "" {
				row.Targets, row.Transform, row.Note = e.Targets, e.Transform, e.Note
			}
			s.Rows[i] = row
		}
		m.Sections = append(m.Sections, s)
	}
	return m, nil
}

var marks = map[Status]string{Aligned: "✅", Lossy: "⚠️", Dropped: "❌", Gateway: "🛠️", Unmapped: "❓"}

// Mark is a status's sign in the Markdown.
func (s Status) Mark() string { return marks[s] }

// Markdown renders the matrix for reading (on GitHub): the coverage of
// every section, then a table per section with a row per mapping entry
// (the fields and variants it covers counted; each is in the JSON) and a
// row per unmapped path.
func (m *Matrix) Markdown() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- Code generated by transponder matrix. DO NOT EDIT. -->\n\n")
	p("# Alignment matrix\n\n")
	var specs []string
	for _, s := range m.Specs {
		specs = append(specs, fmt.Sprintf("%s (`%s`)", s.Dialect, s.File))
	}
	p("How each field of the pinned specs — %s — maps between the Responses API and Chat Completions, computed from the specs' shape tables and `mapping/*.yaml` by `transponder matrix` (run by `go generate ./...`). Every field and union variant, path by path: [`alignment.json`](alignment.json). After a spec update, `transponder matrix diff OLD.json NEW.json` says what changed.\n\n", strings.Join(specs, ", "))
	p("%s aligned · %s lossy (the note says what is lost) · %s dropped (why; or refused: the request is refused with a 400 naming the field) · %s gateway (served by the gateway layer) · %s unmapped (no entry)\n\n", Aligned.Mark(), Lossy.Mark(), Dropped.Mark(), Gateway.Mark(), Unmapped.Mark())
	p("Each section counts the paths of its side of the spec: every leaf field and union variant (a field counts once per target dialect). The answer back reads chat completions with OpenRouter's schema for either upstream dialect: it declares the fields OpenAI's does and more. The reverse answer (a Responses upstream's Response and stream → a chat client) writes OpenRouter's chat dialect for either client, so its target side is OpenRouter's chat completion; it is hand-written (runtime/reverse), its mapping declared only and held to the runtime by a test.\n\n")
	p("## Coverage\n\n")
	p("| Section | Paths | %s | %s | %s | %s | %s | Covered |\n|---|--:|--:|--:|--:|--:|--:|--:|\n", Aligned.Mark(), Lossy.Mark(), Dropped.Mark(), Gateway.Mark(), Unmapped.Mark())
	for _, s := range m.Sections {
		c := s.Coverage
		p("| [%s](#%s) | %d | %d | %d | %d | %d | %d | %.1f%% |\n", s.Title, anchor(s.Title), c.Total, c.Aligned, c.Lossy, c.Dropped, c.Gateway, c.Unmapped, c.CoveredPercent)
	}
	c := m.Coverage
	p("| **Overall** | **%d** | **%d** | **%d** | **%d** | **%d** | **%d** | **%.1f%%** |\n\n", c.Total, c.Aligned, c.Lossy, c.Dropped, c.Gateway, c.Unmapped, c.CoveredPercent)
	for _, s := range m.Sections {
		p("## %s\n\n", s.Title)
		p("`%s` (%s side): %d paths, %.1f%% covered.\n\n", s.Mapping, s.Side, s.Coverage.Total, s.Coverage.CoveredPercent)
		switch s.Side {
		case "events":
			if s.From == "openai responses event" {
				p("| Event | | What the parser makes of it, or why it skips it |\n|---|---|---|\n")
			} else {
				p("| Event | | When emitted, or why never |\n|---|---|---|\n")
			}
			for _, r := range s.Rows {
				p("| `%s` | %s | %s |\n", r.Path, r.Status.Mark(), cell(r.Note))
			}
		default:
			col := "Target"
			if s.Side == "target" {
				col = "Produced from"
			}
			p("| Path | | %s | Note |\n|---|---|---|---|\n", col)
			for _, g := range groups(s.Rows) {
				path := "`" + g.path + "`"
				if g.row.Kind == "extra" {
					path += " (a key clients send that the spec lacks)"
				}
				if g.n > 1 || g.path != g.row.Path {
					path += fmt.Sprintf(" (%d paths)", g.n)
				}
				target := ""
				switch {
				case len(g.row.Targets) > 0:
					target = "`" + strings.Join(g.row.Targets, "`, `") + "`"
				case s.Side == "target" && g.row.Entry != "" && !strings.HasPrefix(g.row.Entry, "targets: "):
					target = "`" + strings.ReplaceAll(g.row.Entry, ", ", "`, `") + "`"
				}
				if g.row.Transform != "" {
					target += " via " + g.row.Transform
				}
				p("| %s | %s | %s | %s |\n", path, g.row.Status.Mark(), cell(target), cell(g.row.Note))
			}
		}
		if len(s.Stale) > 0 {
			p("\nStale entries (the spec lacks what they name; `go generate` reports them and leaves them out of the converters):\n\n")
			for _, st := range s.Stale {
				p("- %s: %s\n", st.what(s.Mapping), st.Reason)
			}
		}
		p("\n")
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}

// group is the rows one entry covers with one outcome (shown at the
// entry's path, with how many rows it holds), or an unmapped path alone.
type group struct {
	path string
	n    int // rows
	row  Row // the first
}

// groups folds rows by the entry that covers them and its outcome, in the
// order of their first rows; unmapped rows stay apart.
func groups(rows []Row) []group {
	var out []group
	idx := map[string]int{}
	for _, r := range rows {
		if r.Entry == "" {
			out = append(out, group{path: r.Path, n: 1, row: r})
			continue
		}
		key := r.Entry + "\x00" + string(r.Status) + "\x00" + strings.Join(r.Targets, ",") + "\x00" + r.Note
		if i, ok := idx[key]; ok {
			out[i].n++
			continue
		}
		path := r.Path
		if e := strings.TrimPrefix(r.Entry, "targets: "); r.Kind != "extra" && !strings.Contains(e, ", ") && strings.HasPrefix(r.Path, e) {
			path = e
		}
		idx[key] = len(out)
		out = append(out, group{path: path, n: 1, row: r})
	}
	return out
}

// what names a stale entry in Markdown: its path (and target), at its
// line of the mapping file.
func (st Stale) what(mapping string) string {
	w := "`" + st.Path + "`"
	if st.Target != "" {
		w += " → `" + st.Target + "`"
	}
	if st.Line > 0 && mapping != "" {
		w += fmt.Sprintf(" (%s:%d)", mapping, st.Line)
	}
	return w
}

// cell makes text fit a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// anchor is GitHub's anchor of a heading.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		case r > 127 && r != '→' && r != '—' && r != '·':
			b.WriteRune(r)
		}
	}
	return b.String()
}
