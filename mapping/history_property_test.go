package mapping_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
)

// TestHistoryProperties converts random Responses histories (messages of
// every role, reasoning items, turns of parallel calls of every client tool
// with their outputs in any order, some put off until after a later user
// message) and checks, for both dialects, the rules of history.go:
//
//  1. the conversion succeeds and gives JSON;
//  2. pairing: an assistant message's tool calls are each answered by
//     exactly one tool message, right after it (the tool messages up to the
//     next other message are exactly its answers, in any order), and with
//     the output of that call; and outputs only move up: a tool message
//     comes before what any later item (but an output) became;
//  3. every call is a tool call once, with its name, in input order, and
//     calls next to each other in the input (or with only reasoning
//     between them) are in one assistant message;
//  4. the user, developer and system texts, and the assistant texts, come
//     in input order;
//  5. reasoning (OpenRouter): the reasoning_details of all assistant
//     messages are those of the reasoning items, in order (a Transponder
//     blob's byte for byte), and the reasoning right before a call is on
//     that call's message; OpenAI: no reasoning is carried;
//  6. determinism: converting again, with a Converter that converted other
//     requests before, gives the same bytes.
//
// A broken variant of each history is refused with an invalid_value
// *mapping.Error naming the right item: an output left out, an output of
// no call, an output given twice, an output before its call, a call_id
// used by two calls.
//
// A failing history is shrunk (items dropped while the same property
// still fails) and printed.
func TestHistoryProperties(t *testing.T) {
	for _, d := range []mapping.Dialect{mapping.OpenRouter, mapping.OpenAI} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(20240611, uint64(d)))
			ck := &historyChecker{dialect: d}
			for n := range 2000 {
				items := genHistory(r)
				if v := ck.check(items); v != nil {
					small := ck.shrink(items, v)
					t.Fatalf("history %d: %v\nshrunk to: %v\n%s", n, v, ck.check(small), prettyJSON(historyRequest(small)))
				}
				ck.checkInvalid(t, r, items, n)
			}
		})
	}
}

// A generated input item, with what the chat request should make of it.
type hItem struct {
	kind hKind
	raw  json.RawMessage
	role string // hMessage
	// text is what chat carries of a message's content: the parts' texts
	// joined by "\n" (hMessage), or concatenated (hAssistant).
	text    string
	call    *genCall     // hCall, hOutput: the call made or answered
	details []wantDetail // hReasoning: its reasoning_details (OpenRouter)
}

type hKind uint8

const (
	hMessage   hKind = iota // a user, developer or system message
	hAssistant              // an assistant message
	hReasoning
	hCall
	hOutput
)

type genCall struct {
	id     string // call_id
	typ    string // the item type: function_call, custom_tool_call, …
	name   string // the tool's name upstream
	input  string // function_call: arguments; custom_tool_call: input
	marker string // a text only this call's output holds
}

// wantDetail is a reasoning_details element: raw for the elements of a
// Transponder blob (verbatim), the fields otherwise.
type wantDetail struct {
	raw                       json.RawMessage
	typ, key, val, id, format string
}

// The request's tools: every call the generator makes is of one of them.
const historyTools = `[
	{"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},
	{"type":"function","name":"search_docs","parameters":{"type":"object","properties":{"q":{"type":"string"}}},"strict":false},
	{"type":"custom","name":"note","description":"Free text."},
	{"type":"local_shell"},
	{"type":"shell"},
	{"type":"apply_patch"}
]`

// historyRequest is the Responses request whose input is items.
func historyRequest(items []hItem) []byte {
	b := append([]byte(`{"model":"m","tools":`), historyTools...)
	b = append(b, `,"parallel_tool_calls":true,"input":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.raw...)
	}
	return append(b, "]}"...)
}

// ---- generation ----

type histGen struct {
	r        *rand.Rand
	n        int // a serial number, for unique texts and ids
	items    []hItem
	deferred []hItem // outputs put off to a later point of the input
}

// genHistory is a random valid input: a user message, then messages,
// reasoning and turns of calls in any order.
func genHistory(r *rand.Rand) []hItem {
	g := &histGen{r: r}
	g.message("user")
	for range 1 + r.IntN(8) {
		switch x := r.IntN(10); {
		case x < 2:
			g.message(g.role())
		case x < 3:
			g.assistant()
		case x < 4:
			g.reasoning()
		default:
			g.turn()
		}
		// Outputs put off come after a later user message, mostly.
		last := g.items[len(g.items)-1]
		if len(g.deferred) > 0 && (last.kind == hMessage && last.role == "user" && r.IntN(3) > 0 || r.IntN(6) == 0) {
			g.flush()
		}
	}
	if len(g.deferred) > 0 {
		g.message("user")
		g.flush()
	}
	return g.items
}

func (g *histGen) add(it hItem) { g.items = append(g.items, it) }

// flush appends the outputs put off, in a random order.
func (g *histGen) flush() {
	g.r.Shuffle(len(g.deferred), func(i, j int) { g.deferred[i], g.deferred[j] = g.deferred[j], g.deferred[i] })
	g.items = append(g.items, g.deferred...)
	g.deferred = g.deferred[:0]
}

func (g *histGen) role() string {
	switch x := g.r.IntN(10); {
	case x < 7:
		return "user"
	case x < 9:
		return "developer"
	}
	return "system"
}

// Texts hold what JSON escapes, and what json.Marshal escapes though it
// need not (<, >, &, U+2028).
var textTails = []string{"", "", ` "quoted"`, ` back\slash`, " line\nbreak", "\ttab", " é ü 日本", " <b>&amp;</b>", " 🙂", " \u2028sep"}

// text is a unique text.
func (g *histGen) text(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d%s", prefix, g.n, textTails[g.r.IntN(len(textTails))])
}

// message is a user, developer or system message: string content, or
// one or two input_text parts; with or without "type":"message".
func (g *histGen) message(role string) {
	text := g.text(role[:1])
	var content any = text
	want := text
	switch g.r.IntN(3) {
	case 1:
		content = []any{obj("type", "input_text", "text", text)}
	case 2:
		more := g.text("p")
		content = []any{obj("type", "input_text", "text", text), obj("type", "input_text", "text", more)}
		want = text + "\n" + more
	}
	kv := []any{"role", role, "content", content}
	if g.r.IntN(2) == 0 {
		kv = append([]any{"type", "message"}, kv...)
	}
	g.add(hItem{kind: hMessage, raw: obj(kv...), role: role, text: want})
}

// assistant is an assistant message: string content, or output_text
// parts.
func (g *histGen) assistant() {
	text := g.text("a")
	var content any = text
	want := text
	switch g.r.IntN(3) {
	case 1:
		content = []any{obj("type", "output_text", "text", text, "annotations", []any{})}
	case 2:
		more := g.text(" more")
		content = []any{obj("type", "output_text", "text", text, "annotations", []any{}), obj("type", "output_text", "text", more)}
		want = text + more
	}
	kv := []any{"role", "assistant", "content", content}
	if g.r.IntN(2) == 0 {
		g.n++
		kv = append([]any{"type", "message", "id", fmt.Sprintf("msg_%d", g.n), "status", "completed"}, kv...)
	}
	g.add(hItem{kind: hAssistant, raw: obj(kv...), text: want})
}

// reasoning is a reasoning item: summary parts and/or reasoning_text
// content, and encrypted_content null, absent, OpenAI's (a Fernet token),
// another string, or a Transponder blob of reasoning_details.
func (g *histGen) reasoning() {
	g.n++
	id := fmt.Sprintf("rs_%d", g.n)
	hasID := g.r.IntN(5) > 0
	var summary, content []any
	var want []wantDetail
	wantID := ""
	if hasID {
		wantID = id
	}
	for range g.r.IntN(3) {
		s := g.text("sum")
		summary = append(summary, obj("type", "summary_text", "text", s))
		want = append(want, wantDetail{typ: "reasoning.summary", key: "summary", val: s, id: wantID})
	}
	if summary == nil {
		summary = []any{}
	}
	for range g.r.IntN(3) {
		s := g.text("think")
		content = append(content, obj("type", "reasoning_text", "text", s))
		want = append(want, wantDetail{typ: "reasoning.text", key: "text", val: s, id: wantID})
	}
	kv := []any{"type", "reasoning"}
	if hasID {
		kv = append(kv, "id", id)
	}
	kv = append(kv, "summary", summary)
	if content != nil || g.r.IntN(3) == 0 {
		if content == nil {
			content = []any{}
		}
		kv = append(kv, "content", content)
	}
	format := "unknown"
	switch g.r.IntN(6) {
	case 0:
		// no encrypted_content
	case 1:
		kv = append(kv, "encrypted_content", nil)
	case 2:
		enc := fmt.Sprintf("gAAAAABp%dQk9x_-==", g.n)
		kv = append(kv, "encrypted_content", enc)
		format = "openai-responses-v1"
		want = append(want, wantDetail{typ: "reasoning.encrypted", key: "data", val: enc, id: wantID})
	case 3:
		enc := fmt.Sprintf("opaque-%d", g.n)
		kv = append(kv, "encrypted_content", enc)
		want = append(want, wantDetail{typ: "reasoning.encrypted", key: "data", val: enc, id: wantID})
	default:
		// The blob replaces what summary and content say.
		arr, elems := g.reasoningDetails()
		kv = append(kv, "encrypted_content", string(mapping.AppendEncryptedReasoning(nil, arr)))
		want = want[:0]
		for _, e := range elems {
			want = append(want, wantDetail{raw: e})
		}
	}
	for i := range want {
		if want[i].raw == nil {
			want[i].format = format
		}
	}
	g.add(hItem{kind: hReasoning, raw: obj(kv...), details: want})
}

// reasoningDetails is a random reasoning_details array as an upstream
// gives it (sometimes indented, with numbers a re-encoding would change)
// and its elements' bytes.
func (g *histGen) reasoningDetails() (arr []byte, elems []json.RawMessage) {
	for i := range g.r.IntN(4) {
		g.n++
		var e json.RawMessage
		switch g.r.IntN(4) {
		case 0:
			e = obj("type", "reasoning.text", "text", g.text("thought"), "signature", fmt.Sprintf("EqQBCkYI%d==", g.n), "format", "anthropic-claude-v1", "index", i)
		case 1:
			e = obj("type", "reasoning.summary", "summary", g.text("summary"), "format", "openai-responses-v1", "index", i)
		case 2:
			e = obj("type", "reasoning.encrypted", "data", fmt.Sprintf("gAAAAABpCC%d", g.n), "id", fmt.Sprintf("rs_up%d", g.n), "format", "openai-responses-v1", "index", i)
		default:
			e = json.RawMessage(fmt.Sprintf(`{"format":"unknown","type":"reasoning.text","text":%s,"extra":{"n":[1.50,2e3,-0.0,true,null],"s":"\u00e9\/"}}`, jstr(g.text("raw"))))
		}
		if g.r.IntN(3) == 0 {
			var b bytes.Buffer
			json.Indent(&b, e, "  ", "  ")
			e = b.Bytes()
		}
		elems = append(elems, e)
	}
	arr = append(arr, '[')
	for i, e := range elems {
		if i > 0 {
			arr = append(arr, ",\n  "[:1+2*g.r.IntN(2)]...)
		}
		arr = append(arr, e...)
	}
	return append(arr, ']'), elems
}

// turn is an assistant turn: maybe reasoning and a message, 1–4 parallel
// calls (sometimes with reasoning between them), then their outputs in a
// random order, some of them put off.
func (g *histGen) turn() {
	if g.r.IntN(2) == 0 {
		g.reasoning()
	}
	if g.r.IntN(5) == 0 {
		g.assistant()
	}
	calls := make([]*genCall, 1+g.r.IntN(4))
	for i := range calls {
		if i > 0 && g.r.IntN(8) == 0 {
			g.reasoning()
		}
		calls[i] = g.call()
	}
	for _, i := range g.r.Perm(len(calls)) {
		out := g.output(calls[i])
		if g.r.IntN(5) == 0 {
			g.deferred = append(g.deferred, out)
		} else {
			g.add(out)
		}
	}
}

var callTypes = []string{"function_call", "custom_tool_call", "local_shell_call", "shell_call", "apply_patch_call"}

// callID is a unique call_id, some of them with what JSON escapes.
func (g *histGen) callID() string {
	g.n++
	switch g.r.IntN(4) {
	case 0:
		return fmt.Sprintf("call_%d", g.n)
	case 1:
		return fmt.Sprintf("toolu_01%dXyZ", g.n)
	case 2:
		return fmt.Sprintf(`call<%d>&"q"`, g.n)
	}
	return fmt.Sprintf("call_é%d", g.n)
}

// call adds a call of a random tool; its id (fc_…) is not its call_id.
func (g *histGen) call() *genCall {
	c := &genCall{id: g.callID(), typ: callTypes[g.r.IntN(len(callTypes))]}
	c.marker = fmt.Sprintf("[out#%d;]", g.n)
	var raw json.RawMessage
	switch c.typ {
	case "function_call":
		c.name = []string{"get_weather", "search_docs"}[g.r.IntN(2)]
		c.input = string(obj("city", g.text("c")))
		raw = obj("type", c.typ, "id", "fc_"+fmt.Sprint(g.n), "call_id", c.id, "name", c.name, "arguments", c.input, "status", "completed")
	case "custom_tool_call":
		c.name = "note"
		c.input = g.text("note ")
		raw = obj("type", c.typ, "id", "ctc_"+fmt.Sprint(g.n), "call_id", c.id, "name", c.name, "input", c.input)
	case "local_shell_call":
		c.name = "local_shell"
		raw = obj("type", c.typ, "id", "lsc_"+fmt.Sprint(g.n), "call_id", c.id, "status", "completed",
			"action", obj("type", "exec", "command", []string{"ls", g.text("-")}, "working_directory", "/tmp"))
	case "shell_call":
		c.name = "shell"
		raw = obj("type", c.typ, "id", "sc_"+fmt.Sprint(g.n), "call_id", c.id, "status", "completed",
			"action", obj("commands", []string{"echo " + g.text("x")}, "timeout_ms", 1000))
	case "apply_patch_call":
		c.name = "apply_patch"
		raw = obj("type", c.typ, "id", "apc_"+fmt.Sprint(g.n), "call_id", c.id, "status", "completed",
			"operation", obj("type", "update_file", "path", "a.go", "diff", "@@\n-"+g.text("old")+"\n+new\n"))
	}
	g.add(hItem{kind: hCall, raw: raw, call: c})
	return c
}

// output is the output item of a call (its text holds the call's marker).
func (g *histGen) output(c *genCall) hItem {
	g.n++
	text := c.marker + " " + g.text("result")
	var raw json.RawMessage
	switch c.typ {
	case "function_call", "custom_tool_call":
		typ := strings.TrimSuffix(c.typ, "call") + "call_output"
		var out any = text
		if g.r.IntN(3) == 0 {
			out = []any{obj("type", "input_text", "text", text)}
		}
		raw = obj("type", typ, "id", fmt.Sprintf("out_%d", g.n), "call_id", c.id, "output", out)
	case "local_shell_call":
		if g.r.IntN(2) == 0 {
			// The spec's form: the call's call_id as id.
			raw = obj("type", "local_shell_call_output", "id", c.id, "output", text)
		} else {
			raw = obj("type", "local_shell_call_output", "id", fmt.Sprintf("lsco_%d", g.n), "call_id", c.id, "output", text)
		}
	case "shell_call":
		raw = obj("type", "shell_call_output", "call_id", c.id, "output",
			[]any{obj("stdout", text, "stderr", "", "outcome", obj("type", "exit", "exit_code", 0))})
	case "apply_patch_call":
		raw = obj("type", "apply_patch_call_output", "call_id", c.id, "status", "completed", "output", text)
	}
	return hItem{kind: hOutput, raw: raw, call: c}
}

// ---- checks ----

type historyChecker struct {
	dialect mapping.Dialect
	// cv converts every request a second time (property 6): what it kept
	// from earlier conversions must not matter.
	cv mapping.Converter
}

// violation is a property a conversion breaks.
type violation struct {
	prop int
	msg  string
	key  string // property 1: the start of the error message
}

func (v *violation) Error() string { return fmt.Sprintf("property %d: %s", v.prop, v.msg) }

func violated(prop int, format string, args ...any) *violation {
	return &violation{prop: prop, msg: fmt.Sprintf(format, args...)}
}

// The chat request as the checks read it.
type chatMsg struct {
	Role             string            `json:"role"`
	Content          json.RawMessage   `json:"content"`
	ToolCallID       string            `json:"tool_call_id"`
	ToolCalls        []chatToolCall    `json:"tool_calls"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function *struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	Custom *struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

// check converts the history and returns the first property broken.
func (ck *historyChecker) check(items []hItem) *violation {
	body := historyRequest(items)
	opts := mapping.Options{Dialect: ck.dialect}
	// 1. No error; JSON.
	out, _, err := mapping.ResponsesToChat(body, opts)
	if err != nil {
		v := violated(1, "refused a valid history: %v", err)
		var e *mapping.Error
		if errors.As(err, &e) {
			words := strings.Fields(e.Message)
			v.key = strings.Join(words[:min(3, len(words))], " ")
		}
		return v
	}
	if !json.Valid(out) {
		return violated(1, "not JSON: %s", out)
	}
	// 6. Determinism.
	again, _, err := ck.cv.ResponsesToChat(nil, body, opts)
	if err != nil || !bytes.Equal(out, again) {
		return violated(6, "a second conversion differs (err %v):\n%s\n%s", err, out, again)
	}
	var chat struct{ Messages []chatMsg }
	if err := json.Unmarshal(out, &chat); err != nil {
		return violated(1, "%v: %s", err, out)
	}
	msgs := chat.Messages
	calls := map[string]*genCall{}
	for _, it := range items {
		if it.kind == hCall {
			calls[it.call.id] = it.call
		}
	}
	for _, f := range []func() *violation{
		func() *violation { return checkPairing(msgs, calls) },
		func() *violation { return ck.checkCalls(msgs, items) },
		func() *violation { return checkTexts(msgs, items) },
		func() *violation { return ck.checkReasoning(msgs, items) },
		func() *violation { return ck.checkPlacement(msgs, items) },
	} {
		if v := f(); v != nil {
			return v
		}
	}
	return nil
}

// checkPairing: property 2.
func checkPairing(msgs []chatMsg, calls map[string]*genCall) *violation {
	for i, m := range msgs {
		if m.Role == "tool" {
			// It answers a call of the last message that is not a tool message.
			j := i - 1
			for j >= 0 && msgs[j].Role == "tool" {
				j--
			}
			if j < 0 || !slices.ContainsFunc(msgs[j].ToolCalls, func(tc chatToolCall) bool { return tc.ID == m.ToolCallID }) {
				return violated(2, "messages[%d] answers %q, which messages[%d] does not call", i, m.ToolCallID, j)
			}
			if c := calls[m.ToolCallID]; c == nil || !strings.Contains(contentText(m.Content), c.marker) {
				return violated(2, "messages[%d] answers %q with %s, not its output", i, m.ToolCallID, m.Content)
			}
			continue
		}
		if len(m.ToolCalls) == 0 {
			continue
		}
		answers := map[string]int{}
		for _, a := range msgs[i+1:] {
			if a.Role != "tool" {
				break
			}
			answers[a.ToolCallID]++
		}
		for _, tc := range m.ToolCalls {
			if answers[tc.ID] != 1 {
				return violated(2, "messages[%d]'s call %q has %d tool messages after it", i, tc.ID, answers[tc.ID])
			}
		}
	}
	return nil
}

// checkPlacement: property 2, the other half: outputs move up to their
// call, never down. A tool message comes before what every later item but
// an output became. (Run last: it relies on properties 3–5.)
func (ck *historyChecker) checkPlacement(msgs []chatMsg, items []hItem) *violation {
	at := ck.chatIndex(msgs, items)
	for o, it := range items {
		if it.kind != hOutput {
			continue
		}
		for j := o + 1; j < len(items); j++ {
			if items[j].kind != hOutput && at[j] >= 0 && at[j] <= at[o] {
				return violated(2, "the output of %q (input[%d]) is messages[%d], after messages[%d] that input[%d] became", it.call.id, o, at[o], at[j], j)
			}
		}
	}
	return nil
}

// chatIndex is the index of the message each item became (-1: none).
func (ck *historyChecker) chatIndex(msgs []chatMsg, items []hItem) []int {
	var plain, texts, details []int
	callMsg, toolMsg := map[string]int{}, map[string]int{}
	for i, m := range msgs {
		switch m.Role {
		case "tool":
			toolMsg[m.ToolCallID] = i
		case "assistant":
			if len(m.Content) > 0 && string(m.Content) != "null" && string(m.Content) != `""` {
				texts = append(texts, i)
			}
			for _, tc := range m.ToolCalls {
				callMsg[tc.ID] = i
			}
			for range m.ReasoningDetails {
				details = append(details, i)
			}
		default:
			plain = append(plain, i)
		}
	}
	at := make([]int, len(items))
	for k, it := range items {
		at[k] = -1
		switch it.kind {
		case hMessage:
			at[k], plain = plain[0], plain[1:]
		case hAssistant:
			at[k], texts = texts[0], texts[1:]
		case hCall:
			at[k] = callMsg[it.call.id]
		case hOutput:
			at[k] = toolMsg[it.call.id]
		case hReasoning:
			if len(it.details) > 0 && ck.dialect == mapping.OpenRouter {
				at[k], details = details[0], details[len(it.details):]
			}
		}
	}
	return at
}

// checkCalls: property 3.
func (ck *historyChecker) checkCalls(msgs []chatMsg, items []hItem) *violation {
	var got, want []string
	msgOf := map[string]int{}
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			if _, dup := msgOf[tc.ID]; dup {
				return violated(3, "call %q is a tool call twice", tc.ID)
			}
			msgOf[tc.ID] = i
			got = append(got, tc.ID)
			if m.Role != "assistant" {
				return violated(3, "messages[%d] (%s) has tool calls", i, m.Role)
			}
		}
	}
	last := -1 // the call before, if only reasoning items come between
	for k, it := range items {
		switch it.kind {
		case hReasoning:
			continue
		case hCall:
		default:
			last = -1
			continue
		}
		c := it.call
		want = append(want, c.id)
		i, ok := msgOf[c.id]
		if !ok {
			continue // the order check says it
		}
		if v := ck.checkToolCall(msgs[i], c); v != nil {
			return v
		}
		if last >= 0 {
			if prev := items[last].call.id; msgOf[prev] != i {
				return violated(3, "calls %q and %q of one turn are in messages[%d] and messages[%d]", prev, c.id, msgOf[prev], i)
			}
		}
		last = k
	}
	if !slices.Equal(got, want) {
		return violated(3, "tool calls %q, want %q", got, want)
	}
	return nil
}

// checkToolCall: the tool call of c names c's tool (and carries a function
// call's arguments and a custom call's input).
func (ck *historyChecker) checkToolCall(m chatMsg, c *genCall) *violation {
	i := slices.IndexFunc(m.ToolCalls, func(tc chatToolCall) bool { return tc.ID == c.id })
	tc := m.ToolCalls[i]
	if c.typ == "custom_tool_call" && ck.dialect == mapping.OpenAI {
		if tc.Type != "custom" || tc.Custom == nil || tc.Custom.Name != c.name || tc.Custom.Input != c.input {
			return violated(3, "custom call %q became %+v", c.id, tc)
		}
		return nil
	}
	if tc.Type != "function" || tc.Function == nil || tc.Function.Name != c.name {
		return violated(3, "%s %q became %+v", c.typ, c.id, tc)
	}
	switch c.typ {
	case "function_call":
		if tc.Function.Arguments != c.input {
			return violated(3, "call %q: arguments %q, want %q", c.id, tc.Function.Arguments, c.input)
		}
	case "custom_tool_call":
		var args struct{ Input *string }
		if json.Unmarshal([]byte(tc.Function.Arguments), &args) != nil || args.Input == nil || *args.Input != c.input {
			return violated(3, "custom call %q: arguments %q, want the input %q", c.id, tc.Function.Arguments, c.input)
		}
	}
	return nil
}

// checkTexts: property 4.
func checkTexts(msgs []chatMsg, items []hItem) *violation {
	var got, want, gotAsst, wantAsst []string
	for _, it := range items {
		switch it.kind {
		case hMessage:
			want = append(want, it.role+": "+it.text)
		case hAssistant:
			wantAsst = append(wantAsst, it.text)
		}
	}
	for _, m := range msgs {
		switch m.Role {
		case "tool":
		case "assistant":
			if len(m.Content) > 0 && string(m.Content) != "null" && string(m.Content) != `""` { // "": a message of reasoning only
				gotAsst = append(gotAsst, contentText(m.Content))
			}
		default:
			got = append(got, m.Role+": "+contentText(m.Content))
		}
	}
	if !slices.Equal(got, want) {
		return violated(4, "messages %q, want %q", got, want)
	}
	if !slices.Equal(gotAsst, wantAsst) {
		return violated(4, "assistant texts %q, want %q", gotAsst, wantAsst)
	}
	return nil
}

// checkReasoning: property 5.
func (ck *historyChecker) checkReasoning(msgs []chatMsg, items []hItem) *violation {
	type gotDetail struct {
		raw json.RawMessage
		msg int
	}
	var got []gotDetail
	for i, m := range msgs {
		if len(m.ReasoningDetails) > 0 && m.Role != "assistant" {
			return violated(5, "messages[%d] (%s) has reasoning_details", i, m.Role)
		}
		for _, d := range m.ReasoningDetails {
			got = append(got, gotDetail{d, i})
		}
	}
	if ck.dialect == mapping.OpenAI {
		if len(got) > 0 {
			return violated(5, "OpenAI's chat got reasoning_details")
		}
		return nil
	}
	n := 0 // details matched so far
	for k, it := range items {
		if it.kind != hReasoning {
			continue
		}
		first := n
		for _, w := range it.details {
			if n == len(got) {
				return violated(5, "reasoning_details end before item %d's %s", k, w)
			}
			if err := w.match(got[n].raw); err != "" {
				return violated(5, "reasoning_details element %d (of item %d): %s", n, k, err)
			}
			n++
		}
		// Reasoning right before a call is on the call's message.
		if n == first {
			continue
		}
		next := k + 1
		for next < len(items) && items[next].kind == hReasoning {
			next++
		}
		if next < len(items) && items[next].kind == hCall {
			id := items[next].call.id
			m := msgs[got[first].msg]
			if !slices.ContainsFunc(m.ToolCalls, func(tc chatToolCall) bool { return tc.ID == id }) {
				return violated(5, "item %d's reasoning is on messages[%d], its call %q is not", k, got[first].msg, id)
			}
		}
	}
	if n != len(got) {
		return violated(5, "%d reasoning_details, want %d", len(got), n)
	}
	return nil
}

func (w wantDetail) String() string {
	if w.raw != nil {
		return string(w.raw)
	}
	return fmt.Sprintf("%s %s=%q id=%q format=%s", w.typ, w.key, w.val, w.id, w.format)
}

// match says how got differs from w ("" if it does not).
func (w wantDetail) match(got json.RawMessage) string {
	if w.raw != nil {
		if !bytes.Equal(got, w.raw) {
			return fmt.Sprintf("%s, want the blob's %s verbatim", got, w.raw)
		}
		return ""
	}
	var d map[string]any
	if err := json.Unmarshal(got, &d); err != nil {
		return err.Error()
	}
	want := map[string]any{"type": w.typ, w.key: w.val, "format": w.format}
	if w.id != "" {
		want["id"] = w.id
	}
	if fmt.Sprint(d) != fmt.Sprint(want) {
		return fmt.Sprintf("%s, want %s", got, w)
	}
	return ""
}

// contentText is a message content's text: a string, or its parts' texts
// joined by "\n".
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(raw, &parts)
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n")
}

// shrink drops items (a call with its outputs) from a history while the
// conversion still breaks the property as v does.
func (ck *historyChecker) shrink(items []hItem, v *violation) []hItem {
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(items); i++ {
			fewer := slices.Delete(slices.Clone(items), i, i+1)
			if c := items[i]; c.kind == hCall {
				fewer = slices.DeleteFunc(fewer, func(it hItem) bool { return it.kind == hOutput && it.call == c.call })
			}
			if w := ck.check(fewer); w != nil && w.prop == v.prop && w.key == v.key {
				items = fewer
				changed = true
				i--
			}
		}
	}
	return items
}

// ---- broken histories ----

// checkInvalid breaks a valid history one of five ways (variant mod 5);
// the converter refuses it with an invalid_value error at the right item.
func (ck *historyChecker) checkInvalid(t *testing.T, r *rand.Rand, items []hItem, variant int) {
	t.Helper()
	var outs []int
	for i, it := range items {
		if it.kind == hOutput {
			outs = append(outs, i)
		}
	}
	if len(outs) == 0 {
		return
	}
	callIndex := func(items []hItem, c *genCall) int {
		return slices.IndexFunc(items, func(it hItem) bool { return it.kind == hCall && it.call == c })
	}
	o := outs[r.IntN(len(outs))]
	c := items[o].call
	switch variant % 5 {
	case 0:
		// An output left out: refused at its call.
		broken := slices.Delete(slices.Clone(items), o, o+1)
		ck.expectError(t, "output left out", broken, "No tool output found for function call "+c.id+".", callIndex(broken, c))
	case 1:
		// An output of a call_id no call has.
		pos := 1 + r.IntN(len(items))
		orphan := (&histGen{r: r}).output(&genCall{id: "call_orphan", typ: callTypes[r.IntN(len(callTypes))], marker: "[orphan;]"})
		broken := slices.Insert(slices.Clone(items), pos, orphan)
		ck.expectError(t, "output of no call", broken, "No tool call found for ", pos)
	case 2:
		// An output given twice, anywhere after the call: the later copy
		// is refused.
		ci := callIndex(items, c)
		pos := ci + 1 + r.IntN(len(items)-ci)
		broken := slices.Insert(slices.Clone(items), pos, items[o])
		orig := o
		if pos <= o {
			orig++
		}
		ck.expectError(t, "output given twice", broken, "call "+c.id+" has an output already", max(pos, orig))
	case 3:
		// An output moved before its call.
		broken := slices.Delete(slices.Clone(items), o, o+1)
		pos := r.IntN(callIndex(broken, c) + 1)
		broken = slices.Insert(broken, pos, items[o])
		ck.expectError(t, "output before its call", broken, "No tool call found for ", pos)
	case 4:
		// A second call of a call_id, anywhere after the first.
		ci := callIndex(items, c)
		pos := ci + 1 + r.IntN(len(items)-ci)
		broken := slices.Insert(slices.Clone(items), pos, items[ci])
		ck.expectError(t, "call_id used twice", broken, "call_id "+strconv.Quote(c.id)+" is used by an earlier call", pos, ".call_id")
	}
}

// expectError: the conversion fails with an invalid_value *mapping.Error
// whose message starts with prefix, at input[index] (and field, if given).
func (ck *historyChecker) expectError(t *testing.T, what string, items []hItem, prefix string, index int, field ...string) {
	t.Helper()
	body := historyRequest(items)
	_, _, err := ck.cv.ResponsesToChat(nil, body, mapping.Options{Dialect: ck.dialect})
	var e *mapping.Error
	switch {
	case !errors.As(err, &e):
		t.Fatalf("%s: err %v, want a *mapping.Error\n%s", what, err, prettyJSON(body))
	case e.Code != "invalid_value" || !strings.HasPrefix(e.Message, prefix) || e.Param != fmt.Sprintf("input[%d]%s", index, strings.Join(field, "")):
		t.Fatalf("%s: %v (code %s), want %q… at input[%d]%s\n%s", what, err, e.Code, prefix, index, strings.Join(field, ""), prettyJSON(body))
	}
}

// ---- JSON ----

// obj is the JSON object of key, value pairs, in that order.
func obj(kv ...any) json.RawMessage {
	b := []byte{'{'}
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, jstr(kv[i].(string))...)
		b = append(b, ':')
		b = appendValue(b, kv[i+1])
	}
	return append(b, '}')
}

// appendValue appends v as JSON: a json.RawMessage as it is, slices
// element by element, the rest through json.Marshal.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case json.RawMessage:
		return append(b, v...)
	case string:
		return append(b, jstr(v)...)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	}
	m, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append(b, m...)
}

// jstr is s as a JSON string.
func jstr(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func prettyJSON(b []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		return string(b)
	}
	return out.String()
}
