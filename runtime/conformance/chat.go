package conformance

// The Chat Completions stream checker: chat.completion.chunk objects, as
// OpenAI and OpenRouter stream them, then [DONE].

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
)

// ChatChecker checks one Chat Completions stream: each chunk's data, then
// the [DONE] sentinel. Use a new ChatChecker per stream.
//
//	c := conformance.NewChatChecker()
//	for each SSE event { c.SSE(ev) }   // or c.Chunk(data) … c.Done()
//	findings := c.Finish()
//
// The rules, by name (Finding.Rule), besides json, schema and unknown-type
// as for Responses streams (the chunk against the pinned OpenAI chunk shape
// with OpenRouter's additions):
//
//	chunk-object     the chunk is not a JSON object, or object is not "chat.completion.chunk"
//	chunk-identity   id, model or created changing between chunks (a leading
//	                 chunk without choices and without id, Azure's
//	                 prompt_filter_results, is not one of them)
//	choice-index     a choice without an integer index, twice in one chunk,
//	                 or indexes with a hole at the end of the stream
//	role             a choice's first delta without role "assistant", or a
//	                 later role that is not "assistant"
//	tool-call        a tool call's first delta without id, type "function"
//	                 and function.name; a later delta changing them
//	tool-call-index  a tool call without index, or a new index not above
//	                 the ones before (calls open in order of their index)
//	tool-call-gap    (a warning) a new tool call index that skips one:
//	                 clients that append calls by index get a hole
//	finish-reason    a finish_reason that is not stop, length, tool_calls,
//	                 content_filter, function_call or error; a second one for
//	                 a choice; a choice that never finishes
//	after-finish     content, refusal, reasoning or tool calls for a choice
//	                 after its finish_reason
//	finish-tool-calls (a warning) finish_reason tool_calls with no tool call
//	                 streamed
//	usage            usage before a chunk that still streams or finishes a
//	                 choice; total_tokens not prompt_tokens + completion_tokens
//	error            a chunk after an error chunk (OpenRouter's: an error
//	                 object, finish_reason "error"), which ends the stream
//	done             a chunk after [DONE], [DONE] twice, or the stream ending
//	                 without it; a stream with no chunk or no choice at all
type ChatChecker struct {
	root     codec.Root
	doc      codec.Doc
	n        int
	findings []Finding
	perRule  map[string]int

	id, model string
	created   int64
	known     bool // identity recorded
	choices   []*chatChoice
	anyChoice bool
	usageAt   int  // the chunk with usage, or -1
	errored   bool // an error chunk was seen
	done      bool // [DONE] was seen
	noDone    bool // the transport has no [DONE] (JSON lines)
	finished  bool
}

type chatChoice struct {
	seen    bool
	finish  string // the finish_reason, once sent
	calls   []*chatCall
	maxCall int // the largest tool call index, or -1
}

type chatCall struct{ id, name string }

// NewChatChecker returns a ChatChecker for a Chat Completions stream.
func NewChatChecker() *ChatChecker {
	root, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	return &ChatChecker{root: root, usageAt: -1}
}

func (c *ChatChecker) add(rule string, class Class, format string, args ...any) {
	if c.perRule == nil {
		c.perRule = map[string]int{}
	}
	if c.perRule[rule]++; c.perRule[rule] > MaxPerRule {
		return
	}
	c.findings = append(c.findings, Finding{Event: c.n, Rule: rule, Class: class, Reason: fmt.Sprintf(format, args...)})
}

func (c *ChatChecker) violation(rule, format string, args ...any) {
	c.add(rule, Violation, format, args...)
}

// SSE checks one Server-Sent Event: a chunk, or the [DONE] sentinel.
func (c *ChatChecker) SSE(e sse.Event) []Finding {
	if e.Done() {
		return c.Done()
	}
	return c.Chunk(e.Data)
}

// Done records the [DONE] sentinel.
func (c *ChatChecker) Done() []Finding {
	before := len(c.findings)
	defer func() { c.n++ }()
	if c.done {
		c.violation("done", "[DONE] twice")
	}
	c.done = true
	return c.findings[before:]
}

// chatChunk is what the rules read of a chunk; fields are raw, so that a
// value of the wrong kind (the schema rule reports it) hides nothing else.
type chatChunk struct {
	ID      json.RawMessage `json:"id"`
	Object  json.RawMessage `json:"object"`
	Created json.RawMessage `json:"created"`
	Model   json.RawMessage `json:"model"`
	Choices json.RawMessage `json:"choices"`
	Usage   json.RawMessage `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chatChoiceJSON struct {
	Index        json.RawMessage `json:"index"`
	Delta        json.RawMessage `json:"delta"`
	FinishReason json.RawMessage `json:"finish_reason"`
}

type chatDelta struct {
	Role             json.RawMessage `json:"role"`
	Content          json.RawMessage `json:"content"`
	Refusal          json.RawMessage `json:"refusal"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
	FunctionCall     json.RawMessage `json:"function_call"`
}

type chatToolCall struct {
	Index    json.RawMessage `json:"index"`
	ID       json.RawMessage `json:"id"`
	Type     json.RawMessage `json:"type"`
	Function struct {
		Name json.RawMessage `json:"name"`
	} `json:"function"`
}

// Chunk checks the next chunk's data (one JSON object) and returns what it
// found. The slice is the ChatChecker's: valid until the next call.
func (c *ChatChecker) Chunk(data []byte) []Finding {
	before := len(c.findings)
	defer func() { c.n++ }()
	c.chunk(data)
	return c.findings[before:]
}

func (c *ChatChecker) chunk(data []byte) {
	switch {
	case c.done:
		c.violation("done", "a chunk after [DONE]")
	case c.errored:
		c.violation("error", "a chunk after the error chunk")
	}
	if err := c.doc.Decode(c.root, data); err != nil {
		c.violation("json", "%v", err)
		return
	}
	var k chatChunk
	if err := json.Unmarshal(data, &k); err != nil {
		c.violation("chunk-object", "not a JSON object: %v", err)
		return
	}
	choices := rawArray(k.Choices)
	// Azure opens with a chunk of prompt_filter_results: no choices, no id,
	// no model, object "": not the stream's identity.
	prelude := !c.known && !c.anyChoice && len(choices) == 0 && (isNull(k.ID) || string(k.ID) == `""`)
	c.schema(prelude)
	if o, ok := str(k.Object); !prelude && (!ok || o != "chat.completion.chunk") {
		c.violation("chunk-object", "object %s, want \"chat.completion.chunk\"", clip(string(k.Object)))
	}
	if !prelude {
		c.identity(k)
	}
	hasError := !isNull(k.Error)
	streams := false // the chunk streams content or finishes a choice
	seen := map[int]bool{}
	for _, raw := range choices {
		var ch chatChoiceJSON
		if json.Unmarshal(raw, &ch) != nil {
			continue // the schema rule reports it
		}
		i, ok := c.choiceIndex(ch.Index)
		if !ok {
			continue
		}
		if seen[i] {
			c.violation("choice-index", "choice %d twice in one chunk", i)
			continue
		}
		seen[i] = true
		if c.choice(i, ch, hasError) {
			streams = true
		}
	}
	if len(choices) > 0 {
		c.anyChoice = true
	}
	if c.usageAt >= 0 && streams {
		c.violation("usage", "a chunk that streams or finishes a choice after usage (chunk %d)", c.usageAt)
	}
	if !isNull(k.Usage) {
		c.usage(k.Usage)
		if c.usageAt < 0 {
			c.usageAt = c.n
		}
	}
	if hasError {
		c.errored = true
	}
}

// schema reports what the codec found against the pinned chunk shape.
// Two departures real servers make are warnings (beyond-spec): a choice
// without finish_reason (xAI and Alibaba leave it out until the choice
// finishes; every client reads absent as null) and Azure's prelude chunk
// with object "".
func (c *ChatChecker) schema(prelude bool) {
	for n := range c.doc.Nodes() {
		if !n.Known() {
			c.add("unknown-type", Warning, "%s type %q is not in the spec", displayPath(n.Path()), n.Type())
		}
	}
	for _, f := range c.doc.Findings() {
		switch f.Kind {
		case codec.WrongKind:
			c.violation("schema", "%s: %s, want %s", displayPath(f.Path()), clip(string(f.Raw)), f.Want())
		case codec.MissingField:
			if f.Name() == "finish_reason" && chatChoicePath(f.Path()) {
				c.add("beyond-spec", Warning, "%s: required by the spec, missing; clients read it as null", f.Path())
				continue
			}
			c.violation("schema", "%s: required by the spec, missing", f.Path())
		case codec.UnknownValue:
			if prelude && f.Path() == "object" {
				c.add("beyond-spec", Warning, "object %s in a leading chunk without choices (Azure's prompt_filter_results)", clip(string(f.Raw)))
				continue
			}
			c.violation("schema", "%s: %s is not a value the spec lists", f.Path(), clip(string(f.Raw)))
		}
	}
}

// chatChoicePath reports whether a finding's path is a choice's field:
// "choices[3].finish_reason".
func chatChoicePath(p string) bool {
	rest, ok := strings.CutPrefix(p, "choices[")
	i := strings.IndexByte(rest, ']')
	return ok && i > 0 && rest[i+1:] == ".finish_reason"
}

// identity checks that id and model stay those of the first chunk, and
// created never goes back. (Groq and xAI stamp each chunk with the second
// it was made in, so created may grow: real streams, in the corpus.)
func (c *ChatChecker) identity(k chatChunk) {
	id, model := string(k.ID), string(k.Model)
	created, _ := strconv.ParseInt(string(k.Created), 10, 64)
	if !c.known {
		c.id, c.model, c.created, c.known = id, model, created, true
		return
	}
	for _, f := range []struct{ name, was, is string }{{"id", c.id, id}, {"model", c.model, model}} {
		if f.was != f.is {
			c.violation("chunk-identity", "%s %s, was %s", f.name, clip(f.is), clip(f.was))
		}
	}
	if created < c.created {
		c.violation("chunk-identity", "created %d, before %d", created, c.created)
	}
	c.created = max(c.created, created)
}

// Finish ends the stream and returns every finding, in chunk order.
func (c *ChatChecker) Finish() []Finding {
	if c.finished {
		return c.findings
	}
	c.finished = true
	n := c.n
	c.n = -1
	switch {
	case n == 0:
		c.violation("done", "no chunks")
	case !c.anyChoice:
		c.violation("done", "no choice streamed")
	}
	if !c.done && !c.noDone {
		c.violation("done", "the stream ends without [DONE]")
	}
	for i, st := range c.choices {
		switch {
		case !st.seen:
			c.violation("choice-index", "choice %d never streamed (the indexes go to %d)", i, len(c.choices)-1)
		case st.finish == "" && !c.errored:
			c.violation("finish-reason", "choice %d ends without a finish_reason", i)
		}
	}
	c.n = n
	c.findings = append(c.findings, cappedFindings(c.findings, c.perRule)...)
	return c.findings
}

// CheckChat checks a whole Chat Completions stream: each chunk's data,
// and the data "[DONE]" for the sentinel, which must end it.
func CheckChat(chunks [][]byte) []Finding {
	c := NewChatChecker()
	for _, d := range chunks {
		if string(bytes.TrimSpace(d)) == "[DONE]" {
			c.Done()
		} else {
			c.Chunk(d)
		}
	}
	return c.Finish()
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// nonEmpty: a value that streams something: not absent, null, "" or [].
func nonEmpty(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "null" && s != `""` && s != "[]"
}

func rawArray(raw json.RawMessage) []json.RawMessage {
	var a []json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}
