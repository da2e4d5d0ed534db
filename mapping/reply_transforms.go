package mapping

// The transforms of the response direction's mappings (chat_responses.yaml,
// chat_chunk_responses.yaml): what the generated converters hand a field to
// when it is more than a copy (reply.go has the Reply they write into).

import (
	"bytes"
	"strconv"

	"github.com/transponder-dev/transponder/codec"
)

// finishReason hands the finish reason over, in Responses terms.
//
//transponder:transform string ->
func finishReason(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	s := oneOf(v, finishReasons[:])
	f, ok := FinishOf(s)
	if !ok {
		c.warn(path, "finish reason "+strconv.Quote(s)+" is not one the chat specs list; taken as completed")
	}
	c.out.Finished(f)
}

// reasoningDetails hands each reasoning detail over.
//
//transponder:transform array ->
func reasoningDetails(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	for _, d := range v.Elems() {
		c.out.ReasoningDetail(d)
	}
}

// reasoningText hands a reasoning text over.
//
//transponder:transform string ->
func reasoningText(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	if len(v.Raw()) <= 2 {
		return
	}
	if c.reasoned != nil {
		if !bytes.Equal(c.reasoned, v.Raw()) {
			c.warn(path, "a second reasoning text beside the first (reasoning and reasoning_content differ); the first is kept")
		}
		return
	}
	c.reasoned = v.Raw()
	c.out.ReasoningText(v)
}

// text hands a piece of the message's text over.
//
//transponder:transform string ->
func text(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	if len(v.Raw()) > 2 {
		c.out.Text(v)
	}
}

// refusal hands a piece of the refusal over.
//
//transponder:transform string ->
func refusal(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	if len(v.Raw()) > 2 {
		c.out.Refusal(v)
	}
}

// annotations turns url_citation annotations into the Responses API's
// ({type, end_index, start_index, title, url}); the cited content and
// other types are warned.
//
//transponder:transform array ->
func annotations(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	for i, a := range v.Elems() {
		if t, _ := a.Get("type").Str(); t != "url_citation" {
			c.warn(at(path, i, ""), "an annotation of type "+strconv.Quote(t)+", which the Response's output_text does not have; left out")
			continue
		}
		u := a.Get("url_citation")
		if !u.Get("content").Exists() && u.Get("url").Kind() != codec.String {
			u = a // the flat form some providers send
		}
		if !empty(u.Get("content")) {
			c.warn(at(path, i, "url_citation.content"), "the cited content; the Response's url_citation has no place for it")
		}
		b := append(c.buf[:0], `{"type":"url_citation","end_index":`...)
		b = appendInt(b, u.Get("end_index"))
		b = append(b, `,"start_index":`...)
		b = appendInt(b, u.Get("start_index"))
		b = append(b, `,"title":`...)
		b = appendStr(b, u.Get("title"))
		b = append(b, `,"url":`...)
		b = appendStr(b, u.Get("url"))
		c.buf = append(b, '}')
		c.out.Annotation(c.buf)
	}
}

func appendInt(dst []byte, v codec.Value) []byte {
	if n, ok := v.Int(); ok {
		return strconv.AppendInt(dst, n, 10)
	}
	return append(dst, '0')
}

func appendStr(dst []byte, v codec.Value) []byte {
	if v.Kind() == codec.String {
		return append(dst, v.Raw()...)
	}
	return append(dst, `""`...)
}

// toolCalls hands each tool call (or piece of one) over.
//
//transponder:transform array ->
func toolCalls(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	for i, tc := range v.Elems() {
		// One pass over each call's members (a stream has a call chunk
		// per argument delta).
		var id, fn, cu codec.Value
		index := i
		for k, m := range tc.Members() {
			switch string(k.Bytes()) {
			case "index":
				if n, ok := m.Int(); ok {
					index = int(n)
				}
			case "id":
				id = m
			case "function":
				fn = m
			case "custom":
				cu = m
			}
		}
		custom, argKey := false, "arguments"
		if cu.Kind() == codec.Object {
			fn, custom, argKey = cu, true, "input"
		}
		var name, args codec.Value
		for k, m := range fn.Members() {
			switch {
			case k.Is("name"):
				name = m
			case k.Is(argKey):
				args = m
			}
		}
		c.out.ToolCall(index, id, name, args, custom)
	}
}

// cost keeps OpenRouter's cost as usage.cost.
//
//transponder:transform number -> object
func cost(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	c.b.SetLit(c.b.Object(dst, key), "cost", v.Raw())
}

// streamError hands a mid-stream error over.
//
//transponder:transform object ->
func streamError(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	c.out.Failed(v)
}

// contentParts hands the texts of a content array over; other parts are
// warned.
//
//transponder:transform array ->
func contentParts(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	for i, p := range v.Elems() {
		if t, _ := p.Get("type").Str(); t != "text" {
			c.warn(at(path, i, ""), "a content part of type "+strconv.Quote(t)+"; the Response's message has only text and refusal parts; left out")
			continue
		}
		if s := p.Get("text"); s.Kind() == codec.String && len(s.Raw()) > 2 {
			c.out.Text(s)
		}
	}
}

// logprobs turns the log probabilities of the content's tokens into the
// Responses API's, when the request includes them (Reply.SetLogprobs):
// each token as the output_text's LogProb (token, logprob, bytes,
// top_logprobs of token, logprob, bytes) and as the stream events'
// ResponseLogProb (token, logprob, top_logprobs of token, logprob). A
// token's bytes, null upstream, are its UTF-8. Without a token or logprob
// an entry is left out, with a warning.
//
//transponder:transform array ->
func logprobs(c *reply, v codec.Value, path string, dst codec.Ref, key string) {
	if !c.logprobs {
		return // not asked for: as OpenAI, the output_text's logprobs are []
	}
	part, ev := c.lp[:0], c.lpEv[:0]
	for i, e := range v.Elems() {
		tok, lp := e.Get("token"), e.Get("logprob")
		if tok.Kind() != codec.String || lp.Kind() != codec.Number {
			c.warn(at(path, i, ""), "a token's log probability without its token or logprob; left out")
			continue
		}
		if len(part) > 0 {
			part, ev = append(part, ','), append(ev, ',')
		}
		part = appendLogprob(part, tok, lp, e.Get("bytes"), true)
		ev = appendLogprob(ev, tok, lp, codec.Value{}, false)
		part, ev = append(part, `,"top_logprobs":[`...), append(ev, `,"top_logprobs":[`...)
		n := 0
		for _, top := range e.Get("top_logprobs").Elems() {
			tt, tl := top.Get("token"), top.Get("logprob")
			if tt.Kind() != codec.String || tl.Kind() != codec.Number {
				continue
			}
			if n > 0 {
				part, ev = append(part, ','), append(ev, ',')
			}
			n++
			part = append(appendLogprob(part, tt, tl, top.Get("bytes"), true), '}')
			ev = append(appendLogprob(ev, tt, tl, codec.Value{}, false), '}')
		}
		part, ev = append(part, "]}"...), append(ev, "]}"...)
	}
	c.lp, c.lpEv = part, ev
	if len(part) > 0 {
		c.out.Logprobs(part, ev)
	}
}

// appendLogprob writes {"token":…,"logprob":… and, with bytes, the
// token's bytes (the upstream's, or its UTF-8), the object left open.
func appendLogprob(dst []byte, tok, lp, bytes codec.Value, withBytes bool) []byte {
	dst = append(append(dst, `{"token":`...), tok.Raw()...)
	dst = append(append(dst, `,"logprob":`...), lp.Raw()...)
	if !withBytes {
		return dst
	}
	dst = append(dst, `,"bytes":`...)
	if bytes.Kind() == codec.Array {
		return append(dst, bytes.Raw()...)
	}
	s, _ := tok.Str()
	dst = append(dst, '[')
	for i := 0; i < len(s); i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(s[i]), 10)
	}
	return append(dst, ']')
}
