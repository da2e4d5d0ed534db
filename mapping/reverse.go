package mapping

// The reverse direction: a Chat Completions request → a Responses request
// (mapping/chat_responses_request.yaml), for chat clients in front of a
// Responses upstream.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// ReverseOptions configure ChatToResponses. The zero ReverseOptions write
// OpenRouter's Responses request, keep every system message an input item,
// send store false and apply the default guards (DefaultGuards).
type ReverseOptions struct {
	// Dialect is the Responses upstream's: OpenRouter (the default) or
	// OpenAI.
	Dialect Dialect
	// Instructions moves a leading system message (messages[0]) to
	// instructions instead of an input item of role system.
	Instructions bool
	// Store is the Responses request's store: false (the default) keeps
	// no state upstream, as a chat client expects.
	Store bool
	// Models rename the Responses request's model, as Options.Models do
	// the chat request's; the guards match the renamed name.
	Models []ModelRule
	// Guards are model-aware guards (mapping/guards.go) consulted before
	// the default table (DefaultGuards), which NoDefaultGuards leaves out.
	Guards          []GuardRule
	NoDefaultGuards bool
}

// ChatToResponses converts a Chat Completions request (the body of POST
// /chat/completions, OpenAI's shape; OpenRouter's reasoning and
// reasoning_details read too) into a Responses request, following
// mapping/chat_responses_request.yaml. Fields it does not carry, or
// carries with a loss, give warnings; what a Responses upstream cannot
// do (n > 1, audio output, audio input, deprecated function messages) and
// history it cannot take (a call without id, a tool output without its
// call) are an *Error naming the JSON path. It is pure: the same body and
// options give the same bytes.
func ChatToResponses(body []byte, opts ReverseOptions) ([]byte, []Warning, error) {
	var rc ReverseConverter
	return rc.ChatToResponses(nil, body, opts)
}

// ReverseConverter is ChatToResponses with memory kept from one
// conversion to the next. The zero ReverseConverter is ready; it is not
// safe for concurrent use.
type ReverseConverter struct {
	c rev
}

// ChatToResponses converts as the function of the same name does,
// appending the Responses request to dst: Decode, then Convert. The
// warnings are the ReverseConverter's until its next conversion.
func (rc *ReverseConverter) ChatToResponses(dst, body []byte, opts ReverseOptions) ([]byte, []Warning, error) {
	if err := opts.check(); err != nil {
		return dst, nil, err
	}
	if _, err := rc.Decode(body); err != nil {
		return dst, nil, err
	}
	return rc.Convert(dst, opts)
}

// Decode reads body as the chat request the ReverseConverter converts
// next: a serving layer reads what it needs of the request (its model,
// whether it streams) from v, and Convert converts it without reading the
// body again. It fails with an *Error on a body that is not a JSON
// object. v is valid until the ReverseConverter's next Decode.
func (rc *ReverseConverter) Decode(body []byte) (v codec.Value, err error) {
	c := &rc.c
	c.pending = false
	if err := decodeBody(&c.doc, codec.ChatRequest, body); err != nil {
		return codec.Value{}, err
	}
	c.pending = true
	return c.doc.Value(), nil
}

// Convert converts the request the last Decode read as ChatToResponses
// converts a body, appending the Responses request to dst; once per
// Decode.
func (rc *ReverseConverter) Convert(dst []byte, opts ReverseOptions) ([]byte, []Warning, error) {
	if err := opts.check(); err != nil {
		return dst, nil, err
	}
	c := &rc.c
	if !c.pending {
		return dst, nil, errNoDecode
	}
	c.pending = false
	c.reset(&opts)
	if err := c.run(); err != nil {
		return dst, c.warns, err
	}
	if dst == nil {
		n := len(c.doc.Bytes())
		dst = make([]byte, 0, n+n/8)
	}
	return c.b.AppendJSON(dst), c.warns, nil
}

func (o *ReverseOptions) check() error {
	if !o.Dialect.valid() || o.Dialect.base() != o.Dialect {
		return fmt.Errorf("mapping: dialect %s: a Responses upstream speaks openai or openrouter", o.Dialect)
	}
	return nil
}

// rev is one reverse conversion.
type rev struct {
	opts    ReverseOptions // a copy: a pointer to the argument would move it to the heap
	doc     codec.Doc
	pending bool // doc holds a request Decode read that Convert has not converted
	b       codec.Builder
	warns   []Warning
	err     *Error
	// calls are the tool calls of the assistant messages so far: call id →
	// its output item's type.
	calls map[string]string
	group []reasonDetail // the details of a reasoning item being made
	instr []byte         // instructions, from a leading system message
	hasIn bool           // instructions were taken
}

func (c *rev) reset(opts *ReverseOptions) {
	c.opts = *opts
	c.warns = c.warns[:0]
	c.err = nil
	if c.calls == nil {
		c.calls = map[string]string{}
	}
	clear(c.calls)
	c.instr = c.instr[:0]
	c.hasIn = false
	c.b.Reset()
}

// run converts the request in c.doc.
func (c *rev) run() error {
	v := c.doc.Value()
	if err := c.check(v); err != nil {
		return err
	}
	if c.opts.Dialect == OpenAI {
		c.chatResponsesRequestOpenAI(v)
	} else {
		c.chatResponsesRequestOpenRouter(v)
	}
	if c.err != nil {
		return c.err
	}
	c.finish()
	c.guard()
	return nil
}

// revNeeded are the keys a Responses request needs when the chat value
// that holds them is there.
var revNeeded = map[string]bool{"model": true, "messages": true, "role": true, "id": true, "name": true,
	"arguments": true, "input": true, "tool_call_id": true, "text": true, "url": true, "refusal": true}

// check refuses, before anything is converted, what the spec does not
// allow (what a Responses upstream cannot do is the mapping's refuse
// rules, but for a deprecated function_call inside an assistant message).
func (c *rev) check(v codec.Value) *Error {
	for _, f := range c.doc.Findings() {
		switch f.Kind {
		case codec.WrongKind:
			return &Error{Message: "want " + f.Want(), Param: f.Path(), Code: "invalid_type"}
		case codec.MissingField:
			if revNeeded[f.Name()] {
				return &Error{Message: "missing required parameter", Param: f.Path(), Code: "missing_required_parameter"}
			}
		case codec.UnknownValue:
			if p := f.Path(); strings.HasSuffix(p, ".role") {
				return &Error{Message: "unknown role " + strconv.Quote(f.Name()), Param: p, Code: "invalid_value"}
			}
		}
	}
	if s, _ := v.Get("model").Str(); s == "" {
		return &Error{Message: "Missing required parameter: 'model'.", Param: "model", Code: "missing_required_parameter"}
	}
	if msgs := v.Get("messages"); msgs.Kind() == codec.Array {
		if isEmpty(msgs) {
			return &Error{Message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", Param: "messages", Code: "empty_array"}
		}
	}
	if e := checkLimits(v, true); e != nil {
		return e
	}
	for i, m := range v.Get("messages").Elems() {
		// inside the assistant message revAssistant converts whole
		if string(m.Get("role").Raw()) == `"assistant"` && present(m.Get("function_call")) {
			return &Error{Message: "a deprecated function_call has no call id a Responses function_call needs; send tool_calls", Param: at("messages", i, "function_call"), Code: "unsupported_parameter"}
		}
	}
	return nil
}

// finish applies what needs the whole request: instructions, store, the
// tools' strict default, and the warnings for unknown fields.
func (c *rev) finish() {
	if c.hasIn {
		c.b.SetLit(codec.Top, "instructions", codec.AppendString(nil, string(c.instr)))
	}
	if !c.b.Has(codec.Top, "store") {
		c.b.SetBool(codec.Top, "store", c.opts.Store)
	}
	if tools, ok := c.b.Child(codec.Top, "tools"); ok {
		for t := range c.b.Objects(tools) {
			if string(c.b.Raw(t, "type")) != `"function"` {
				continue
			}
			if !c.b.Has(t, "parameters") {
				// a chat function without parameters takes none; the
				// Responses API requires the schema
				c.b.SetJSONLit(t, "parameters", `{"type":"object","properties":{}}`)
			}
			if !c.b.Has(t, "strict") {
				c.b.SetBool(t, "strict", false)
			}
		}
	}
	if c.b.Has(codec.Top, "tool_choice") {
		if tools, ok := c.b.Child(codec.Top, "tools"); !ok || c.b.Len(tools) == 0 {
			if string(c.b.Raw(codec.Top, "tool_choice")) != `"none"` && string(c.b.Raw(codec.Top, "tool_choice")) != `"auto"` {
				c.warn("tool_choice", "no tools are offered; tool_choice is left out")
			}
			c.b.Delete(codec.Top, "tool_choice")
		}
	}
	for _, f := range c.doc.Findings() {
		if f.Kind != codec.UnknownField && f.Kind != codec.ExtraField {
			continue
		}
		if f.TopLevel() {
			if isChatResponsesRequestExtra(f.NameBytes()) {
				continue
			}
			// A field of the target the OpenAI chat spec does not know
			// (OpenRouter's provider, plugins, models, …) passes through,
			// unless the mapping set it.
			root, _ := c.opts.Dialect.codec().Payload(codec.ResponsesRequest)
			if _, ok := root.Schema().Property(f.Name()); ok {
				if c.b.Has(codec.Top, f.Name()) {
					c.warn(f.Path(), "also set by the mapping of a chat field; the mapped value is kept")
				} else {
					c.b.Set(codec.Top, f.Name(), f.Raw)
				}
				continue
			}
		} else if p := f.Path(); strings.HasPrefix(p, "messages[") && isReasoningKey(f.Name()) {
			continue // read by revAssistant
		}
		c.warns = append(c.warns, Warning{Path: f.Path(), Reason: "a field the pinned spec does not know; not carried", Unknown: true})
	}
}

func isReasoningKey(k string) bool {
	return k == "reasoning_details" || k == "reasoning_content" || k == "reasoning"
}

// warn records a warning: not inlined, as conv.warn.
//
//go:noinline
func (c *rev) warn(path, reason string) {
	c.warns = append(c.warns, Warning{Path: path, Reason: reason})
}

func (c *rev) fail(e *Error) {
	if c.err == nil {
		c.err = e
	}
}

// drop warns that a field is left out (generated code).
func (c *rev) drop(_ codec.Value, path, reason string) { c.warn(path, reason) }

// refuse refuses the request (generated code: the mapping's refuse
// rules), naming the JSON path; the first refusal or error wins.
func (c *rev) refuse(path, reason string) {
	c.fail(&Error{Message: reason, Param: path, Code: "unsupported_parameter"})
}

// put sets a member unless an earlier entry set it (max_completion_tokens
// before max_tokens, tool_choice before function_call). Generated code's:
// key is a literal the generator checked.
func (c *rev) put(obj codec.Ref, key string, raw []byte) { c.b.SetNewLit(obj, key, raw) }

func (c *rev) tag(v codec.Value) (codec.Node, bool, string) {
	n, ok := c.doc.NodeAt(v)
	if !ok {
		return n, false, ""
	}
	return n, true, n.Tag()
}

func (c *rev) unknownType(n codec.Node, ok bool, path string) {
	typ := ""
	if ok {
		typ = n.Type()
		path = n.Path()
	}
	tag := "type"
	if isMessage(path) {
		tag = "role"
	}
	c.fail(&Error{Message: "unknown " + tag + " " + strconv.Quote(typ), Param: tagPath(path, typ, tag), Code: "invalid_value"})
}

// item appends an input item of the given type to the input array.
func (c *rev) item(dst codec.Ref, typ string) codec.Ref {
	it := c.b.AppendObject(dst)
	c.b.SetStringLit(it, "type", typ) // (quoted into the Builder's memory: no string made)
	return it
}

// textParts appends a message's text parts as parts of type typ.
func (c *rev) textParts(dst codec.Ref, content codec.Value, typ string) {
	for _, p := range content.Elems() {
		out := c.b.AppendObject(dst)
		c.b.SetStringLit(out, "type", typ)
		c.b.SetLit(out, "text", p.Get("text").Raw())
		if bp := p.Get("prompt_cache_breakpoint"); present(bp) {
			c.b.SetLit(out, "prompt_cache_breakpoint", bp.Raw())
		}
	}
}

func (c *rev) warnName(m codec.Value, path string) {
	if present(m.Get("name")) {
		c.warn(path+".name", "a Responses input message has no participant name; left out")
	}
}

// isMessage says path is a message's (messages[N]), whose tag is its role.
func isMessage(path string) bool {
	rest, ok := strings.CutPrefix(path, "messages[")
	return ok && strings.HasSuffix(rest, "]") && !strings.Contains(rest, ".")
}
