package generator

// Chat dialects of direct providers (mapping/dialects/<name>.yaml): a base
// dialect's chat request with the provider's differences, declared.
//
//	dialect: deepseek                  # its name (config, --dialect, the matrix)
//	base: openai                       # the chat dialect it derives from
//	doc: DeepSeek's API, V4 models in thinking mode
//	sources: [https://api-docs.deepseek.com/guides/thinking_mode]
//	reasoning:                         # replayed reasoning on the assistant message
//	  carrier: reasoning_content       # … as this string field
//	  on: tool_calls                   # … of a turn with tool calls only, or every
//	  required: true                   # a tool-call turn without it gets an empty one
//	system: merge                      # system-message placement: system, developer or merge
//	tool_call_ids: {charset: alnum, length: 9}   # ids the provider accepts; others rewritten
//	unknown_fields: refused            # the provider refuses fields it does not know: what its
//	                                   # shape table lacks is left out, with a warning
//	entries:                           # the entries of mapping files targeting the base's
//	  - path: max_output_tokens        # chat request that differ (rules as theirs, no
//	    map: max_tokens                # per-dialect keys); every other entry is the base's
//	  - path: [reasoning.summary, reasoning.generate_summary]   # several paths, one rule
//	    drop: its answers carry the reasoning whole
//
// The shape table of the dialect's chat request is the base spec with the
// overlay openapi/overlays/dialects/<name>.yaml (openapi/manifest.yaml's
// dialects); a dialect that adds no field to its base needs neither, and
// is checked against its base's table.

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"

	"github.com/go-faster/yaml"
	"github.com/transponder-dev/transponder/codec"
)

// DialectsDir holds the dialect files, from the module root.
const DialectsDir = "mapping/dialects"

// Dialect is one dialect file.
type Dialect struct {
	File    string
	Line    int
	Name    string
	Base    string
	Doc     string
	Sources []string
	// Carrier is the assistant message's string field replayed reasoning
	// goes in ("" : the base's way); CarrierOn "tool_calls" or "every".
	Carrier, CarrierOn string
	CarrierLine        int
	// CarrierRequired: a tool-call turn without replayed reasoning gets
	// an empty one (the provider refuses the turn otherwise).
	CarrierRequired bool
	System          string // "", system, developer, merge
	// IDCharset and IDLength are the tool-call ids the provider takes
	// (alnum, 9); 0: any.
	IDCharset string
	IDLength  int
	// Strict: the provider refuses fields it does not know; the
	// converter leaves out what the dialect's shape table lacks.
	Strict  bool
	Entries []Entry
}

// LoadDialect parses a dialect file.
func LoadDialect(name string, data []byte) (*Dialect, []error) {
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		return nil, []error{&Error{name, 1, err.Error()}}
	}
	l := &loader{name: name}
	d := &Dialect{File: name}
	if len(root.Content) == 0 {
		return nil, []error{&Error{name, 1, "empty"}}
	}
	top := root.Content[0]
	d.Line = top.Line
	l.fields(top, map[string]func(*yaml.Node){
		"dialect": func(n *yaml.Node) { d.Name = l.scalar(n, "dialect") },
		"base":    func(n *yaml.Node) { d.Base = l.scalar(n, "base") },
		"doc":     func(n *yaml.Node) { d.Doc = l.scalar(n, "doc") },
		"sources": func(n *yaml.Node) {
			if n.Kind != yaml.SequenceNode {
				l.errf(n, "sources: a list of URLs")
				return
			}
			for _, s := range n.Content {
				d.Sources = append(d.Sources, l.scalar(s, "sources"))
			}
		},
		"reasoning": func(n *yaml.Node) {
			d.CarrierLine = n.Line
			l.fields(n, map[string]func(*yaml.Node){
				"carrier": func(v *yaml.Node) { d.Carrier = l.scalar(v, "carrier") },
				"on":      func(v *yaml.Node) { d.CarrierOn = l.scalar(v, "on") },
				"required": func(v *yaml.Node) {
					if v.Value != "true" && v.Value != "false" {
						l.errf(v, "reasoning: required: true or false")
					}
					d.CarrierRequired = v.Value == "true"
				},
			})
			if d.Carrier == "" || d.CarrierOn != "tool_calls" && d.CarrierOn != "every" {
				l.errf(n, "reasoning: {carrier: FIELD, on: tool_calls|every}")
			}
		},
		"system": func(n *yaml.Node) {
			if d.System = l.scalar(n, "system"); !slices.Contains([]string{"system", "developer", "merge"}, d.System) {
				l.errf(n, "system: %q (want system, developer or merge)", d.System)
			}
		},
		"tool_call_ids": func(n *yaml.Node) {
			l.fields(n, map[string]func(*yaml.Node){
				"charset": func(v *yaml.Node) { d.IDCharset = l.scalar(v, "charset") },
				"length": func(v *yaml.Node) {
					if _, err := fmt.Sscan(v.Value, &d.IDLength); err != nil || d.IDLength < 6 || d.IDLength > 64 {
						l.errf(v, "tool_call_ids: length: a number from 6 to 64")
					}
				},
			})
			if d.IDCharset != "alnum" || d.IDLength == 0 {
				l.errf(n, "tool_call_ids: {charset: alnum, length: N}")
			}
		},
		"entries": func(n *yaml.Node) { d.Entries = l.entries(expandPaths(n), "path") },
		"unknown_fields": func(n *yaml.Node) {
			switch l.scalar(n, "unknown_fields") {
			case "refused":
				d.Strict = true
			case "ignored":
			default:
				l.errf(n, "unknown_fields: refused or ignored (the default)")
			}
		},
	})
	switch {
	case d.Name == "" || d.Base == "":
		l.errf(top, "a dialect needs dialect (its name) and base")
	case slices.Contains(dialectNames, d.Name):
		l.errf(top, "dialect %s: the name of a base dialect", d.Name)
	case !slices.Contains(dialectNames, d.Base):
		l.errf(top, "base %s: want one of %v", d.Base, dialectNames)
	case !dialectName.MatchString(d.Name):
		l.errf(top, "dialect %s: a name is lower-case letters and digits, words joined by -, from a letter", d.Name)
	case path.Base(name) != d.Name+".yaml":
		l.errf(top, "dialect %s in %s: the file is named after the dialect", d.Name, path.Base(name))
	}
	seen := map[string]int{}
	for _, e := range d.Entries {
		if prev, dup := seen[e.Path]; dup {
			l.errf(&yaml.Node{Line: e.Line}, "%s: an entry at line %d already", e.Path, prev)
		}
		seen[e.Path] = e.Line
	}
	for _, e := range d.Entries {
		if len(e.Rules) != 1 || e.Rules[""].Kind == "" {
			l.errf(&yaml.Node{Line: e.Line}, "%s: a dialect's entry has one rule, no per-dialect keys", e.Path)
		}
	}
	return d, l.errs
}

// expandPaths makes an entry whose path is a list of paths one entry per
// path (the same rule and note): what a dialect drops alike, written once.
func expandPaths(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.SequenceNode {
		return n
	}
	out := *n
	out.Content = nil
	for _, en := range n.Content {
		var paths *yaml.Node
		if en.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(en.Content); i += 2 {
				if en.Content[i].Value == "path" && en.Content[i+1].Kind == yaml.SequenceNode {
					paths = en.Content[i+1]
				}
			}
		}
		if paths == nil {
			out.Content = append(out.Content, en)
			continue
		}
		if len(paths.Content) == 0 {
			out.Content = append(out.Content, en) // an empty list: reported as a path that is not one
			continue
		}
		for _, p := range paths.Content {
			one := *en
			one.Content = slices.Clone(en.Content)
			for i := 0; i+1 < len(one.Content); i += 2 {
				if one.Content[i].Value == "path" {
					one.Content[i+1] = p
				}
			}
			out.Content = append(out.Content, &one)
		}
	}
	return &out
}

// dialectName is a dialect's name: its Go constant (words capitalized)
// cannot clash with another's, nor with the package's other names.
var dialectName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// LoadDialects reads every dialect file of the module whose root is fsys,
// in name order.
func LoadDialects(fsys fs.FS) ([]*Dialect, []error) {
	names, err := fs.Glob(fsys, DialectsDir+"/*.yaml")
	if err != nil {
		return nil, []error{err}
	}
	var out []*Dialect
	var errs []error
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, []error{err}
		}
		d, derrs := LoadDialect(n, data)
		errs = append(errs, derrs...)
		if d != nil {
			out = append(out, d)
		}
	}
	return out, errs
}

// targetsChat reports whether the file writes the base dialect's chat
// request: the files a dialect of that base extends.
func targetsChat(f *File, base string) bool {
	return slices.ContainsFunc(f.To, func(s Side) bool { return s.Dialect == base && s.Payload == "chat request" })
}

// ApplyDialects adds each dialect to the files writing its base's chat
// request: a target side of its own, whose rule for every entry is the
// dialect's where it has one, else the base's. A dialect entry no such
// file has is an error, as is a dialect that extends no file.
func ApplyDialects(files []*File, ds []*Dialect) []error {
	var errs []error
	for _, d := range ds {
		used := map[string]bool{}
		extended := false
		for _, f := range files {
			if !targetsChat(f, d.Base) {
				continue
			}
			extended = true
			f.To = append(f.To, Side{Dialect: d.Name, Payload: "chat request", Line: d.Line, Base: d.Base})
			f.Origins = append(f.Origins, d.File)
			shift := len(f.Origins) << originShift
			over := map[string]Entry{}
			for _, e := range d.Entries {
				over[e.Path] = e
			}
			for _, list := range [][]Entry{f.Entries, f.Extras, f.Targets} {
				for i := range list {
					e := &list[i]
					if o, ok := over[e.Path]; ok && !used[e.Path] {
						r := o.Rules[""].shifted(shift)
						r.Note = o.Note
						e.Rules[d.Name] = r
						used[e.Path] = true
						continue
					}
					if r, ok := e.RuleFor(d.Base); ok {
						e.Rules[d.Name] = r
					}
				}
			}
		}
		for _, e := range d.Entries {
			if extended && !used[e.Path] {
				errs = append(errs, &Error{d.File, e.Line, e.Path + ": no entry of the files this dialect extends has that path"})
			}
		}
	}
	return errs
}

// Derived reports whether a dialect name is a derived one (it has no
// generated Go types of its own).
func Derived(name string) bool { return !slices.Contains(dialectNames, name) }

// chatDialects are the shape tables by dialect name.
func chatDialects() map[string]*codec.Dialect {
	out := map[string]*codec.Dialect{}
	for _, d := range codec.Dialects {
		out[d.Name()] = d
	}
	return out
}

// shifted is the rule with its lines offset (File.Origins).
func (r Rule) shifted(by int) Rule {
	r.Line += by
	for _, l := range []*int{&r.ValuesLine, &r.WhenLine, &r.UnlessLine} {
		if *l > 0 {
			*l += by
		}
	}
	r.Also = slices.Clone(r.Also)
	for i := range r.Also {
		r.Also[i].Line += by
	}
	r.Values = slices.Clone(r.Values)
	for i := range r.Values {
		r.Values[i].Line += by
		r.Values[i].Set = slices.Clone(r.Values[i].Set)
		for j := range r.Values[i].Set {
			r.Values[i].Set[j].Line += by
		}
	}
	return r
}
