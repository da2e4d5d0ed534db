package reverse

import (
	"strings"
	"testing"
)

// An OpenRouter reasoning item's format and signature (Claude's thinking,
// which Anthropic accepts replayed only with its signature) reach the chat
// client's reasoning_details, streamed and not.
func TestReasoningSignature(t *testing.T) {
	item := `{"type":"reasoning","id":"rs_1","format":"anthropic-claude-v1","signature":"EqQBCkYI","summary":[],"content":[{"type":"reasoning_text","text":"Think."}],"status":"completed"}`
	resp := `{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[` + item + `],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`
	evs := [][]byte{
		[]byte(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"in_progress","output":[]}}`),
		[]byte(`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[],"content":[]}}`),
		[]byte(`{"type":"response.reasoning_text.delta","sequence_number":2,"output_index":0,"item_id":"rs_1","content_index":0,"delta":"Think."}`),
		[]byte(`{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":` + item + `}`),
		[]byte(`{"type":"response.completed","sequence_number":4,"response":` + resp + `}`),
	}
	out, c := chat(evs)
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
	body, _, err := ResponseToChat([]byte(resp), opts())
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"stream": string(out), "completion": string(body)} {
		if !strings.Contains(got, `"signature":"EqQBCkYI"`) || !strings.Contains(got, `"format":"anthropic-claude-v1"`) {
			t.Errorf("%s: no signature or format in the reasoning details:\n%s", name, got)
		}
	}
}
