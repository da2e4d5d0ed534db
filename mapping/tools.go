package mapping

// The checks and rewrites of the request's tools that need the whole
// request: a forced tool must be offered, allowed tools filter the list
// for a dialect without allowed_tools, chat-shaped function tools are
// read as Responses ones, two tools may not share a name upstream.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// offered lists the tools of the request, as (type, name): a function by
// its name (a namespace's by its upstream name), a custom tool by its
// name, others by their type.
func (c *conv) offered() []allowedTool {
	var out []allowedTool
	for _, t := range c.top.tools.Elems() {
		typ, _ := t.Get("type").Str()
		switch typ {
		case "function", "custom":
			name, _ := t.Get("name").Str()
			out = append(out, allowedTool{typ, name})
		case "namespace":
			ns, _ := t.Get("name").Str()
			for _, f := range t.Get("tools").Elems() {
				ft, _ := f.Get("type").Str()
				name, _ := f.Get("name").Str()
				out = append(out, allowedTool{"function", c.upstreamName(ft, ns, name)})
			}
		default:
			out = append(out, allowedTool{typ, ""})
		}
	}
	return out
}

// sameHosted says which tool types a forced hosted tool choice may name:
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
	tools := c.offered()
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
		if name == "" {
			return &Error{Message: "missing required parameter (an empty name names no tool)", Param: c.sentPath("tool_choice.name"), Code: "missing_required_parameter"}
		}
		if !has(typ, name) {
			return &Error{Message: "tool_choice forces " + typ + " " + strconv.Quote(name) + ", which is not in tools", Param: c.sentPath("tool_choice.name"), Code: "invalid_value"}
		}
	case "allowed_tools":
		for i, t := range tc.Get("tools").Elems() {
			tt, _ := t.Get("type").Str()
			name, _ := t.Get("name").Str()
			if tt == "function" || tt == "custom" {
				if name == "" { // the spec leaves these tools free-form
					return &Error{Message: "missing required parameter: an allowed " + tt + " tool names its tool", Param: c.sentPath(at("tool_choice.tools", i, "name")), Code: "missing_required_parameter"}
				}
				if !has(tt, name) {
					return &Error{Message: "allowed tool " + strconv.Quote(name) + " is not in tools", Param: c.sentPath(at("tool_choice.tools", i, "name")), Code: "invalid_value"}
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

// hasNestedTools reports whether a function tool or the tool choice comes
// in the chat shape ({type, function:{name, …}}), which clients written
// for chat send.
func (c *conv) hasNestedTools() bool {
	if isNestedChoice(c.top.toolChoice) {
		return true
	}
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

// isNestedChoice reports whether a tool choice is in the chat shape:
// {type:function, function:{name}}, {type:custom, custom:{name}} or
// {type:allowed_tools, allowed_tools:{mode, tools}}.
func isNestedChoice(tc codec.Value) bool {
	if tc.Kind() != codec.Object {
		return false
	}
	switch typ, _ := tc.Get("type").Str(); typ {
	case "function", "custom":
		return tc.Get(typ).Kind() == codec.Object && !tc.Get("name").Exists()
	case "allowed_tools":
		return tc.Get(typ).Kind() == codec.Object && !tc.Get("tools").Exists()
	}
	return false
}

// sentChoice remembers the shape of a chat-shaped tool choice, so that a
// path in its flattened form can be named as the client sent it.
type sentChoice struct {
	typ   string     // function, custom or allowed_tools: the nesting key
	top   []string   // the keys beside type, which stay where they are
	elems []sentElem // allowed_tools: its tools
}

// sentElem is one tool of a chat-shaped allowed_tools choice: typ is the
// key its members were lifted from ("" when it was flat).
type sentElem struct {
	typ string
	top []string
}

func (s *sentChoice) reset() {
	s.typ = ""
	s.top = s.top[:0]
	s.elems = s.elems[:0]
}

// record notes the shape of a chat-shaped tool choice (isNestedChoice).
func (s *sentChoice) record(tc codec.Value) {
	s.reset()
	s.typ, _ = tc.Get("type").Str()
	for k := range tc.Members() {
		if string(k.Bytes()) != s.typ {
			s.top = append(s.top, k.String())
		}
	}
	if s.typ != "allowed_tools" {
		return
	}
	for _, t := range tc.Get(s.typ).Get("tools").Elems() {
		tt, _ := t.Get("type").Str()
		if tt != "function" && tt != "custom" || t.Get(tt).Kind() != codec.Object || t.Get("name").Exists() {
			s.elems = append(s.elems, sentElem{})
			continue
		}
		e := sentElem{typ: tt}
		for k := range t.Members() {
			if string(k.Bytes()) != tt {
				e.top = append(e.top, k.String())
			}
		}
		s.elems = append(s.elems, e)
	}
}

// sentPath names a path of the tool choice as the client sent it: a
// member flattenChoice lifted out of the chat shape's nested object is
// named inside it (tool_choice.name → tool_choice.function.name,
// tool_choice.tools[0].name → tool_choice.allowed_tools.tools[0].function.name).
// Other paths are returned as they are.
func (c *conv) sentPath(p string) string {
	s := &c.sent
	rest, ok := strings.CutPrefix(p, "tool_choice.")
	if !c.chatChoice || !ok {
		return p
	}
	key, tail := splitPath(rest)
	if slices.Contains(s.top, key) {
		return p
	}
	out := "tool_choice." + s.typ + "." + key
	if s.typ != "allowed_tools" || key != "tools" || !strings.HasPrefix(tail, "[") {
		return out + tail
	}
	end := strings.IndexByte(tail, ']')
	i, err := strconv.Atoi(tail[1:max(end, 1)])
	if end < 0 || err != nil || i < 0 || i >= len(s.elems) || s.elems[i].typ == "" {
		return out + tail
	}
	e := s.elems[i]
	out += tail[:end+1]
	ek, etail := splitPath(strings.TrimPrefix(tail[end+1:], "."))
	if ek == "" || slices.Contains(e.top, ek) {
		return out + tail[end+1:]
	}
	return out + "." + e.typ + "." + ek + etail
}

// splitPath splits a JSON path into its first key and the rest (which
// starts with "." or "[", or is empty).
func splitPath(p string) (key, rest string) {
	if i := strings.IndexAny(p, ".["); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// flattenChoice writes a chat-shaped tool choice in the Responses shape:
// the named tool's members (or allowed_tools' mode and tools, each tool
// flattened as a function tool is) beside type.
func flattenChoice(b *codec.Builder, tc codec.Value) {
	obj := b.Object(codec.Top, "tool_choice")
	typ, _ := tc.Get("type").Str()
	for k, m := range tc.Members() {
		if string(k.Bytes()) != typ {
			b.Set(obj, k.String(), m.Raw())
		}
	}
	for k, m := range tc.Get(typ).Members() {
		if typ != "allowed_tools" || string(k.Bytes()) != "tools" {
			b.Set(obj, k.String(), m.Raw())
			continue
		}
		arr := b.Array(obj, "tools")
		for _, t := range m.Elems() {
			tt, _ := t.Get("type").Str()
			inner := t.Get(tt)
			if tt != "function" && tt != "custom" || inner.Kind() != codec.Object || t.Get("name").Exists() {
				b.AppendRaw(arr, t.Raw())
				continue
			}
			el := b.AppendObject(arr)
			for tk, tv := range t.Members() {
				if string(tk.Bytes()) != tt {
					b.Set(el, tk.String(), tv.Raw())
				}
			}
			for fk, fv := range inner.Members() {
				b.Set(el, fk.String(), fv.Raw())
			}
		}
	}
}

// flattenTools rewrites the request with its chat-shaped function tools
// and tool choice in the Responses shape (the function's members beside
// type), the rest as it is.
// FlatRequest is a Responses request (v, its top-level object) with its
// chat-shaped tools and tool choice in the Responses shape, as the mapping
// reads them; ok false when it has none (v is as the mapping reads it).
// What a Response echoes of the request is this.
func FlatRequest(v codec.Value) (flat []byte, ok bool) {
	if isNestedChoice(v.Get("tool_choice")) {
		return flattenTools(v), true
	}
	for _, t := range v.Get("tools").Elems() {
		if isNestedTool(t) {
			return flattenTools(v), true
		}
	}
	return nil, false
}

func flattenTools(v codec.Value) []byte {
	var b codec.Builder
	b.Reset()
	for k, m := range v.Members() {
		if string(k.Bytes()) == "tool_choice" && isNestedChoice(m) {
			flattenChoice(&b, m)
			continue
		}
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

// offerTools makes the tool map of the request's tools: plain names first
// (functions, custom tools, the built-ins under their type), then the
// tools of namespaces, under names none of those has.
func (c *conv) offerTools() {
	custom := c.opts.Dialect == OpenAI
	var spaces []codec.Value
	for _, t := range c.top.tools.Elems() {
		if vt, ok := plainTool(t, custom); ok {
			c.tools.add(vt) // a name taken twice: uniqueTools refuses it
		} else if typ, _ := t.Get("type").Str(); typ == "namespace" {
			spaces = append(spaces, t)
		}
	}
	for _, t := range spaces {
		c.offerNamespace(t)
	}
}

// plainTool is the entry of a tool offered under its own name.
func plainTool(t codec.Value, custom bool) (VirtualTool, bool) {
	typ, _ := t.Get("type").Str()
	switch typ {
	case "function", "custom":
		name, _ := t.Get("name").Str()
		return VirtualTool{Name: name, Type: typ, ToolName: name, Custom: custom && typ == "custom"}, true
	case "local_shell", "shell", "apply_patch":
		return VirtualTool{Name: typ, Type: typ}, true
	case "tool_search":
		if e, _ := t.Get("execution").Str(); e != "server" {
			return VirtualTool{Name: typ, Type: typ}, true
		}
	}
	return VirtualTool{}, false
}

// offerNamespace names a namespace's functions and custom tools.
func (c *conv) offerNamespace(t codec.Value) {
	c.namespaceMembers(t, "", false, func(_ codec.Value, typ, ns, name, _ string) {
		c.tools.addNamespaced(VirtualTool{Type: typ, Namespace: ns, ToolName: name, Custom: typ == "custom" && c.opts.Dialect == OpenAI})
	})
}

// namespaceMembers calls f for each function and custom tool of a
// namespace; with warn, it warns for what chat cannot carry of it (its
// description, its other tools).
func (c *conv) namespaceMembers(t codec.Value, path string, warn bool, f func(tool codec.Value, typ, ns, name, path string)) {
	ns, _ := t.Get("name").Str()
	if d := t.Get("description"); warn && present(d) {
		c.warn(path+".description", "chat has no namespaces; the namespace's description is not carried")
	}
	for i, tool := range t.Get("tools").Elems() {
		typ, _ := tool.Get("type").Str()
		p := ""
		if warn {
			p = at(path+".tools", i, "")
		}
		if typ != "function" && typ != "custom" {
			if warn {
				c.warn(p, "only functions and custom tools of a namespace are converted; "+typ+" is left out")
			}
			continue
		}
		name, _ := tool.Get("name").Str()
		f(tool, typ, ns, name, p)
	}
}

// loadTools names the tools an input item loads (tool_search_output,
// additional_tools) where the item is, so that later calls find them, and
// keeps those not offered yet for offerLoaded.
func (c *conv) loadTools(tools codec.Value, path string) {
	custom := c.opts.Dialect == OpenAI
	for i, t := range tools.Elems() {
		p := at(path, i, "")
		typ, _ := t.Get("type").Str()
		if vt, ok := plainTool(t, custom); ok {
			dup, ok := c.tools.add(vt)
			switch {
			case dup:
			case !ok:
				c.fail(&Error{Message: "a loaded tool is named " + strconv.Quote(vt.Name) + " upstream, as another tool is", Param: p, Code: "invalid_value"})
				return
			default:
				c.h.offer = append(c.h.offer, pendingTool{t, p, ""})
			}
			continue
		}
		if typ != "namespace" {
			c.warn(p, "a loaded tool of type "+typ+" is not offered upstream")
			continue
		}
		c.namespaceMembers(t, p, true, func(f codec.Value, typ, ns, name, fp string) {
			if _, added := c.tools.addNamespaced(VirtualTool{Type: typ, Namespace: ns, ToolName: name, Custom: typ == "custom" && custom}); added {
				c.h.offer = append(c.h.offer, pendingTool{f, fp, ns})
			}
		})
	}
}

// offerLoaded adds the loaded tools not offered before to the chat
// request's tools, converted as the request's own are.
func (c *conv) offerLoaded() {
	if len(c.h.offer) == 0 {
		return
	}
	arr := c.b.Array(codec.Top, "tools")
	for _, l := range c.h.offer {
		typ, _ := l.t.Get("type").Str()
		switch {
		case l.ns != "":
			name, _ := l.t.Get("name").Str()
			c.namespaceTool(arr, l.t, typ, l.ns, name, l.path)
		case typ == "function":
			functionTool(c, l.t, l.path, arr)
		case typ == "custom" && c.opts.Dialect == OpenAI:
			customTool(c, l.t, l.path, arr, "")
		default:
			virtualTool(c, l.t, l.path, arr, "")
		}
	}
}

// functionTool appends a Responses function tool in the chat shape (as
// the mapping of tools[]{function} does).
func functionTool(c *conv, t codec.Value, path string, arr codec.Ref) {
	el := c.b.AppendObject(arr)
	c.b.SetJSON(el, "type", `"function"`)
	fn := c.b.Object(el, "function")
	c.b.Set(fn, "name", t.Get("name").Raw())
	c.functionBody(fn, t, path)
}

// functionBody copies a function tool's description, parameters and
// strict into a chat function, warning for what chat has no place for.
func (c *conv) functionBody(fn codec.Ref, t codec.Value, path string) {
	for _, k := range [...]string{"description", "parameters", "strict"} {
		if x := t.Get(k); present(x) {
			c.b.Set(fn, k, x.Raw())
		}
	}
	if x := t.Get("output_schema"); present(x) {
		c.warn(path+".output_schema", "chat tools declare no output schema")
	}
	c.toolExtras(t, path, "tools")
}
