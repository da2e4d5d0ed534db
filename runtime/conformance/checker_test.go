package conformance

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
)

// conformant are synthetic streams, one per kind of item, that follow
// every rule.
func conformant() []struct {
	name   string
	events [][]byte
} {
	return []struct {
		name   string
		events [][]byte
	}{
		{"message", newStream().message("Hello, wörld!", "second part").events()},
		{"refusal", newStream().message("refusal:I can't help with that.").events()},
		{"function call", newStream().functionCall("get_weather", `{"city":"Paris"}`).events()},
		{"custom tool call", newStream().customToolCall("apply_patch", "*** Begin Patch\n*** End Patch").events()},
		{"reasoning", newStream().reasoning("", "**Planning**\n\nfirst", "then").message("done").events()},
		{"reasoning text", newStream().reasoning("Let me think: 2+2=4.").message("4").events()},
		{"several items", newStream().reasoning("", "s").functionCall("f", "{}").functionCall("g", `{"a":1}`).message("ok").events()},
		{"no items", newStream().events()},
	}
}

func TestConformant(t *testing.T) {
	for _, c := range conformant() {
		if fs := checkOnAnyRelease(c.events); len(fs) > 0 {
			t.Errorf("%s: %v", c.name, fs)
		}
	}
}

// edit decodes a stream's events, lets fn change them, and encodes them
// again (sequence numbers as fn left them).
func edit(evs [][]byte, fn func([]map[string]any) []map[string]any) [][]byte {
	var ms []map[string]any
	for _, e := range evs {
		var m map[string]any
		if err := json.Unmarshal(e, &m); err != nil {
			panic(err)
		}
		ms = append(ms, m)
	}
	var out [][]byte
	for _, m := range fn(ms) {
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// renumber gives the events sequence numbers from 0.
func renumber(ms []map[string]any) []map[string]any {
	for i, m := range ms {
		m["sequence_number"] = i
	}
	return ms
}

// find returns the index of the n-th event of a type (n from 0).
func find(ms []map[string]any, typ string, n int) int {
	for i, m := range ms {
		if m["type"] == typ {
			if n == 0 {
				return i
			}
			n--
		}
	}
	panic("no " + typ)
}

func without(ms []map[string]any, i int) []map[string]any {
	return append(ms[:i:i], ms[i+1:]...)
}

func terminalResponse(ms []map[string]any) map[string]any {
	return ms[len(ms)-1]["response"].(map[string]any)
}

// Each synthetic stream breaks one rule, and only that rule is reported.
func TestEachRuleCaught(t *testing.T) {
	base := func() [][]byte {
		return newStream().reasoning("", "plan").message("Hello there", "more").functionCall("f", `{"x":1}`).events()
	}
	for _, c := range []struct {
		rule, name string
		fn         func([]map[string]any) []map[string]any
	}{
		{"schema", "a delta without its required item_id", func(ms []map[string]any) []map[string]any {
			delete(ms[find(ms, "response.output_text.delta", 0)], "item_id")
			return ms
		}},
		{"schema", "an integer of the wrong kind", func(ms []map[string]any) []map[string]any {
			terminalResponse(ms)["usage"].(map[string]any)["input_tokens"] = 1.5
			return ms
		}},
		{"lifecycle", "no response.created", func(ms []map[string]any) []map[string]any {
			return renumber(ms[1:])
		}},
		{"lifecycle", "in_progress late", func(ms []map[string]any) []map[string]any {
			out := append([]map[string]any{ms[0]}, ms[2:5]...)
			out = append(append(out, ms[1]), ms[5:]...)
			return renumber(out)
		}},
		{"lifecycle", "an event after the terminal event", func(ms []map[string]any) []map[string]any {
			return renumber(append(ms, clone(ms[1])))
		}},
		{"lifecycle", "two terminal events", func(ms []map[string]any) []map[string]any {
			return renumber(append(ms, clone(ms[len(ms)-1])))
		}},
		{"lifecycle", "no terminal event", func(ms []map[string]any) []map[string]any {
			return ms[:len(ms)-1]
		}},
		{"lifecycle", "an event after an error", func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_item.added", 2)
			ms = append(ms[:i:i], append([]map[string]any{{"type": "error", "message": "boom", "code": "server_error", "param": nil}}, ms[i:]...)...)
			return renumber(ms)
		}},
		{"sequence", "sequence numbers from 1", func(ms []map[string]any) []map[string]any {
			for i, m := range ms {
				m["sequence_number"] = i + 1
			}
			return ms
		}},
		{"sequence-gap", "a sequence number skipped", func(ms []map[string]any) []map[string]any {
			for i, m := range ms {
				if i > 5 {
					m["sequence_number"] = i + 1
				}
			}
			return ms
		}},
		{"response-identity", "the model changes", func(ms []map[string]any) []map[string]any {
			terminalResponse(ms)["model"] = "gpt-6"
			return ms
		}},
		{"response-identity", "the id changes", func(ms []map[string]any) []map[string]any {
			ms[1]["response"].(map[string]any)["id"] = "resp_2"
			return ms
		}},
		{"output-item", "an item never done", func(ms []map[string]any) []map[string]any {
			return renumber(without(ms, find(ms, "response.output_item.done", 2)))
		}},
		{"output-item", "an item added twice", func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_item.added", 2)
			out := append(append(ms[:i+1:i+1], clone(ms[i])), ms[i+1:]...)
			return renumber(out)
		}},
		{"content-part", "a part never done", func(ms []map[string]any) []map[string]any {
			return renumber(without(ms, find(ms, "response.content_part.done", 1)))
		}},
		{"content-part", "a delta before its part", func(ms []map[string]any) []map[string]any {
			return renumber(without(ms, find(ms, "response.content_part.added", 0)))
		}},
		{"summary-part", "a summary delta before its part", func(ms []map[string]any) []map[string]any {
			return renumber(without(ms, find(ms, "response.reasoning_summary_part.added", 0)))
		}},
		{"item-id", "a delta with another item's id", func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.output_text.delta", 1)]["item_id"] = "msg_other"
			return ms
		}},
		{"item-id", "an item whose id changes when done", func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_item.done", 2)
			item := clone(ms[i]["item"].(map[string]any))
			item["id"] = "fc_other"
			ms[i]["item"] = item
			terminalResponse(ms)["output"].([]any)[2] = item
			return ms
		}},
		{"delta-text", "a done text that is not its deltas", func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.output_text.done", 0)]["text"] = "Hello world"
			return ms
		}},
		{"delta-text", "done arguments that are not their deltas", func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.function_call_arguments.done", 0)]["arguments"] = `{"x":2}`
			return ms
		}},
		{"delta-text", "a done summary that is not its deltas", func(ms []map[string]any) []map[string]any {
			ms[find(ms, "response.reasoning_summary_text.done", 0)]["text"] = "plan!"
			return ms
		}},
		{"terminal-output", "a terminal output that is not the streamed item", func(ms []map[string]any) []map[string]any {
			out := terminalResponse(ms)["output"].([]any)
			item := clone(out[1].(map[string]any))
			item["id"] = "msg_changed"
			out[1] = item
			return ms
		}},
		{"terminal-output", "a terminal output missing an item", func(ms []map[string]any) []map[string]any {
			out := terminalResponse(ms)["output"].([]any)
			terminalResponse(ms)["output"] = out[:2]
			return ms
		}},
		{"terminal-output", "a status that is not the event's", func(ms []map[string]any) []map[string]any {
			terminalResponse(ms)["status"] = "in_progress"
			return ms
		}},
		{"annotation", "an annotation for a part not added", func(ms []map[string]any) []map[string]any {
			i := find(ms, "response.output_text.done", 0)
			a := map[string]any{"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1, "content_index": 7, "annotation_index": 0,
				"annotation": map[string]any{"type": "url_citation", "url": "https://example.com", "title": "t", "start_index": 0, "end_index": 1}}
			return renumber(append(ms[:i:i], append([]map[string]any{a}, ms[i:]...)...))
		}},
	} {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			fs := Check(edit(base(), c.fn))
			var rules []string
			for _, f := range fs {
				if !slices.Contains(rules, f.Rule) {
					rules = append(rules, f.Rule)
				}
				if f.Class != Violation {
					t.Errorf("not a violation: %v", f)
				}
			}
			if !slices.Equal(rules, []string{c.rule}) {
				t.Errorf("rules %v, want [%s]: %v", rules, c.rule, fs)
			}
		})
	}
}

// An event type the spec does not know is a warning, not a violation.
func TestUnknownEventType(t *testing.T) {
	evs := edit(newStream().message("hi").events(), func(ms []map[string]any) []map[string]any {
		i := find(ms, "response.output_text.done", 0)
		extra := map[string]any{"type": "response.output_text.delta_v2", "output_index": 0, "item_id": "msg_0", "delta": "x"}
		return renumber(append(ms[:i:i], append([]map[string]any{extra}, ms[i:]...)...))
	})
	fs := Check(evs)
	if len(fs) != 1 || fs[0].Rule != "unknown-type" || fs[0].Class != Warning || Violations(fs) != 0 {
		t.Fatalf("%v", fs)
	}
	if want := `event 5: unknown-type (warning): event type "response.output_text.delta_v2" is not in the spec`; fs[0].String() != want {
		t.Errorf("%s\nwant %s", fs[0], want)
	}
}

func TestSSEAndJSON(t *testing.T) {
	c := NewChecker()
	evs := newStream().message("hi").events()
	for i, e := range evs {
		typ := ""
		if i == 2 {
			typ = "response.output_text.delta" // the data is output_item.added
		}
		c.SSE(sse.Event{Type: typ, Data: e})
	}
	c.Event([]byte(`{"type":`))
	var rules []string
	for _, f := range c.Finish() {
		rules = append(rules, f.Rule)
	}
	if !slices.Equal(rules, []string{"sse-event-type", "json"}) {
		t.Errorf("rules %v", rules)
	}
	if fs := Check(nil); len(fs) != 1 || fs[0].Rule != "lifecycle" || fs[0].Event != -1 {
		t.Errorf("an empty stream: %v", fs)
	}
}

func TestCheckResponse(t *testing.T) {
	c := NewChecker()
	for _, e := range newStream().reasoning("", "s").message("hi").functionCall("f", "{}").events() {
		c.Event(e)
	}
	if fs := c.Finish(); len(fs) > 0 {
		t.Fatal(fs)
	}
	body := c.Terminal()
	if fs := CheckResponse(body); len(fs) > 0 {
		t.Errorf("the terminal response: %v", fs)
	}
	if fs := CompareResponses(body, body); len(fs) > 0 {
		t.Errorf("a response differs from itself: %v", fs)
	}
	bad := bytes.Replace(body, []byte(`"annotations":[]`), []byte(`"annotations":null`), 1)
	bad = bytes.Replace(bad, []byte(`"id":"fc_2",`), nil, 1)
	var rules []string
	for _, f := range CheckResponse(bad) {
		rules = append(rules, f.Rule)
	}
	slices.Sort(rules)
	if !slices.Equal(slices.Compact(rules), []string{"annotation", "item-id", "schema"}) {
		t.Errorf("rules %v", rules)
	}
	other := bytes.Replace(body, []byte(`"text":"hi"`), []byte(`"text":"ho"`), 1)
	fs := CompareResponses(body, other)
	if len(fs) != 1 || fs[0].Rule != "same-response" || !strings.Contains(fs[0].Reason, "output[1].content[0].text") {
		t.Errorf("%v", fs)
	}
}

// Streamed texts end with their done event before their part or item does
// (users of other gateways miss output_text.done).
func TestTextDoneRequired(t *testing.T) {
	for typ, rule := range map[string]string{
		"response.output_text.done":             "content-part",
		"response.reasoning_summary_text.done":  "summary-part",
		"response.function_call_arguments.done": "output-item",
	} {
		evs := edit(newStream().reasoning("", "plan").message("hi").functionCall("f", "{}").events(), func(ms []map[string]any) []map[string]any {
			return renumber(without(ms, find(ms, typ, 0)))
		})
		fs := Check(evs)
		if len(fs) != 1 || fs[0].Rule != rule || !strings.Contains(fs[0].Reason, "before its "+typ) {
			t.Errorf("without %s: %v", typ, fs)
		}
	}
}

// A failed Response's error code may be one the live API sends beyond the
// spec's ResponseErrorCode (context_length_exceeded, insufficient_quota:
// clients act on them): a warning that says why, not a violation; any
// other code the spec does not list is one.
func TestErrorCodesBeyondSpec(t *testing.T) {
	for _, c := range []struct {
		code      string
		violation bool
	}{
		{"context_length_exceeded", false},
		{"insufficient_quota", false},
		{"server_error", false},
		{"made_up", true},
	} {
		s := newStream().message("hi")
		s.status = "failed"
		evs := s.events()
		last := len(evs) - 1
		evs[last] = bytes.Replace(evs[last], []byte(`"error":null`), []byte(`"error":{"code":"`+c.code+`","message":"m"}`), 1)
		fs := Check(evs)
		if got := Violations(fs) > 0; got != c.violation {
			t.Errorf("%s: violation %v, want %v: %v", c.code, got, c.violation, fs)
		}
		beyond := slices.ContainsFunc(fs, func(f Finding) bool { return f.Rule == "beyond-spec" && f.Class == Warning })
		if want := c.code == "context_length_exceeded" || c.code == "insufficient_quota"; beyond != want {
			t.Errorf("%s: beyond-spec warning %v, want %v: %v", c.code, beyond, want, fs)
		}
		var term struct{ Response json.RawMessage }
		if err := json.Unmarshal(evs[last], &term); err != nil {
			t.Fatal(err)
		}
		if got := Violations(CheckResponse(term.Response)) > 0; got != c.violation {
			t.Errorf("%s: the response: violation %v, want %v", c.code, got, c.violation)
		}
	}
}
