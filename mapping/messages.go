package mapping

// The transforms of the conversation: instructions and input items become
// chat messages. (Transforms: see transforms.go.)

import (
	"github.com/transponder-dev/transponder/codec"
)

// instructions becomes the leading system (or developer) message.
//
//transponder:transform string -> array
func instructions(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	msgs := c.b.Array(dst, key)
	if c.opts.System == Merge {
		c.mergeSystem(msgs, strContents(v))
		return
	}
	role := `"system"`
	if c.opts.System == Developer {
		role = `"developer"`
	}
	m := c.b.AppendObject(msgs)
	c.b.Set(m, "role", []byte(role))
	c.b.Set(m, "content", v.Raw())
}

// mergeSystem adds text (JSON-escaped) to the first system message.
func (c *conv) mergeSystem(msgs codec.Ref, text []byte) {
	if c.sys < 0 {
		c.sys = c.b.AppendObject(msgs)
		c.b.Set(c.sys, "role", []byte(`"system"`))
	} else {
		c.sysText = append(c.sysText, `\n\n`...)
	}
	c.sysText = append(c.sysText, text...)
	c.b.Set(c.sys, "content", c.b.Bytes(quoteRaw(c.sysText)))
}

// inputItems converts the conversation: a string is one user message;
// messages (text and images), function calls and their outputs become chat
// messages. The other item types are issue 6's; until then they are left
// out with a warning.
//
//transponder:transform string array -> array
func inputItems(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	msgs := c.b.Array(dst, key)
	if v.Kind() == codec.String {
		m := c.b.AppendObject(msgs)
		c.b.Set(m, "role", []byte(`"user"`))
		c.b.Set(m, "content", v.Raw())
		return
	}
	var calls codec.Ref = -1 // the tool_calls of the assistant message the next function_call joins
	var last codec.Ref = -1  // the last assistant message
	leading := true          // Merge: still in the leading system and developer messages
	for i, it := range v.Elems() {
		n, ok, typ := c.tag(it)
		if !ok || !n.Known() {
			c.unknownType(n, ok, at(path, i, ""))
			continue
		}
		p := at(path, i, "")
		if typ != "message" || !isSystemRole(it) {
			leading = false
		}
		switch typ {
		case "message":
			role, _ := it.Get("role").Str()
			if leading && c.opts.System == Merge {
				if text, ok := c.textOnly(it.Get("content"), p+".content"); ok {
					c.mergeSystem(msgs, text)
					continue
				}
				leading = false
			}
			m := c.b.AppendObject(msgs)
			c.b.SetString(m, "role", role)
			calls = -1
			if role == "assistant" {
				last = m
				c.assistantContent(m, it.Get("content"), p+".content")
			} else {
				last = -1
				c.content(m, role, it.Get("content"), p+".content")
			}
		case "function_call":
			if calls < 0 {
				if last < 0 {
					last = c.b.AppendObject(msgs)
					c.b.Set(last, "role", []byte(`"assistant"`))
				}
				calls = c.b.Array(last, "tool_calls")
			}
			tc := c.b.AppendObject(calls)
			c.b.Set(tc, "id", it.Get("call_id").Raw())
			c.b.Set(tc, "type", []byte(`"function"`))
			fn := c.b.Object(tc, "function")
			if ns := it.Get("namespace"); present(ns) {
				name := append(append(append([]byte(nil), strContents(ns)...), namespaceSep...), strContents(it.Get("name"))...)
				c.b.Set(fn, "name", c.b.Bytes(quoteRaw(name)))
			} else {
				c.b.Set(fn, "name", it.Get("name").Raw())
			}
			c.b.Set(fn, "arguments", it.Get("arguments").Raw())
		case "function_call_output":
			calls, last = -1, -1
			m := c.b.AppendObject(msgs)
			c.b.Set(m, "role", []byte(`"tool"`))
			c.b.Set(m, "tool_call_id", it.Get("call_id").Raw())
			out := it.Get("output")
			if out.Kind() == codec.String {
				c.b.Set(m, "content", out.Raw())
			} else if text, ok := c.textOnly(out, p+".output"); ok {
				c.b.Set(m, "content", c.b.Bytes(quoteRaw(text)))
			} else if c.opts.Dialect == OpenAI {
				c.b.Set(m, "content", c.b.Bytes(quoteRaw(c.texts(out, p+".output"))))
			} else {
				c.content(m, "tool", out, p+".output")
			}
		default:
			c.warn(p, "input items of type "+typ+" are not converted yet; left out")
		}
	}
}

func isSystemRole(it codec.Value) bool {
	r, _ := it.Get("role").Str()
	return r == "system" || r == "developer"
}

// textOnly joins the texts of content that is a string or text parts
// only; ok false if it has other parts.
func (c *conv) textOnly(content codec.Value, path string) ([]byte, bool) {
	if content.Kind() == codec.String {
		return strContents(content), true
	}
	var text []byte
	for i, part := range content.Elems() {
		_, _, typ := c.tag(part)
		switch typ {
		case "input_text", "output_text", "text":
			if i > 0 {
				text = append(text, `\n`...)
			}
			text = append(text, strContents(part.Get("text"))...)
		default:
			return nil, false
		}
	}
	return text, true
}

// texts joins the text parts of content, warning for the others (OpenAI's
// tool messages take text only).
func (c *conv) texts(content codec.Value, path string) []byte {
	var text []byte
	for i, part := range content.Elems() {
		_, _, typ := c.tag(part)
		switch typ {
		case "input_text", "output_text":
			if len(text) > 0 {
				text = append(text, `\n`...)
			}
			text = append(text, strContents(part.Get("text"))...)
		default:
			c.warn(at(path, i, ""), "OpenAI's tool messages take text only; a part of type "+typ+" is left out")
		}
	}
	return text
}

// content writes a user, system, developer or tool message's content:
// a string as it is, parts as chat parts (text, image_url, file).
func (c *conv) content(m codec.Ref, role string, content codec.Value, path string) {
	if content.Kind() == codec.String {
		c.b.Set(m, "content", content.Raw())
		return
	}
	if role == "system" || role == "developer" {
		if text, ok := c.textOnly(content, path); ok {
			c.b.Set(m, "content", c.b.Bytes(quoteRaw(text)))
			return
		}
	}
	parts := c.b.Array(m, "content")
	for i, part := range content.Elems() {
		n, ok, typ := c.tag(part)
		if !ok || !n.Known() {
			c.unknownType(n, ok, at(path, i, ""))
			continue
		}
		switch typ {
		case "input_text", "output_text":
			p := c.b.AppendObject(parts)
			c.b.Set(p, "type", []byte(`"text"`))
			c.b.Set(p, "text", part.Get("text").Raw())
		case "input_image":
			url := part.Get("image_url")
			if !present(url) {
				c.warn(at(path, i, ""), "an image by file_id: chat takes images by URL only; left out")
				continue
			}
			if id := part.Get("file_id"); present(id) {
				c.warn(at(path, i, "file_id"), "chat takes images by URL only; the file id is left out")
			}
			p := c.b.AppendObject(parts)
			c.b.Set(p, "type", []byte(`"image_url"`))
			img := c.b.Object(p, "image_url")
			c.b.Set(img, "url", url.Raw())
			if d := part.Get("detail"); present(d) {
				c.b.Set(img, "detail", d.Raw())
			}
		case "input_file":
			if !present(part.Get("file_data")) && !present(part.Get("file_id")) {
				c.warn(at(path, i, ""), "chat takes files by data or id, not by URL; left out")
				continue
			}
			p := c.b.AppendObject(parts)
			c.b.Set(p, "type", []byte(`"file"`))
			f := c.b.Object(p, "file")
			for _, k := range [...]string{"file_data", "file_id", "filename"} {
				if x := part.Get(k); present(x) {
					c.b.Set(f, k, x.Raw())
				}
			}
			if x := part.Get("file_url"); present(x) {
				c.warn(at(path, i, "file_url"), "chat takes files by data or id, not by URL; left out")
			}
		default:
			c.warn(at(path, i, ""), "content parts of type "+typ+" are not converted yet; left out")
		}
	}
	if c.b.Len(parts) == 0 {
		c.b.Set(m, "content", []byte(`""`)) // every part left out (with a warning)
	}
}

// assistantContent writes a replayed assistant message: its texts joined
// into content, a refusal into refusal.
func (c *conv) assistantContent(m codec.Ref, content codec.Value, path string) {
	if content.Kind() == codec.String {
		c.b.Set(m, "content", content.Raw())
		return
	}
	var text []byte
	for i, part := range content.Elems() {
		n, ok, typ := c.tag(part)
		if !ok || !n.Known() {
			c.unknownType(n, ok, at(path, i, ""))
			continue
		}
		switch typ {
		case "output_text", "input_text":
			text = append(text, strContents(part.Get("text"))...)
			for _, k := range [...]string{"annotations", "logprobs"} {
				if a := part.Get(k); a.Kind() == codec.Array && len(a.Raw()) > 2 {
					c.warn(at(path, i, k), "chat messages have no "+k+"; left out")
				}
			}
		case "refusal":
			c.b.Set(m, "refusal", part.Get("refusal").Raw())
		default:
			c.warn(at(path, i, ""), "content parts of type "+typ+" in an assistant message are not converted; left out")
		}
	}
	if text != nil {
		c.b.Set(m, "content", c.b.Bytes(quoteRaw(text)))
	}
}

// strContents is a JSON string's contents, escaped ("" for another kind).
func strContents(v codec.Value) []byte {
	if v.Kind() != codec.String {
		return nil
	}
	r := v.Raw()
	return r[1 : len(r)-1]
}

// quoteRaw quotes escaped string contents.
func quoteRaw(contents []byte) []byte {
	out := make([]byte, 0, len(contents)+2)
	out = append(out, '"')
	out = append(out, contents...)
	return append(out, '"')
}
