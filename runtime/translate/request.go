package translate

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
)

// IDSource makes the ids of responses and their items: NewID("resp")
// gives "resp_…". It must be safe for concurrent use.
type IDSource interface {
	NewID(prefix string) string
}

// RandomIDs makes ids of 24 random bytes in hex, as OpenAI's look.
type RandomIDs struct{}

// NewID returns prefix_ and 48 hex digits, made in one allocation (a
// Response takes one id per item).
func (RandomIDs) NewID(prefix string) string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	var id strings.Builder
	id.Grow(len(prefix) + 1 + hex.EncodedLen(len(b)))
	id.WriteString(prefix)
	id.WriteByte('_')
	var h [48]byte
	hex.Encode(h[:], b[:])
	id.Write(h[:])
	return id.String()
}

// SeqIDs makes ids from a counter (prefix_0001, prefix_0002, …): for tests
// and golden files.
type SeqIDs struct{ n atomic.Int64 }

// NewID returns prefix_ and the next number.
func (s *SeqIDs) NewID(prefix string) string {
	var b [64]byte
	n := s.n.Add(1)
	out := append(append(b[:0], prefix...), '_')
	for d := int64(1000); d > n && d > 1; d /= 10 {
		out = append(out, '0') // at least four digits
	}
	return string(codec.AppendInt(out, n))
}

// Options configure a translation.
type Options struct {
	IDs   IDSource         // nil: RandomIDs
	Clock func() time.Time // nil: time.Now
	// Commit, if set, is handed the terminal Response before its event
	// goes out (the gateway stores it there, so a client that has the
	// event can chain from it). An error (an *APIError, or a 503
	// server_error) fails a response that had not failed: the terminal
	// event is then response.failed carrying it, and is not committed.
	// The Response is valid only during the call.
	Commit func(response []byte) error
	// Redact, if set, rewrites the message of the error a response fails
	// with before it goes out (the gateway masks the keys an upstream's
	// message quotes).
	Redact func(message string) string
}

func (o Options) ids() IDSource {
	if o.IDs == nil {
		return RandomIDs{}
	}
	return o.IDs
}

func (o Options) now() int64 {
	if o.Clock == nil {
		return time.Now().Unix()
	}
	return o.Clock().Unix()
}

// Request is what a Response echoes of the Responses request it answers
// (the client's view, not the chat one), and what translating the answer
// needs from it: the tool map and whether reasoning is to be returned
// encrypted. Make it once per request; it is read-only after.
type Request struct {
	Tools     mapping.ToolMap
	Encrypted bool // include asks for reasoning.encrypted_content
	Logprobs  bool // include asks for message.output_text.logprobs
	// Stored says the gateway stores the Response (it says store: true;
	// false otherwise, whatever the request asked: nothing else stores
	// it). Conversation is the id of the conversation it belongs to
	// (conversation: {"id"}), "" for none.
	Stored       bool
	Conversation string
	echo         echoRuns // nil json: every member's default (defaultEcho)
}

// echoRuns is what a Response echoes of its request, rendered once: each
// member as the Response writes it (`,"key":value`, the request's value
// or the default), one after another in the Response's order, member i
// ending at ends[i] (store is left empty: Stored says). A Response
// appends runs of it between its own members, and a stream writes three
// Responses from it.
type echoRuns struct {
	json []byte
	ends [nEcho]int
}

// run is the members first to last, rendered (read-only: defaultEcho's
// are every zero Request's).
func (e *echoRuns) run(first, last int) []byte {
	start := 0
	if first > 0 {
		start = e.ends[first-1]
	}
	return e.json[start:e.ends[last]:e.ends[last]]
}

// defaultEcho is the echo of a request without any of the members.
var defaultEcho = renderEcho([nEcho]codec.Value{}, 0)

// The request fields a Response echoes, in the Response's order, with
// what it says when the request has none.
const (
	eBackground = iota
	eInstructions
	eMaxOutputTokens
	eMaxToolCalls
	eModel
	eParallelToolCalls
	ePreviousResponseID
	ePromptCacheKey
	ePromptCacheRetention
	eReasoning
	eSafetyIdentifier
	eServiceTier
	eStore
	eTemperature
	eText
	eToolChoice
	eTools
	eTopLogprobs
	eTopP
	eTruncation
	eUser
	eMetadata
	nEcho
)

var echoes = [nEcho]struct{ key, def string }{
	{"background", "false"},
	{"instructions", "null"},
	{"max_output_tokens", "null"},
	{"max_tool_calls", "null"},
	{"model", `""`},
	{"parallel_tool_calls", "true"},
	{"previous_response_id", "null"},
	{"prompt_cache_key", "null"},
	{"prompt_cache_retention", "null"},
	{"reasoning", "null"},
	{"safety_identifier", "null"},
	{"service_tier", `"default"`},
	{"store", ""}, // not echoed: Request.Stored says (appendResponse)
	{"temperature", "1"},
	{"text", `{"format":{"type":"text"}}`},
	{"tool_choice", `"auto"`},
	{"tools", "[]"},
	{"top_logprobs", "0"},
	{"top_p", "1"},
	{"truncation", `"disabled"`},
	{"user", "null"},
	{"metadata", "{}"},
}

// RequestOf is the Request of what cv last converted, read from the
// request as its conversion decoded it (mapping.Converter.Request) with
// its tool map: the request is not parsed again. cv must have converted
// it without an error.
func RequestOf(cv *mapping.Converter) *Request {
	return requestOf(cv.Request(), cv.ToolMap().Clone())
}

// NewRequest reads what the Response echoes from a Responses request body
// (one mapping converted, so it is JSON), with the tool map its
// conversion made (mapping.Converter.ToolMap().Clone(), or
// mapping.ToolMapOf). It parses the body; RequestOf reads the
// converter's.
func NewRequest(body []byte, tools mapping.ToolMap) (*Request, error) {
	v, ok := codec.Parse(body)
	if !ok || v.Kind() != codec.Object {
		return nil, fmt.Errorf("translate: the request is not a JSON object")
	}
	if flat, ok := mapping.FlatRequest(v); ok {
		v, _ = codec.Parse(flat) // chat-shaped tools and tool choice echoed in the Responses shape
	}
	return requestOf(v, tools), nil
}

// requestOf reads what the Response echoes from v, a Responses request's
// top-level object as the mapping reads it.
func requestOf(v codec.Value, tools mapping.ToolMap) *Request {
	r := &Request{Tools: tools}
	var vals [nEcho]codec.Value
	size := 0
	for k, m := range v.Members() {
		if k.Is("include") {
			for _, e := range m.Elems() {
				switch {
				case e.IsStr(mapping.IncludeEncryptedReasoning):
					r.Encrypted = true
				case e.IsStr(mapping.IncludeLogprobs):
					r.Logprobs = true
				}
			}
			continue
		}
		if m.Kind() == codec.Null || k.Is("store") || k.Is("conversation") {
			continue // store and conversation: what was done, not what was asked (Stored, Conversation)
		}
		for i := range echoes {
			if k.Is(echoes[i].key) {
				vals[i], size = m, size+len(m.Raw())
				break
			}
		}
	}
	r.echo = renderEcho(vals, size)
	return r
}

// renderEcho renders the echoed members of vals (their default where
// a value does not exist), size their values' length in all.
func renderEcho(vals [nEcho]codec.Value, size int) echoRuns {
	var e echoRuns
	buf := make([]byte, 0, size+len(`,"":`)*nEcho+512)
	for i, m := range vals {
		if i != eStore {
			buf = append(append(append(buf, `,"`...), echoes[i].key...), `":`...)
			switch start := len(buf); {
			case !m.Exists():
				buf = append(buf, echoes[i].def...)
			case i == eTools:
				// the members the tools are filled with (toolFill)
				buf = compactFrom(appendEchoTools(buf, m), start)
			default:
				buf = compactFrom(append(buf, m.Raw()...), start)
			}
		}
		e.ends[i] = len(buf)
	}
	e.json = buf
	return e
}

// compactFrom compacts the value buf[start:] if it has line breaks
// between its tokens (pretty-printed): what a Response echoes goes in SSE
// data lines, which a line break would end. (Inside JSON strings a line
// break is always escaped, so the bytes of the values are unchanged.)
func compactFrom(buf []byte, start int) []byte {
	v := buf[start:]
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		return buf
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return buf // unreachable: the value was read as JSON
	}
	return append(buf[:start], b.Bytes()...)
}

// appendEchoTools appends the request's tools, each as sent, with what
// the spec's tool of its type requires and a request may leave out, as
// OpenAI echoes it (toolFill).
func appendEchoTools(out []byte, v codec.Value) []byte {
	out = append(out, '[')
	for i, t := range v.Elems() {
		if i > 0 {
			out = append(out, ',')
		}
		raw := t.Raw()
		typ, _ := t.Get("type").Str()
		fill := toolFill[typ]
		if len(fill) == 0 || t.Kind() != codec.Object {
			out = append(out, raw...)
			continue
		}
		out = append(out, bytes.TrimRight(raw[:len(raw)-1], " \t\r\n")...)
		empty := true
		for range t.Members() {
			empty = false
			break
		}
		for _, f := range fill {
			if t.Get(f.key).Exists() {
				continue
			}
			if !empty {
				out = append(out, ',')
			}
			empty = false
			out = append(append(append(append(out, '"'), f.key...), `":`...), f.val...)
		}
		out = append(out, '}')
	}
	return append(out, ']')
}

// toolFill lists, by tool type, the members the Response's tool requires
// (the pinned spec's Tool variants) that a request may leave out, and
// what the Response says then: a function tool without parameters has
// "parameters":null, as OpenAI echoes it; without strict, "strict":false
// (the upstream ran it without strict mode). A namespace requires a
// description, in its request form too, but the mapping takes one without
// (chat has no namespaces: it was never sent): it is echoed as "". Every
// other variant requires only what its request form does.
var toolFill = map[string][]struct{ key, val string }{
	"function":  {{"parameters", "null"}, {"strict", "false"}},
	"namespace": {{"description", `""`}},
}

// response is what a Response says besides the request's echo.
type response struct {
	id          string
	createdAt   int64
	completedAt int64 // 0: null
	status      string
	errJSON     []byte  // the error object, nil: null
	incomplete  string  // incomplete_details.reason
	items       []*item // the output items, done
	usage       []byte  // nil: null
	serviceTier []byte  // the upstream's; nil: the request's
	warnings    []mapping.Warning
	unstored    bool // Options.Commit failed: store is false whatever Request.Stored says
}

// appendResponse writes a Response object.
func (r *Request) appendResponse(dst []byte, s *response) []byte {
	e := &r.echo
	if e.json == nil {
		e = &defaultEcho
	}
	dst = append(dst, `{"id":`...)
	dst = codec.AppendString(dst, s.id)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = codec.AppendInt(dst, s.createdAt)
	dst = append(append(append(dst, `,"status":"`...), s.status...), '"')
	dst = append(append(dst, e.run(eBackground, eBackground)...), `,"completed_at":`...)
	if s.completedAt != 0 {
		dst = codec.AppendInt(dst, s.completedAt)
	} else {
		dst = append(dst, "null"...)
	}
	dst = appendOrNull(append(dst, `,"error":`...), s.errJSON)
	dst = append(dst, `,"incomplete_details":`...)
	if s.incomplete != "" {
		dst = append(append(append(dst, `{"reason":"`...), s.incomplete...), `"}`...)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(append(dst, e.run(eInstructions, eModel)...), `,"output":[`...)
	for i, it := range s.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendItem(dst, it)
	}
	dst = append(append(dst, ']'), e.run(eParallelToolCalls, eSafetyIdentifier)...)
	if s.serviceTier != nil {
		dst = append(append(dst, `,"service_tier":`...), s.serviceTier...)
	} else {
		dst = append(dst, e.run(eServiceTier, eServiceTier)...)
	}
	if r.Stored && !s.unstored {
		dst = append(dst, `,"store":true`...)
	} else {
		dst = append(dst, `,"store":false`...)
	}
	dst = append(dst, e.run(eTemperature, eTruncation)...)
	dst = appendOrNull(append(dst, `,"usage":`...), s.usage)
	dst = append(dst, e.run(eUser, eMetadata)...)
	if r.Conversation != "" {
		dst = append(dst, `,"conversation":{"id":`...)
		dst = append(codec.AppendString(dst, r.Conversation), '}')
	}
	if len(s.warnings) > 0 {
		dst = append(dst, `,"transponder_warnings":[`...)
		for i, w := range s.warnings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"path":`...)
			dst = codec.AppendString(dst, w.Path)
			dst = append(dst, `,"reason":`...)
			dst = codec.AppendString(dst, w.Reason)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendOrNull appends the JSON v, or null for nil.
func appendOrNull(dst, v []byte) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	return append(dst, v...)
}
