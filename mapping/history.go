package mapping

// The reduction of a Responses input array to chat messages: the
// transforms of the input item entries of mapping/responses_chat.yaml and
// the state they share.
//
// Rules (checked by the golden cases and TestHistoryProperties):
//   - Items become messages in their order. An assistant turn — reasoning,
//     an assistant message, calls, until a tool output or another role's
//     message — is ONE chat assistant message: reasoning_details in order,
//     content, tool_calls (parallel calls together). A second assistant
//     message, or reasoning after the turn's text but before any call,
//     starts another one.
//     Calls are linked to outputs by call_id, never by id.
//   - Every call's output follows its assistant message as a tool message
//     before anything else: an output that comes later in the input is
//     moved up (and not repeated where it was). A call without output
//     anywhere, an output without a call before it, a second output of a
//     call and two calls of one call_id are errors.

import (
	"errors"
	"strconv"

	"github.com/transponder-dev/transponder/codec"
)

type callState uint8

const (
	callPending callState = iota + 1
	callAnswered
)

type pendingCall struct {
	id, path string
}

// history is the state of one input array's reduction.
type history struct {
	msgs codec.Ref // the messages array
	asst codec.Ref // the open assistant message (-1: none)
	// asstPath is the path of the item that opened asst.
	asstPath string
	text     bool      // asst has content
	textPath string    // the path of the message item that gave it
	calls    codec.Ref // asst's tool_calls (-1: none)
	details  codec.Ref // asst's reasoning_details (-1: none)
	// group are the calls of the last assistant message with calls; their
	// outputs come next.
	group   []pendingCall
	state   map[string]callState // every call so far, by call_id
	pos     int                  // the offset of the item being converted
	path    string               // its path
	leading bool                 // Merge: still in the leading system and developer messages
	// ahead indexes the outputs by call_id (made when a call's output is not
	// where it should be); moved are the offsets of those converted ahead.
	ahead   map[string][]aheadOutput
	indexed bool
	moved   map[int]bool
	offer   []pendingTool // tools that input items load, offered in finish
	// ids are the rewritten call ids (a dialect's id shape), by the id
	// sent; taken are the ids given out. idsScanned: the input's fitting
	// ids are in both (reserveIDs).
	ids        map[string]string
	taken      map[string]bool
	idsScanned bool
}

// pendingTool is a loaded tool to offer: a tool, or a namespace's (ns).
type pendingTool struct {
	t        codec.Value
	path, ns string
}

type aheadOutput struct {
	v    codec.Value
	i    int
	typ  string
	path string
}

// setState records call id's state (the map made by the first: a
// request without calls makes none).
func (h *history) setState(id string, s callState) {
	if h.state == nil {
		h.state = map[string]callState{}
	}
	h.state[id] = s
}

func (h *history) reset() {
	h.msgs, h.asst, h.calls, h.details = -1, -1, -1, -1
	h.text = false
	h.group = h.group[:0]
	clearMap(h.state)
	h.pos = 0
	h.leading = true
	clearMap(h.ahead)
	h.indexed = false
	clearMap(h.moved)
	h.offer = h.offer[:0]
	clearMap(h.ids)
	clearMap(h.taken)
	h.idsScanned = false
}

// item starts the conversion of an item (any item but an output) at path.
func (c *conv) item(dst codec.Ref, v codec.Value, path string) {
	c.h.msgs = dst
	c.h.path = path
	c.h.pos = v.Offset()
	c.h.leading = false
}

// endTurn closes the open assistant message and settles the last group of
// calls: each call without its output yet gets it now, from later in the
// input, or the request is refused.
func (c *conv) endTurn() {
	c.closeAssistant()
	for _, p := range c.h.group {
		if c.h.state[p.id] == callAnswered {
			continue
		}
		out, ok := c.outputAhead(p.id)
		if !ok && c.h.pos == settled && c.opts.OpenCalls {
			continue // the input ends with calls still to run
		}
		if !ok {
			c.fail(&Error{Message: "No tool output found for function call " + p.id + ".", Param: p.path, Code: "invalid_value"})
			return
		}
		if c.h.moved == nil {
			c.h.moved = map[int]bool{}
		}
		c.h.moved[out.v.Offset()] = true
		c.h.setState(p.id, callAnswered)
		c.toolMessage(c.h.msgs, out.v, out.path, out.typ, p.id)
	}
	c.h.group = c.h.group[:0]
}

// closeAssistant closes the open assistant message. One with calls stays
// as it is, whatever its content. One with reasoning only gets an empty
// content, which every upstream takes. One with nothing at all — no
// text but whitespace, no refusal, calls or reasoning — is left out.
func (c *conv) closeAssistant() {
	if c.h.asst >= 0 {
		c.closeCarrier(c.h.asst)
	}
	if m := c.h.asst; m >= 0 && c.h.calls >= 0 && c.b.Has(m, "content") && c.blankContent(m) {
		// Some providers (Anthropic's) refuse a whitespace-only text; with
		// calls the message is sent without content, as one that had none.
		c.b.Delete(m, "content")
		c.warn(c.h.textPath+".content", "an assistant message's text that is empty or whitespace only, beside tool calls; sent without it")
	}
	if m := c.h.asst; m >= 0 && c.h.calls < 0 && !c.b.Has(m, "refusal") {
		switch {
		case c.h.details >= 0 && !c.b.Empty(c.h.details):
			if !c.b.Has(m, "content") {
				c.b.SetJSONLit(m, "content", `""`)
			}
		case c.blankContent(m):
			c.leaveOut(c.h.msgs, m)
			c.warn(c.h.asstPath, "an assistant message with nothing to send (no text but whitespace, no refusal, tool calls or reasoning); left out")
		}
	}
	c.h.asst, c.h.calls, c.h.details, c.h.text = -1, -1, -1, false
}

// outputAhead finds the first output of call id after the current item.
func (c *conv) outputAhead(id string) (aheadOutput, bool) {
	if !c.h.indexed {
		c.h.indexed = true
		if c.h.ahead == nil {
			c.h.ahead = map[string][]aheadOutput{}
		}
		for i, it := range c.top.input.Elems() {
			_, _, typ := c.tag(it)
			if !isOutput(typ) {
				continue
			}
			id := outputCallID(it, typ)
			c.h.ahead[id] = append(c.h.ahead[id], aheadOutput{it, i, typ, at("input", i, "")})
		}
	}
	for _, o := range c.h.ahead[id] {
		if o.v.Offset() > c.h.pos && !c.h.moved[o.v.Offset()] {
			return o, true
		}
	}
	return aheadOutput{}, false
}

func isOutput(typ string) bool {
	switch typ {
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "shell_call_output", "apply_patch_call_output", "tool_search_output":
		return true
	}
	return false
}

// outputCallID is the call an output answers: call_id (a local shell
// output's is its id when it has no call_id).
func outputCallID(v codec.Value, typ string) string {
	id, ok := v.Get("call_id").Str()
	if !ok && typ == "local_shell_call_output" {
		id, _ = v.Get("id").Str()
	}
	return id
}

// assistant is the open assistant message, opened (after the last turn)
// if there is none.
func (c *conv) assistant() codec.Ref {
	if c.h.asst < 0 {
		c.endTurn()
		c.h.asstPath = c.h.path
		c.h.asst = c.b.AppendObject(c.h.msgs)
		c.b.SetJSONLit(c.h.asst, "role", `"assistant"`)
	}
	return c.h.asst
}

// userInput: input as a string is one user message.
//
//transponder:transform string -> object
func userInput(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	if codec.Blank(strContents(v)) {
		c.warn(path, "empty or whitespace only; no user message is sent")
		return
	}
	m := c.b.AppendObject(dst)
	c.b.SetJSONLit(m, "role", `"user"`)
	c.b.SetLit(m, "content", v.Raw())
}

// message: a message item of any role. An assistant message joins the
// open assistant message unless that has content already.
//
//transponder:transform object -> object
func message(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	leading := c.h.leading
	c.item(dst, v, path)
	role := roleOf(v.Get("role"))
	content := v.Get("content")
	if role == "assistant" {
		if c.h.text {
			c.endTurn() // a second assistant message is a message of its own
		}
		m := c.assistant()
		c.h.text = true
		c.h.textPath = path
		c.assistantContent(m, content, fieldPath{path, "content"})
		if ph := v.Get("phase"); present(ph) {
			c.warn(path+".phase", "chat messages have no phase; left out")
		}
		return
	}
	c.endTurn()
	if leading && (role == "system" || role == "developer") && c.system() == Merge {
		if text, ok := c.textOnly(content, fieldPath{path, "content"}); ok {
			c.h.leading = true
			if codec.Blank(text) {
				c.warn(path, "a "+role+" message with no text (empty or whitespace only); nothing is merged into the system message")
				return
			}
			c.mergeSystem(dst, text)
			return
		}
	}
	if role == "developer" && !c.shape().developer {
		role = "system"
		c.warn(path+".role", c.opts.Dialect.String()+" has no developer role; sent as a system message")
	}
	m := c.b.AppendObject(dst)
	c.b.SetStringLit(m, "role", role)
	c.content(m, role, content, fieldPath{path, "content"})
	if c.blankContent(m) {
		// Empty messages are refused by some providers (Anthropic's) and
		// say nothing to the others.
		c.leaveOut(dst, m)
		c.warn(path, "a "+role+" message with nothing to send (empty or whitespace only, or every part left out); left out")
	}
}

// settled is history.pos once the input has ended.
const settled = int(^uint(0) >> 1)

// settle ends the input: the last turn's calls get their outputs (or,
// with Options.OpenCalls, may have none yet).
func (c *conv) settle() {
	if c.h.msgs < 0 {
		return
	}
	c.h.pos = settled
	c.endTurn()
}

// resolveReferences rewrites the request with its item_reference items
// replaced by the items Options.Items gives (nil if there are none).
func (c *conv) resolveReferences(v codec.Value) ([]byte, error) {
	var b codec.Builder
	b.Reset()
	changed := false
	for k, m := range v.Members() {
		if !k.Is("input") {
			b.Set(codec.Top, k.String(), m.Raw())
			continue
		}
		arr := b.ArrayLit(codec.Top, "input")
		for i, it := range m.Elems() {
			if _, _, typ := c.tag(it); typ != "item_reference" {
				b.AppendRaw(arr, it.Raw())
				continue
			}
			id, _ := it.Get("id").Str()
			p := at("input", i, "id")
			if c.opts.Items == nil {
				return nil, &Error{Message: "Item with id " + strconv.Quote(id) + " not found: this converter has no items to resolve item_reference with.", Param: p, Code: "invalid_value"}
			}
			item, err := c.opts.Items(id)
			if errors.Is(err, ErrItemNotFound) {
				return nil, &Error{Message: "Item with id " + strconv.Quote(id) + " not found.", Param: p, Code: "invalid_value"}
			}
			if err != nil {
				return nil, err
			}
			ref, ok := codec.Parse(item)
			if typ, _ := ref.Get("type").Str(); !ok || ref.Kind() != codec.Object || typ == "item_reference" || typ == "" && !ref.Get("role").Exists() {
				return nil, &Error{Message: "the item of id " + strconv.Quote(id) + " is not an input item", Param: p, Code: "invalid_value"}
			}
			b.AppendRaw(arr, item)
			changed = true
		}
	}
	if !changed {
		return nil, nil
	}
	return b.AppendJSON(nil), nil
}
