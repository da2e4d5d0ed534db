package mapping

import (
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// A strict dialect's request carries nothing its shape table lacks,
// however it got there: fields the converter wrote are left out (at any
// depth, past parts left out as empty) with a warning naming their chat
// path; one inside a value copied as sent is left in and said so.
func TestPruneUnknown(t *testing.T) {
	c := &conv{opts: Options{Dialect: Mistral}}
	c.b.Reset()
	c.b.SetJSON(codec.Top, "model", `"m"`)
	c.b.SetJSON(codec.Top, "seed", `7`)
	c.b.SetJSON(codec.Top, "x-trace", `"t"`)
	msgs := c.b.Array(codec.Top, "messages")
	c.b.AppendObject(msgs) // empty: not written, not counted
	m := c.b.AppendObject(msgs)
	c.b.SetJSON(m, "role", `"user"`)
	c.b.SetJSON(m, "name", `"ann"`)
	parts := c.b.Array(m, "content")
	p := c.b.AppendObject(parts)
	c.b.SetJSON(p, "type", `"text"`)
	c.b.SetJSON(p, "text", `"hi"`)
	c.b.SetJSON(p, "prompt_cache_breakpoint", `{"mode":"explicit"}`)
	a := c.b.AppendObject(msgs)
	c.b.SetJSON(a, "role", `"assistant"`)
	c.b.SetJSON(a, "content", `"ok"`)
	c.b.SetJSON(a, "tool_calls", `[{"id":"abcdefghi","type":"function","function":{"name":"f","arguments":"{}"},"extra":1}]`)
	c.pruneUnknown()
	got := string(c.b.AppendJSON(nil))
	want := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":"ok","tool_calls":[{"id":"abcdefghi","type":"function","function":{"name":"f","arguments":"{}"},"extra":1}]}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var ws []string
	for _, w := range c.warns {
		ws = append(ws, w.Path+": "+w.Reason[strings.LastIndexByte(w.Reason, ';')+2:])
	}
	if want := "seed: left out|[\"x-trace\"]: left out|messages[0].name: left out|messages[0].content[0].prompt_cache_breakpoint: left out|messages[1].tool_calls[0].extra: left in"; strings.Join(ws, "|") != want {
		t.Errorf("warnings %q\nwant %q", strings.Join(ws, "|"), want)
	}
}
