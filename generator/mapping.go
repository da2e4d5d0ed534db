package generator

import (
	"fmt"
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
// The rule forms beyond map:
//
//	entries:
//	  - path: service_tier
//	    map: service_tier
//	    values: target                     # or {source value: target value}, otherwise: VALUE
//	  - path: stream
//	    map: stream
//	    also: {stream_options.include_usage: true}   # constants at other target paths
//	    when: true                         # … only when the value is this
//	  - path: function_call{object}.name
//	    map: tool_choice{object}{function}.name
//	    unless: tool_choice                # only when that top-level key is absent
//	  - path: text.format{text}
//	    omit: response_format{text}        # the target's default: left out
//	  - path: reasoning.effort
//	    map: reasoning_effort
//	    values:                            # a row may set constants too
//	      "none": {set: {thinking.type: disabled}}         # … and write no value
//	      "low": {to: "low", set: {thinking.type: enabled}}
//	  - path: n
//	    refuse: n must be 1                # a 400 naming the path ({value}: the value)
//	    unless: 1                          # … but for this value
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
// Each rule is exactly one of map (optionally with transform, or values),
// lossy (map, with the loss stated in note), drop (the reason), gateway
// (the reason: handled by the serving layer), omit (the target path
// whose default the value is), set (constants only) or refuse (the
// message).
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
	// Origins are the dialect files whose rules ApplyDialects added: a
	// rule of Origins[i] has its lines offset by (i+1)<<originShift, so
	// that errors name the dialect file's line (At).
	Origins []string
}

const originShift = 20

// At is the file and line a line of the file's rules is in: the mapping
// file's own, or a dialect file's.
func (f *File) At(line int) (string, int) {
	if i := line >> originShift; i > 0 && i <= len(f.Origins) {
		return f.Origins[i-1], line & (1<<originShift - 1)
	}
	return f.Name, line
}

// errorAt is an Error at a line of the file's rules.
func (f *File) errorAt(line int, msg string) *Error {
	file, l := f.At(line)
	return &Error{file, l, msg}
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
	// Base is a derived dialect's base (ApplyDialects): its shape table
	// when the dialect has none of its own (no overlay: it adds nothing).
	Base string
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
	// Omit: the value is the target's default (Target says where it
	// would go); it is left out, and counts as aligned.
	Omit RuleKind = "omit"
	// Set: the value itself is not carried; constants are (Also), maybe
	// only when it is a given one (When).
	Set RuleKind = "set"
	// Refuse: the request is refused with an OpenAI-shaped 400 naming the
	// value's JSON path, Reason its message (unless the value is Unless).
	Refuse RuleKind = "refuse"
)

var ruleKinds = []RuleKind{Map, Lossy, Drop, Gateway, Omit, Set, Refuse}

// Rule says what happens to a field for one target dialect.
type Rule struct {
	Line      int
	Kind      RuleKind
	Target    string // map, lossy, omit: the target path
	Transform string // map, lossy: a function of mapping/
	Reason    string // drop, gateway, refuse: why
	// Values is a map rule's value table, in the YAML's order; with
	// ValuesTarget, the values the target's enum lists, each as it is.
	// A value the table lacks is left out with a warning, or becomes
	// Otherwise (JSON) when that is set.
	Values       []ValuePair
	ValuesTarget bool
	ValuesLine   int
	Otherwise    string
	// Also are constants written at other target paths (map, lossy; a
	// set rule's whole work), after the value unless AlsoFirst (the
	// also key came before map in the YAML), only when the value is When
	// (JSON) if that is set.
	Also      []Const
	AlsoFirst bool
	When      string
	WhenLine  int
	// Unless: for map, lossy and set, a top-level key of the source: the
	// rule applies only when that key is absent (or null); for refuse a
	// JSON constant: that value passes.
	Unless     string
	UnlessLine int
	// Note is a dialect file's note on its rule (ApplyDialects): it says
	// what the entry's note says, for that dialect.
	Note string
}

// ValuePair is a row of a value table: JSON constants. A row may also
// set constants at other target paths (Set, written {to: VALUE, set:
// {path: constant}}), and then need not write the value at all (To "").
type ValuePair struct {
	Line     int
	From, To string
	Set      []Const
	setSteps [][]Step // Set's target steps (the IR's)
}

// Const is a JSON constant to write at a target path.
type Const struct {
	Line   int
	Target string
	JSON   string
}

// Same reports whether two rules are one (Rule holds slices: not
// comparable with ==).
func (r Rule) Same(o Rule) bool {
	return r.Line == o.Line && r.Kind == o.Kind && r.Target == o.Target && r.Transform == o.Transform && r.Reason == o.Reason
}

// Writes reports whether the rule writes into the target (map, lossy,
// set).
func (r Rule) Writes() bool { return r.Kind == Map || r.Kind == Lossy || r.Kind == Set }

// Error is a problem with a mapping file, at a line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }
