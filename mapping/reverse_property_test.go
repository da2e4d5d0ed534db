package mapping_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
)

// TestReverseHistoryProperties takes random Responses histories (those of
// TestHistoryProperties: messages of every role, reasoning items, turns of
// parallel calls of every client tool with their outputs in any order)
// through chat and back — ResponsesToChat, then ChatToResponses, in the
// same dialect — and checks that the Responses input that comes back keeps:
//
//  1. a valid request: no error, JSON, no item of role "tool";
//  2. the messages: roles and texts, in order;
//  3. the calls: every call once, in input order, with its call_id; a
//     function call with its name and arguments verbatim, the others as
//     the chat client saw them (a custom tool's call as a custom tool
//     call for OpenAI, each virtualized tool as the function it was);
//  4. call pairing: every call answered by exactly one output of its
//     type, after the call, holding the call's output;
//  5. reasoning (OpenRouter; OpenAI's chat carries none): every summary,
//     reasoning text and encrypted content in order, each reasoning item's
//     id, and the format and signature of an upstream's details; reasoning
//     stays between the same calls, but reasoning among or right after the
//     calls of a chat message, which precedes them all there, moves up to
//     before the first;
//  6. determinism: a ReverseConverter that converted other requests
//     before gives the same bytes.
//
// A failing history is shrunk (items dropped while the same property still
// fails) and printed.
func TestReverseHistoryProperties(t *testing.T) {
	for _, d := range []mapping.Dialect{mapping.OpenRouter, mapping.OpenAI} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(20261124, uint64(d)))
			ck := &reverseChecker{dialect: d}
			for n := range 1000 {
				items := genHistory(r)
				if v := ck.check(items); v != nil {
					small := shrinkWith(items, v, ck.check)
					t.Fatalf("history %d: %v\nshrunk to: %v\n%s", n, v, ck.check(small), prettyJSON(historyRequest(small)))
				}
			}
		})
	}
}

type reverseChecker struct {
	dialect mapping.Dialect
	rc      mapping.ReverseConverter
}

// The Responses input as the checks read it.
type respItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Input            string          `json:"input"`
	Output           json.RawMessage `json:"output"`
	Summary          []textPart      `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
	Format           string          `json:"format"`
	Signature        string          `json:"signature"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (ck *reverseChecker) check(items []hItem) *violation {
	fwd := mapping.Options{Dialect: ck.dialect}
	chat, _, err := mapping.ResponsesToChat(historyRequest(items), fwd)
	if err != nil {
		return violated(1, "the forward conversion refused a valid history: %v", err)
	}
	opts := mapping.ReverseOptions{Dialect: ck.dialect}
	back, _, err := mapping.ChatToResponses(chat, opts)
	if err != nil {
		return violated(1, "the reverse conversion refused the forward's chat request: %v\n%s", err, chat)
	}
	again, _, err := ck.rc.ChatToResponses(nil, chat, opts)
	if err != nil || !bytes.Equal(back, again) {
		return violated(6, "a reused ReverseConverter differs (err %v):\n%s\n%s", err, back, again)
	}
	var req struct{ Input []respItem }
	if err := json.Unmarshal(back, &req); err != nil {
		return violated(1, "%v: %s", err, back)
	}
	in := req.Input
	for i, it := range in {
		if it.Role == "tool" {
			return violated(1, "input[%d] has role tool", i)
		}
		if it.Type == "" && it.Role != "" {
			in[i].Type = "message"
		}
	}
	var c struct{ Messages []chatMsg }
	if err := json.Unmarshal(chat, &c); err != nil {
		return violated(1, "%v: %s", err, chat)
	}
	for _, f := range []func() *violation{
		func() *violation { return checkBackMessages(in, items) },
		func() *violation { return checkBackCalls(in, items, c.Messages) },
		func() *violation {
			if ck.dialect != mapping.OpenRouter {
				return nil
			}
			return checkBackReasoning(in, items, c.Messages)
		},
	} {
		if v := f(); v != nil {
			return v
		}
	}
	return nil
}

// 2. The messages' roles and texts, in order.
func checkBackMessages(in []respItem, items []hItem) *violation {
	var want, got []string
	for _, it := range items {
		switch it.kind {
		case hMessage:
			want = append(want, it.role+": "+it.text)
		case hAssistant:
			want = append(want, "assistant: "+it.text)
		}
	}
	for _, it := range in {
		if it.Type != "message" {
			continue
		}
		sep := "\n"
		if it.Role == "assistant" {
			sep = ""
		}
		got = append(got, it.Role+": "+partsText(it.Content, sep))
	}
	if !slices.Equal(want, got) {
		return violated(2, "messages\nwant %q\n got %q", want, got)
	}
	return nil
}

// partsText is a message content's text: a string, or its parts' texts
// joined by sep.
func partsText(raw json.RawMessage, sep string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []textPart
	json.Unmarshal(raw, &parts)
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, sep)
}

// 3 and 4. The calls, in order, and their outputs.
func checkBackCalls(in []respItem, items []hItem, msgs []chatMsg) *violation {
	seen := map[string]chatToolCall{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			seen[tc.ID] = tc
		}
	}
	var want []*genCall
	for _, it := range items {
		if it.kind == hCall {
			want = append(want, it.call)
		}
	}
	var got []int // input indexes of the call items
	for i, it := range in {
		if it.Type == "function_call" || it.Type == "custom_tool_call" {
			got = append(got, i)
		}
	}
	if len(got) != len(want) {
		return violated(3, "%d calls came back, %d were made", len(got), len(want))
	}
	for k, i := range got {
		call, it := want[k], in[i]
		if it.CallID != call.id {
			return violated(3, "call %d: call_id %q, want %q (calls out of order or renamed)", k, it.CallID, call.id)
		}
		tc := seen[call.id]
		switch {
		case call.typ == "function_call":
			if it.Type != "function_call" || it.Name != call.name || it.Arguments != call.input {
				return violated(3, "function call %q came back as %s %q(%q)", call.id, it.Type, it.Name, it.Arguments)
			}
		case tc.Custom != nil:
			if it.Type != "custom_tool_call" || it.Name != tc.Custom.Name || it.Input != tc.Custom.Input {
				return violated(3, "custom call %q came back as %s %q(%q), chat had %q(%q)", call.id, it.Type, it.Name, it.Input, tc.Custom.Name, tc.Custom.Input)
			}
			if call.typ == "custom_tool_call" && it.Input != call.input {
				return violated(3, "custom call %q: input %q, want %q", call.id, it.Input, call.input)
			}
		case tc.Function != nil:
			if it.Type != "function_call" || it.Name != tc.Function.Name || it.Arguments != tc.Function.Arguments {
				return violated(3, "%s %q came back as %s %q(%q), chat had %q(%q)", call.typ, call.id, it.Type, it.Name, it.Arguments, tc.Function.Name, tc.Function.Arguments)
			}
		default:
			return violated(3, "call %q is not among the chat request's tool calls", call.id)
		}
		outType := it.Type + "_output"
		var outs []int
		for j, o := range in {
			if strings.HasSuffix(o.Type, "_output") && o.CallID == call.id {
				outs = append(outs, j)
			}
		}
		if len(outs) != 1 {
			return violated(4, "call %q has %d outputs, want 1", call.id, len(outs))
		}
		o := in[outs[0]]
		if o.Type != outType || outs[0] < i || !strings.Contains(partsText(o.Output, ""), call.marker) {
			return violated(4, "call %q (input[%d]): its output is input[%d] %s %s, want a %s after it holding %q", call.id, i, outs[0], o.Type, o.Output, outType, call.marker)
		}
	}
	return nil
}

// A reasoning piece, as the checks compare them.
type reasonPiece struct {
	typ, val, id, format, signature string
	calls                           int // the calls before it in its input
}

func (p reasonPiece) String() string {
	return fmt.Sprintf("%s %q id=%q format=%q sig=%q after %d calls", p.typ, p.val, p.id, p.format, p.signature, p.calls)
}

// 5. The reasoning, piece by piece, with ids, formats and signatures, and
// where it stands among the calls.
func checkBackReasoning(in []respItem, items []hItem, msgs []chatMsg) *violation {
	var want []reasonPiece
	calls := 0
	for _, it := range items {
		switch it.kind {
		case hCall:
			calls++
		case hReasoning:
			for _, d := range it.details {
				p := reasonPiece{typ: d.typ, val: d.val, id: d.id, format: d.format, calls: calls}
				if d.raw != nil {
					var e struct {
						Type, Summary, Text, Data, ID, Format, Signature string
					}
					json.Unmarshal(d.raw, &e)
					p = reasonPiece{typ: e.Type, val: e.Summary + e.Text + e.Data, id: e.ID, format: e.Format, signature: e.Signature, calls: calls}
				}
				want = append(want, p)
			}
		}
	}
	var got []reasonPiece
	calls = 0
	for _, it := range in {
		switch it.Type {
		case "function_call", "custom_tool_call":
			calls++
		case "reasoning":
			piece := func(typ, val string) reasonPiece {
				return reasonPiece{typ: typ, val: val, id: it.ID, format: it.Format, signature: it.Signature, calls: calls}
			}
			for _, s := range it.Summary {
				got = append(got, piece("reasoning.summary", s.Text))
			}
			var content []textPart
			json.Unmarshal(it.Content, &content)
			for _, c := range content {
				got = append(got, piece("reasoning.text", c.Text))
			}
			if it.EncryptedContent != nil {
				got = append(got, piece("reasoning.encrypted", *it.EncryptedContent))
			}
		}
	}
	if len(got) != len(want) {
		return violated(5, "%d reasoning pieces came back, want %d\nwant %v\n got %v", len(got), len(want), want, got)
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.id == "" {
			g.id = "" // the reverse names an item that had no id
		}
		if w.format == "" || w.format == "unknown" {
			g.format, w.format = "", ""
		}
		if w.signature == "" && g.signature != "" {
			return violated(5, "piece %d: a signature %q no detail had", i, g.signature)
		}
		if w.typ != "reasoning.text" {
			g.signature, w.signature = "", "" // a signature is a text's
		}
		if g.calls != w.calls && !moved(msgs, g.calls, w.calls) {
			return violated(5, "reasoning piece %d comes after %d calls, want %d (or the first of its chat message's)", i, g.calls, w.calls)
		}
		g.calls = w.calls
		if w != g {
			return violated(5, "reasoning piece %d\nwant %v\n got %v", i, w, g)
		}
	}
	return nil
}

// moved reports whether reasoning that came after want calls may come
// after got calls: a chat message's reasoning precedes all of its calls,
// and reasoning between or right after a message's calls is that
// message's, so it moves up to before the first.
func moved(msgs []chatMsg, got, want int) bool {
	n := 0
	for _, m := range msgs {
		if n == got && got <= want && want <= n+len(m.ToolCalls) {
			return true
		}
		n += len(m.ToolCalls)
	}
	return false
}

// shrinkWith drops items while the same property still fails.
func shrinkWith(items []hItem, v *violation, check func([]hItem) *violation) []hItem {
	for changed := true; changed; {
		changed = false
		for i := len(items) - 1; i >= 1; i-- {
			smaller := slices.Delete(slices.Clone(items), i, i+1)
			if w := check(smaller); w != nil && w.prop == v.prop {
				items, changed = smaller, true
			}
		}
	}
	return items
}
