package mapping

// A dialect whose provider refuses any field it does not know (Mistral
// answers 422 "Extra inputs are not permitted", at any depth) gets none:
// what its shape table lacks (openapi/overlays/dialects: its remove and
// remove_variants) is left out of the converted request, with a warning.

import (
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// pruneUnknown reads the converted request against the dialect's chat
// request and leaves out every field it does not know. The warning names
// the field's path in the chat request (the Responses field it came from
// is the mapping's, and has no rule of its own to name).
func (c *conv) pruneUnknown() {
	root, _ := c.opts.Dialect.codec().Payload(codec.ChatRequest)
	c.strictOut = c.b.AppendJSON(c.strictOut[:0])
	if c.strictDoc == nil {
		c.strictDoc = new(codec.Doc)
	}
	if err := c.strictDoc.Decode(root, c.strictOut); err != nil {
		return // the Builder writes JSON; nothing to read otherwise
	}
	name := c.opts.Dialect.String()
	for _, f := range c.strictDoc.Findings() {
		if f.Kind != codec.UnknownField && f.Kind != codec.ExtraField {
			continue
		}
		p := f.Path()
		if c.removeAt(codec.Top, p) {
			c.warn(p, "a field of the converted chat request "+name+" refuses (its requests may carry no field it does not know); left out")
		} else {
			c.warn(p, "a field of the converted chat request "+name+" refuses, inside a value copied as sent; left in")
		}
	}
}

// removeAt deletes the member at path (keys and [i] indexes, as
// codec.Finding.Path writes them) under r; false if the path crosses a
// raw value (copied as sent) or is not there.
func (c *conv) removeAt(r codec.Ref, path string) bool {
	for path != "" {
		var key string
		idx := -1
		switch {
		case strings.HasPrefix(path, `["`): // a key that is not an identifier
			end := strings.Index(path, `"]`)
			k, err := strconv.Unquote(path[1 : max(end, 1)+1])
			if end < 0 || err != nil {
				return false
			}
			key, path = k, path[end+2:]
		case path[0] == '[':
			end := strings.IndexByte(path, ']')
			n, err := strconv.Atoi(path[1:max(end, 1)])
			if end < 0 || err != nil {
				return false
			}
			idx, path = n, path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			key, path = path[:end], path[end:]
		}
		path = strings.TrimPrefix(path, ".")
		if idx < 0 && path == "" {
			if !c.b.Has(r, key) {
				return false
			}
			c.b.Delete(r, key)
			return true
		}
		var next codec.Ref
		var built, ok bool
		if idx >= 0 {
			next, built, ok = c.b.Elem(r, idx)
		} else {
			next, ok = c.b.Child(r, key)
			built = ok
		}
		if !ok || !built {
			return false
		}
		r = next
	}
	return false
}
