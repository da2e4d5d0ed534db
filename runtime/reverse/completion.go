package reverse

import (
	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// ResponseToChat converts a Responses Response (a non-streaming answer)
// into a chat completion: the messages' text (joined with a blank line)
// and refusal, function, custom and client-executed built-in calls as
// tool_calls, reasoning as OpenRouter's reasoning and reasoning_details
// (encrypted_content kept), url_citation annotations, usage with cached
// and reasoning tokens, and the status as finish_reason. It reads the
// output items through the same path as the Parser, so both directions of
// a client's use agree. What a chat completion cannot carry (hosted tool
// calls, images, other annotations, unknown items, moderation results) is
// returned as warnings. A failed Response is its error.
func ResponseToChat(resp []byte, opts Options) ([]byte, []mapping.Warning, error) {
	var p Parser
	root, ok := p.doc.Parse(resp)
	if !ok || root.Kind() != codec.Object {
		return nil, nil, &translate.APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream's response is not a JSON object"}
	}
	if s := string(contents(root.Get("status"))); s == "failed" || root.Get("error").Kind() == codec.Object {
		errObj := root.Get("error")
		if errObj.Kind() != codec.Object {
			errObj = root
		}
		return nil, nil, translate.StreamError(errObj)
	}
	c := &ChatStream{opts: opts, id: opts.id(), created: opts.now()}
	if m := root.Get("moderation"); m.Kind() == codec.Object && len(m.Raw()) > 2 {
		c.warnings = append(c.warnings, mapping.Warning{Path: "moderation", Reason: "the Response's moderation results have no place in a chat completion; left out"})
	}
	var acc completion
	p.start(root)
	for i, v := range root.Get("output").Elems() {
		e := event{index: i, hasIndex: true, item: v}
		if it := p.at(&e); it != nil {
			p.itemDone(it, &e)
		}
	}
	r := root
	fin := Part{Kind: KindFinish, Status: contents(r.Get("status")), Reason: contents(r.Get("incomplete_details").Get("reason")), Usage: usageOf(r.Get("usage")), Raw: contents(r.Get("service_tier"))}
	p.emit(fin)
	for i := range p.parts {
		acc.part(c, &p.parts[i])
	}
	return acc.appendJSON(nil, c), c.warnings, nil
}

// completion accumulates parts into a chat completion's message.
type completion struct {
	model                            []byte
	content, refusal, reasoning      []byte
	details, tools, annotations      []byte
	logprobs                         []byte
	tier                             []byte // service_tier
	texts, ndetails, ntools          int
	hasText, hasRefusal, hasReasoned bool
	called                           bool
	finish                           string
	usage                            Usage
}

func (a *completion) part(c *ChatStream, pt *Part) {
	switch pt.Kind {
	case KindStart:
		a.model = append(a.model[:0], pt.Model...)
	case KindTextStart:
		a.texts++
		if a.texts > 1 {
			a.content = append(a.content, `\n\n`...)
		}
	case KindTextDelta:
		a.hasText = true
		a.content = append(a.content, pt.Delta...)
		if pt.Raw != nil { // [ … ] joined
			if len(a.logprobs) > 0 {
				a.logprobs = append(a.logprobs[:len(a.logprobs)-1], ',')
				a.logprobs = append(a.logprobs, pt.Raw[1:]...)
			} else {
				a.logprobs = append(a.logprobs, pt.Raw...)
			}
		}
	case KindRefusalDelta:
		a.hasRefusal = true
		a.refusal = append(a.refusal, pt.Delta...)
	case KindReasoningStart:
		if a.hasReasoned {
			a.reasoning = append(a.reasoning, `\n\n`...)
		}
	case KindReasoningDelta:
		a.hasReasoned = true
		a.reasoning = append(a.reasoning, pt.Delta...)
		a.detail(pt)
	case KindReasoningDone:
		if pt.Raw != nil {
			a.detail(pt)
		}
		if pt.Signature != nil { // a detail of its own, as in ChatStream
			sig := *pt
			sig.Raw = nil
			a.detail(&sig)
		}
	case KindToolCall:
		if pt.Provider {
			c.warn(pt.Index, "a "+toolNames[pt.Tool]+" call the provider ran has no place in a chat completion; left out")
			return
		}
		a.called = true
		if a.ntools > 0 {
			a.tools = append(a.tools, ',')
		}
		a.ntools++
		a.tools = append(a.tools, `{"id":"`...)
		a.tools = append(a.tools, pt.ID...)
		a.tools = append(a.tools, `","type":"function","function":{"name":"`...)
		a.tools = append(a.tools, pt.Name...)
		a.tools = append(a.tools, `","arguments":"`...)
		a.tools = append(a.tools, pt.Input...)
		a.tools = append(a.tools, `"}}`...)
	case KindSource:
		if u, ok := urlCitation(pt.Raw); ok {
			if len(a.annotations) > 0 {
				a.annotations = append(a.annotations, ',')
			}
			a.annotations = append(a.annotations, u...)
		} else {
			c.warn(pt.Index, "an annotation that is not a url_citation has no place in a chat completion; left out")
		}
	case KindItem:
		c.warn(pt.Index, "an output item of type "+itemType(pt.Raw)+" has no place in a chat completion; left out")
	case KindFinish:
		a.finish = finishReason(pt, a.called)
		a.usage = pt.Usage
		a.tier = append(a.tier[:0], pt.Raw...)
	}
}

func (a *completion) detail(pt *Part) {
	if len(a.details) > 0 {
		a.details = append(a.details, ',')
	}
	a.details = appendDetail(a.details, pt, a.ndetails)
	a.ndetails++
}

func (a *completion) appendJSON(dst []byte, c *ChatStream) []byte {
	dst = append(dst, `{"id":`...)
	dst = codec.AppendString(dst, c.id)
	dst = append(dst, `,"object":"chat.completion","created":`...)
	dst = codec.AppendInt(dst, c.created)
	dst = append(dst, `,"model":"`...)
	if len(a.model) == 0 {
		m := codec.AppendString(nil, c.opts.Model)
		a.model = m[1 : len(m)-1]
	}
	dst = append(dst, a.model...)
	dst = append(dst, `","choices":[{"index":0,"message":{"role":"assistant","content":`...)
	dst = appendStringOrNull(dst, a.content, a.hasText)
	dst = append(dst, `,"refusal":`...)
	dst = appendStringOrNull(dst, a.refusal, a.hasRefusal)
	if a.hasReasoned {
		dst = append(dst, `,"reasoning":"`...)
		dst = append(append(dst, a.reasoning...), '"')
	}
	if len(a.details) > 0 {
		dst = append(dst, `,"reasoning_details":[`...)
		dst = append(append(dst, a.details...), ']')
	}
	if a.ntools > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		dst = append(append(dst, a.tools...), ']')
	}
	if len(a.annotations) > 0 {
		dst = append(dst, `,"annotations":[`...)
		dst = append(append(dst, a.annotations...), ']')
	}
	dst = append(dst, '}')
	if len(a.logprobs) > 0 {
		dst = append(dst, `,"logprobs":{"content":`...)
		dst = append(append(dst, a.logprobs...), '}')
	}
	dst = append(dst, `,"finish_reason":"`...)
	dst = append(dst, a.finish...)
	dst = append(dst, `"}]`...)
	if a.usage.Present {
		dst = append(dst, `,"usage":`...)
		dst = appendUsage(dst, a.usage)
	}
	return append(appendTier(dst, a.tier), '}')
}

func appendStringOrNull(dst, s []byte, ok bool) []byte {
	if !ok {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	return append(append(dst, s...), '"')
}
