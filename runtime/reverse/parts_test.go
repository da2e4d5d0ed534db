package reverse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// dump is parts as lines, for comparisons.
func dump(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%s %d", p.Kind, p.Index)
		if p.Kind >= KindReasoningStart && p.Kind <= KindReasoningEnd {
			fmt.Fprintf(&b, "/%d summary=%v", p.Sub, p.Summary)
		}
		for _, f := range []struct {
			n string
			v []byte
		}{{"id", p.ID}, {"name", p.Name}, {"delta", p.Delta}, {"input", p.Input}, {"raw", p.Raw}, {"status", p.Status}, {"reason", p.Reason}} {
			if f.v != nil {
				fmt.Fprintf(&b, " %s=%s", f.n, f.v)
			}
		}
		if p.Provider {
			b.WriteString(" provider")
		}
		if p.Usage.Present {
			fmt.Fprintf(&b, " usage=%+v", p.Usage)
		}
		if p.Err != nil {
			fmt.Fprintf(&b, " err=%s", p.Err.Code)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func parse(evs ...string) string {
	var p Parser
	var all []Part
	for _, e := range evs {
		all = append(all, cloneParts(p.Next([]byte(e)))...)
	}
	return dump(append(all, cloneParts(p.Finish())...))
}

// cloneParts copies parts out of the parser's buffers (they are valid
// until its next call).
func cloneParts(ps []Part) []Part {
	out := make([]Part, len(ps))
	for i, p := range ps {
		c := func(b []byte) []byte {
			if b == nil {
				return nil
			}
			return bytes.Clone(b)
		}
		p.ID, p.Name, p.Delta, p.Input, p.Raw, p.Model, p.Status, p.Reason = c(p.ID), c(p.Name), c(p.Delta), c(p.Input), c(p.Raw), c(p.Model), c(p.Status), c(p.Reason)
		out[i] = p
	}
	return out
}

// TestParts: the parser's parts for what the recorded streams do not
// show: rotated item ids, two summary parts, reasoning text, a refusal,
// annotations, code interpreter and file search calls, a function call
// without deltas, an unknown item, an incomplete finish with usage.
func TestParts(t *testing.T) {
	got := parse(
		`{"type":"response.created","response":{"id":"resp_1","created_at":5,"model":"gpt-x"}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
		`{"type":"response.reasoning_summary_part.added","output_index":0,"item_id":"rs_1","summary_index":0}`,
		`{"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"rs_1","summary_index":0,"delta":"A"}`,
		`{"type":"response.reasoning_summary_part.done","output_index":0,"item_id":"rs_1","summary_index":0}`,
		`{"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"rs_1","summary_index":1,"delta":"B"}`,
		`{"type":"response.reasoning_text.delta","output_index":0,"item_id":"rs_1","content_index":0,"delta":"raw"}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAA=="}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","content":[]}}`,
		`{"type":"response.output_text.delta","output_index":1,"item_id":"msg_1","content_index":0,"delta":"Hi \"you\"","logprobs":[{"token":"Hi","logprob":-0.1,"bytes":[72,105],"top_logprobs":[]}]}`,
		`{"type":"response.output_text.delta","output_index":1,"item_id":"msg_ROTATED","content_index":0,"delta":"!"}`,
		`{"type":"response.output_text.annotation.added","output_index":1,"item_id":"msg_ROTATED","annotation":{"type":"url_citation","url":"https://x.test","title":"X","start_index":0,"end_index":2}}`,
		`{"type":"response.refusal.delta","output_index":1,"item_id":"msg_1","delta":"no"}`,
		`{"type":"response.future.delta","output_index":1,"delta":"?"}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_ROTATED","type":"message","content":[]}}`,
		`{"type":"response.output_item.done","output_index":2,"item":{"id":"ci_1","type":"code_interpreter_call","code":"print(\"a\\nb\")","container_id":"cntr_1","outputs":[{"type":"logs","logs":"a"}]}}`,
		`{"type":"response.output_item.done","output_index":3,"item":{"id":"fs_1","type":"file_search_call","queries":["q"],"results":null}}`,
		`{"type":"response.function_call_arguments.done","output_index":4,"item_id":"fc_1","arguments":"{\"a\":1}"}`,
		`{"type":"response.output_item.done","output_index":4,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1}"}}`,
		`{"type":"response.output_item.done","output_index":5,"item":{"id":"ig_1","type":"image_generation_call","result":"AAAA"}}`,
		`{"type":"response.incomplete","response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":17,"cost":0.25}}}`,
		`{"type":"response.output_text.delta","output_index":1,"delta":"after the end"}`,
	)
	golden(t, "parts.txt", []byte(got))
	for _, want := range []string{
		"text-delta 1 id=msg_1 delta=!",            // the text keeps its first id
		"source 1 id=msg_1 raw=",                   // and so do its sources
		"reasoning-start 0/1 summary=true id=rs_1", // a second summary part
		"reasoning-start 0/0 summary=false id=rs_1",
		"reasoning-done 0 id=rs_1 raw=\"gAAA==\"",
		`tool-call 2 id=ci_1 name=code_interpreter input={\"code\":\"print(\\\"a\\\\nb\\\")\",\"container_id\":\"cntr_1\"} provider`,
		"tool-input-start 4 id=call_1 name=f",
		"tool-input-delta 4 id=call_1 name=f delta={\\\"a\\\":1}",
		"item 5 id=ig_1",
		"finish 0 status=incomplete reason=max_output_tokens usage={Present:true InputTokens:10 CachedTokens:4 CacheWrite:0 OutputTokens:7 ReasoningTokens:3 TotalTokens:17 Cost:0.25}", // OpenRouter's cost kept
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "after the end") || strings.Contains(got, "?") && strings.Contains(got, "delta=?") {
		t.Errorf("an event after the end or of an unknown type made a part:\n%s", got)
	}
	// The code interpreter's input is JSON once unescaped.
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "tool-call") {
			in := l[strings.Index(l, "input=")+len("input="):]
			in = strings.TrimSuffix(in, " provider")
			s, ok := codec.Unquote([]byte(`"` + in + `"`))
			if !ok || !json.Valid([]byte(s)) {
				t.Errorf("a call's input is not JSON: %s", in)
			}
		}
	}
}

// TestChatLogprobs: a text delta's log probabilities go in the chunk's
// logprobs.content, compacted to one line.
func TestChatLogprobs(t *testing.T) {
	c := NewChatStream(opts())
	out := c.Next([]byte("{\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"I\",\n\"logprobs\":[ {\"token\":\"I\", \"logprob\":0,\"bytes\":[73],\"top_logprobs\":[]} ]}"))
	if !bytes.Contains(out, []byte(`"logprobs":{"content":[{"token":"I","logprob":0,"bytes":[73],"top_logprobs":[]}]}`)) {
		t.Fatalf("logprobs: %s", out)
	}
}
