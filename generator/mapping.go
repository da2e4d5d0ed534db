package generator

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-faster/yaml"

	"github.com/transponder-dev/transponder/codec"
)

// The mapping format, as loaded: a File is one mapping/*.yaml.
//
//	from: {dialect: openai, payload: responses request}
//	to: [{dialect: openrouter, payload: chat request}, {dialect: openai, payload: chat request}]
//	entries:
//	  - path: max_output_tokens            # a wire path of the source (codec.Schema.Lookup)
//	    map: max_completion_tokens         # … its target path
//	  - path: top_logprobs
//	    map: top_logprobs
//	    transform: logprobsOn              # a function of mapping/, by name
//	    note: chat needs logprobs true as well
//	  - path: user
//	    openai: {map: user}                # per target dialect
//	    openrouter: {drop: OpenRouter's ChatRequest has no user}
//	  - path: store
//	    gateway: the gateway stores responses
//	receiver: conv                         # the converter's state type (default conv)
//	extras:                                # keys clients send that the spec does not know
//	  - key: client_metadata
//	    drop: Codex telemetry
//	targets:                               # fields of the target no entry maps to:
//	  - path: created_at                   # … what fills them (gateway)
//	    gateway: the gateway's clock
//	  - path: output[]{file_search_call}   # … or why they are never set (drop)
//	    drop: chat completions has no file search
//	events:                                # the Responses stream events (by type): which
//	  - type: response.output_text.delta   # the runtime's translator emits, and when
//	    emit: a piece of the message's text
//	  - type: response.queued              # … and which it never does, and why
//	    never: the gateway does not queue
//	  - type: response.refusal.delta       # (a file whose runtime reads a Responses
//	    read: a refusal part               # stream: what it makes of an event,
//	  - type: response.audio.delta         # or why it skips it)
//	    ignore: chat chunks carry no audio
//	converter: none                        # declared only: no generated converter (below)
//
// A file with "converter: none" declares what a hand-written runtime does
// (runtime/reverse: Responses → chat) and is validated like the others —
// every source path covered, paths resolved, stale entries found — but
// nothing is generated from it: no transforms (a map rule's value need not
// fit its target: the runtime converts it), and a test beside the runtime
// holds the declaration to what it does. Its completeness (every field of
// the source has an entry) is checked by that test against the pinned
// specs and shown by the alignment matrix, not by Generate: a field a
// spec update adds is an unmapped row of the matrix's diff, not a failed
// go generate.
//
// A targets: entry with rules for some target dialects only (no default)
// declares that path of those dialects' payloads only.
//
// Each rule is exactly one of map (optionally with transform), lossy (map,
// with the loss stated in note), drop (the reason) or gateway (the reason:
// handled by the serving layer).
type File struct {
	Name     string // the file's name, for errors
	Receiver string // the state type the converter is a method of ("" → conv)
	// UsedElsewhere names the transforms the other mapping files of the
	// directory use (Generate fills it): not unused when this one does not.
	UsedElsewhere map[string]bool
	From          Side
	To            []Side
	Entries       []Entry
	Extras        []Entry // Path is the key
	// Targets say what fills the target's fields that no entry maps to
	// (gateway) or why they are never set (drop); with the entries'
	// targets they are the target side of the alignment matrix.
	Targets []Entry
	// Events say which stream event types (Path is the type) the runtime
	// emits (Emit) and which never (Never, with the reason), or, for a
	// runtime that reads a stream, which it reads (Read) and which it
	// skips (Ignore).
	Events []Event
	// Converter is "none" for a file nothing is generated from (declared
	// only); "" otherwise.
	Converter string
}

// Declared reports whether the file only declares a hand-written runtime
// (converter: none).
func (f *File) Declared() bool { return f.Converter == ConverterNone }

// ConverterNone is the converter: value of a file nothing is generated
// from.
const ConverterNone = "none"

// Event is the runtime's word on one Responses stream event type.
type Event struct {
	Line   int
	Type   string
	Emit   string // when it is emitted
	Never  string // why it never is
	Read   string // what a reading runtime makes of it
	Ignore string // why a reading runtime skips it
	Note   string
}

func (f *File) receiver() string {
	if f.Receiver == "" {
		return "conv"
	}
	return f.Receiver
}

// Side is a dialect's payload.
type Side struct {
	Dialect string
	Payload string
	Line    int
}

// Entry is the mapping of one source path (or extra key).
type Entry struct {
	Line  int
	Path  string
	Rules map[string]Rule // by target dialect; "" is the default for all
	Note  string
}

// RuleFor is the entry's rule for a target dialect: its own, else the
// default.
func (e Entry) RuleFor(dialect string) (Rule, bool) {
	if r, ok := e.Rules[dialect]; ok {
		return r, true
	}
	r, ok := e.Rules[""]
	return r, ok
}

// RuleKind is what happens to a field.
type RuleKind string

const (
	Map     RuleKind = "map"
	Lossy   RuleKind = "lossy"
	Drop    RuleKind = "drop"
	Gateway RuleKind = "gateway"
)

// Rule says what happens to a field for one target dialect.
type Rule struct {
	Line      int
	Kind      RuleKind
	Target    string // map, lossy: the target path
	Transform string // map, lossy: a function of mapping/
	Reason    string // drop, gateway: why
}

// Error is a problem with a mapping file, at a line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

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
		if def.Kind != "" || def.Target != "" || def.Transform != "" || def.Reason != "" {
			l.checkRule(en, &def)
			e.Rules[""] = def
		}
		if len(e.Rules) == 0 {
			l.errf(en, "%s: no rule (map, lossy, drop or gateway)", e.Path)
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
				l.errf(v, "%s and %s: a rule is exactly one of map, lossy, drop, gateway", r.Kind, k)
				return
			}
			r.Kind, r.Line = k, v.Line
			switch k {
			case Map, Lossy:
				r.Target = l.scalar(v, string(k))
			default:
				r.Reason = l.scalar(v, string(k))
			}
		}
	}
	for _, k := range []RuleKind{Map, Lossy, Drop, Gateway} {
		h[string(k)] = set(k)
	}
	h["transform"] = func(v *yaml.Node) { r.Transform = l.scalar(v, "transform") }
}

func (l *loader) checkRule(n *yaml.Node, r *Rule) {
	switch {
	case r.Kind == "":
		l.errf(n, "a rule without map, lossy, drop or gateway")
	case r.Transform != "" && r.Kind != Map && r.Kind != Lossy:
		l.errf(n, "a transform on a %s rule", r.Kind)
	}
}
