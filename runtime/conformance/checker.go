// Package conformance judges OpenAI Responses API streams and response
// objects, and Chat Completions streams (ChatChecker, CheckChat,
// CheckChatStream: chat.go): the test oracle for every stream Transponder
// emits, usable on any server's stream (`transponder check-stream`,
// `--api chat`).
//
// A Checker takes a stream's events one by one (so it can run inside a
// live proxy or a fuzz loop) and Finish returns what it found:
//
//	c := conformance.NewChecker()
//	for each event { c.Event(data) }   // or c.SSE(ev) to check the event: line too
//	findings := c.Finish()
//
// Each finding names the event (its index in the stream), the rule and a
// short reason. The rules, by name:
//
//	json             the event is not JSON
//	schema           the event is not its spec variant: a value of the wrong
//	                 kind, a field the pinned spec requires missing (the
//	                 original required lists, before the normalizer relaxed them)
//	unknown-type     (a warning) an event, item or part type the spec does not know
//	lifecycle        response.created first (then response.in_progress); one
//	                 terminal event (completed, incomplete, failed), last; after
//	                 an error event only response.failed
//	sequence         sequence_number missing, not starting at 0, or going back
//	sequence-gap     sequence_number skipping values
//	response-identity the response's id, created_at or model changing
//	output-item      output_item.added before any event of its output_index,
//	                 once per index, in order; every item done, once
//	content-part     content_part.added before a part's deltas, every part done
//	summary-part     reasoning_summary_part.added likewise
//	item-id          an item without id, or whose id changes between events
//	delta-text       a *.done text or arguments that is not its deltas joined;
//	                 a done part or item whose text differs from the streamed one
//	terminal-output  the terminal response's output not the streamed items;
//	                 its status not its event's; output_text "" after text
//	usage            (a warning) response.completed without usage: the spec
//	                 allows it; clients that count tokens lose them
//	annotation       an annotation for an item or part that was not added
//	sse-event-type   an SSE event: line that is not the data's type
//
// Rule violations are Violations; unknown types and a missing usage are
// Warnings (real servers emit types newer than the spec; the official Node
// SDK's stream helper rejects them, Codex ignores them). A rule reports at
// most MaxPerRule findings per stream, then how many more there were.
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
)

// Class says how bad a finding is.
type Class uint8

const (
	Violation Class = iota // the stream breaks the spec or a client
	Warning                // the spec does not know it; clients may cope
)

func (c Class) String() string {
	if c == Warning {
		return "warning"
	}
	return "violation"
}

// MarshalText writes the class by name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a class by name.
func (c *Class) UnmarshalText(b []byte) error {
	switch string(b) {
	case "violation":
		*c = Violation
	case "warning":
		*c = Warning
	default:
		return fmt.Errorf("conformance: no class %q", b)
	}
	return nil
}

// Finding is one thing wrong with a stream or a response.
type Finding struct {
	Event  int    `json:"event"` // the event's index in the stream; -1 for the stream as a whole
	Rule   string `json:"rule"`
	Class  Class  `json:"class"`
	Reason string `json:"reason"`
}

func (f Finding) String() string {
	where := "stream"
	if f.Event >= 0 {
		where = "event " + strconv.Itoa(f.Event)
	}
	if f.Class == Warning {
		return fmt.Sprintf("%s: %s (warning): %s", where, f.Rule, f.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", where, f.Rule, f.Reason)
}

// Violations counts the findings that are violations.
func Violations(fs []Finding) int {
	n := 0
	for _, f := range fs {
		if f.Class == Violation {
			n++
		}
	}
	return n
}

// maxIndex bounds output, content and summary indexes: a stream that sends
// a larger one is reported, not allocated for.
const maxIndex = 4096

type phase uint8

const (
	phaseStart    phase = iota // nothing yet
	phaseCreated               // response.created (and maybe response.queued) seen
	phaseOpen                  // any other event since
	phaseErrored               // an error event: only response.failed may follow
	phaseTerminal              // completed, incomplete or failed seen
)

// text accumulates the deltas of one text (a content part, a summary part,
// arguments) and what its done event said.
type text struct {
	typ         string // the part's type (parts only)
	done        bool   // the part's done event was seen (parts only)
	deltas      []byte
	streamed    bool // a delta or done event was seen
	textDone    bool // the text's done event was seen
	annotations int
}

type item struct {
	id, typ   string
	callID    string // function and tool calls, as added
	name      string
	done      bool
	doneItem  json.RawMessage // the item of output_item.done
	parts     []*text         // content parts, by content_index
	summaries []*text         // summary parts, by summary_index
	args      text            // function-call arguments, custom tool input
}

// Checker checks one Responses stream. Use a new Checker per stream.
type Checker struct {
	root     codec.Root
	doc      codec.Doc
	n        int // events seen
	findings []Finding

	phase    phase
	seq      int64 // the last sequence_number, or -1
	seqSeen  bool
	id       string // of the response, from the first response.* event
	created  string // created_at, as JSON
	model    string
	known    bool // id, created, model recorded
	items    []*item
	ids      map[string]int  // item id → output_index
	terminal json.RawMessage // the terminal event's response
	streamed bool            // output text was streamed
	perRule  map[string]int  // findings per rule, to cap them
	sseType  string          // the event: line of the event being checked (SSE)
	finished bool
}

// MaxPerRule bounds the findings of one rule a stream gets: one root cause
// often breaks a rule at every later event. The rest are counted in one
// last finding of the rule.
const MaxPerRule = 50

// NewChecker returns a Checker for an OpenAI Responses stream.
func NewChecker() *Checker {
	root, _ := codec.OpenAI.Payload(codec.ResponsesEvent)
	return &Checker{root: root, seq: -1}
}

func (c *Checker) add(rule string, class Class, format string, args ...any) {
	if c.perRule == nil {
		c.perRule = map[string]int{}
	}
	if c.perRule[rule]++; c.perRule[rule] > MaxPerRule {
		return
	}
	c.findings = append(c.findings, Finding{Event: c.n, Rule: rule, Class: class, Reason: fmt.Sprintf(format, args...)})
}

func (c *Checker) violation(rule, format string, args ...any) {
	c.add(rule, Violation, format, args...)
}

// SSE checks one Server-Sent Event: its data as Event does, and that its
// event: line, if any, names the data's type.
func (c *Checker) SSE(e sse.Event) []Finding {
	c.sseType = e.Type
	defer func() { c.sseType = "" }()
	return c.Event(e.Data)
}

// event is what the rules read of an event, from the codec's Doc (the
// event is parsed once). Fields are raw, so that a value of the wrong kind
// (reported by the schema rule) does not hide the others.
type event struct {
	Type            string
	SequenceNumber  json.RawMessage
	OutputIndex     json.RawMessage
	ContentIndex    json.RawMessage
	SummaryIndex    json.RawMessage
	AnnotationIndex json.RawMessage
	ItemID          json.RawMessage
	Delta           json.RawMessage
	Text            json.RawMessage
	Refusal         json.RawMessage
	Arguments       json.RawMessage
	Input           json.RawMessage
	Item            json.RawMessage
	Part            json.RawMessage
	Response        json.RawMessage
}

// read fills e from the members of the decoded event.
func (e *event) read(v codec.Value) {
	for k, m := range v.Members() {
		raw, name := json.RawMessage(m.Raw()), k.Raw()
		if bytes.IndexByte(name, '\\') >= 0 {
			name = []byte(k.String())
		}
		switch string(name) {
		case "type":
			e.Type, _ = m.Str()
		case "sequence_number":
			e.SequenceNumber = raw
		case "output_index":
			e.OutputIndex = raw
		case "content_index":
			e.ContentIndex = raw
		case "summary_index":
			e.SummaryIndex = raw
		case "annotation_index":
			e.AnnotationIndex = raw
		case "item_id":
			e.ItemID = raw
		case "delta":
			e.Delta = raw
		case "text":
			e.Text = raw
		case "refusal":
			e.Refusal = raw
		case "arguments":
			e.Arguments = raw
		case "input":
			e.Input = raw
		case "item":
			e.Item = raw
		case "part":
			e.Part = raw
		case "response":
			e.Response = raw
		}
	}
}

// Event checks the next event of the stream (its data, one JSON object)
// and returns what it found, so a live proxy can act at once. The slice
// is the Checker's: valid until the next call.
func (c *Checker) Event(data []byte) []Finding {
	before := len(c.findings)
	defer func() { c.n++ }()
	c.event(data)
	return c.findings[before:]
}

func (c *Checker) event(data []byte) {
	if err := c.doc.Decode(c.root, data); err != nil {
		c.violation("json", "%v", err)
		return
	}
	var e event
	e.read(c.doc.Value())
	if c.sseType != "" && c.sseType != e.Type {
		c.violation("sse-event-type", "event: %s, data of type %q", c.sseType, e.Type)
	}
	c.schema(e.Type)
	c.lifecycle(e.Type)
	c.sequence(e.SequenceNumber)
	if len(e.Response) > 0 && string(e.Response) != "null" {
		c.identity(e.Response)
	}
	c.outputs(e)
}

// schema reports what the codec found against the pinned spec.
func (c *Checker) schema(typ string) {
	for n := range c.doc.Nodes() {
		if !n.Known() {
			what := "event type"
			if n.Path() != "" {
				what = n.Path() + " type"
			}
			c.add("unknown-type", Warning, "%s %q is not in the spec", what, n.Type())
		}
	}
	for _, f := range c.doc.Findings() {
		switch f.Kind {
		case codec.WrongKind:
			c.violation("schema", "%s: %s, want %s", displayPath(f.Path()), clip(string(f.Raw)), f.Want())
		case codec.MissingField:
			c.violation("schema", "%s: required by the spec, missing", f.Path())
		case codec.UnknownValue:
			if why, ok := beyondSpec(f); ok {
				c.add("beyond-spec", Warning, "%s: %s is not a value the spec lists, but %s", f.Path(), clip(string(f.Raw)), why)
				continue
			}
			c.violation("schema", "%s: %s is not a value the spec lists", f.Path(), clip(string(f.Raw)))
		}
	}
}

// errorCodes are the codes of a failed Response's error that the live API
// sends beyond the pinned spec's ResponseErrorCode, and why they are not
// violations: clients act on them.
var errorCodes = map[string]string{
	`"context_length_exceeded"`: "the live API sends it and Codex compacts the conversation on it",
	`"insufficient_quota"`:      "the live API sends it and Codex stops on it",
}

// beyondSpec reports whether an unknown value is one the live API sends
// beyond the spec, and why it is allowed.
func beyondSpec(f codec.Finding) (string, bool) {
	if p := f.Path(); p != "error.code" && p != "response.error.code" {
		return "", false
	}
	why, ok := errorCodes[string(f.Raw)]
	return why, ok
}

func displayPath(p string) string {
	if p == "" {
		return "the event"
	}
	return p
}

// index reads an index field: ok false if absent, or not a small
// non-negative integer (which is reported).
func (c *Checker) index(name string, raw json.RawMessage) (int, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return 0, false // not a number: the schema rule reports it
	}
	n, err := strconv.Atoi(string(raw))
	switch {
	case err != nil && strings.ContainsAny(string(raw), ".eE"):
		return 0, false // not an integer: the schema rule reports it
	case err != nil || n < 0:
		c.violation(indexRule(name), "%s %s is not an index", name, clip(string(raw)))
		return 0, false
	case n >= maxIndex:
		c.violation(indexRule(name), "%s %d: more than this checker follows", name, n)
		return 0, false
	}
	return n, true
}

func indexRule(name string) string {
	switch name {
	case "content_index":
		return "content-part"
	case "summary_index":
		return "summary-part"
	case "annotation_index":
		return "annotation"
	}
	return "output-item"
}

func str(raw json.RawMessage) (string, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : n-1]), true // (valid JSON: the codec checked it)
	}
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Finish ends the stream and returns every finding, in event order.
func (c *Checker) Finish() []Finding {
	if c.finished {
		return c.findings
	}
	c.finished = true
	if c.phase != phaseTerminal {
		n := c.n
		c.n = -1
		if n == 0 {
			c.violation("lifecycle", "no events")
		} else {
			c.violation("lifecycle", "the stream ends without a terminal event (response.completed, response.incomplete or response.failed)")
			c.unfinished()
		}
		c.n = n
	}
	c.capped()
	return c.findings
}

// capped adds, for each rule that had more than MaxPerRule findings, one
// that counts the rest.
func (c *Checker) capped() { c.findings = append(c.findings, cappedFindings(c.findings, c.perRule)...) }

// cappedFindings are, for each rule that had more than MaxPerRule
// findings, one that counts the rest, in rule order, of the class the
// rule's findings have.
func cappedFindings(fs []Finding, perRule map[string]int) []Finding {
	rules := make([]string, 0, len(perRule))
	for r, n := range perRule {
		if n > MaxPerRule {
			rules = append(rules, r)
		}
	}
	slices.Sort(rules)
	var out []Finding
	for _, r := range rules {
		class := Violation
		if i := slices.IndexFunc(fs, func(f Finding) bool { return f.Rule == r }); i >= 0 {
			class = fs[i].Class
		}
		out = append(out, Finding{Event: -1, Rule: r, Class: class, Reason: fmt.Sprintf("%d more like the above", perRule[r]-MaxPerRule)})
	}
	return out
}

// Terminal is the response of the terminal event, once seen (nil before).
func (c *Checker) Terminal() json.RawMessage { return c.terminal }

// Check checks a whole stream of event data.
func Check(events [][]byte) []Finding {
	c := NewChecker()
	for _, e := range events {
		c.Event(e)
	}
	return c.Finish()
}
