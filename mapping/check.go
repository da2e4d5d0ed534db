package mapping

// The checks before anything is converted: what the spec does not allow
// (kinds, required keys, roles) and what the converter cannot do.

import (
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// check refuses what the spec does not allow, and what the converter
// cannot do, before anything is converted.
func (c *conv) check() *Error {
	for _, f := range c.doc.Findings() {
		switch f.Kind {
		case codec.WrongKind:
			return &Error{Message: "want " + f.Want(), Param: c.sentPath(f.Path()), Code: "invalid_type"}
		case codec.MissingField:
			// What a chat request cannot do without; the spec also requires
			// fields clients omit and chat does not need (parameters, strict).
			if needed[f.Name()] {
				return &Error{Message: "missing required parameter", Param: c.sentPath(f.Path()), Code: "missing_required_parameter"}
			}
		case codec.UnknownValue:
			if p := f.Path(); strings.HasSuffix(p, ".role") {
				return &Error{Message: "unknown role " + strconv.Quote(f.Name()), Param: p, Code: "invalid_value"}
			}
		}
	}
	// OpenAI refuses a request without a model; an upstream would pick one
	// of its own (OpenRouter: the account's default) or refuse it later.
	if !present(c.top.limits.model) {
		return &Error{Message: "Missing required parameter: 'model'.", Param: "model", Code: "missing_required_parameter"}
	}
	if m := c.top.limits.model; m.Kind() != codec.String || m.IsStr("") {
		return &Error{Message: "Missing required parameter: 'model' (an empty string names no model).", Param: "model", Code: "missing_required_parameter"}
	}
	if in := c.top.input; in.Kind() == codec.Array && isEmpty(in) {
		return &Error{Message: "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.", Param: "input", Code: "empty_array"}
	}
	if e := c.top.limits.check(false); e != nil {
		e.Param = c.sentPath(e.Param)
		return e
	}
	if b, _ := c.top.background.Bool(); b {
		return &Error{Message: "background responses are not supported", Param: "background", Code: "unsupported_parameter"}
	}
	if present(c.top.conversation) {
		return &Error{Message: "conversations are not supported; send the history in input", Param: "conversation", Code: "unsupported_parameter"}
	}
	return c.checkToolChoice()
}

// needed are the keys a chat request needs when the Responses value that
// holds them is there: a tool's or a forced tool's name, a call's id, name,
// arguments, input, action or operation, an output's call and output, a
// message's role and content, a part's text or refusal, a reasoning
// item's summary, a namespace's tools.
var needed = map[string]bool{"name": true, "call_id": true, "arguments": true, "output": true, "role": true, "content": true,
	"text": true, "input": true, "action": true, "operation": true, "tools": true, "summary": true, "refusal": true}
