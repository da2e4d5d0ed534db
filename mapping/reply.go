package mapping

// The response direction: a chat completion (chat_responses.yaml) or a
// chunk of its stream (chat_chunk_responses.yaml) in Responses terms.
//
// The generated converters are methods of reply. They write what maps
// field by field (usage, service_tier) into reply's builder and hand the
// message's content, in the mapping's order (reasoning, text, refusal,
// annotations, tool calls), to an Output: runtime/translate's translator,
// which keeps the state (items, ids, the stream's events). Everything here
// is per call; a Reply only keeps the usage and warnings of its response.

import (
	"strconv"

	"github.com/transponder-dev/transponder/codec"
)

// Output receives the content of a chat completion, or of one chunk of its
// stream. Values are valid during the call only.
type Output interface {
	// ReasoningDetail is an element of reasoning_details: a whole detail,
	// or in a stream a piece of one (the same index continues it).
	ReasoningDetail(d codec.Value)
	// ReasoningText is a piece of reasoning text (reasoning,
	// reasoning_content): a JSON string.
	ReasoningText(s codec.Value)
	// Text is a piece of the message's text: a JSON string.
	Text(s codec.Value)
	// Refusal is a piece of the message's refusal: a JSON string.
	Refusal(s codec.Value)
	// Annotation is an annotation of the message's text, as the Responses
	// API has it (JSON).
	Annotation(a []byte)
	// ToolCall is a tool call or, in a stream, a piece of one. index says
	// which call (the chat index; in a completion, the call's position);
	// id and name are absent on continuations; arguments is a JSON string:
	// a function's arguments, or a custom tool's input when the upstream
	// called it as a custom tool (custom is true).
	ToolCall(index int, id, name, arguments codec.Value, custom bool)
	// Logprobs are the log probabilities of the text that follows in the
	// same chunk (or completion), comma-separated: as the output_text's
	// LogProb objects (part) and as the stream events' ResponseLogProb
	// objects (event).
	Logprobs(part, event []byte)
	// Finished is the finish reason, in Responses terms.
	Finished(f Finish)
	// Failed is a mid-stream error (the chunk's error object).
	Failed(e codec.Value)
}

// Finish is a chat finish reason in Responses terms.
type Finish struct {
	Status string // completed, incomplete or failed
	Reason string // an incomplete response's reason: max_output_tokens, content_filter
	Chat   string // the chat finish_reason
}

// FinishOf maps a chat finish_reason: stop and tool_calls → completed,
// length → incomplete (max_output_tokens), content_filter → incomplete
// (content_filter), error → failed. ok is false for a value the chat
// specs do not list (treated as completed).
func FinishOf(reason string) (f Finish, ok bool) {
	f.Chat = reason
	switch reason {
	case "stop", "tool_calls", "function_call":
		f.Status = "completed"
	case "length":
		f.Status, f.Reason = "incomplete", "max_output_tokens"
	case "content_filter":
		f.Status, f.Reason = "incomplete", "content_filter"
	case "error":
		f.Status = "failed"
	default:
		f.Status = "completed"
		return f, false
	}
	return f, true
}

// finishReasons are the finish reasons the chat specs list (FinishOf's),
// for oneOf: the string of one is not made anew for every response.
var finishReasons = [...]string{"stop", "tool_calls", "function_call", "length", "content_filter", "error"}

// Reply converts the chat completion, or the chunks, of one response.
// Reuse it (Reset between responses): it keeps its memory.
type Reply struct{ r reply }

type reply struct {
	b     codec.Builder
	out   Output
	warns []Warning
	buf   []byte

	logprobs bool   // the request includes message.output_text.logprobs
	lp, lpEv []byte // logprobs' memory
	// reasoned is the reasoning text of the message or delta at hand: a
	// server sending it as reasoning and reasoning_content gives it once.
	reasoned []byte
}

// Reset readies r for another response.
func (r *Reply) Reset() {
	r.r.b.Reset()
	r.r.warns = r.r.warns[:0]
}

// Body converts a chat completion (doc decoded against the chat body of
// OpenRouter's spec), handing its content to out.
func (r *Reply) Body(doc *codec.Doc, out Output) {
	r.r.out, r.r.reasoned = out, nil
	r.r.chatResponsesOpenAI(doc.Value())
	r.r.unknown(doc, isChatResponsesExtra, nil)
}

// Chunk converts one chunk of a chat stream (doc decoded against the
// chat chunk of OpenRouter's spec), handing its content to out.
func (r *Reply) Chunk(doc *codec.Doc, out Output) {
	r.r.out, r.r.reasoned = out, nil
	r.r.chatChunkResponsesOpenAI(doc.Value())
	r.r.unknown(doc, isChatChunkResponsesExtra, nil)
}

// SetLogprobs says whether the request's include asks for
// message.output_text.logprobs: without it, as OpenAI, the Response
// carries none (the upstream's are left out, no warning).
func (r *Reply) SetLogprobs(on bool) { r.r.logprobs = on }

// Warnings lists what the response's chat side had that the Response
// cannot carry, once per path and reason.
func (r *Reply) Warnings() []Warning { return r.r.warns }

// Warn adds a warning of the runtime's (once per path and reason).
func (r *Reply) Warn(path, reason string) { r.r.warn(path, reason) }

// HasUsage reports whether the upstream reported usage.
func (r *Reply) HasUsage() bool {
	_, ok := r.r.b.Child(codec.Top, "usage")
	return ok
}

// AppendUsage appends the Response's usage: every count the spec
// requires, an integer (0 when the upstream did not report it; the total
// is input + output then), and OpenRouter's cost as usage.cost.
func (r *Reply) AppendUsage(dst []byte) []byte {
	b := &r.r.b
	// The members read in one pass (a Raw each would step over those
	// before it again).
	var input, output, total, cached, written, reasoning int64
	var cost []byte
	sawTotal := false
	if u, ok := b.Child(codec.Top, "usage"); ok {
		for k, m := range b.Members(u) {
			switch k {
			case "input_tokens":
				input = count(b.RawOf(m))
			case "output_tokens":
				output = count(b.RawOf(m))
			case "total_tokens":
				raw := b.RawOf(m)
				total, sawTotal = count(raw), raw != nil
			case "cost":
				cost = b.RawOf(m)
			case "input_tokens_details": // (a member or two: looked up)
				cached, written = count(b.Raw(m, "cached_tokens")), count(b.Raw(m, "cache_write_tokens"))
			case "output_tokens_details":
				reasoning = count(b.Raw(m, "reasoning_tokens"))
			}
		}
	}
	if !sawTotal {
		total = input + output
	}
	dst = codec.AppendInt(append(dst, `{"input_tokens":`...), input)
	dst = codec.AppendInt(append(dst, `,"input_tokens_details":{"cached_tokens":`...), cached)
	dst = codec.AppendInt(append(dst, `,"cache_write_tokens":`...), written)
	dst = codec.AppendInt(append(dst, `},"output_tokens":`...), output)
	dst = codec.AppendInt(append(dst, `,"output_tokens_details":{"reasoning_tokens":`...), reasoning)
	dst = codec.AppendInt(append(dst, `},"total_tokens":`...), total)
	if cost != nil {
		dst = append(append(dst, `,"cost":`...), cost...)
	}
	return append(dst, '}')
}

// ServiceTier is the tier the upstream reported (a JSON string), nil if none.
func (r *Reply) ServiceTier() []byte { return r.r.b.Raw(codec.Top, "service_tier") }

// count reads a token count (a JSON number; a fraction is cut, a
// negative or unreadable one is 0).
func count(raw []byte) int64 {
	var n int64
	for i, c := range raw {
		if c < '0' || c > '9' || n > 1<<58 {
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil || f <= 0 || f >= 1<<62 || i == 0 && c == '-' {
				return 0
			}
			return int64(f)
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// unknown warns of the fields the spec does not know that carry
// something (the mapping's extras aside: it says what happens to them;
// extra for the top-level ones, below, if not nil, for those under it).
func (c *reply) unknown(doc *codec.Doc, extra func([]byte) bool, below func(codec.Finding) bool) {
	for _, f := range doc.Findings() {
		if f.Kind != codec.UnknownField && f.Kind != codec.ExtraField || f.TopLevel() && extra(f.NameBytes()) {
			continue
		}
		if !empty(f.Value()) && (below == nil || !below(f)) { // the path is built only for a warning
			c.warnUnknown(f.Path(), "a field the pinned spec does not know; not carried")
		}
	}
}

// put sets a member the mapping maps a field to (a later chunk's value
// replaces an earlier one). Generated code's: key is a literal the
// generator checked.
func (c *reply) put(obj codec.Ref, key string, raw []byte) { c.b.SetLit(obj, key, raw) }

// warn records a warning once per path and reason.
func (c *reply) warn(path, reason string) { c.add(Warning{Path: path, Reason: reason}) }

// warnUnknown warns of a field the spec does not know (once per path).
func (c *reply) warnUnknown(path, reason string) {
	c.add(Warning{Path: path, Reason: reason, Unknown: true})
}

// add is not inlined, as conv.warn.
//
//go:noinline
func (c *reply) add(w Warning) {
	for _, o := range c.warns {
		if o.Path == w.Path && o.Reason == w.Reason {
			return
		}
	}
	c.warns = append(c.warns, w)
}

// drop warns that a field is left out, when it carries something (not
// null, 0, false, "", [] or {}: upstreams send empty fields in every chunk).
func (c *reply) drop(v codec.Value, path, reason string) {
	if !empty(v) {
		c.warn(path, reason)
	}
}

// isZero reports whether raw, a JSON number, is zero (0, -0, 0.0, 0e5):
// whether the digits before its exponent are all 0. (Not parsed: a chat
// completion has zeros in its usage details, and 1e-400, which a float
// holds as 0, is not one.)
func isZero(raw []byte) bool {
	for _, c := range raw {
		switch {
		case c == 'e' || c == 'E':
			return true
		case c >= '1' && c <= '9':
			return false
		}
	}
	return true
}

func empty(v codec.Value) bool {
	switch v.Kind() {
	case codec.Null:
		return true
	case codec.Bool:
		b, _ := v.Bool()
		return !b
	case codec.Number:
		return isZero(v.Raw())
	case codec.String:
		return len(v.Raw()) == 2
	case codec.Array:
		for range v.Elems() {
			return false
		}
		return true
	case codec.Object:
		for _, m := range v.Members() {
			if !empty(m) {
				return false
			}
		}
		return true
	}
	return false
}
