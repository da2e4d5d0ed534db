package conformance

// The Chat Completions checker's rules for what a chunk's choices carry:
// their index, role, content and finish, their tool calls' ids, names and
// arguments, and the usage (chat.go checks the chunks around them).

import (
	"encoding/json"
	"strconv"
)

// choiceIndex reads a choice's index.
func (c *ChatChecker) choiceIndex(raw json.RawMessage) (int, bool) {
	n, err := strconv.Atoi(string(raw))
	switch {
	case len(raw) == 0 || isNull(raw):
		c.violation("choice-index", "a choice without index")
		return 0, false
	case err != nil || n < 0:
		c.violation("choice-index", "index %s is not an index", clip(string(raw)))
		return 0, false
	case n >= maxIndex:
		c.violation("choice-index", "index %d: more than this checker follows", n)
		return 0, false
	}
	for len(c.choices) <= n {
		c.choices = append(c.choices, &chatChoice{maxCall: -1})
	}
	return n, true
}

// choice checks one choice of a chunk; it reports whether the choice
// streams something or finishes.
func (c *ChatChecker) choice(i int, ch chatChoiceJSON, errorChunk bool) bool {
	st := c.choices[i]
	var d chatDelta
	if !isNull(ch.Delta) && json.Unmarshal(ch.Delta, &d) != nil {
		return false // the schema rule reports it
	}
	role, hasRole := str(d.Role)
	switch {
	case !st.seen && !hasRole:
		c.violation("role", "choice %d: the first delta has no role", i)
	case hasRole && role != "assistant":
		c.violation("role", "choice %d: role %q, want \"assistant\"", i, role)
	}
	st.seen = true
	calls := rawArray(d.ToolCalls)
	streams := nonEmpty(d.Content) || nonEmpty(d.Refusal) || nonEmpty(d.Reasoning) || nonEmpty(d.ReasoningContent) ||
		len(rawArray(d.ReasoningDetails)) > 0 || len(calls) > 0 || !isNull(d.FunctionCall)
	if st.finish != "" && streams {
		c.violation("after-finish", "choice %d streams after its finish_reason %q", i, st.finish)
	}
	for _, raw := range calls {
		c.toolCall(i, st, raw)
	}
	if isNull(ch.FinishReason) {
		return streams
	}
	fr, ok := str(ch.FinishReason)
	if !ok {
		return streams // the schema rule reports it
	}
	switch fr {
	case "stop", "length", "tool_calls", "content_filter", "function_call":
	case "error":
		if !errorChunk {
			c.violation("error", "choice %d: finish_reason \"error\" in a chunk without an error object", i)
		}
	default:
		c.violation("finish-reason", "choice %d: finish_reason %q is not stop, length, tool_calls, content_filter, function_call or error", i, fr)
	}
	if st.finish != "" {
		c.violation("finish-reason", "choice %d: finish_reason %q after %q", i, fr, st.finish)
		return true
	}
	st.finish = fr
	if fr == "tool_calls" && len(st.calls) == 0 {
		c.add("finish-tool-calls", Warning, "choice %d: finish_reason \"tool_calls\" with no tool call streamed", i)
	}
	return true
}

// toolCall checks one tool call delta of a choice.
func (c *ChatChecker) toolCall(i int, st *chatChoice, raw json.RawMessage) {
	var tc chatToolCall
	if json.Unmarshal(raw, &tc) != nil {
		return // the schema rule reports it
	}
	n, err := strconv.Atoi(string(tc.Index))
	switch {
	case len(tc.Index) == 0 || isNull(tc.Index):
		c.violation("tool-call-index", "choice %d: a tool call without index", i)
		return
	case err != nil || n < 0 || n >= maxIndex:
		c.violation("tool-call-index", "choice %d: tool call index %s is not an index this checker follows", i, clip(string(tc.Index)))
		return
	}
	id, _ := str(tc.ID)
	name, _ := str(tc.Function.Name)
	typ, hasType := str(tc.Type)
	if hasType && typ != "function" {
		c.violation("tool-call", "choice %d, tool call %d: type %q, want \"function\"", i, n, typ)
	}
	if n < len(st.calls) && st.calls[n] != nil { // a later delta
		call := st.calls[n]
		if id != "" && id != call.id {
			c.violation("tool-call", "choice %d, tool call %d: id %q, was %q", i, n, id, call.id)
		}
		if name != "" && name != call.name {
			c.violation("tool-call", "choice %d, tool call %d: name %q, was %q", i, n, name, call.name)
		}
		return
	}
	// The first delta of the call.
	if n <= st.maxCall {
		c.violation("tool-call-index", "choice %d: tool call %d opens after tool call %d", i, n, st.maxCall)
	} else if n > st.maxCall+1 {
		c.add("tool-call-gap", Warning, "choice %d: tool call %d opens after %d calls: index %d skipped", i, n, st.maxCall+1, n-1)
	}
	if id == "" {
		c.violation("tool-call", "choice %d, tool call %d: the first delta has no id", i, n)
	}
	if !hasType {
		c.violation("tool-call", "choice %d, tool call %d: the first delta has no type", i, n)
	}
	if name == "" {
		c.violation("tool-call", "choice %d, tool call %d: the first delta has no function.name", i, n)
	}
	for _, other := range st.calls {
		if other != nil && id != "" && other.id == id {
			c.violation("tool-call", "choice %d, tool call %d: id %q is another call's", i, n, id)
		}
	}
	for len(st.calls) <= n {
		st.calls = append(st.calls, nil)
	}
	st.calls[n] = &chatCall{id: id, name: name}
	st.maxCall = max(st.maxCall, n)
}

// usage checks the token counts add up: total = prompt + completion, or
// prompt + completion + reasoning (xAI counts reasoning tokens outside
// completion_tokens, and it is a real stream: grok-3-mini's in the corpus).
func (c *ChatChecker) usage(raw json.RawMessage) {
	var u struct {
		Prompt, Completion, Total *int64
		Details                   struct {
			Reasoning int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return // the schema rule reports it
	}
	num := func(k string) *int64 {
		var v int64
		if json.Unmarshal(m[k], &v) != nil {
			return nil
		}
		return &v
	}
	u.Prompt, u.Completion, u.Total = num("prompt_tokens"), num("completion_tokens"), num("total_tokens")
	_ = json.Unmarshal(m["completion_tokens_details"], &u.Details)
	if u.Prompt == nil || u.Completion == nil || u.Total == nil {
		return // the schema rule reports a missing or wrong one
	}
	if sum := *u.Prompt + *u.Completion; *u.Total != sum && *u.Total != sum+u.Details.Reasoning {
		c.violation("usage", "total_tokens %d is not prompt_tokens + completion_tokens (%d)", *u.Total, sum)
	}
}
