package mapping

// Reasoning carried as a string field of the assistant message
// (reasoning_content, reasoning): the dialects whose providers want their
// reasoning back that way (DeepSeek, Kimi, vLLM…) instead of OpenRouter's
// reasoning_details. The field is the dialect's (mapping/dialects: its
// reasoning carrier).

import (
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// reasoningCarrier: a replayed reasoning item's text goes in the
// dialect's carrier field of its turn's assistant message, byte for byte:
// the reasoning.text details of a Transponder blob (what the upstream
// answered), else the item's reasoning_text parts, else its summaries
// (joined by a blank line). Reasoning only another provider can read (an
// encrypted blob) is left out with a warning.
//
//transponder:transform object -> object
func reasoningCarrier(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	c.item(dst, v, path)
	if c.h.text && c.h.calls < 0 {
		c.endTurn() // as reasoningItem: it leads to what comes next
	}
	var texts, summaries []byte // JSON string contents, escaped
	add := func(to *[]byte, s codec.Value, sep string) {
		if s.Kind() == codec.String && len(s.Raw()) > 2 {
			if len(*to) > 0 {
				*to = append(*to, sep...)
			}
			*to = append(*to, s.Raw()[1:len(s.Raw())-1]...)
		}
	}
	enc := v.Get("encrypted_content")
	blob, _ := enc.Str()
	if details, ok := DecodeReasoning(blob); ok {
		d, _ := codec.Parse(details)
		for _, el := range d.Elems() {
			switch t, _ := el.Get("type").Str(); t {
			case "reasoning.text":
				add(&texts, el.Get("text"), "")
			case "reasoning.summary":
				add(&summaries, el.Get("summary"), `\n\n`)
			}
		}
	} else {
		for _, p := range v.Get("content").Elems() {
			add(&texts, p.Get("text"), "")
		}
		for _, p := range v.Get("summary").Elems() {
			add(&summaries, p.Get("text"), `\n\n`)
		}
	}
	if len(texts) == 0 {
		texts = summaries
	}
	carrier := dialects[c.opts.Dialect].carrier
	if len(texts) == 0 {
		if enc.Kind() == codec.String {
			c.warn(path+".encrypted_content", "encrypted reasoning only its maker can read; "+c.opts.Dialect.String()+" takes reasoning as "+carrier+" text, so it is left out")
		}
		return
	}
	m := c.assistant()
	if old := c.b.Raw(m, carrier); len(old) > 2 {
		texts = append(append([]byte(nil), old[1:len(old)-1]...), texts...)
	}
	c.b.Set(m, carrier, c.b.Quote(texts))
}

// closeCarrier applies the dialect's carrier rule to the assistant
// message being closed: with tool calls it must carry reasoning (an empty
// one when the turn replayed none: what the provider accepts, with a
// warning); without, it carries none unless the dialect puts reasoning on
// every assistant message.
func (c *conv) closeCarrier(m codec.Ref) {
	d := &dialects[c.opts.Dialect]
	if d.carrier == "" {
		return
	}
	has := c.b.Has(m, d.carrier)
	switch {
	case c.h.calls >= 0 && !has && d.carrierRequired:
		c.b.SetJSON(m, d.carrier, `""`)
		c.warn(c.h.asstPath, "no reasoning was replayed for this turn's tool calls; "+d.carrier+" is sent empty ("+d.name+" refuses a thinking-mode tool turn without it)")
	case c.h.calls < 0 && has && !d.carrierEvery:
		c.b.Delete(m, d.carrier)
		c.warn(c.h.asstPath, d.name+" takes "+d.carrier+" back on turns with tool calls only; this turn's reasoning is left out")
	}
}

// callID is the id a call goes upstream with: as sent, unless the dialect
// takes ids of one shape only (Mistral's: 9 letters and digits) and it
// is not of that shape; then a rewrite of it, the same for the call and
// its output throughout the request, and unlike every other id in it.
// The provider's own ids fit and pass unchanged.
func (c *conv) callID(id string) string {
	n := dialects[c.opts.Dialect].idLength
	if n == 0 {
		return id
	}
	if !c.h.idsScanned {
		c.reserveIDs(n)
	}
	if r, ok := c.h.ids[id]; ok {
		return r
	}
	r := id
	for salt := 0; !fitsID(r, n) || c.h.taken[r]; salt++ {
		r = shortID(id, salt, n)
	}
	c.h.ids[id], c.h.taken[r] = r, true
	return r
}

// reserveIDs gives every call_id of the input that fits already to
// itself before anything is rewritten, so that no rewrite takes the id
// of a call that comes later (the provider's own, which must pass
// unchanged).
func (c *conv) reserveIDs(n int) {
	c.h.idsScanned = true
	if c.h.ids == nil {
		c.h.ids = map[string]string{}
		c.h.taken = map[string]bool{}
	}
	for _, item := range c.top.input.Elems() {
		if id, ok := item.Get("call_id").Str(); ok && fitsID(id, n) {
			c.h.ids[id], c.h.taken[id] = id, true
		}
	}
}

// fitsID reports whether id is n ASCII letters and digits.
func fitsID(id string, n int) bool {
	if len(id) != n {
		return false
	}
	for i := 0; i < n; i++ {
		if b := id[i]; !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9') {
			return false
		}
	}
	return true
}

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// shortID is n letters and digits derived from id and salt (FNV-1a, 64
// bits, stretched by reseeding): deterministic, so a request converts
// the same every time.
func shortID(id string, salt, n int) string {
	var b strings.Builder
	h := uint64(14695981039346656037) ^ uint64(salt)*0x9E3779B97F4A7C15
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	for b.Len() < n {
		b.WriteByte(alnum[h%62])
		h /= 62
		if h < 62 {
			h = h*1099511628211 ^ uint64(b.Len())*0x9E3779B97F4A7C15
		}
	}
	return b.String()
}
