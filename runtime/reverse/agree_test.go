package reverse

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamAgreesWithResponse: a recorded stream's chat chunks and its
// terminal Response through ResponseToChat say the same: text, reasoning,
// tool calls, finish reason, usage.
func TestStreamAgreesWithResponse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir(t), "*.jsonl"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			evs := events(t, f)
			var final []byte
			for _, e := range evs {
				var head struct {
					Type     string
					Response json.RawMessage
				}
				_ = json.Unmarshal(e, &head)
				if head.Type == "response.completed" || head.Type == "response.incomplete" {
					final = head.Response
					break
				}
			}
			if final == nil {
				t.Skip("no terminal Response in the recording")
			}
			out, c := chat(evs)
			if c.Err() != nil {
				t.Fatal(c.Err())
			}
			s := readChat(t, out)
			body, _, err := ResponseToChat(final, opts())
			if err != nil {
				t.Fatal(err)
			}
			var cc struct {
				Choices []struct {
					Message struct {
						Content   *string
						Reasoning string
						ToolCalls []struct {
							ID       string
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					}
					FinishReason string `json:"finish_reason"`
				}
				Usage json.RawMessage
			}
			if err := json.Unmarshal(body, &cc); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			m := cc.Choices[0].Message
			text := ""
			if m.Content != nil {
				text = *m.Content
			}
			if text != s.text && !strings.Contains(f, "phase") { // phase: deltas trimmed by hand
				t.Errorf("text:\nstream   %q\nresponse %q", s.text, text)
			}
			if m.Reasoning != s.reasoning {
				t.Errorf("reasoning:\nstream   %q\nresponse %q", s.reasoning, m.Reasoning)
			}
			if len(m.ToolCalls) != len(s.calls) {
				t.Fatalf("calls: stream %v, response %s", s.calls, body)
			}
			for i, tc := range m.ToolCalls {
				if (call{tc.ID, tc.Function.Name, tc.Function.Arguments}) != s.calls[i] {
					t.Errorf("call %d: stream %v, response %+v", i, s.calls[i], tc)
				}
			}
			if cc.Choices[0].FinishReason != s.finish {
				t.Errorf("finish: stream %q, response %q", s.finish, cc.Choices[0].FinishReason)
			}
			if (cc.Usage != nil) != s.usage {
				t.Errorf("usage: stream %v, response %s", s.usage, cc.Usage)
			}
		})
	}
}
