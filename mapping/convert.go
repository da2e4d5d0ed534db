package mapping

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/transponder-dev/transponder/codec"
)

// ResponsesToChat converts a Responses request (the body of POST
// /responses) into a Chat Completions request of the options' dialect,
// following mapping/responses_chat.yaml. Every field it does not carry, or
// carries with a loss, gives a warning; fields the serving layer handles
// (store, previous_response_id, …) give none. It returns an *Error
// for a body that is not JSON, has no model, has a value of the wrong type, sets what
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
	if err := c.decode(body); err != nil {
		return dst, c.warns, err
	}
	return cv.convert(dst, &opts)
}

// required refuses a chat request without a field its dialect's schema
// requires at the top (messages, model): a request with no input, or no
// model. (The fields chat needs deeper are checked on the way in:
// needed.)
func (c *conv) required() {
	root, _ := c.opts.Dialect.codec().Payload(codec.ChatRequest)
	for p := range root.Schema().Required() {
		ref, isContainer := c.b.Child(codec.Top, p.Key)
		if isContainer && c.b.Empty(ref) || !isContainer && c.b.Raw(codec.Top, p.Key) == nil {
			e := &Error{Message: "the converted " + c.opts.Dialect.String() + " chat request would have no " + p.Key, Code: "missing_required_parameter"}
			if p.Key == "messages" { // what the input held was left out
				e.Param = "input"
			}
			c.fail(e)
			return
		}
	}
}

// clearMap empties m: clear's call into the runtime costs about 20
// instructions even for an empty map, and a conversion resets ten of
// them, most of them empty.
func clearMap[K comparable, V any](m map[K]V) {
	if len(m) > 0 {
		clear(m)
	}
}

func (c *conv) reset() {
	c.warns = c.warns[:0]
	clearMap(c.warnedPaths)
	c.warnedN = 0
	c.err = nil
	c.sys = -1
	c.sysText = c.sysText[:0]
	c.allowed = c.allowed[:0]
	c.filter = false
	c.chatChoice = false
	c.sent.reset()
	c.b.Reset()
	c.h.reset()
	c.tools.reset()
	c.names.next()
}

// conv is one conversion.
type conv struct {
	opts      Options // the conversion's (a copy: a pointer to the caller's would escape)
	doc       codec.Doc
	decoded   bool // doc holds the request as the mapping reads it
	pending   bool // decoded, not converted yet
	b         codec.Builder
	warns     []Warning
	err       *Error
	toolNames [][]byte // uniqueTools' scratch: the chat tools' names

	warnedPaths map[string]bool // the paths of warns[:warnedN]
	warnedN     int

	sys     codec.Ref // Merge: the first system message
	sysText []byte    // Merge: its text so far, JSON-escaped
	allowed []allowedTool
	filter  bool // tool_choice allowed_tools: keep only the allowed tools
	// chatChoice: the tool choice came in the chat shape (errors name its
	// paths as the client sent them).
	chatChoice bool
	sent       sentChoice // its shape, when it did

	h     history // the input items' reduction
	tools ToolMap // the tools as the upstream sees them
	names names   // the tools' names, as strings, kept from one request to the next

	scratch, scratchOut []byte
	joined              []byte // texts joined into one (textOnly, texts)

	// strict: the converted request, read back against the dialect's
	// shape (pruneUnknown), kept from one conversion to the next (the Doc
	// made by the first: most dialects have no use for it, and a fresh
	// conversion's Converter is smaller without it)
	strictOut []byte
	strictDoc *codec.Doc

	// top holds the top-level fields the checks read (read in one pass:
	// each Get would step over the whole input again).
	top topFields
}

type topFields struct {
	background, conversation, toolChoice, sessionID, input codec.Value
	limits                                                 limits // checkLimits' fields: model and tools among them
}

func (c *conv) capture(v codec.Value) {
	c.top = topFields{}
	for k, m := range v.Members() {
		key := k.Bytes()
		if c.top.limits.read(key, m) { // model, tools, metadata, the bounded numbers
			continue
		}
		switch string(key) {
		case "background":
			c.top.background = m
		case "conversation":
			c.top.conversation = m
		case "tool_choice":
			c.top.toolChoice = m
		case "session_id": // OpenRouter's, which prompt_cache_key does not override
			c.top.sessionID = m
		case "input":
			c.top.input = m
		}
	}
}

type allowedTool struct{ typ, name string }

// run converts the request decode read.
func (c *conv) run(opts *Options) error {
	if !opts.Dialect.valid() {
		return fmt.Errorf("mapping: no dialect %d (Dialects lists them)", opts.Dialect)
	}
	c.opts = *opts
	root, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	v := c.doc.Value()
	c.capture(v)
	c.chatChoice = isNestedChoice(c.top.toolChoice)
	if c.chatChoice {
		c.sent.record(c.top.toolChoice)
	}
	if c.hasNestedTools() {
		if err := c.doc.Decode(root, flattenTools(v)); err != nil {
			c.decoded = false
			return &Error{Message: "the body is not valid JSON", Code: "invalid_json"}
		}
		v = c.doc.Value()
		c.capture(v)
	}
	if c.doc.HasTag("item_reference") {
		body, err := c.resolveReferences(v)
		if err != nil {
			return err
		}
		if body != nil {
			if err := c.doc.Decode(root, body); err != nil {
				c.decoded = false
				return &Error{Message: "the body is not valid JSON", Code: "invalid_json"}
			}
			v = c.doc.Value()
			c.capture(v)
		}
	}
	c.offerTools()
	if err := c.check(); err != nil {
		return err // a non-nil *Error
	}
	c.responsesChat(v)
	if c.err != nil {
		return c.err
	}
	c.finish(v)
	if c.err != nil {
		return c.err
	}
	return nil
}

// finish applies what needs the whole converted request: unknown
// top-level fields, the allowed-tools filter, the session option, and a
// tool choice left without tools.
func (c *conv) finish(v codec.Value) {
	c.settle()
	if c.err != nil {
		return
	}
	c.offerLoaded()
	target, _ := c.opts.Dialect.codec().Payload(codec.ChatRequest)
	for _, f := range c.doc.Findings() {
		switch f.Kind {
		case codec.UnknownField, codec.ExtraField:
			if f.TopLevel() {
				c.unknownTopLevel(f, target.Schema())
				continue
			}
			if p := c.sentPath(f.Path()); !c.warned(p) {
				c.warnUnknown(p, "a field the pinned spec does not know; not carried")
			}
		}
	}
	if c.filter {
		c.filterTools()
	}
	c.uniqueTools()
	c.required()
	if dialects[c.opts.Dialect].strict {
		c.pruneUnknown()
	}
	if len(c.opts.Provider) > 0 && c.opts.Dialect.base() == OpenRouter {
		if c.b.Has(codec.Top, "provider") {
			c.warn("provider", "replaced by the operator's provider preferences")
		}
		c.b.SetLit(codec.Top, "provider", c.opts.Provider)
	}
	if c.opts.SessionID != "" && c.opts.Dialect.base() == OpenRouter && !c.b.Has(codec.Top, "session_id") {
		c.b.SetStringLit(codec.Top, "session_id", c.opts.SessionID)
	}
	if tools, ok := c.b.Child(codec.Top, "tools"); !ok || c.b.Empty(tools) {
		// Chat refuses a tool choice without tools.
		if c.b.Has(codec.Top, "tool_choice") {
			c.b.Delete(codec.Top, "tool_choice")
			if tc := c.top.toolChoice; !(tc.Kind() == codec.String && string(tc.Raw()) == `"auto"`) {
				c.warn("tool_choice", "no tool the upstream can call is left; tool_choice is left out")
			}
		}
		c.b.Delete(codec.Top, "parallel_tool_calls")
	}
}

// unknownTopLevel passes a top-level field the Responses spec does not
// know through if the target dialect has it (OpenRouter's provider,
// models, plugins, session_id, …) and the mapping did not set it; the
// mapping's extras were handled already.
func (c *conv) unknownTopLevel(f codec.Finding, target codec.Schema) {
	if isResponsesChatExtra(f.NameBytes()) {
		return
	}
	key := f.Name()
	if _, ok := target.Property(key); !ok {
		c.warnUnknown(f.Path(), "a field neither the Responses spec nor the "+c.opts.Dialect.String()+" chat request has; not carried")
		return
	}
	if c.b.Has(codec.Top, key) {
		c.warn(f.Path(), "also set by the mapping of a Responses field; the mapped value is kept")
		return
	}
	c.b.Set(codec.Top, key, f.Raw)
}

// drop warns that a field is left out (generated code).
func (c *conv) drop(_ codec.Value, path, reason string) { c.warn(path, reason) }

// warn records a warning. It is not inlined: the generated converters
// call it (drop) in most of their cases, and its append inlined in each
// made them a quarter larger (responsesChatOpenRouter 27.1 KB, 19.9 KB
// without), spreading the code a request runs over more of the
// instruction cache (the 1.1 KB request 2–7% faster without).
//
//go:noinline
func (c *conv) warn(path, reason string) {
	c.warns = append(c.warns, Warning{Path: path, Reason: reason})
}

// warnUnknown warns of a field the spec does not know.
//
//go:noinline
func (c *conv) warnUnknown(path, reason string) {
	c.warns = append(c.warns, Warning{Path: path, Reason: reason, Unknown: true})
}

// warned reports whether there is a warning for path already (a
// transform that says what it leaves out).
func (c *conv) warned(path string) bool {
	if c.warnedPaths == nil {
		c.warnedPaths = map[string]bool{}
	}
	for ; c.warnedN < len(c.warns); c.warnedN++ {
		c.warnedPaths[c.warns[c.warnedN].Path] = true
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
	if isItemPath(path) {
		if c.opts.UnknownItems == RejectUnknownItems {
			c.fail(&Error{Message: "input item " + path[len("input"):] + " has the type " + strconv.Quote(typ) + ", which the pinned spec does not know; history would be lost (DropUnknownItems leaves such items out)", Param: path, Code: "invalid_value"})
			return
		}
		c.warn(path, "an input item of type "+strconv.Quote(typ)+", which the pinned spec does not know; left out")
		return
	}
	if c.opts.UnknownTypes == RejectUnknown {
		c.fail(&Error{Message: "unknown type " + strconv.Quote(typ), Param: tagPath(path, typ, "type"), Code: "invalid_value"})
		return
	}
	c.warn(path, "type "+strconv.Quote(typ)+" is unknown to the pinned spec; left out")
}

// unknownPart is unknownType for a content part; in a tool output (tool),
// a type the spec knows as a message's content part but does not allow
// in an output (output_text, refusal) is named as such.
func (c *conv) unknownPart(n codec.Node, ok bool, path string, tool bool) {
	if !ok || !tool {
		c.unknownType(n, ok, path)
		return
	}
	parts := specParts()
	typ := n.Type()
	if !slices.Contains(parts.message, typ) {
		c.unknownType(n, ok, path)
		return
	}
	reason := "type " + strconv.Quote(typ) + " is not allowed in a tool output: the spec allows " + strings.Join(parts.output, ", ")
	if c.opts.UnknownTypes == RejectUnknown {
		c.fail(&Error{Message: reason, Param: n.Path(), Code: "invalid_value"})
		return
	}
	c.warn(n.Path(), reason+"; left out")
}

// partTypes are the content part types of the Responses spec: a message's
// and a tool output's.
type partTypes struct{ message, output []string }

// specParts reads the part types from the pinned spec's tables.
var specParts = sync.OnceValue(func() partTypes {
	var p partTypes
	root, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	for _, at := range [...]struct {
		path string
		dst  *[]string
	}{
		{"input{array}[]{message}.content{array}[]", &p.message},
		{"input{array}[]{function_call_output}.output{array}[]", &p.output},
	} {
		// The tables are generated from the pinned spec; without the path
		// (not in any spec so far) every such part is merely unknown.
		s, err := root.Schema().Lookup(at.path)
		if err != nil {
			continue
		}
		for v := range s.Variants() {
			*at.dst = append(*at.dst, v.Value)
		}
	}
	return p
})

// isItemPath reports whether path is an input item's: input[3].
func isItemPath(path string) bool {
	rest, ok := strings.CutPrefix(path, "input[")
	return ok && strings.IndexByte(rest, ']') == len(rest)-1
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
func present(v codec.Value) bool { return v.Present() }

// at is the path of an element's field: at("tools", 2, "name") is
// "tools[2].name".
func at(array string, i int, field string) string {
	p := array + "[" + strconv.Itoa(i) + "]"
	if field != "" {
		p += "." + field
	}
	return p
}

// atElem is at for the generated code, which also passes the path of the
// first element's field: the common case costs no allocation.
func atElem(array string, i int, field, first string) string {
	if i == 0 {
		return first
	}
	return at(array, i, field)
}

// model maps a model name through the options' rules.
func (c *conv) model(name string) string {
	return renameModel(c.opts.Models, name)
}

// rawString is the string a JSON string of the built request holds ("" for
// another kind): names and types.
func rawString(raw []byte) string {
	s, _ := codec.Unquote(raw)
	return s
}

// put sets a member the mapping maps a field to, unless an earlier entry
// of the mapping set it (reasoning.summary before the deprecated
// generate_summary). Generated code's: key is a literal the generator
// checked.
func (c *conv) put(obj codec.Ref, key string, raw []byte) { c.b.SetNewLit(obj, key, raw) }

// tagPath is the path of a union value's tag (OpenAI's errors name
// tools[0].type, not tools[0]); path itself when the tag is absent.
func tagPath(path, typ, tag string) string {
	if typ == "" {
		return path
	}
	return path + "." + tag
}

func isEmpty(a codec.Value) bool {
	for range a.Elems() {
		return false
	}
	return true
}
