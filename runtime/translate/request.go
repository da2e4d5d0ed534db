package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
)

// Request is what a Response echoes of the Responses request it answers
// (the client's view, not the chat one), and what translating the answer
// needs from it: the tool map and whether reasoning is to be returned
// encrypted. Make it once per request (RequestOf, NewRequest, or a
// RequestPool's Of, reusing the memory of one put back); it is read-only
// after.
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
var defaultEcho = renderEcho(nil, [nEcho]codec.Value{}, 0)

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

// echoIndex is the index in echoes of key, -1 if it is none of them: one
// switch (comparing each key with each of echoes' took a sixth of a
// Request's time, 15% more than the switch by length first). Its keys are
// echoes', which TestEchoIndex holds it to.
func echoIndex(key []byte) int {
	switch string(key) {
	case "background":
		return eBackground
	case "instructions":
		return eInstructions
	case "max_output_tokens":
		return eMaxOutputTokens
	case "max_tool_calls":
		return eMaxToolCalls
	case "model":
		return eModel
	case "parallel_tool_calls":
		return eParallelToolCalls
	case "previous_response_id":
		return ePreviousResponseID
	case "prompt_cache_key":
		return ePromptCacheKey
	case "prompt_cache_retention":
		return ePromptCacheRetention
	case "reasoning":
		return eReasoning
	case "safety_identifier":
		return eSafetyIdentifier
	case "service_tier":
		return eServiceTier
	case "store":
		return eStore
	case "temperature":
		return eTemperature
	case "text":
		return eText
	case "tool_choice":
		return eToolChoice
	case "tools":
		return eTools
	case "top_logprobs":
		return eTopLogprobs
	case "top_p":
		return eTopP
	case "truncation":
		return eTruncation
	case "user":
		return eUser
	case "metadata":
		return eMetadata
	}
	return -1
}

// RequestOf is the Request of what cv last converted, read from the
// request as its conversion decoded it (mapping.Converter.Request) with
// its tool map: the request is not parsed again. cv must have converted
// it without an error.
func RequestOf(cv *mapping.Converter) *Request {
	r := new(Request)
	r.readFrom(cv)
	return r
}

// readFrom makes r the Request of what cv last converted, in r's memory.
func (r *Request) readFrom(cv *mapping.Converter) {
	cv.ToolMap().CloneTo(&r.Tools)
	r.read(cv.Request())
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
	r := &Request{Tools: tools}
	r.read(v)
	return r, nil
}

// read reads what the Response echoes from v, a Responses request's
// top-level object as the mapping reads it, into r (its tool map aside),
// rendering the echo in r's memory.
func (r *Request) read(v codec.Value) {
	r.Encrypted, r.Logprobs, r.Stored, r.Conversation = false, false, false, ""
	var vals [nEcho]codec.Value
	size := 0
	for k, m := range v.Members() {
		key := k.Bytes()
		if string(key) == "include" {
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
		// store and conversation: what was done, not what was asked
		// (Stored, Conversation); conversation is no echo.
		if i := echoIndex(key); i >= 0 && i != eStore && m.Kind() != codec.Null {
			vals[i], size = m, size+len(m.Raw())
		}
	}
	r.echo = renderEcho(r.echo.json[:0], vals, size)
}

// renderEcho renders the echoed members of vals (their default where
// a value does not exist) into buf, size their values' length in all.
func renderEcho(buf []byte, vals [nEcho]codec.Value, size int) echoRuns {
	var e echoRuns
	buf = slices.Grow(buf, size+len(`,"":`)*nEcho+512)
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
// OpenAI echoes it (toolFill). Each tool's members are read in one pass
// (a Get for its type and for each member it may lack would each walk
// them again: ten tools' echo cost a Codex request's Request half its
// time).
func appendEchoTools(out []byte, v codec.Value) []byte {
	out = append(out, '[')
	for i, t := range v.Elems() {
		if i > 0 {
			out = append(out, ',')
		}
		raw := t.Raw()
		if t.Kind() != codec.Object {
			out = append(out, raw...)
			continue
		}
		var typ codec.Value
		var has uint8 // fillKeyOf's bits
		empty := true
		for k, m := range t.Members() {
			empty = false
			if string(k.Bytes()) == "type" {
				typ = m
			} else {
				has |= fillKeyOf(k.Bytes())
			}
		}
		var fill []echoFill
		for _, f := range toolFill {
			if typ.IsStr(f.typ) {
				fill = f.fill
				break
			}
		}
		if len(fill) == 0 {
			out = append(out, raw...)
			continue
		}
		end := len(raw) - 1 // the closing brace, and the blanks before it
		for end > 0 && isSpace(raw[end-1]) {
			end--
		}
		out = append(out, raw[:end]...)
		for _, f := range fill {
			if has&(1<<f.key) != 0 {
				continue
			}
			if !empty {
				out = append(out, ',')
			}
			empty = false
			out = append(append(append(append(out, '"'), fillKeys[f.key]...), `":`...), f.val...)
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
var toolFill = [...]struct {
	typ  string
	fill []echoFill
}{
	{"function", []echoFill{{fillParameters, "null"}, {fillStrict, "false"}}},
	{"namespace", []echoFill{{fillDescription, `""`}}},
}

// echoFill is a member toolFill adds to a tool that lacks it: its key
// (fillKeys[key]) and value.
type echoFill struct {
	key int
	val string
}

// fillKeys are toolFill's members' keys; a tool's are a bit each
// (1<<index, fillKeyOf).
var fillKeys = [...]string{"parameters", "strict", "description"}

const (
	fillParameters = iota
	fillStrict
	fillDescription
)

// fillKeyOf is key's bit if it is one of fillKeys.
func fillKeyOf(key []byte) uint8 {
	for i, k := range fillKeys {
		if k == string(key) {
			return 1 << i
		}
	}
	return 0
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
