package mapping

import (
	"fmt"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// nopOutput takes a reply's content and keeps nothing.
type nopOutput struct{}

func (nopOutput) ReasoningDetail(codec.Value)                               {}
func (nopOutput) ReasoningText(codec.Value)                                 {}
func (nopOutput) Text(codec.Value)                                          {}
func (nopOutput) Refusal(codec.Value)                                       {}
func (nopOutput) Annotation([]byte)                                         {}
func (nopOutput) ToolCall(int, codec.Value, codec.Value, codec.Value, bool) {}
func (nopOutput) Logprobs([]byte, []byte)                                   {}
func (nopOutput) Finished(Finish)                                           {}
func (nopOutput) Failed(codec.Value)                                        {}

// The service tier goes by the value table of chat_responses.yaml
// (values: target): the values the Responses enum lists are kept as they
// are, in a completion and a chunk alike; any other is left out with a
// warning naming the path and the value.
func TestServiceTierValues(t *testing.T) {
	body, _ := codec.OpenRouter.Payload(codec.ChatBody)
	chunk, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	for _, c := range []struct{ tier, want, warn string }{
		{`"flex"`, `"flex"`, ""},
		{`"ultrafast"`, `"ultrafast"`, ""}, // the pinned Responses spec lists it
		{`"warp"`, "", `"warp" is not a value the mapping carries to service_tier; left out`},
	} {
		for _, p := range []codec.Root{body, chunk} {
			var doc codec.Doc
			if err := doc.Decode(p, []byte(`{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[],"service_tier":`+c.tier+`}`)); err != nil {
				t.Fatal(err)
			}
			var r Reply
			if p == body {
				r.Body(&doc, nopOutput{})
			} else {
				r.Chunk(&doc, nopOutput{})
			}
			if got := string(r.ServiceTier()); got != c.want {
				t.Errorf("%s: service_tier %s, want %s", c.tier, got, c.want)
			}
			var warned string
			for _, w := range r.Warnings() {
				if w.Path == "service_tier" {
					warned = w.Reason
				}
			}
			if warned != c.warn {
				t.Errorf("%s: warning %q, want %q", c.tier, warned, c.warn)
			}
		}
	}
}

// OpenRouter's non-streamed tool calls carry their index, which the pinned
// chat body lacks: toolCalls reads it, so it is no unknown field "not
// carried"; a field of a call that nothing reads still is.
func TestToolCallIndexRead(t *testing.T) {
	body, _ := codec.OpenRouter.Payload(codec.ChatBody)
	call := func(i int, extra string) string {
		return `{"index":` + string(rune('0'+i)) + `,"id":"c` + string(rune('0'+i)) + `","type":"function","function":{"name":"f","arguments":"{}"}` + extra + `}`
	}
	for _, c := range []struct {
		calls string
		warn  []string
	}{
		{call(0, "") + "," + call(1, "") + "," + call(2, ""), nil},
		{call(0, "") + "," + call(1, `,"mystery":7`), []string{"choices[0].message.tool_calls[1].mystery"}},
	} {
		var doc codec.Doc
		if err := doc.Decode(body, []byte(`{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[`+c.calls+`]}}]}`)); err != nil {
			t.Fatal(err)
		}
		var r Reply
		r.Body(&doc, nopOutput{})
		var got []string
		for _, w := range r.Warnings() {
			if w.Unknown {
				got = append(got, w.Path)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.warn) {
			t.Errorf("%s: unknown fields %q, want %q", c.calls, got, c.warn)
		}
	}
}
