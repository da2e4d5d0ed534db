package conformance

// Rule 7: the terminal response against the stream.

import (
	"encoding/json"
	"strings"

	"github.com/transponder-dev/transponder/internal/jsontest"
)

// terminalOutput checks the terminal event's response against the stream.
func (c *Checker) terminalOutput(e event) {
	var r struct {
		Status     string            `json:"status"`
		Output     []json.RawMessage `json:"output"`
		Usage      json.RawMessage   `json:"usage"`
		OutputText *string           `json:"output_text"`
	}
	if len(e.Response) == 0 || json.Unmarshal(e.Response, &r) != nil {
		return // the schema rule reports it
	}
	c.terminal = append(json.RawMessage(nil), e.Response...)
	if want := strings.TrimPrefix(e.Type, "response."); r.Status != want {
		c.violation("terminal-output", "%s with status %q", e.Type, r.Status)
	}
	if e.Type == "response.completed" && (len(r.Usage) == 0 || string(r.Usage) == "null") {
		c.add("usage", Warning, "response.completed without usage")
	}
	if r.OutputText != nil && *r.OutputText == "" && c.streamed {
		c.violation("terminal-output", `output_text is "" after text was streamed`)
	}
	for _, f := range outputItems(e.Response) {
		c.violation(f.Rule, "the terminal response's %s", f.Reason)
	}
	if e.Type != "response.failed" { // a failed response may cut items short
		c.unfinished()
	}
	if len(r.Output) != len(c.items) {
		c.violation("terminal-output", "response.output has %d items, the stream added %d", len(r.Output), len(c.items))
	}
	for i, out := range r.Output {
		if i >= len(c.items) || !c.items[i].done {
			continue
		}
		if d := sameItem(c.items[i].doneItem, out); d != "" {
			c.violation("terminal-output", "output[%d] is not its output_item.done: %s", i, clip(d))
		}
	}
}

// unfinished reports the items added and never done.
func (c *Checker) unfinished() {
	for i, it := range c.items {
		if !it.done {
			c.violation("output-item", "the %s item at output_index %d was added, never done", it.typ, i)
		}
	}
}

// sameItem returns how two items differ, or "": every field but
// encrypted_content (OpenAI encrypts the reasoning anew for the terminal
// event).
func sameItem(a, b json.RawMessage) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return "not objects"
	}
	delete(ma, "encrypted_content")
	delete(mb, "encrypted_content")
	a, _ = json.Marshal(ma)
	b, _ = json.Marshal(mb)
	d, err := jsontest.Diff(a, b)
	if err != nil {
		return err.Error()
	}
	return d
}
