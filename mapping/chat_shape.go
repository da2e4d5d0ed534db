package mapping

// Chat-shaped function tools and tool choices ({type, function:{name, …}}),
// which clients written for chat send: read as the Responses ones, with
// the paths of warnings and errors named as the client sent them.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// hasNestedTools reports whether a function tool or the tool choice comes
// in the chat shape ({type, function:{name, …}}), which clients written
// for chat send.
func (c *conv) hasNestedTools() bool {
	if isNestedChoice(c.top.toolChoice) {
		return true
	}
	for _, f := range c.doc.Findings() {
		// The decoder finds the chat shape's "function" unknown.
		if f.Kind == codec.UnknownField && string(f.Raw) != "" && string(f.NameBytes()) == "function" {
			for _, t := range c.top.limits.tools.Elems() {
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
	obj := b.ObjectLit(codec.Top, "tool_choice")
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
		arr := b.ArrayLit(obj, "tools")
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
		arr := b.ArrayLit(codec.Top, "tools")
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
