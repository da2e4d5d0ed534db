package mapping

// Reasoning across turns, and its contract with the response direction.
//
// OpenRouter returns a model's reasoning as reasoning_details (text with
// its signature, summaries, encrypted blobs, each with a format) and asks
// for them back unchanged and in order on the assistant message of their
// turn: that is what keeps tool-calling continuity (DeepSeek and Kimi
// refuse a tool turn without it; Anthropic checks its signatures).
//
// The contract: the reasoning item the gateway emits for a turn carries
// the upstream's reasoning_details array verbatim in encrypted_content, as
// ReasoningPrefix + base64url(the array's JSON) — versioned and
// self-describing; summary and content hold its readable parts
// (AppendReasoningItem). A client that replays the item gives the array
// back; the converter puts its elements, byte for byte and in order, on
// the assistant message of the item's turn. Without the blob (the request
// did not include reasoning.encrypted_content, or the item comes from
// elsewhere: an OpenAI blob, Codex's null with reasoning_text) the item is
// forwarded as reasoning.summary, reasoning.text and reasoning.encrypted
// details (format openai-responses-v1 for an OpenAI blob, unknown
// otherwise).

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// ReasoningPrefix starts the encrypted_content of the reasoning items the
// gateway emits; the version is in it.
const ReasoningPrefix = "transponder.reasoning_details.v1:"

// AppendEncryptedReasoning appends the encrypted_content string (without
// quotes) that carries details, a reasoning_details JSON array.
func AppendEncryptedReasoning(dst, details []byte) []byte {
	dst = append(dst, ReasoningPrefix...)
	return base64.RawURLEncoding.AppendEncode(dst, details)
}

// DecodeReasoning returns the reasoning_details array an encrypted_content
// of the gateway's carries; ok false for any other string (or a damaged
// one).
func DecodeReasoning(encrypted string) (details []byte, ok bool) {
	b64, found := strings.CutPrefix(encrypted, ReasoningPrefix)
	if !found {
		return nil, false
	}
	details, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return nil, false
	}
	if _, ok := parseDetails(details); !ok {
		return nil, false
	}
	return details, true
}

// parseDetails reads a reasoning_details array: JSON, an array of objects.
func parseDetails(details []byte) (codec.Value, bool) {
	v, ok := codec.Parse(details)
	if !ok || v.Kind() != codec.Array {
		return v, false
	}
	for _, el := range v.Elems() {
		if el.Kind() != codec.Object {
			return v, false
		}
	}
	return v, true
}

// AppendReasoningItem appends the Responses reasoning item of a turn whose
// upstream reasoning is details (a reasoning_details JSON array): its
// summaries as summary_text parts, its texts as reasoning_text parts and,
// if encrypted, the whole array in encrypted_content (else null). ok false
// if details is not an array of objects.
func AppendReasoningItem(dst []byte, id string, details []byte, encrypted bool) ([]byte, bool) {
	v, ok := parseDetails(details)
	if !ok {
		return dst, false
	}
	dst = append(dst, `{"id":`...)
	dst = codec.AppendString(dst, id)
	dst = append(dst, `,"type":"reasoning","summary":[`...)
	n := 0
	for _, d := range v.Elems() {
		if t, _ := d.Get("type").Str(); t == "reasoning.summary" {
			if s := d.Get("summary"); s.Kind() == codec.String {
				if n > 0 {
					dst = append(dst, ',')
				}
				dst = append(append(append(dst, `{"type":"summary_text","text":`...), s.Raw()...), '}')
				n++
			}
		}
	}
	dst = append(dst, ']')
	n = 0
	for _, d := range v.Elems() {
		if t, _ := d.Get("type").Str(); t == "reasoning.text" {
			if s := d.Get("text"); s.Kind() == codec.String && len(s.Raw()) > 2 {
				if n == 0 {
					dst = append(dst, `,"content":[`...)
				} else {
					dst = append(dst, ',')
				}
				dst = append(append(append(dst, `{"type":"reasoning_text","text":`...), s.Raw()...), '}')
				n++
			}
		}
	}
	if n > 0 {
		dst = append(dst, ']')
	}
	dst = append(dst, `,"encrypted_content":`...)
	if encrypted {
		dst = append(dst, '"')
		dst = AppendEncryptedReasoning(dst, details)
		dst = append(dst, '"')
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, '}'), true
}

// reasoningItem: a replayed reasoning item becomes the reasoning_details of
// its turn's assistant message.
//
//transponder:transform object -> object
func reasoningItem(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	c.item(dst, v, path)
	if c.h.text && c.h.calls < 0 {
		// Reasoning after the turn's text (and no call) leads to what comes
		// next: a message of its own, whose calls keep their reasoning.
		// After calls, it joins them (their outputs come after all).
		c.endTurn()
	}
	var enc, summary, content, id codec.Value
	for k, m := range v.Members() {
		switch string(k.Bytes()) {
		case "encrypted_content":
			enc = m
		case "summary":
			summary = m
		case "content":
			content = m
		case "id":
			id = m
		}
	}
	blob, _ := enc.Str()
	if details, ok := DecodeReasoning(blob); ok {
		d, _ := codec.Parse(details)
		for _, el := range d.Elems() {
			c.b.AppendRaw(c.details(), el.Raw())
		}
		return
	}
	if enc.Kind() == codec.String && strings.HasPrefix(blob, ReasoningPrefix) {
		c.warn(path+".encrypted_content", "a damaged Transponder reasoning blob; its reasoning is left out")
		return
	}
	format := []byte(`"unknown"`)
	if bytes.HasPrefix(enc.Raw(), []byte(`"gAAAAA`)) {
		format = []byte(`"openai-responses-v1"`) // a Fernet token: OpenAI's
	}
	detail := func(typ string, key string, val codec.Value) {
		d := c.b.AppendObject(c.details())
		c.b.SetStringLit(d, "type", typ)
		c.b.Set(d, key, val.Raw())
		if id.Kind() == codec.String {
			c.b.SetLit(d, "id", id.Raw())
		}
		c.b.SetLit(d, "format", format)
	}
	for _, s := range summary.Elems() {
		detail("reasoning.summary", "summary", s.Get("text"))
	}
	for _, t := range content.Elems() {
		detail("reasoning.text", "text", t.Get("text"))
	}
	if enc.Kind() == codec.String {
		detail("reasoning.encrypted", "data", enc)
	}
}

// details is the reasoning_details of the turn's assistant message,
// opening the message if need be (a reasoning item that carries nothing
// opens none).
func (c *conv) details() codec.Ref {
	m := c.assistant()
	if c.h.details < 0 {
		c.h.details = c.b.ArrayLit(m, "reasoning_details")
	}
	return c.h.details
}
