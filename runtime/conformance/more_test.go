package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func rulesOf(fs []Finding) []string {
	var rules []string
	for _, f := range fs {
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	slices.Sort(rules)
	return rules
}

func insert(ms []map[string]any, i int, m map[string]any) []map[string]any {
	return append(ms[:i:i], append([]map[string]any{m}, ms[i:]...)...)
}

// More ways to break the rules, each caught by the rules listed (sorted).
func TestMoreViolations(t *testing.T) {
	base := func() [][]byte {
		return newStream().reasoning("thinking", "plan").message("Hello there", "refusal:no").functionCall("f", `{"x":1}`).customToolCall("p", "patch").events()
	}
	for _, c := range []struct {
		name  string
		rules []string
		fn    func([]map[string]any) []map[string]any
	}{
		{"an event for an output index never added", []string{"output-item"}, func(ms []map[string]any) []map[string]any {
			return renumber(insert(ms, 3, map[string]any{"type": "response.web_search_call.searching", "output_index": 7, "item_id": "ws_7"}))
		}},
		{"response.created again", []string{"lifecycle"}, func(ms []map[string]any) []map[string]any {
			return renumber(insert(ms, 5, clone(ms[0])))
		}},
		{"sequence numbers out of order", []string{"sequence", "sequence-gap"}, func(ms []map[string]any) []map[string]any {
			ms[3]["sequence_number"], ms[4]["sequence_number"] = 4, 3
			return ms
		}},
		{"created_at changes", []string{"response-identity"}, func(ms []map[string]any) []map[string]any {
			terminalResponse(ms)["created_at"] = 1770000001
			return ms
		}},
		{"output_text empty after text was streamed", []string{"terminal-output"}, func(ms []map[string]any) []map[string]any {
			terminalResponse(ms)["output_text"] = ""
			return ms
		}},
		{"annotation indexes out of order", []string{"annotation"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_text.done", 0)
			a := map[string]any{"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1, "content_index": 0, "annotation_index": 1,
				"annotation": map[string]any{"type": "url_citation", "url": "https://example.com", "title": "t", "start_index": 0, "end_index": 1}}
			return renumber(insert(ms, i, a))
		}},
		{"an annotation on a refusal", []string{"annotation"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.refusal.done", 0)
			a := map[string]any{"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1, "content_index": 1, "annotation_index": 0,
				"annotation": map[string]any{"type": "url_citation", "url": "https://example.com", "title": "t", "start_index": 0, "end_index": 1}}
			return renumber(insert(ms, i, a))
		}},
		{"a done item of another type", []string{"output-item", "schema"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_item.done", 3)
			item := clone(ms[i]["item"].(map[string]any))
			item["type"] = "function_call"
			ms[i]["item"] = item
			terminalResponse(ms)["output"].([]any)[3] = item
			return ms
		}},
		{"a part done twice", []string{"content-part"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.content_part.done", 1)
			return renumber(insert(ms, i, clone(ms[i])))
		}},
		{"a delta after its part was done", []string{"content-part"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.content_part.done", 1)
			return renumber(insert(ms, i+1, clone(ms[find(ms, "response.output_text.delta", 0)])))
		}},
		{"a delta after its text's done event", []string{"delta-text"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_text.done", 0)
			d := clone(ms[find(ms, "response.output_text.delta", 0)])
			d["delta"] = ""
			return renumber(insert(ms, i+1, d))
		}},
		{"a refusal delta into an output_text part", []string{"content-part"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_text.delta", 0)
			d := clone(ms[i])
			d["type"], d["delta"] = "response.refusal.delta", ""
			delete(d, "logprobs")
			return renumber(insert(ms, i, d))
		}},
		{"custom tool input on a function call", []string{"output-item"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.function_call_arguments.delta", 0)
			d := clone(ms[i])
			d["type"], d["delta"] = "response.custom_tool_call_input.delta", ""
			return renumber(insert(ms, i, d))
		}},
		{"two items with one id", []string{"item-id"}, func(ms []map[string]any) []map[string]any {
			for _, m := range ms {
				for _, k := range []string{"item"} {
					if it, ok := m[k].(map[string]any); ok && it["id"] == "fc_2" {
						it = clone(it)
						it["id"] = "msg_1"
						m[k] = it
					}
				}
				if m["item_id"] == "fc_2" {
					m["item_id"] = "msg_1"
				}
			}
			out := terminalResponse(ms)["output"].([]any)
			it := clone(out[2].(map[string]any))
			it["id"] = "msg_1"
			out[2] = it
			return ms
		}},
		{"a part with no deltas and no text done event", []string{"content-part"}, func(ms []map[string]any) []map[string]any {
			ms = without(ms, find(ms, "response.refusal.done", 0))
			ms = without(ms, find(ms, "response.refusal.delta", 0))
			ms[find(ms, "response.content_part.done", 2)]["part"] = map[string]any{"type": "refusal", "refusal": ""}
			for _, m := range ms {
				if it, ok := m["item"].(map[string]any); ok && it["id"] == "msg_1" && m["type"] == "response.output_item.done" {
					it["content"].([]any)[1] = map[string]any{"type": "refusal", "refusal": ""}
				}
			}
			terminalResponse(ms)["output"].([]any)[1].(map[string]any)["content"].([]any)[1] = map[string]any{"type": "refusal", "refusal": ""}
			return renumber(ms)
		}},
		{"a done item with a part never streamed", []string{"delta-text"}, func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_item.done", 1)
			item := clone(ms[i]["item"].(map[string]any))
			item["content"] = append(slices.Clone(item["content"].([]any)), map[string]any{"type": "output_text", "text": "extra", "annotations": []any{}, "logprobs": []any{}})
			ms[i]["item"] = item
			terminalResponse(ms)["output"].([]any)[1] = item
			return ms
		}},
		{"a refusal done that is not its deltas", []string{"delta-text"}, func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.refusal.done", 0)]["refusal"] = "nope"
			return ms
		}},
		{"custom tool input done that is not its deltas", []string{"delta-text"}, func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.custom_tool_call_input.done", 0)]["input"] = "patch!"
			return ms
		}},
		{"reasoning text done that is not its deltas", []string{"delta-text"}, func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.reasoning_text.done", 0)]["text"] = "thinking…"
			return ms
		}},
		{"a terminal item field changed", []string{"terminal-output"}, func(ms []map[string]any) []map[string]any {
			it := clone(terminalResponse(ms)["output"].([]any)[2].(map[string]any))
			it["status"] = "incomplete"
			terminalResponse(ms)["output"].([]any)[2] = it
			return ms
		}},
		{"null usage counts and deltas", []string{"delta-text", "schema"}, func(ms []map[string]any) []map[string]any {
			terminalResponse(ms)["usage"].(map[string]any)["output_tokens"] = nil
			ms[find(ms, "response.output_text.delta", 0)]["delta"] = nil
			return ms
		}},
		{"null annotations in the terminal response", []string{"annotation", "schema", "terminal-output"}, func(ms []map[string]any) []map[string]any {
			part := clone(terminalResponse(ms)["output"].([]any)[1].(map[string]any)["content"].([]any)[0].(map[string]any))
			part["annotations"] = nil
			terminalResponse(ms)["output"].([]any)[1].(map[string]any)["content"].([]any)[0] = part
			return ms
		}},
		{"a negative content index", []string{"content-part", "delta-text"}, func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.output_text.delta", 0)]["content_index"] = -1
			return ms
		}},
		{"an output index past what the checker follows", []string{"delta-text", "output-item"}, func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.output_text.delta", 0)]["output_index"] = 1e20
			return ms
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := checkOnAnyRelease(edit(base(), c.fn))
			if got := rulesOf(fs); !slices.Equal(got, c.rules) {
				t.Errorf("rules %v, want %v: %v", got, c.rules, fs)
			}
		})
	}
}

func TestTerminalKinds(t *testing.T) {
	s := newStream().message("partial")
	s.status = "incomplete"
	if fs := checkOnAnyRelease(s.events()); len(fs) > 0 {
		t.Errorf("incomplete: %v", fs)
	}
	// A failed response may leave items unfinished.
	f := newStream().message("a")
	f.add(map[string]any{"type": "response.output_item.added", "output_index": 1,
		"item": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}})
	f.status = "failed"
	evs := edit(f.events(), func(ms []map[string]any) []map[string]any {
		r := terminalResponse(ms)
		r["error"] = map[string]any{"code": "server_error", "message": "boom"}
		r["output"] = append(r["output"].([]any), map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "status": "incomplete", "content": []any{}})
		return ms
	})
	if fs := checkOnAnyRelease(evs); len(fs) > 0 {
		t.Errorf("failed with an unfinished item: %v", fs)
	}
	// Without a terminal event, unfinished items are reported too.
	evs = newStream().message("a").events()
	evs = edit(evs[:len(evs)-1], func(ms []map[string]any) []map[string]any {
		return without(ms, find(ms, "response.output_item.done", 0))
	})
	fs := checkOnAnyRelease(evs)
	if got := rulesOf(fs); !slices.Equal(got, []string{"lifecycle", "output-item"}) || fs[len(fs)-1].Event != -1 {
		t.Errorf("%v", fs)
	}
	// response.queued between created and in_progress.
	q := edit(newStream().message("a").events(), func(ms []map[string]any) []map[string]any {
		queued := clone(ms[0])
		queued["type"] = "response.queued"
		queued["response"] = clone(queued["response"].(map[string]any))
		queued["response"].(map[string]any)["status"] = "queued"
		return renumber(insert(ms, 1, queued))
	})
	if fs := checkOnAnyRelease(q); len(fs) > 0 {
		t.Errorf("queued: %v", fs)
	}
}

func TestCheckerAPI(t *testing.T) {
	// Event returns what it found, as it finds it.
	c := NewChecker()
	evs := newStream().message("a").events()
	var seen []Finding
	for i, e := range evs {
		if i == 4 { // the delta
			e = []byte(strings.Replace(string(e), `"item_id":"msg_0"`, `"item_id":"msg_9"`, 1))
		}
		got := c.Event(e)
		if (i == 4) != (len(got) > 0) {
			t.Errorf("event %d: %v", i, got)
		}
		seen = append(seen, got...)
	}
	first := c.Finish()
	if !slices.Equal(seen, first) {
		t.Errorf("Event returned %v, Finish %v", seen, first)
	}
	if again := c.Finish(); len(again) != len(first) {
		t.Errorf("Finish is not idempotent: %d then %d", len(first), len(again))
	}
	// A gap in output indexes is reported, not allocated for.
	c = NewChecker()
	c.Event(evs[0])
	c.Event([]byte(`{"type":"response.output_item.added","sequence_number":1,"output_index":4095,"item":{"id":"m","type":"message","role":"assistant","status":"in_progress","content":[]}}`))
	if len(c.items) != 0 {
		t.Errorf("%d items kept", len(c.items))
	}
	// One root cause does not make findings without end.
	c = NewChecker()
	for i := range 500 {
		c.Event([]byte(fmt.Sprintf(`{"type":"response.in_progress","sequence_number":%d}`, 1000-i)))
	}
	fs := c.Finish()
	if n := len(fs); n > 4*MaxPerRule {
		t.Errorf("%d findings", n)
	}
	last := fs[len(fs)-1]
	if last.Event != -1 || !strings.HasSuffix(last.Reason, "more like the above") {
		t.Errorf("last finding %v", last)
	}
}
