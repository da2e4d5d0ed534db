package translate

import (
	"encoding/json"
	"testing"
)

// The Response's usage has every count the spec requires, from the chat
// usage's counts and details, whichever of them the upstream reported:
// total_tokens when it sent one, else input + output; 0 for a count it
// did not send; OpenRouter's cost when it sent one. (TestPinnedSpec: the
// fields are the pinned specs'; a release without cache_write_tokens
// drops it.)
func TestPinnedSpecUsage(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi"}`)
	for _, c := range []struct{ usage, want string }{
		{`{"prompt_tokens":10,"completion_tokens":5}`,
			`{"input_tokens":10,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}`},
		{`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":20}`,
			`{"input_tokens":10,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":20}`},
		{`{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":30,"cache_write_tokens":7},"completion_tokens_details":{"reasoning_tokens":40},"cost":0.25}`,
			`{"input_tokens":100,"input_tokens_details":{"cached_tokens":30,"cache_write_tokens":7},"output_tokens":50,"output_tokens_details":{"reasoning_tokens":40},"total_tokens":150,"cost":0.25}`},
		{`{"completion_tokens":5,"completion_tokens_details":{"reasoning_tokens":2}}`,
			`{"input_tokens":0,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":5}`},
	} {
		body := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":` + c.usage + `}`
		resp, _, err := ChatToResponse(req, []byte(body), Options{IDs: &SeqIDs{}, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Usage json.RawMessage }
		if err := json.Unmarshal(resp, &r); err != nil {
			t.Fatal(err)
		}
		if string(r.Usage) != c.want {
			t.Errorf("usage %s:\n got  %s\n want %s", c.usage, r.Usage, c.want)
		}
	}
}
