package mapping

// The transforms mapping/chat_responses_request.yaml names: chat messages,
// tools, tool choices and settings as Responses request members.

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/transponder-dev/transponder/codec"
)

// revSystem: a system or developer message → a message item of its role
// (a leading system message → instructions, with the option).
//
//transponder:transform object -> object
func revSystem(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	role := v.Get("role")
	content := v.Get("content")
	c.warnName(v, path)
	if c.opts.Instructions && path == "messages[0]" && string(role.Raw()) == `"system"` {
		c.hasIn = true
		if s, ok := content.Str(); ok {
			c.instr = append(c.instr, s...)
			return
		}
		for i, p := range content.Elems() {
			if i > 0 {
				c.instr = append(c.instr, "\n\n"...)
			}
			s, _ := p.Get("text").Str()
			c.instr = append(c.instr, s...)
		}
		return
	}
	it := c.item(dst, "message")
	c.b.SetLit(it, "role", role.Raw())
	if content.Kind() == codec.String {
		c.b.SetLit(it, "content", content.Raw())
		return
	}
	c.textParts(c.b.ArrayLit(it, "content"), content, "input_text")
}

// revUser: a user message → a user message item, its parts as input parts.
//
//transponder:transform object -> object
func revUser(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	content := v.Get("content")
	c.warnName(v, path)
	it := c.item(dst, "message")
	c.b.SetJSONLit(it, "role", `"user"`)
	if content.Kind() == codec.String {
		c.b.SetLit(it, "content", content.Raw())
		return
	}
	parts := c.b.ArrayLit(it, "content")
	for j, p := range content.Elems() {
		pp := path + ".content[" + strconv.Itoa(j) + "]"
		typ, _ := p.Get("type").Str()
		var out codec.Ref
		switch typ {
		case "text":
			out = c.b.AppendObject(parts)
			c.b.SetJSONLit(out, "type", `"input_text"`)
			c.b.SetLit(out, "text", p.Get("text").Raw())
		case "image_url":
			img := p.Get("image_url")
			out = c.b.AppendObject(parts)
			c.b.SetJSONLit(out, "type", `"input_image"`)
			c.b.SetLit(out, "image_url", img.Get("url").Raw())
			if d := img.Get("detail"); present(d) {
				c.b.SetLit(out, "detail", d.Raw())
			} else {
				c.b.SetJSONLit(out, "detail", `"auto"`)
			}
		case "file":
			f := p.Get("file")
			out = c.b.AppendObject(parts)
			c.b.SetJSONLit(out, "type", `"input_file"`)
			for _, k := range [...]string{"file_data", "file_id", "filename"} {
				if x := f.Get(k); present(x) {
					c.b.Set(out, k, x.Raw())
				}
			}
		case "input_audio":
			c.fail(&Error{Message: "a Responses request takes no audio input", Param: pp, Code: "unsupported_parameter"})
			return
		default:
			c.fail(&Error{Message: "unknown content part type " + strconv.Quote(typ), Param: pp + ".type", Code: "invalid_value"})
			return
		}
		if bp := p.Get("prompt_cache_breakpoint"); present(bp) {
			c.b.SetLit(out, "prompt_cache_breakpoint", bp.Raw())
		}
	}
}

// validToolName reports whether the Responses API takes name as a
// function's name: 1 to 64 of a-z, A-Z, 0-9, _ and -.
func validToolName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// revAssistant: an assistant message → its reasoning item, its message
// item and one call item per tool call, in that order.
//
//transponder:transform object -> object
func revAssistant(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	var content, refusal, calls, details, rc codec.Value
	for k, m := range v.Members() {
		switch string(k.Bytes()) {
		case "content":
			content = m
		case "refusal":
			refusal = m
		case "tool_calls":
			calls = m
		case "reasoning_details":
			details = m
		case "reasoning_content", "reasoning":
			if !present(rc) {
				rc = m
			}
		case "audio":
			if present(m) {
				c.warn(path+".audio", "a previous audio answer cannot be replayed to a Responses upstream; left out")
			}
		case "name":
			if present(m) {
				c.warn(path+".name", "a Responses input message has no participant name; left out")
			}
		}
	}
	c.reasoning(dst, details, rc, path)
	hasText := content.Kind() == codec.String && len(content.Raw()) > 2 || content.Kind() == codec.Array
	if hasText || refusal.Kind() == codec.String {
		it := c.item(dst, "message")
		c.b.SetJSONLit(it, "role", `"assistant"`)
		parts := c.b.ArrayLit(it, "content")
		if content.Kind() == codec.String && len(content.Raw()) > 2 {
			out := c.b.AppendObject(parts)
			c.b.SetJSONLit(out, "type", `"output_text"`)
			c.b.SetLit(out, "text", content.Raw())
			c.b.SetJSONLit(out, "annotations", `[]`)
			c.b.SetJSONLit(out, "logprobs", `[]`)
		}
		for _, p := range content.Elems() {
			out := c.b.AppendObject(parts)
			if p.Get("type").IsStr("refusal") {
				c.b.SetJSONLit(out, "type", `"refusal"`)
				c.b.SetLit(out, "refusal", p.Get("refusal").Raw())
				continue
			}
			c.b.SetJSONLit(out, "type", `"output_text"`)
			c.b.SetLit(out, "text", p.Get("text").Raw())
			c.b.SetJSONLit(out, "annotations", `[]`)
			c.b.SetJSONLit(out, "logprobs", `[]`)
		}
		if refusal.Kind() == codec.String {
			out := c.b.AppendObject(parts)
			c.b.SetJSONLit(out, "type", `"refusal"`)
			c.b.SetLit(out, "refusal", refusal.Raw())
		}
	}
	for j, tc := range calls.Elems() {
		cp := path + ".tool_calls[" + strconv.Itoa(j) + "]"
		id, _ := tc.Get("id").Str()
		if id == "" {
			c.fail(&Error{Message: "a tool call needs an id, which its tool message names", Param: cp + ".id", Code: "invalid_value"})
			return
		}
		if _, dup := c.calls[id]; dup {
			c.fail(&Error{Message: "duplicate tool call id " + strconv.Quote(id), Param: cp + ".id", Code: "invalid_value"})
			return
		}
		fn, itemType, outType, argKey, nameAt := tc.Get("function"), "function_call", "function_call_output", "arguments", ".function.name"
		if tc.Get("type").IsStr("custom") {
			fn, itemType, outType, argKey, nameAt = tc.Get("custom"), "custom_tool_call", "custom_tool_call_output", "input", ".custom.name"
		}
		name, _ := fn.Get("name").Str()
		if !validToolName(name) {
			c.fail(&Error{Message: "invalid tool name " + strconv.Quote(name) + ": 1 to 64 of a-z, A-Z, 0-9, _ and -", Param: cp + nameAt, Code: "invalid_value"})
			return
		}
		c.calls[id] = outType
		it := c.item(dst, itemType)
		c.b.SetLit(it, "call_id", tc.Get("id").Raw())
		c.b.SetLit(it, "name", fn.Get("name").Raw())
		c.b.Set(it, argKey, fn.Get(argKey).Raw())
	}
}

// reasoning appends the reasoning items of an assistant message: from
// OpenRouter's reasoning_details, else from a reasoning text.
func (c *rev) reasoning(dst codec.Ref, details, text codec.Value, path string) {
	if details.Kind() == codec.Array && len(details.Raw()) > 2 {
		// The details of one reasoning item run until one that cannot join
		// it: another id or format, a piece of a kind the item holds after
		// (a summary after a text, anything after the encrypted content),
		// a second signature. So the pieces keep their order and each item
		// its id, format and signature, as the forward direction wrote them.
		group := c.group[:0]
		var id, format []byte
		rank, signed, n := 0, false, 0
		for j, d := range details.Elems() {
			r := detailRank(d)
			if r == 0 {
				t, _ := d.Get("type").Str()
				c.warn(path+".reasoning_details["+strconv.Itoa(j)+"]", "reasoning detail type "+strconv.Quote(t)+" is unknown; left out")
				continue
			}
			did, dformat := d.Get("id"), d.Get("format")
			sig := present(d.Get("signature"))
			if len(group) > 0 && (r < rank || r == rankEncrypted && rank == rankEncrypted || sig && signed ||
				present(did) && id != nil && !bytes.Equal(did.Raw(), id) ||
				present(dformat) && format != nil && !bytes.Equal(dformat.Raw(), format)) {
				c.reasoningItem(dst, group, path, n)
				group, n = group[:0], n+1
				id, format, rank, signed = nil, nil, 0, false
			}
			group = append(group, reasonDetail{v: d, index: j})
			rank = max(rank, r)
			signed = signed || sig
			if present(did) && id == nil {
				id = did.Raw()
			}
			if present(dformat) && format == nil {
				format = dformat.Raw()
			}
		}
		if len(group) > 0 {
			c.reasoningItem(dst, group, path, n)
		}
		c.group = group[:0] // kept for the next message
		return
	}
	if text.Kind() == codec.String && len(text.Raw()) > 2 {
		if c.opts.Dialect == OpenAI {
			c.warn(path+".reasoning_content", openAIReasoning)
			return
		}
		it := c.item(dst, "reasoning")
		c.b.SetStringLit(it, "id", reasoningID(path, 0))
		c.b.SetJSONLit(it, "summary", `[]`)
		p := c.b.AppendObject(c.b.ArrayLit(it, "content"))
		c.b.SetJSONLit(p, "type", `"reasoning_text"`)
		c.b.SetLit(p, "text", text.Raw())
	}
}

// openAIReasoning is why reasoning without encrypted content does not
// reach OpenAI.
const openAIReasoning = "OpenAI's Responses API replays reasoning only from its encrypted_content (an item given by id alone must be stored there); this reasoning has none and is left out"

// A reasoning detail of a group, with its index in reasoning_details.
type reasonDetail struct {
	v     codec.Value
	index int
}

// The order of the pieces of a reasoning item.
const (
	rankSummary = 1 + iota
	rankText
	rankEncrypted
)

// detailRank is the place of a reasoning detail's piece in a reasoning
// item (0: a type it does not know).
func detailRank(d codec.Value) int {
	switch t, _ := d.Get("type").Str(); t {
	case "reasoning.summary":
		return rankSummary
	case "reasoning.text":
		return rankText
	case "reasoning.encrypted":
		return rankEncrypted
	}
	return 0
}

// reasoningItem appends the reasoning item of a group of details (the
// n-th item of the message when n > 0, for its id). OpenAI's takes no
// format or signature (a signature is warned), and none at all without
// encrypted content unless it names an item stored upstream.
func (c *rev) reasoningItem(dst codec.Ref, group []reasonDetail, path string, n int) {
	var id, format, sig, enc codec.Value
	for _, d := range group {
		if v := d.v.Get("id"); present(v) && !present(id) {
			id = v
		}
		if v := d.v.Get("format"); present(v) && !present(format) {
			format = v
		}
		if v := d.v.Get("signature"); present(v) {
			sig = v
		}
		if detailRank(d.v) == rankEncrypted {
			enc = d.v.Get("data")
		}
	}
	at := path + ".reasoning_details[" + strconv.Itoa(group[0].index) + "]"
	if c.opts.Dialect == OpenAI {
		if !present(enc) && !(c.opts.Store && present(id)) {
			c.warn(at, openAIReasoning)
			return
		}
		if present(sig) {
			c.warn(at+".signature", "OpenAI's reasoning item has no signature; left out")
		}
	}
	it := c.item(dst, "reasoning")
	var summary, content codec.Ref
	for _, d := range group {
		switch detailRank(d.v) {
		case rankSummary:
			if summary == 0 {
				summary = c.b.ArrayLit(it, "summary")
			}
			p := c.b.AppendObject(summary)
			c.b.SetJSONLit(p, "type", `"summary_text"`)
			c.b.SetLit(p, "text", d.v.Get("summary").Raw())
		case rankText:
			if content == 0 {
				content = c.b.ArrayLit(it, "content")
			}
			p := c.b.AppendObject(content)
			c.b.SetJSONLit(p, "type", `"reasoning_text"`)
			c.b.SetLit(p, "text", d.v.Get("text").Raw())
		}
	}
	if summary == 0 {
		c.b.SetJSONLit(it, "summary", `[]`) // the spec requires it
	}
	if present(id) {
		c.b.SetLit(it, "id", id.Raw())
	} else {
		c.b.SetStringLit(it, "id", reasoningID(path, n))
	}
	if present(enc) {
		c.b.SetLit(it, "encrypted_content", enc.Raw())
	}
	if c.opts.Dialect == OpenRouter {
		if s, _ := format.Str(); slices.Contains(reasoningFormats(), s) {
			c.b.SetLit(it, "format", format.Raw())
		}
		if present(sig) {
			c.b.SetLit(it, "signature", sig.Raw())
		}
	}
}

// reasoningFormats are the formats OpenRouter's reasoning item takes: the
// pinned spec's enum (nil if the spec has no such field).
var reasoningFormats = sync.OnceValue(func() []string {
	root, _ := codec.OpenRouter.Payload(codec.ResponsesRequest)
	s, err := root.Schema().Lookup("input{array}[]{reasoning}.format")
	if err != nil {
		return nil
	}
	return s.Values()
})

// revTool: a tool message → the output item of its call.
//
//transponder:transform object -> object
func revTool(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	id := v.Get("tool_call_id")
	s, _ := id.Str()
	typ, ok := c.calls[s]
	if !ok {
		c.fail(&Error{Message: "tool_call_id " + strconv.Quote(s) + " names no tool call of an earlier assistant message", Param: path + ".tool_call_id", Code: "invalid_value"})
		return
	}
	it := c.item(dst, typ)
	c.b.SetLit(it, "call_id", id.Raw())
	content := v.Get("content")
	if content.Kind() == codec.String {
		c.b.SetLit(it, "output", content.Raw())
		return
	}
	c.textParts(c.b.ArrayLit(it, "output"), content, "input_text")
}

// revStore: the request's store is the options'; a client's that differs
// is warned.
//
//transponder:transform boolean -> boolean
func revStore(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	if b, _ := v.Bool(); b != c.opts.Store {
		c.warn(path, "the Responses request's store is ReverseOptions.Store ("+strconv.FormatBool(c.opts.Store)+"); a chat store keeps a completion for evals, a Responses store keeps state upstream")
	}
	c.b.SetBool(dst, key, c.opts.Store)
}

// revAllowedTools: chat's nested allowed tools → flat.
//
//transponder:transform array -> array
func revAllowedTools(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	arr := c.b.Array(dst, key)
	for _, t := range v.Elems() {
		typ, _ := t.Get("type").Str()
		inner := t.Get(typ)
		if (typ == "function" || typ == "custom") && present(inner.Get("name")) {
			o := c.b.AppendObject(arr)
			c.b.SetLit(o, "type", t.Get("type").Raw())
			c.b.SetLit(o, "name", inner.Get("name").Raw())
			continue
		}
		c.b.AppendRaw(arr, t.Raw())
	}
}

// revFunctions: the deprecated functions → flat function tools.
//
//transponder:transform array -> object
func revFunctions(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	for _, f := range v.Elems() {
		o := c.b.AppendObject(dst)
		c.b.SetJSONLit(o, "type", `"function"`)
		for _, k := range [...]string{"name", "description", "parameters"} {
			if x := f.Get(k); present(x) {
				c.b.Set(o, k, x.Raw())
			}
		}
	}
}

// revWebSearch: web_search_options → the web_search tool.
//
//transponder:transform object -> object
func revWebSearch(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	o := c.b.AppendObject(dst)
	c.b.SetJSONLit(o, "type", `"web_search"`)
	if s := v.Get("search_context_size"); present(s) {
		c.b.SetLit(o, "search_context_size", s.Raw())
	}
	if loc := v.Get("user_location").Get("approximate"); present(loc) {
		l := c.b.ObjectLit(o, "user_location")
		c.b.SetJSONLit(l, "type", `"approximate"`)
		for k, m := range loc.Members() {
			c.b.Set(l, string(k.Bytes()), m.Raw())
		}
	}
}

// revReasoning: OpenRouter's reasoning {effort, summary, max_tokens,
// enabled} → reasoning (max_tokens and enabled for OpenRouter only);
// reasoning_effort, mapped before, wins.
//
//transponder:transform object -> object
func revReasoning(c *rev, v codec.Value, path string, dst codec.Ref, key string) {
	r := c.b.Object(dst, key)
	for k, m := range v.Members() {
		switch name := string(k.Bytes()); name {
		case "effort", "summary":
			if !c.b.Has(r, name) {
				c.b.Set(r, name, m.Raw())
			}
		case "max_tokens", "enabled":
			if c.opts.Dialect == OpenRouter { // OpenRouter's Responses reasoning has them
				c.b.Set(r, name, m.Raw())
				continue
			}
			c.warn(path+"."+name, "OpenAI's Responses reasoning has no "+name+"; left out")
		default:
			c.warn(path+"."+name, "the Responses reasoning has no "+name+"; left out")
		}
	}
}

// reasoningID is the id of a reasoning item made from a chat message's
// reasoning that has none (the spec requires one): rs_ and the message's
// index, deterministic.
func reasoningID(path string, n int) string {
	id := "rs_" + strings.TrimSuffix(strings.TrimPrefix(path, "messages["), "]")
	if n > 0 {
		id += "_" + strconv.Itoa(n)
	}
	return id
}
