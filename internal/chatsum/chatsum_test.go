package chatsum

import (
	"encoding/json"
	"testing"
)

// The chunks' texts join, tool calls gather by index (two interleaved),
// details keep their order, the last finish reason and usage win, and a
// chunk that is not JSON is skipped.
func TestAdd(t *testing.T) {
	s := Add([][]byte{
		[]byte(`{"id":"a","model":"m","provider":"P","system_fingerprint":"fp","created":7,"choices":[{"delta":{"role":"assistant","reasoning":"r1","reasoning_content":"c1","reasoning_details":[{"type":"reasoning.text","text":"r1"}]}}]}`),
		[]byte(`not json`),
		[]byte(`{"choices":[{"delta":{"reasoning":"r2","reasoning_content":"c2","tool_calls":[{"index":1,"id":"x","function":{"name":"g","arguments":"{\"b\""}},{"index":0,"id":"w","function":{"name":"f","arguments":"{"}}]}}]}`),
		[]byte(`{"choices":[{"delta":{"content":"hel","tool_calls":[{"index":0,"function":{"arguments":"}"}},{"index":1,"function":{"arguments":":1}"}}]}}]}`),
		[]byte(`{"choices":[{"delta":{"content":"lo"},"finish_reason":"tool_calls"}],"usage":{"total_tokens":3}}`),
	})
	if s.Content != "hello" || s.Reasoning != "r1r2" || s.ReasoningContent != "c1c2" || len(s.ReasoningDetails) != 1 || s.Finish != "tool_calls" || string(s.Usage) != `{"total_tokens":3}` {
		t.Errorf("%+v", s)
	}
	calls, _ := json.Marshal(s.Calls)
	if want := `[{"id":"x","type":"function","function":{"name":"g","arguments":"{\"b\":1}"}},{"id":"w","type":"function","function":{"name":"f","arguments":"{}"}}]`; string(calls) != want {
		t.Errorf("calls %s\nwant  %s", calls, want)
	}
	if s.ID != "a" || s.Provider != "P" || s.Model != "m" || s.SystemFingerprint != "fp" || s.Created != 7 {
		t.Errorf("a chunk without them keeps the id, model, provider, fingerprint and time: %+v", s)
	}
	if e := Add(nil); e.Finish != "stop" || e.Usage != nil {
		t.Errorf("nothing: %+v", e)
	}
}
