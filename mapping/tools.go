package mapping

// The checks and rewrites of the request's tools that need the whole
// request: a forced tool must be offered, allowed tools filter the list
// for a dialect without allowed_tools, two tools may not share a name
// upstream. (Chat-shaped tools and tool choices: chat_shape.go.)

import (
	"bytes"
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
	for _, t := range c.top.limits.tools.Elems() {
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

// uniqueTools refuses two tools of one name upstream (a custom apply_patch
// and an apply_patch tool both become the function apply_patch).
func (c *conv) uniqueTools() {
	tools, ok := c.b.Child(codec.Top, "tools")
	if !ok {
		return
	}
	// The names as the chat request has them (JSON strings), each
	// compared with those before it: a request's tools are few, and no
	// string is made for a name unless it has escapes. Past maxPairwise
	// names, a set.
	names := c.toolNames[:0]
	if cap(names) == 0 { // (as offerTools' map)
		names = make([][]byte, 0, min(len(c.tools.tools), maxPairwise))
	}
	defer func() { c.toolNames = names[:0] }()
	var set map[string]bool
	for el := range c.b.Objects(tools) {
		fn, ok := c.b.Child(el, "function")
		if !ok {
			if fn, ok = c.b.Child(el, "custom"); !ok {
				continue
			}
		}
		name := c.b.Raw(fn, "name")
		if set == nil && len(names) == maxPairwise {
			set = make(map[string]bool, 2*maxPairwise)
			for _, o := range names {
				set[rawString(o)] = true
			}
		}
		dup := false
		if set != nil {
			s := rawString(name)
			dup, set[s] = set[s], true
		} else {
			for _, o := range names {
				dup = dup || sameString(o, name)
			}
			names = append(names, name)
		}
		if dup {
			c.fail(&Error{Message: "two tools are named " + strconv.Quote(rawString(name)) + " upstream", Param: "tools", Code: "invalid_value"})
			return
		}
	}
}

// maxPairwise is how many tool names uniqueTools compares pairwise.
const maxPairwise = 32

// sameString reports whether the JSON strings a and b hold the same
// string.
func sameString(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return false
	}
	return rawString(a) == rawString(b)
}

// offerTools makes the tool map of the request's tools: plain names first
// (functions, custom tools, the built-ins under their type), then the
// tools of namespaces, under names none of those has.
func (c *conv) offerTools() {
	custom := c.custom()
	var spaces []codec.Value
	if cap(c.tools.tools) == 0 { // a Converter's first request: the map at its size, at once
		n := 0
		for range c.top.limits.tools.Elems() {
			n++
		}
		c.tools.tools = make([]VirtualTool, 0, n)
	}
	for _, t := range c.top.limits.tools.Elems() {
		if vt, ok := c.plainTool(t, custom); ok {
			c.tools.add(vt) // a name taken twice: uniqueTools refuses it
		} else if t.Get("type").IsStr("namespace") {
			spaces = append(spaces, t)
		}
	}
	for _, t := range spaces {
		c.offerNamespace(t)
	}
}

// plainTool is the entry of a tool offered under its own name.
func (c *conv) plainTool(t codec.Value, custom bool) (VirtualTool, bool) {
	typ := toolType(t.Get("type"))
	switch typ {
	case "function", "custom":
		name := c.names.of(t.Get("name"))
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

// toolType is a tool's type (v: its type member), without a string made
// for one of the types the tool map knows (Str makes one each call).
func toolType(v codec.Value) string { return oneOf(v, toolTypes[:]) }

var toolTypes = [...]string{"function", "custom", "local_shell", "shell", "apply_patch", "tool_search", "namespace", "web_search"}

// roleOf is a message's role (v: its role member), as toolType.
func roleOf(v codec.Value) string { return oneOf(v, roles[:]) }

var roles = [...]string{"user", "assistant", "system", "developer"}

// oneOf is the string v holds: the one of names it is written as, else
// (another, or one written with escapes) a string made by Str.
func oneOf(v codec.Value, names []string) string {
	if raw := v.Raw(); len(raw) >= 2 && raw[0] == '"' {
		for _, n := range names {
			if len(raw) == len(n)+2 && string(raw[1:len(raw)-1]) == n {
				return n
			}
		}
	}
	s, _ := v.Str()
	return s
}

// offerNamespace names a namespace's functions and custom tools.
func (c *conv) offerNamespace(t codec.Value) {
	c.namespaceMembers(t, "", false, func(_ codec.Value, typ, ns, name, _ string) {
		c.tools.addNamespaced(VirtualTool{Type: typ, Namespace: ns, ToolName: name, Custom: typ == "custom" && c.custom()})
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
		typ := toolType(tool.Get("type"))
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
	custom := c.custom()
	for i, t := range tools.Elems() {
		p := at(path, i, "")
		typ, _ := t.Get("type").Str()
		if vt, ok := c.plainTool(t, custom); ok {
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
	arr := c.b.ArrayLit(codec.Top, "tools")
	for _, l := range c.h.offer {
		typ, _ := l.t.Get("type").Str()
		switch {
		case l.ns != "":
			name, _ := l.t.Get("name").Str()
			c.namespaceTool(arr, l.t, typ, l.ns, name, l.path)
		case typ == "function":
			functionTool(c, l.t, l.path, arr)
		case typ == "custom" && c.custom():
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
	c.b.SetJSONLit(el, "type", `"function"`)
	fn := c.b.ObjectLit(el, "function")
	c.b.SetLit(fn, "name", t.Get("name").Raw())
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

// names are the tool names a Converter made strings of (the tool map's
// are strings): a client sends the same tools with every request, and a
// name made for an earlier one is used again rather than made anew (a
// string is immutable; the tool maps handed out keep theirs). A
// Converter's first conversion keeps none: a Converter used once (what
// ResponsesToChat makes) has no use for them.
type names struct {
	made          []string
	keep, started bool
}

// next readies n for a conversion.
func (n *names) next() { n.keep, n.started = n.started, true }

// maxNames bounds the names kept: past it, they start over.
const maxNames = 64

// of is the string v holds ("" for another kind).
func (n *names) of(v codec.Value) string {
	raw := v.Raw()
	if v.Kind() != codec.String || bytes.IndexByte(raw, '\\') >= 0 {
		s, _ := v.Str()
		return s
	}
	raw = raw[1 : len(raw)-1]
	for _, s := range n.made {
		if s == string(raw) {
			return s
		}
	}
	if !n.keep {
		return string(raw)
	}
	if len(n.made) == maxNames {
		n.made = n.made[:0]
	}
	s := string(raw)
	n.made = append(n.made, s)
	return s
}
