package reverse

import (
	"strconv"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// Options configure a conversion to Chat Completions.
type Options struct {
	IDs   translate.IDSource // nil: translate.RandomIDs; ids are chatcmpl_…
	Clock func() time.Time   // nil: time.Now; the chunks' created
	Model string             // the model named until the upstream names one
	// Redact, if set, rewrites the message of an error chunk (the gateway
	// masks the keys an upstream's message quotes).
	Redact func(message string) string
}

func (o Options) id() string {
	if o.IDs == nil {
		return translate.RandomIDs{}.NewID("chatcmpl")
	}
	return o.IDs.NewID("chatcmpl")
}

func (o Options) now() int64 {
	if o.Clock == nil {
		return time.Now().Unix()
	}
	return o.Clock().Unix()
}

// ChatStream turns one Responses event stream into a chat completion
// stream (chat.completion.chunk SSE, OpenRouter's dialect). It is per
// stream and not safe for concurrent use:
//
//	c := reverse.NewChatStream(opts)
//	for each event's data { w.Write(c.Next(data)) }
//	w.Write(c.Finish())
//	if err := c.Err(); err != nil { /* failed before the first byte: send the status */ }
//
// The chunks: the role first; content, refusal, reasoning (OpenRouter's
// reasoning and reasoning_details) and annotations deltas; tool_calls
// deltas with index, id and name on a call's first and arguments after;
// one finish_reason (tool_calls when the output calls a function, length
// for max_output_tokens, content_filter, else stop); a usage chunk
// (choices empty) with cached and reasoning tokens; then [DONE]. An error
// after the first byte is a last chunk carrying it at the top level, with
// finish_reason "error", as OpenRouter sends one; then [DONE]. Two output
// messages' texts are joined with a blank line; log probabilities go in
// the choice's logprobs.content.
type ChatStream struct {
	p        Parser
	opts     Options
	id       string
	created  int64
	model    []byte
	head     []byte // a chunk's JSON up to its delta
	out      []byte
	wrote    bool
	done     bool
	texts    int     // messages whose text began
	toolIdx  []int32 // by output_index: the chat tool index + 1, 0 none
	tools    int32
	called   bool // a call the client runs
	reasoned bool // reasoning text went out
	details  int  // reasoning_details entries
	err      *translate.APIError
	warnings []mapping.Warning
	usage    Usage // the finish's
}

// NewChatStream returns a ChatStream.
func NewChatStream(opts Options) *ChatStream {
	m := codec.AppendString(nil, opts.Model)
	return &ChatStream{opts: opts, id: opts.id(), created: opts.now(), model: m[1 : len(m)-1]}
}

// Next reads one Responses event's data and returns the chat SSE it makes
// (valid until the next call).
func (c *ChatStream) Next(data []byte) []byte {
	c.out = c.out[:0]
	if c.done {
		return nil
	}
	for i := range c.p.Next(data) {
		c.part(&c.p.parts[i])
	}
	return c.out
}

// Finish ends the stream: a response that did not finish fails.
func (c *ChatStream) Finish() []byte {
	c.out = c.out[:0]
	if c.done {
		return nil
	}
	for i := range c.p.Finish() {
		c.part(&c.p.parts[i])
	}
	return c.out
}

// Err is the error the response failed with before any byte was written
// (the caller answers with its status instead of a stream); nil otherwise.
func (c *ChatStream) Err() *translate.APIError { return c.err }

// Started reports whether a byte of the chat stream was made.
func (c *ChatStream) Started() bool { return c.wrote }

// Warnings lists what the Responses stream had that chat chunks cannot
// carry (hosted tool calls, images, other annotations, unknown items).
func (c *ChatStream) Warnings() []mapping.Warning { return c.warnings }

// Usage is the usage the response's finish carried (Present false
// before it, or when it had none).
func (c *ChatStream) Usage() Usage { return c.usage }

func (c *ChatStream) warn(index int, reason string) {
	c.warnings = append(c.warnings, mapping.Warning{Path: "output[" + strconv.Itoa(index) + "]", Reason: reason})
}

// begin starts a chunk: the role chunk first if none went out, then the
// head of this one.
func (c *ChatStream) begin() {
	if !c.wrote {
		c.wrote = true
		c.makeHead()
		c.out = append(append(c.out, "data: "...), c.head...)
		c.out = append(c.out, `{"role":"assistant","content":""}`...)
		c.end(false)
	}
	c.out = append(append(c.out, "data: "...), c.head...)
}

func (c *ChatStream) makeHead() {
	c.head = append(c.head[:0], `{"id":`...)
	c.head = codec.AppendString(c.head, c.id)
	c.head = append(c.head, `,"object":"chat.completion.chunk","created":`...)
	c.head = codec.AppendInt(c.head, c.created)
	c.head = append(c.head, `,"model":"`...)
	c.head = append(c.head, c.model...)
	c.head = append(c.head, `","choices":[{"index":0,"delta":`...)
}

// end ends a chunk begun with begin.
func (c *ChatStream) end(finish bool) {
	if !finish {
		c.out = append(c.out, `,"finish_reason":null}]}`+"\n\n"...)
	}
}

func (c *ChatStream) toolIndex(index int, add bool) int32 {
	for len(c.toolIdx) <= index {
		c.toolIdx = append(c.toolIdx, 0)
	}
	if c.toolIdx[index] == 0 && add {
		c.tools++
		c.toolIdx[index] = c.tools
	}
	return c.toolIdx[index] - 1
}

func (c *ChatStream) part(pt *Part) {
	switch pt.Kind {
	case KindStart:
		if len(pt.Model) > 0 && !c.wrote {
			c.model = append(c.model[:0], pt.Model...)
		}
	case KindTextStart:
		c.texts++
		if c.texts > 1 {
			c.begin()
			c.out = append(c.out, `{"content":"\n\n"}`...)
			c.end(false)
		}
	case KindTextDelta:
		c.begin()
		c.out = append(c.out, `{"content":"`...)
		c.out = append(c.out, pt.Delta...)
		c.out = append(c.out, `"}`...)
		if pt.Raw != nil {
			c.out = append(c.out, `,"logprobs":{"content":`...)
			c.out = appendCompact(c.out, pt.Raw)
			c.out = append(c.out, '}')
		}
		c.end(false)
	case KindRefusalDelta:
		c.begin()
		c.out = append(c.out, `{"refusal":"`...)
		c.out = append(c.out, pt.Delta...)
		c.out = append(c.out, `"}`...)
		c.end(false)
	case KindReasoningStart:
		c.details++
		if c.reasoned { // parts of reasoning are paragraphs apart, as in ResponseToChat
			c.begin()
			c.out = append(c.out, `{"reasoning":"\n\n"}`...)
			c.end(false)
		}
	case KindReasoningDelta:
		c.reasoned = true
		c.begin()
		c.out = append(c.out, `{"reasoning":"`...)
		c.out = append(c.out, pt.Delta...)
		c.out = append(c.out, `","reasoning_details":[`...)
		c.out = appendDetail(c.out, pt, c.details-1)
		c.out = append(c.out, `]}`...)
		c.end(false)
	case KindReasoningDone:
		if pt.Raw != nil {
			c.begin()
			c.out = append(c.out, `{"reasoning_details":[`...)
			c.out = appendDetail(c.out, pt, c.details)
			c.details++
			c.out = append(c.out, `]}`...)
			c.end(false)
		}
		if pt.Signature != nil {
			// the signature of the item's text, in a detail of its own at
			// the text's index, as OpenRouter's chat streams send it
			sig := *pt
			sig.Raw = nil
			c.begin()
			c.out = append(c.out, `{"reasoning_details":[`...)
			c.out = appendDetail(c.out, &sig, max(c.details-1, 0))
			c.out = append(c.out, `]}`...)
			c.end(false)
		}
	case KindToolInputStart:
		i := c.toolIndex(pt.Index, true)
		c.begin()
		c.out = append(c.out, `{"tool_calls":[{"index":`...)
		c.out = codec.AppendInt(c.out, int64(i))
		c.out = append(c.out, `,"id":"`...)
		c.out = append(c.out, pt.ID...)
		c.out = append(c.out, `","type":"function","function":{"name":"`...)
		c.out = append(c.out, pt.Name...)
		c.out = append(c.out, `","arguments":""}}]}`...)
		c.end(false)
	case KindToolInputDelta:
		if len(pt.Delta) == 0 {
			return
		}
		i := c.toolIndex(pt.Index, false)
		if i < 0 {
			return
		}
		c.begin()
		c.out = append(c.out, `{"tool_calls":[{"index":`...)
		c.out = codec.AppendInt(c.out, int64(i))
		c.out = append(c.out, `,"function":{"arguments":"`...)
		c.out = append(c.out, pt.Delta...)
		c.out = append(c.out, `"}}]}`...)
		c.end(false)
	case KindToolCall:
		if pt.Provider {
			c.warn(pt.Index, "a "+toolNames[pt.Tool]+" call the provider ran has no place in a chat completion; left out")
		} else {
			c.called = true
		}
	case KindSource:
		if a, ok := urlCitation(pt.Raw); ok {
			c.begin()
			c.out = append(c.out, `{"annotations":[`...)
			c.out = append(c.out, a...)
			c.out = append(c.out, `]}`...)
			c.end(false)
		} else {
			c.warn(pt.Index, "an annotation that is not a url_citation has no place in a chat completion; left out")
		}
	case KindItem:
		c.warn(pt.Index, "an output item of type "+itemType(pt.Raw)+" has no place in a chat completion; left out")
	case KindFinish:
		c.usage = pt.Usage
		c.begin()
		c.out = append(c.out, `{},"finish_reason":"`...)
		c.out = append(c.out, finishReason(pt, c.called)...)
		c.out = append(appendTier(append(c.out, `"}]`...), pt.Raw), "}\n\n"...)
		if pt.Usage.Present {
			c.out = append(c.out, "data: "...)
			c.out = append(c.out, c.head[:len(c.head)-len(`{"index":0,"delta":`)]...)
			c.out = append(c.out, `],"usage":`...)
			c.out = appendUsage(c.out, pt.Usage)
			c.out = append(c.out, "}\n\n"...)
		}
		c.out = append(c.out, "data: [DONE]\n\n"...)
		c.done = true
	case KindError:
		c.done = true
		if !c.wrote {
			c.err = pt.Err
			return
		}
		c.out = append(c.out, "data: "...)
		c.out = append(c.out, c.head[:len(c.head)-len(`"choices":[{"index":0,"delta":`)]...)
		c.out = append(c.out, `"error":{"code":`...)
		code := pt.Err.Code
		if code == "" {
			code = pt.Err.Type
		}
		c.out = codec.AppendString(c.out, code)
		c.out = append(c.out, `,"message":`...)
		c.out = codec.AppendString(c.out, pt.Err.Redacted(c.opts.Redact).Message)
		c.out = append(c.out, `},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`+"\n\n"...)
		c.out = append(c.out, "data: [DONE]\n\n"...)
	}
}

// appendDetail appends one OpenRouter reasoning_details entry.
func appendDetail(dst []byte, pt *Part, index int) []byte {
	switch {
	case pt.Kind == KindReasoningDone && pt.Raw == nil: // its signature
		dst = append(dst, `{"type":"reasoning.text","text":"","signature":`...)
		dst = append(dst, pt.Signature...)
	case pt.Kind == KindReasoningDone:
		dst = append(dst, `{"type":"reasoning.encrypted","data":`...)
		dst = append(dst, pt.Raw...)
	case pt.Summary:
		dst = append(dst, `{"type":"reasoning.summary","summary":"`...)
		dst = append(append(dst, pt.Delta...), '"')
	default:
		dst = append(dst, `{"type":"reasoning.text","text":"`...)
		dst = append(append(dst, pt.Delta...), '"')
	}
	dst = append(dst, `,"id":"`...)
	dst = append(dst, pt.ID...)
	dst = append(dst, `","format":`...)
	if pt.Format != nil {
		dst = append(dst, pt.Format...)
	} else {
		dst = append(dst, `"openai-responses-v1"`...)
	}
	dst = append(dst, `,"index":`...)
	dst = codec.AppendInt(dst, int64(index))
	return append(dst, '}')
}

// finishReason is the chat finish_reason of a finished response.
func finishReason(pt *Part, called bool) string {
	if string(pt.Status) == "incomplete" {
		if string(pt.Reason) == "content_filter" {
			return "content_filter"
		}
		return "length"
	}
	if called {
		return "tool_calls"
	}
	return "stop"
}

func appendUsage(dst []byte, u Usage) []byte {
	dst = append(dst, `{"prompt_tokens":`...)
	dst = codec.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"completion_tokens":`...)
	dst = codec.AppendInt(dst, u.OutputTokens)
	dst = append(dst, `,"total_tokens":`...)
	dst = codec.AppendInt(dst, u.TotalTokens)
	dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
	dst = codec.AppendInt(dst, u.CachedTokens)
	if u.CacheWrite > 0 {
		dst = append(dst, `,"cache_write_tokens":`...)
		dst = codec.AppendInt(dst, u.CacheWrite)
	}
	dst = append(dst, `},"completion_tokens_details":{"reasoning_tokens":`...)
	dst = codec.AppendInt(dst, u.ReasoningTokens)
	return append(dst, "}}"...)
}

// appendTier appends a chunk's or completion's service_tier member (the
// Response's, tier its contents), nothing when there is none.
func appendTier(dst, tier []byte) []byte {
	if len(tier) == 0 {
		return dst
	}
	dst = append(dst, `,"service_tier":"`...)
	return append(append(dst, tier...), '"')
}

// urlCitation is a Responses url_citation annotation in the chat form,
// {"type":"url_citation","url_citation":{url, title, start_index,
// end_index}} (ok false for another annotation).
func urlCitation(raw []byte) ([]byte, bool) {
	var d codec.Doc
	v, ok := d.Parse(raw)
	if !ok || string(contents(v.Get("type"))) != "url_citation" {
		return nil, false
	}
	out := append(make([]byte, 0, len(raw)+32), `{"type":"url_citation","url_citation":{`...)
	n := 0
	for k, m := range v.Members() {
		if k.Is("type") {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(append(append(out, '"'), k.Raw()...), `":`...)
		out = appendCompact(out, m.Raw())
	}
	return append(out, "}}"...), true
}

// itemType is an output item's type, for a warning.
func itemType(raw []byte) string {
	var d codec.Doc
	v, _ := d.Parse(raw)
	if s, ok := v.Get("type").Str(); ok && s != "" {
		return s
	}
	return "unknown"
}

// appendCompact appends JSON without the whitespace between its tokens:
// a value copied into an SSE data line must not carry a line break.
func appendCompact(dst, raw []byte) []byte {
	in := false
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case in:
			if c == '\\' {
				i++
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}
