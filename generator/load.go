package generator

// Loading a mapping file: the YAML, its structure and its rule forms, with
// errors naming the line.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/go-faster/yaml"
	"github.com/transponder-dev/transponder/codec"
)

// Load parses a mapping file. Structural problems (unknown keys, a rule
// that is none or two of map/lossy/drop/gateway) are errors naming the line.
func Load(name string, data []byte) (*File, []error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, []error{&Error{name, 1, err.Error()}}
	}
	l := &loader{name: name}
	f := &File{Name: name}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, []error{&Error{name, 1, "not a mapping of from, to, entries, extras"}}
	}
	l.fields(root.Content[0], map[string]func(*yaml.Node){
		"from": func(n *yaml.Node) { f.From = l.side(n) },
		"to": func(n *yaml.Node) {
			if n.Kind != yaml.SequenceNode {
				l.errf(n, "to: a list of {dialect, payload}")
				return
			}
			for _, s := range n.Content {
				f.To = append(f.To, l.side(s))
			}
		},
		"receiver": func(n *yaml.Node) { f.Receiver = l.scalar(n, "receiver") },
		"entries":  func(n *yaml.Node) { f.Entries = l.entries(n, "path") },
		"extras":   func(n *yaml.Node) { f.Extras = l.entries(n, "key") },
		"targets":  func(n *yaml.Node) { f.Targets = l.entries(n, "path") },
		"events":   func(n *yaml.Node) { f.Events = l.events(n) },
		"converter": func(n *yaml.Node) {
			if f.Converter = l.scalar(n, "converter"); f.Converter != ConverterNone && f.Converter != "" {
				l.errf(n, "converter: %q (want none, or leave it out)", f.Converter)
			}
		},
	})
	return f, l.errs
}

type loader struct {
	name string
	errs []error
}

func (l *loader) errf(n *yaml.Node, format string, args ...any) {
	l.errs = append(l.errs, &Error{l.name, n.Line, fmt.Sprintf(format, args...)})
}

// fields calls the handler of each key of a mapping node; other keys are
// errors.
func (l *loader) fields(n *yaml.Node, handlers map[string]func(*yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		l.errf(n, "want a mapping")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h, ok := handlers[k.Value]
		if !ok {
			keys := make([]string, 0, len(handlers))
			for key := range handlers {
				keys = append(keys, key)
			}
			slices.Sort(keys)
			l.errf(k, "unknown key %q (want %s)", k.Value, strings.Join(keys, ", "))
			continue
		}
		h(v)
	}
}

func (l *loader) scalar(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		l.errf(n, "%s: want a non-empty string", what)
		return ""
	}
	return n.Value
}

func (l *loader) side(n *yaml.Node) Side {
	s := Side{Line: n.Line}
	l.fields(n, map[string]func(*yaml.Node){
		"dialect": func(v *yaml.Node) { s.Dialect = l.scalar(v, "dialect") },
		"payload": func(v *yaml.Node) { s.Payload = l.scalar(v, "payload") },
	})
	return s
}

var dialectNames = []string{codec.OpenAI.Name(), codec.OpenRouter.Name()}

func (l *loader) events(n *yaml.Node) []Event {
	if n.Kind != yaml.SequenceNode {
		l.errf(n, "events: want a list of {type, emit, never, read or ignore}")
		return nil
	}
	var out []Event
	for _, en := range n.Content {
		e := Event{Line: en.Line}
		l.fields(en, map[string]func(*yaml.Node){
			"type":   func(v *yaml.Node) { e.Type = l.scalar(v, "type") },
			"emit":   func(v *yaml.Node) { e.Emit = l.scalar(v, "emit") },
			"never":  func(v *yaml.Node) { e.Never = l.scalar(v, "never") },
			"read":   func(v *yaml.Node) { e.Read = l.scalar(v, "read") },
			"ignore": func(v *yaml.Node) { e.Ignore = l.scalar(v, "ignore") },
			"note":   func(v *yaml.Node) { e.Note = l.scalar(v, "note") },
		})
		n := 0
		for _, s := range []string{e.Emit, e.Never, e.Read, e.Ignore} {
			if s != "" {
				n++
			}
		}
		switch {
		case e.Type == "":
			l.errf(en, "an event without type")
		case n != 1:
			l.errf(en, "%s: exactly one of emit (when), never (why), read (into what) and ignore (why)", e.Type)
		}
		out = append(out, e)
	}
	return out
}

func (l *loader) entries(n *yaml.Node, keyName string) []Entry {
	if n.Kind != yaml.SequenceNode {
		l.errf(n, "want a list of entries")
		return nil
	}
	var out []Entry
	for _, en := range n.Content {
		e := Entry{Line: en.Line, Rules: map[string]Rule{}}
		def := Rule{Line: en.Line}
		handlers := map[string]func(*yaml.Node){
			keyName: func(v *yaml.Node) { e.Path = l.scalar(v, keyName) },
			"note":  func(v *yaml.Node) { e.Note = l.scalar(v, "note") },
		}
		l.ruleFields(&def, handlers)
		for _, d := range dialectNames {
			handlers[d] = func(v *yaml.Node) {
				r := Rule{Line: v.Line}
				h := map[string]func(*yaml.Node){}
				l.ruleFields(&r, h)
				l.fields(v, h)
				l.checkRule(v, &r)
				e.Rules[d] = r
			}
		}
		l.fields(en, handlers)
		if e.Path == "" {
			l.errf(en, "an entry without %s", keyName)
		}
		if def.Kind != "" || def.Target != "" || def.Transform != "" || def.Reason != "" || def.Values != nil || def.ValuesTarget || def.Otherwise != "" || def.Also != nil || def.When != "" || def.Unless != "" {
			l.checkRule(en, &def)
			e.Rules[""] = def
		}
		if len(e.Rules) == 0 {
			l.errf(en, "%s: no rule (map, lossy, drop, gateway, omit, set or refuse)", e.Path)
		}
		out = append(out, e)
	}
	return out
}

// ruleFields adds the handlers of a rule's keys.
func (l *loader) ruleFields(r *Rule, h map[string]func(*yaml.Node)) {
	set := func(k RuleKind) func(*yaml.Node) {
		return func(v *yaml.Node) {
			if r.Kind != "" {
				l.errf(v, "%s and %s: a rule is exactly one of map, lossy, drop, gateway, omit, set, refuse", r.Kind, k)
				return
			}
			r.Kind, r.Line = k, v.Line
			switch k {
			case Map, Lossy, Omit:
				r.Target = l.scalar(v, string(k))
			case Set:
				r.Also = l.consts(v, "set")
			default:
				r.Reason = l.scalar(v, string(k))
			}
		}
	}
	for _, k := range ruleKinds {
		h[string(k)] = set(k)
	}
	h["transform"] = func(v *yaml.Node) { r.Transform = l.scalar(v, "transform") }
	h["values"] = func(v *yaml.Node) {
		r.ValuesLine = v.Line
		if v.Kind == yaml.ScalarNode {
			if v.Value != "target" {
				l.errf(v, "values: a table {source value: target value} or the word target, not %q", v.Value)
				return
			}
			r.ValuesTarget = true
			return
		}
		if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
			l.errf(v, "values: a table {source value: target value} or the word target")
			return
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			from, ok1 := l.constant(v.Content[i], "values")
			p := ValuePair{Line: v.Content[i].Line, From: from}
			ok2 := true
			if row := v.Content[i+1]; row.Kind == yaml.MappingNode {
				l.fields(row, map[string]func(*yaml.Node){
					"to":  func(x *yaml.Node) { p.To, ok2 = l.constant(x, "values: to") },
					"set": func(x *yaml.Node) { p.Set = l.consts(x, "values: set") },
				})
				if p.To == "" && p.Set == nil {
					l.errf(row, "values: %s: a row {to: VALUE, set: {path: constant}} needs to or set", from)
				}
			} else {
				p.To, ok2 = l.constant(row, "values")
			}
			if ok1 && ok2 {
				r.Values = append(r.Values, p)
			}
		}
	}
	h["otherwise"] = func(v *yaml.Node) { r.Otherwise, _ = l.constant(v, "otherwise") }
	h["also"] = func(v *yaml.Node) {
		r.AlsoFirst = r.Kind == ""
		r.Also = l.consts(v, "also")
	}
	h["when"] = func(v *yaml.Node) { r.When, _ = l.constant(v, "when"); r.WhenLine = v.Line }
	h["unless"] = func(v *yaml.Node) {
		// a sibling's key (map, lossy, set) or a constant (refuse): read
		// as a constant now, the key taken back from it in checkRule
		r.Unless, _ = l.constant(v, "unless")
		r.UnlessLine = v.Line
	}
}

// consts reads a mapping of target paths to JSON constants, in order.
func (l *loader) consts(v *yaml.Node, what string) []Const {
	if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
		l.errf(v, "%s: a mapping of target paths to constants", what)
		return nil
	}
	var out []Const
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := l.scalar(v.Content[i], what)
		c, ok := l.constant(v.Content[i+1], what)
		if k != "" && ok {
			out = append(out, Const{Line: v.Content[i].Line, Target: k, JSON: c})
		}
	}
	return out
}

// constant is a YAML scalar as JSON: a string quoted, a number, true,
// false or null as written.
func (l *loader) constant(v *yaml.Node, what string) (string, bool) {
	if v.Kind != yaml.ScalarNode {
		l.errf(v, "%s: want a constant (a string, number, boolean or null)", what)
		return "", false
	}
	switch v.ShortTag() {
	case "!!int", "!!float":
		if !json.Valid([]byte(v.Value)) {
			l.errf(v, "%s: %s is not a JSON number", what, v.Value)
			return "", false
		}
		return v.Value, true
	case "!!bool":
		if v.Value == "true" || v.Value == "false" {
			return v.Value, true
		}
		l.errf(v, "%s: write a boolean true or false, not %s", what, v.Value)
		return "", false
	case "!!null":
		return "null", true
	}
	b, _ := json.Marshal(v.Value)
	return string(b), true
}

// unlessKey is a map rule's unless as the sibling key it names.
func (r Rule) unlessKey() string {
	var s string
	if json.Unmarshal([]byte(r.Unless), &s) != nil {
		return r.Unless
	}
	return s
}

func (l *loader) checkRule(n *yaml.Node, r *Rule) {
	errf := func(line int, format string, args ...any) {
		l.errs = append(l.errs, &Error{l.name, line, fmt.Sprintf(format, args...)})
	}
	mapped := r.Kind == Map || r.Kind == Lossy
	switch {
	case r.Kind == "":
		l.errf(n, "a rule without map, lossy, drop, gateway, omit, set or refuse")
	case r.Transform != "" && !mapped:
		l.errf(n, "a transform on a %s rule", r.Kind)
	case (r.Values != nil || r.ValuesTarget) && !mapped:
		errf(r.ValuesLine, "values on a %s rule: a value table is a map's", r.Kind)
	case (r.Values != nil || r.ValuesTarget) && r.Transform != "":
		errf(r.ValuesLine, "values and transform: a value table or a transform, not both")
	case r.Otherwise != "" && r.Values == nil && !r.ValuesTarget:
		l.errf(n, "otherwise without values")
	case r.Also != nil && r.Kind != Set && !mapped:
		l.errf(n, "also on a %s rule: constants go with map, lossy or set", r.Kind)
	case r.Also != nil && r.Transform != "":
		l.errf(n, "also and transform: the transform writes what it needs")
	case r.When != "" && r.Also == nil:
		l.errf(n, "when without also or set: it says when the constants are written")
	case r.Unless != "" && !mapped && r.Kind != Set && r.Kind != Refuse:
		errf(r.UnlessLine, "unless on a %s rule: map, lossy and set name a sibling, refuse a value that passes", r.Kind)
	case r.Unless != "" && r.Kind != Refuse && !isKey(r.unlessKey()):
		errf(r.UnlessLine, "unless: %s is not a top-level key of the source", r.Unless)
	}
}

// isKey reports whether s is a plain key (no path steps, no selectors).
func isKey(s string) bool { return s != "" && !strings.ContainsAny(s, ".[]{}") }
