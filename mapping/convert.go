package mapping

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// Dialect is the Chat Completions dialect a converter writes.
type Dialect uint8

const (
	// OpenRouter's ChatRequest (the default): session_id, provider,
	// plugins, reasoning{effort, summary}, server tools.
	OpenRouter Dialect = iota
	// OpenAI's CreateChatCompletionRequest, for any OpenAI-compatible
	// upstream: reasoning_effort, verbosity, safety_identifier,
	// web_search_options, custom tools.
	OpenAI
)

func (d Dialect) String() string {
	if d == OpenAI {
		return "openai"
	}
	return "openrouter"
}

func (d Dialect) codec() *codec.Dialect {
	if d == OpenAI {
		return codec.OpenAI
	}
	return codec.OpenRouter
}

// SystemMode says what the instructions and the system and developer
// messages become.
type SystemMode uint8

const (
	// System: instructions become a leading system message; developer
	// messages stay developer messages.
	System SystemMode = iota
	// Developer: instructions become a leading developer message.
	Developer
	// Merge: the instructions and every system or developer message before
	// the first other message become one first system message (their texts
	// joined by a blank line), which some models require.
	Merge
)

// UnknownTypes says what happens to a value of a type the spec does not
// know (a tool, a tool choice, an input item or content part of a newer
// API than the pinned spec).
type UnknownTypes uint8

const (
	// DropUnknown leaves the value out, with a warning (the default).
	DropUnknown UnknownTypes = iota
	// RejectUnknown fails the request with an invalid_value error naming the
	// type and its path.
	RejectUnknown
)

// ModelRule renames a model. An exact rule applies to the name From; a
// prefix rule to names that start with From, whose prefix it replaces with
// To ("gpt-" → "openai/gpt-").
type ModelRule struct {
	From, To string
	Prefix   bool
}

// Options configure a conversion. The zero Options convert to OpenRouter,
// instructions as a system message, unknown types dropped with a warning,
// model names unchanged.
type Options struct {
	Dialect Dialect
	// Models rename models: the exact rule for the name if there is one,
	// else the prefix rule with the longest prefix; names no rule matches
	// pass through.
	Models       []ModelRule
	System       SystemMode
	UnknownTypes UnknownTypes
	// SessionID is a session key from outside the body (Codex's session-id
	// header): OpenRouter's session_id when the request sets neither
	// session_id nor prompt_cache_key.
	SessionID string
}

// Warning is a field of the request that was not carried, or not carried
// whole: its JSON path in the request and why.
type Warning struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (w Warning) String() string { return w.Path + ": " + w.Reason }

// Error is a request the converter refuses, shaped as OpenAI's error
// object: Param is the JSON path of the offending value.
type Error struct {
	Message string
	Param   string
	Code    string // invalid_json, invalid_type, invalid_value, unsupported_parameter, missing_required_parameter
}

func (e *Error) Error() string {
	if e.Param == "" {
		return "mapping: " + e.Message
	}
	return "mapping: " + e.Param + ": " + e.Message
}

// AppendJSON appends OpenAI's error body:
// {"error":{"message":…,"type":"invalid_request_error","param":…,"code":…}}.
func (e *Error) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"error":{"message":`...)
	dst = codec.AppendString(dst, e.Message)
	dst = append(dst, `,"type":"invalid_request_error","param":`...)
	if e.Param == "" {
		dst = append(dst, "null"...)
	} else {
		dst = codec.AppendString(dst, e.Param)
	}
	dst = append(dst, `,"code":`...)
	dst = codec.AppendString(dst, e.Code)
	return append(dst, "}}"...)
}

// ResponsesToChat converts a Responses request (the body of POST
// /responses) into a Chat Completions request of the options' dialect,
// following mapping/responses_chat.yaml. Every field it does not carry, or
// carries with a loss, gives a warning; fields the serving layer handles
// (store, previous_response_id, include, …) give none. It returns an *Error
// for a body that is not JSON, has a value of the wrong type, sets what
// no converter can honour (background, conversation) or forces a tool it
// does not offer.
//
// It is pure: the same body and options give the same bytes.
func ResponsesToChat(body []byte, opts Options) ([]byte, []Warning, error) {
	var cv Converter
	return cv.ResponsesToChat(nil, body, opts)
}

// Converter is ResponsesToChat with memory kept from one conversion to
// the next (a serving layer keeps one per worker, or a sync.Pool of them).
// The zero Converter is ready; it is not safe for concurrent use.
type Converter struct {
	c conv
}

// ResponsesToChat converts as the function of the same name does,
// appending the chat request to dst. The warnings are the Converter's
// until its next conversion.
func (cv *Converter) ResponsesToChat(dst, body []byte, opts Options) ([]byte, []Warning, error) {
	c := &cv.c
	c.reset()
	if err := c.run(body, &opts); err != nil {
		return dst, c.warns, err
	}
	if dst == nil {
		dst = make([]byte, 0, len(body)+len(body)/8)
	}
	return c.b.AppendJSON(dst), c.warns, nil
}

// required refuses a chat request without a field its dialect's schema
// requires at the top (messages, model): a request with no input, or no
// model. (The fields chat needs deeper are checked on the way in:
// needed.)
func (c *conv) required() {
	root, _ := c.opts.Dialect.codec().Payload(codec.ChatRequest)
	for p := range root.Schema().Properties() {
		if !p.Required {
			continue
		}
		ref, isContainer := c.b.Child(codec.Top, p.Key)
		if isContainer && c.b.Len(ref) == 0 || !isContainer && c.b.Raw(codec.Top, p.Key) == nil {
			c.fail(&Error{Message: "the converted " + c.opts.Dialect.String() + " chat request would have no " + p.Key, Code: "missing_required_parameter"})
			return
		}
	}
}

func (c *conv) reset() {
	c.warns = c.warns[:0]
	c.warnedPaths = nil
	c.err = nil
	c.sys = -1
	c.sysText = c.sysText[:0]
	c.allowed = c.allowed[:0]
	c.filter = false
	c.b.Reset()
}

// conv is one conversion.
type conv struct {
	opts  *Options
	doc   codec.Doc
	b     codec.Builder
	warns []Warning
	err   *Error

	warnedPaths map[string]bool // the paths of warns[:len(warnedPaths)], when there are many

	sys     codec.Ref // Merge: the first system message
	sysText []byte    // Merge: its text so far, JSON-escaped
	allowed []allowedTool
	filter  bool // tool_choice allowed_tools: keep only the allowed tools

	// top holds the top-level fields the checks read (read in one pass:
	// each Get would step over the whole input again).
	top struct{ background, conversation, toolChoice, tools codec.Value }
}

func (c *conv) capture(v codec.Value) {
	c.top.background, c.top.conversation, c.top.toolChoice, c.top.tools = codec.Value{}, codec.Value{}, codec.Value{}, codec.Value{}
	for k, m := range v.Members() {
		switch string(k.Bytes()) {
		case "background":
			c.top.background = m
		case "conversation":
			c.top.conversation = m
		case "tool_choice":
			c.top.toolChoice = m
		case "tools":
			c.top.tools = m
		}
	}
}

type allowedTool struct{ typ, name string }

func (c *conv) run(body []byte, opts *Options) error {
	c.opts = opts
	root, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	if err := c.doc.Decode(root, body); err != nil {
		var se *codec.SyntaxError
		if errors.As(err, &se) {
			return &Error{Message: "the body is not valid JSON: " + se.Reason, Param: se.Path, Code: "invalid_json"}
		}
		return &Error{Message: "the body is not valid JSON", Code: "invalid_json"}
	}
	v := c.doc.Value()
	if v.Kind() != codec.Object {
		return &Error{Message: "the body must be a JSON object", Code: "invalid_type"}
	}
	c.capture(v)
	if c.hasNestedTools() {
		if err := c.doc.Decode(root, flattenTools(v)); err != nil {
			return &Error{Message: "the body is not valid JSON", Code: "invalid_json"}
		}
		v = c.doc.Value()
		c.capture(v)
	}
	if err := c.check(v); err != nil {
		return err // a non-nil *Error
	}
	if opts.Dialect == OpenAI {
		c.responsesChatOpenAI(v)
	} else {
		c.responsesChatOpenRouter(v)
	}
	if c.err != nil {
		return c.err
	}
	c.finish(v)
	if c.err != nil {
		return c.err
	}
	return nil
}

// check refuses what the spec does not allow, and what the converter
// cannot do, before anything is converted.
func (c *conv) check(v codec.Value) *Error {
	for _, f := range c.doc.Findings() {
		switch f.Kind {
		case codec.WrongKind:
			return &Error{Message: "want " + f.Want(), Param: f.Path(), Code: "invalid_type"}
		case codec.MissingField:
			// What a chat request cannot do without; the spec also requires
			// fields clients omit and chat does not need (parameters, strict).
			if needed[f.Name()] {
				return &Error{Message: "missing required parameter", Param: f.Path(), Code: "missing_required_parameter"}
			}
		case codec.UnknownValue:
			if p := f.Path(); strings.HasSuffix(p, ".role") {
				return &Error{Message: "unknown role " + strconv.Quote(f.Name()), Param: p, Code: "invalid_value"}
			}
		}
	}
	if b, _ := c.top.background.Bool(); b {
		return &Error{Message: "background responses are not supported", Param: "background", Code: "unsupported_parameter"}
	}
	if present(c.top.conversation) {
		return &Error{Message: "conversations are not supported; send the history in input", Param: "conversation", Code: "unsupported_parameter"}
	}
	return c.checkToolChoice()
}

// needed are the keys a chat request needs when the Responses value that
// holds them is there: a tool's or a forced tool's name, a call's id, name
// and arguments, an output's call and output, a message's role and content.
var needed = map[string]bool{"name": true, "call_id": true, "arguments": true, "output": true, "role": true, "content": true}

// finish applies what needs the whole converted request: unknown
// top-level fields, the allowed-tools filter, the session option, and a
// tool choice left without tools.
func (c *conv) finish(v codec.Value) {
	target, _ := c.opts.Dialect.codec().Payload(codec.ChatRequest)
	for _, f := range c.doc.Findings() {
		switch f.Kind {
		case codec.UnknownField, codec.ExtraField:
			if f.TopLevel() {
				c.unknownTopLevel(f, target.Schema())
				continue
			}
			if p := f.Path(); !c.warned(p) {
				c.warn(p, "a field the pinned spec does not know; not carried")
			}
		}
	}
	if c.filter {
		c.filterTools()
	}
	c.uniqueTools()
	c.required()
	if c.opts.SessionID != "" && c.opts.Dialect == OpenRouter && !c.b.Has(codec.Top, "session_id") {
		c.b.SetString(codec.Top, "session_id", c.opts.SessionID)
	}
	if c.b.Has(codec.Top, "tool_choice") && c.b.Len(c.b.Array(codec.Top, "tools")) == 0 {
		c.b.Delete(codec.Top, "tool_choice")
		if tc := c.top.toolChoice; !(tc.Kind() == codec.String && string(tc.Raw()) == `"auto"`) {
			c.warn("tool_choice", "no tool the upstream can call is left; tool_choice is left out")
		}
	}
	if c.b.Has(codec.Top, "parallel_tool_calls") && c.b.Len(c.b.Array(codec.Top, "tools")) == 0 {
		c.b.Delete(codec.Top, "parallel_tool_calls")
	}
}

// unknownTopLevel passes a top-level field the Responses spec does not
// know through if the target dialect has it (OpenRouter's provider,
// models, plugins, session_id, …) and the mapping did not set it; the
// mapping's extras were handled already.
func (c *conv) unknownTopLevel(f codec.Finding, target codec.Schema) {
	key := f.Name()
	if isResponsesChatExtra(key) {
		return
	}
	if _, ok := target.Property(key); !ok {
		c.warn(f.Path(), "a field neither the Responses spec nor the "+c.opts.Dialect.String()+" chat request has; not carried")
		return
	}
	if c.b.Has(codec.Top, key) && key != "session_id" {
		c.warn(f.Path(), "also set by the mapping of a Responses field; the mapped value is kept")
		return
	}
	c.b.Set(codec.Top, key, f.Raw) // session_id: the client's own wins over prompt_cache_key's
}

func (c *conv) warn(path, reason string) {
	c.warns = append(c.warns, Warning{Path: path, Reason: reason})
}

// warned reports whether there is a warning for path already (a
// transform that says what it leaves out).
func (c *conv) warned(path string) bool {
	if len(c.warns) < 16 {
		return slices.ContainsFunc(c.warns, func(w Warning) bool { return w.Path == path })
	}
	if c.warnedPaths == nil {
		c.warnedPaths = map[string]bool{}
	}
	for _, w := range c.warns[len(c.warnedPaths):] {
		c.warnedPaths[w.Path] = true
	}
	return c.warnedPaths[path]
}

// fail records the first error; the generated code goes on, and its result
// is not used.
func (c *conv) fail(e *Error) {
	if c.err == nil {
		c.err = e
	}
}

// unknownType handles a union value whose type the spec does not know.
func (c *conv) unknownType(n codec.Node, ok bool, path string) {
	typ := ""
	if ok {
		typ = n.Type()
		path = n.Path()
	}
	if c.opts.UnknownTypes == RejectUnknown {
		c.fail(&Error{Message: "unknown type " + strconv.Quote(typ), Param: path, Code: "invalid_value"})
		return
	}
	c.warn(path, "type "+strconv.Quote(typ)+" is unknown to the pinned spec; left out")
}

// tag returns a union value's node and type ("" if it has none).
func (c *conv) tag(v codec.Value) (codec.Node, bool, string) {
	n, ok := c.doc.NodeAt(v)
	if !ok {
		return n, false, ""
	}
	return n, true, n.Tag()
}

// present reports whether a field has a value (null is absent: the
// optional fields of the Responses request may be null).
func present(v codec.Value) bool { return v.Kind() > codec.Null }

// at is the path of an element's field: at("tools", 2, "name") is
// "tools[2].name".
func at(array string, i int, field string) string {
	p := array + "[" + strconv.Itoa(i) + "]"
	if field != "" {
		p += "." + field
	}
	return p
}

// model maps a model name through the options' rules.
func (c *conv) model(name string) string {
	best := -1
	for i, r := range c.opts.Models {
		if !r.Prefix && r.From == name {
			return r.To
		}
		if r.Prefix && strings.HasPrefix(name, r.From) && (best < 0 || len(r.From) > len(c.opts.Models[best].From)) {
			best = i
		}
	}
	if best >= 0 {
		r := c.opts.Models[best]
		return r.To + name[len(r.From):]
	}
	return name
}

// offered lists the tools of the request, as (type, name): a function by
// its name, a custom tool by its name, others by their type.
func offered(tools codec.Value) []allowedTool {
	var out []allowedTool
	for _, t := range tools.Elems() {
		typ, _ := t.Get("type").Str()
		switch typ {
		case "function", "custom":
			name, _ := t.Get("name").Str()
			out = append(out, allowedTool{typ, name})
		case "namespace":
			ns, _ := t.Get("name").Str()
			for _, f := range t.Get("tools").Elems() {
				name, _ := f.Get("name").Str()
				out = append(out, allowedTool{"function", ns + namespaceSep + name})
			}
		default:
			out = append(out, allowedTool{typ, ""})
		}
	}
	return out
}

// hostedAlias says which tool types a forced hosted tool choice may name:
// web_search_preview forces any web_search tool.
func sameHosted(choice, tool string) bool {
	web := func(s string) bool { return strings.HasPrefix(s, "web_search") }
	return choice == tool || web(choice) && web(tool)
}

// checkToolChoice refuses a tool choice that forces a tool the request
// does not offer, or one no upstream can run.
func (c *conv) checkToolChoice() *Error {
	tc := c.top.toolChoice
	if tc.Kind() != codec.Object {
		return nil
	}
	typ, _ := tc.Get("type").Str()
	tools := offered(c.top.tools)
	has := func(typ, name string) bool {
		return slices.ContainsFunc(tools, func(t allowedTool) bool {
			if name != "" {
				return t.typ == typ && t.name == name
			}
			return sameHosted(typ, t.typ)
		})
	}
	switch typ {
	case "function", "custom":
		name, _ := tc.Get("name").Str()
		if !has(typ, name) {
			return &Error{Message: "tool_choice forces " + typ + " " + strconv.Quote(name) + ", which is not in tools", Param: "tool_choice.name", Code: "invalid_value"}
		}
	case "allowed_tools":
		for i, t := range tc.Get("tools").Elems() {
			tt, _ := t.Get("type").Str()
			name, _ := t.Get("name").Str()
			if tt == "function" || tt == "custom" {
				if !has(tt, name) {
					return &Error{Message: "allowed tool " + strconv.Quote(name) + " is not in tools", Param: at("tool_choice.tools", i, "name"), Code: "invalid_value"}
				}
				c.allowed = append(c.allowed, allowedTool{tt, name})
				continue
			}
			c.allowed = append(c.allowed, allowedTool{tt, ""})
		}
	case "file_search", "code_interpreter", "computer", "computer_use", "computer_use_preview", "mcp", "programmatic_tool_calling":
		return &Error{Message: "tool_choice forces " + typ + ", which no chat upstream can run", Param: "tool_choice.type", Code: "unsupported_parameter"}
	default:
		if typ != "" && !has(typ, "") {
			return &Error{Message: "tool_choice forces " + typ + ", which is not in tools", Param: "tool_choice.type", Code: "invalid_value"}
		}
	}
	return nil
}

// filterTools keeps the tools an allowed_tools choice allows (for a
// dialect without allowed_tools).
func (c *conv) filterTools() {
	tools, ok := c.b.Child(codec.Top, "tools")
	if !ok {
		return
	}
	c.b.Filter(tools, func(el codec.Ref) bool {
		typ := strings.TrimPrefix(rawString(c.b.Raw(el, "type")), "openrouter:")
		name := ""
		if fn, ok := c.b.Child(el, "function"); ok {
			name = rawString(c.b.Raw(fn, "name"))
		}
		return slices.ContainsFunc(c.allowed, func(t allowedTool) bool {
			if t.name != "" {
				return t.name == name
			}
			return sameHosted(t.typ, typ) || t.typ == name // a virtual tool: function "shell"
		})
	})
}

// rawString is the contents of a JSON string without escapes (names, types).
func rawString(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// put sets a member the mapping maps a field to, unless an earlier entry
// of the mapping set it (reasoning.summary before the deprecated
// generate_summary).
func (c *conv) put(obj codec.Ref, key string, raw []byte) {
	if !c.b.Has(obj, key) {
		c.b.Set(obj, key, raw)
	}
}

// hasNestedTools reports whether a function tool comes in the chat shape
// ({type, function:{name, …}}), which clients written for chat send.
func (c *conv) hasNestedTools() bool {
	for _, f := range c.doc.Findings() {
		// The decoder finds the chat shape's "function" unknown.
		if f.Kind == codec.UnknownField && string(f.Raw) != "" && f.Name() == "function" {
			for _, t := range c.top.tools.Elems() {
				if isNestedTool(t) {
					return true
				}
			}
			return false
		}
	}
	return false
}

func isNestedTool(t codec.Value) bool {
	typ, _ := t.Get("type").Str()
	return typ == "function" && t.Get("function").Kind() == codec.Object && !t.Get("name").Exists()
}

// flattenTools rewrites the request with its chat-shaped function tools in
// the Responses shape (the function's members beside type), the rest as
// it is.
func flattenTools(v codec.Value) []byte {
	var b codec.Builder
	b.Reset()
	for k, m := range v.Members() {
		if string(k.Bytes()) != "tools" {
			b.Set(codec.Top, k.String(), m.Raw())
			continue
		}
		arr := b.Array(codec.Top, "tools")
		for _, t := range m.Elems() {
			if !isNestedTool(t) {
				b.AppendRaw(arr, t.Raw())
				continue
			}
			el := b.AppendObject(arr)
			for tk, tv := range t.Members() {
				if string(tk.Bytes()) != "function" {
					b.Set(el, tk.String(), tv.Raw())
				}
			}
			for fk, fv := range t.Get("function").Members() {
				b.Set(el, fk.String(), fv.Raw())
			}
		}
	}
	return b.AppendJSON(nil)
}

// uniqueTools refuses two tools of one name upstream (a custom apply_patch
// and an apply_patch tool both become the function apply_patch).
func (c *conv) uniqueTools() {
	tools, ok := c.b.Child(codec.Top, "tools")
	if !ok {
		return
	}
	names := map[string]bool{}
	for el := range c.b.Objects(tools) {
		fn, ok := c.b.Child(el, "function")
		if !ok {
			if fn, ok = c.b.Child(el, "custom"); !ok {
				continue
			}
		}
		name := rawString(c.b.Raw(fn, "name"))
		if names[name] {
			c.fail(&Error{Message: "two tools are named " + strconv.Quote(name) + " upstream", Param: "tools", Code: "invalid_value"})
			return
		}
		names[name] = true
	}
}
