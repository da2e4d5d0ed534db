package mapping_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
)

// Two tools the chat request would name alike are refused, naming the
// name: two functions of one name, a function named as a built-in
// offered beside it, and the same among many tools (past the names
// compared pairwise); as many tools of distinct names pass.
func TestUniqueToolNames(t *testing.T) {
	fn := func(name string) string {
		return `{"type":"function","name":"` + name + `","parameters":{"type":"object"}}`
	}
	many := func(n int, last string) string {
		var ts []string
		for i := range n {
			ts = append(ts, fn(fmt.Sprintf("tool_%d", i)))
		}
		return strings.Join(append(ts, fn(last)), ",")
	}
	for _, c := range []struct{ tools, dup string }{
		{fn("a") + "," + fn("b") + "," + fn("a"), "a"},
		{fn("shell") + `,{"type":"shell"}`, "shell"},
		{many(3, "tool_1"), "tool_1"},
		{many(40, "tool_7"), "tool_7"},
		{many(40, "tool_39"), "tool_39"},
		{many(32, "tool_0"), "tool_0"},
		{many(40, "other"), ""},
		{many(2, "other"), ""},
	} {
		body := `{"model":"m","input":"hi","tools":[` + c.tools + `]}`
		_, _, err := mapping.ResponsesToChat([]byte(body), mapping.Options{})
		var e *mapping.Error
		switch {
		case c.dup == "" && err != nil:
			t.Errorf("%d tools: %v", strings.Count(c.tools, `"type"`), err)
		case c.dup != "" && (!errors.As(err, &e) || e.Code != "invalid_value" || e.Param != "tools" || e.Message != `two tools are named "`+c.dup+`" upstream`):
			t.Errorf("%s…: %v, want two tools named %q", c.tools[:min(60, len(c.tools))], err, c.dup)
		}
	}
}
