package mapping

// The conversation's messages: instructions and message content. (The
// input items: history.go.)

import (
	"github.com/transponder-dev/transponder/codec"
)

// instructions becomes the leading system (or developer) message.
//
//transponder:transform string -> array
func instructions(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	msgs := c.b.Array(dst, key)
	if codec.Blank(strContents(v)) {
		// An empty system message is refused by some providers
		// (Anthropic's) and says nothing to the others.
		if c.system() == Merge {
			c.warn(path, "empty or whitespace only; nothing is merged into the system message")
		} else {
			c.warn(path, "empty or whitespace only; no "+c.system().role()+" message is sent")
		}
		return
	}
	if c.system() == Merge {
		c.mergeSystem(msgs, strContents(v))
		return
	}
	role := `"system"`
	if c.system() == Developer && c.shape().developer {
		role = `"developer"`
	}
	m := c.b.AppendObject(msgs)
	c.b.SetJSONLit(m, "role", role)
	c.b.SetLit(m, "content", v.Raw())
}

// role is the role of the message the instructions become.
func (m SystemMode) role() string {
	if m == Developer {
		return "developer"
	}
	return "system"
}

// blankContent reports whether a message's content, as the chat request
// has it, says nothing: an empty or whitespace-only string, or no parts.
func (c *conv) blankContent(m codec.Ref) bool {
	if parts, ok := c.b.Child(m, "content"); ok {
		return c.b.Empty(parts)
	}
	raw := c.b.Raw(m, "content")
	return raw == nil || len(raw) >= 2 && raw[0] == '"' && codec.Blank(raw[1:len(raw)-1])
}

// leaveOut removes the message m (the last one appended to msgs) again.
func (c *conv) leaveOut(msgs, m codec.Ref) {
	c.b.Filter(msgs, func(r codec.Ref) bool { return r != m })
}

// mergeSystem adds text (JSON-escaped) to the first system message.
func (c *conv) mergeSystem(msgs codec.Ref, text []byte) {
	if c.sys < 0 {
		c.sys = c.b.AppendObject(msgs)
		c.b.SetJSONLit(c.sys, "role", `"system"`)
	} else {
		c.sysText = append(c.sysText, `\n\n`...)
	}
	c.sysText = append(c.sysText, text...)
	c.b.SetLit(c.sys, "content", c.b.Quote(c.sysText))
}

// textOnly joins the texts of content that is a string or text parts
// only; ok false if it has other parts. The text is the content's own or
// in c.joined (until the next join).
func (c *conv) textOnly(content codec.Value, path fieldPath) ([]byte, bool) {
	if content.Kind() == codec.String {
		return strContents(content), true
	}
	c.joined = c.joined[:0]
	breakpoints := false // a part has one: warned, once the parts are joined
	for i, part := range content.Elems() {
		n, ok, typ := c.tag(part)
		if !ok || !n.Known() {
			return nil, false // the unknown-types policy, where the parts are converted
		}
		switch typ {
		case "input_text", "output_text", "text":
			t := readTextPart(part)
			if present(t.breakpoint) {
				if c.shape().breakpoint {
					return nil, false // kept on a part of its own
				}
				breakpoints = true
			}
			if i > 0 {
				c.joined = append(c.joined, `\n`...)
			}
			c.joined = append(c.joined, strContents(t.text)...)
		default:
			return nil, false
		}
	}
	if breakpoints {
		for i, part := range content.Elems() {
			c.breakpoint(-1, part, path, i, true) // joined: the dialect's text parts have none
		}
	}
	return c.joined, true
}

// textPart holds the members of a text part the converters read.
type textPart struct{ text, breakpoint, annotations, logprobs codec.Value }

// readTextPart reads a text part's members in one pass (a Get each would
// step over them again).
func readTextPart(part codec.Value) (t textPart) {
	for k, m := range part.Members() {
		switch string(k.Bytes()) {
		case "text":
			t.text = m
		case "prompt_cache_breakpoint":
			t.breakpoint = m
		case "annotations":
			t.annotations = m
		case "logprobs":
			t.logprobs = m
		}
	}
	return t
}

// breakpoint carries a part's prompt_cache_breakpoint to the chat part p
// where the dialect's parts have one (OpenAI's all, OpenRouter's text);
// else (p < 0: the part is joined into a text) it warns, at path's i-th
// element (i < 0: at path).
func (c *conv) breakpoint(p codec.Ref, part codec.Value, path fieldPath, i int, text bool) {
	c.breakpointOf(p, part.Get("prompt_cache_breakpoint"), path, i, text)
}

// breakpointOf is breakpoint with the part's prompt_cache_breakpoint x
// read already.
func (c *conv) breakpointOf(p codec.Ref, x codec.Value, path fieldPath, i int, text bool) {
	if !present(x) {
		return
	}
	if p >= 0 && (text || c.opts.Dialect.base() == OpenAI) && c.shape().breakpoint {
		c.b.SetLit(p, "prompt_cache_breakpoint", x.Raw())
		return
	}
	where := path.String()
	if i >= 0 {
		where = path.at(i, "")
	}
	c.warn(where+".prompt_cache_breakpoint", "this chat part has no prompt cache breakpoint; left out")
}

// texts joins the text parts of content, warning for the others (OpenAI's
// tool messages take text only); a part of a type the spec does not allow
// there goes by the unknown-types policy.
func (c *conv) texts(content codec.Value, path fieldPath) []byte {
	text := c.joined[:0] // returned: valid until the next join
	for i, part := range content.Elems() {
		n, ok, typ := c.tag(part)
		if !ok || !n.Known() {
			c.unknownPart(n, ok, path.at(i, ""), true)
			continue
		}
		switch typ {
		case "input_text", "output_text":
			if len(text) > 0 {
				text = append(text, `\n`...)
			}
			t := readTextPart(part)
			text = append(text, strContents(t.text)...)
			c.breakpointOf(-1, t.breakpoint, path, i, true)
		default:
			c.warn(path.at(i, ""), "OpenAI's tool messages take text only; a part of type "+typ+" is left out")
		}
	}
	c.joined = text
	return text
}

// content writes a user, system, developer or tool message's content:
// a string as it is, parts as chat parts (text, image_url, file).
func (c *conv) content(m codec.Ref, role string, content codec.Value, path fieldPath) {
	if content.Kind() == codec.String {
		c.b.SetLit(m, "content", content.Raw())
		return
	}
	if role == "system" || role == "developer" {
		if text, ok := c.textOnly(content, path); ok {
			c.b.SetLit(m, "content", c.b.Quote(text))
			return
		}
	}
	parts := c.b.ArrayLit(m, "content")
	for i, part := range content.Elems() {
		n, ok, typ := c.tag(part)
		if !ok || !n.Known() {
			c.unknownPart(n, ok, path.at(i, ""), role == "tool")
			continue
		}
		switch typ {
		case "input_text", "output_text":
			t := readTextPart(part)
			if role != "tool" && codec.Blank(strContents(t.text)) {
				c.warn(path.at(i, ""), "an empty or whitespace-only text part; left out")
				continue
			}
			p := c.b.AppendObject(parts)
			c.b.SetJSONLit(p, "type", `"text"`)
			c.b.SetLit(p, "text", t.text.Raw())
			c.breakpointOf(p, t.breakpoint, path, i, true)
		case "input_image":
			url := part.Get("image_url")
			if !present(url) {
				c.warn(path.at(i, ""), "an image without image_url: chat takes images by URL only; left out")
				continue
			}
			if id := part.Get("file_id"); present(id) {
				c.warn(path.at(i, "file_id"), "chat takes images by URL only; the file id is left out")
			}
			p := c.b.AppendObject(parts)
			c.b.SetJSONLit(p, "type", `"image_url"`)
			img := c.b.ObjectLit(p, "image_url")
			c.b.SetLit(img, "url", url.Raw())
			if d := part.Get("detail"); present(d) {
				if c.opts.Dialect.base() == OpenAI && string(d.Raw()) == `"original"` {
					c.warn(path.at(i, "detail"), "OpenAI's chat has no detail original; left out")
				} else {
					c.b.SetLit(img, "detail", d.Raw())
				}
			}
			c.breakpoint(p, part, path, i, false)
		case "input_file":
			c.file(parts, part, path.at(i, ""))
		default:
			c.warn(path.at(i, ""), "content parts of type "+typ+" are not converted; left out")
		}
	}
	if c.b.Empty(parts) {
		c.b.SetJSONLit(m, "content", `""`) // every part left out (with a warning)
	}
}

// assistantContent writes a replayed assistant message: its texts joined
// into content, a refusal into refusal.
func (c *conv) assistantContent(m codec.Ref, content codec.Value, path fieldPath) {
	if content.Kind() == codec.String {
		c.b.SetLit(m, "content", content.Raw())
		return
	}
	text := c.joined[:0]
	for i, part := range content.Elems() {
		n, ok, typ := c.tag(part)
		if !ok || !n.Known() {
			c.unknownType(n, ok, path.at(i, ""))
			continue
		}
		switch typ {
		case "output_text", "input_text":
			t := readTextPart(part)
			text = append(text, strContents(t.text)...)
			c.breakpointOf(-1, t.breakpoint, path, i, true)
			for _, a := range [...]struct {
				k string
				v codec.Value
			}{{"annotations", t.annotations}, {"logprobs", t.logprobs}} {
				if a.v.Kind() == codec.Array && len(a.v.Raw()) > 2 {
					c.warn(path.at(i, a.k), "chat messages have no "+a.k+"; left out")
				}
			}
		case "refusal":
			if codec.Blank(strContents(part.Get("refusal"))) {
				// An empty refusal is none: it does not keep a message.
				c.warn(path.at(i, ""), "an empty or whitespace-only refusal; left out")
				continue
			}
			if c.b.Has(m, "refusal") {
				c.warn(path.at(i, ""), "chat messages have one refusal; the first is kept")
				continue
			}
			if !c.shape().refusal {
				// the dialect's assistant message has no refusal: it is what the
				// assistant said
				text = append(text, strContents(part.Get("refusal"))...)
				c.warn(path.at(i, ""), c.opts.Dialect.String()+"'s assistant messages have no refusal; sent as the message's text")
				continue
			}
			c.b.SetLit(m, "refusal", part.Get("refusal").Raw())
		default:
			c.warn(path.at(i, ""), "content parts of type "+typ+" in an assistant message are not converted; left out")
		}
	}
	if len(text) > 0 {
		c.b.SetLit(m, "content", c.b.Quote(text))
	}
	c.joined = text[:0]
}

// fieldPath is the path of an item's field (input[3].content), joined
// only when a warning or an error names it or a part in it: a message's
// path joined with ".content" each time cost the 1.1 KB request 220
// instructions.
type fieldPath struct{ item, field string }

// String is the path ("" field: the item's own).
func (p fieldPath) String() string {
	if p.field == "" {
		return p.item
	}
	return p.item + "." + p.field
}

// at is the path of the i-th element's field sub ("": the element's).
func (p fieldPath) at(i int, sub string) string { return at(p.String(), i, sub) }

// strContents is a JSON string's contents, escaped ("" for another kind).
func strContents(v codec.Value) []byte {
	if v.Kind() != codec.String {
		return nil
	}
	r := v.Raw()
	return r[1 : len(r)-1]
}

// file: an input_file part → the dialect's file part: OpenRouter's
// file_data takes data and URLs, OpenAI's data only but file ids.
func (c *conv) file(parts codec.Ref, part codec.Value, path string) {
	data, url, id := part.Get("file_data"), part.Get("file_url"), part.Get("file_id")
	openai := c.opts.Dialect.base() == OpenAI
	var use codec.Value // what file_data becomes
	switch {
	case present(data):
		use = data
	case present(url) && !openai:
		use = url
	case present(id) && openai:
	case present(id):
		c.warn(path, "an OpenAI file id means nothing to OpenRouter; the file is left out")
		return
	case present(url):
		c.warn(path, "OpenAI's chat takes files by data or id, not by URL; the file is left out")
		return
	default:
		c.warn(path, "a file with neither data, URL nor id; left out")
		return
	}
	p := c.b.AppendObject(parts)
	c.b.SetJSONLit(p, "type", `"file"`)
	f := c.b.ObjectLit(p, "file")
	if use.Exists() {
		c.b.SetLit(f, "file_data", use.Raw())
		if present(url) && present(data) {
			c.warn(path+".file_url", "the file is sent by its data; the URL is left out")
		}
	}
	if present(id) {
		if openai {
			c.b.SetLit(f, "file_id", id.Raw())
		} else {
			c.warn(path+".file_id", "an OpenAI file id means nothing to OpenRouter; left out")
		}
	}
	if x := part.Get("filename"); present(x) {
		c.b.SetLit(f, "filename", x.Raw())
	}
	c.breakpoint(p, part, fieldPath{item: path}, -1, false)
	if x := part.Get("detail"); present(x) {
		c.warn(path+".detail", "chat file parts have no detail; left out")
	}
}
