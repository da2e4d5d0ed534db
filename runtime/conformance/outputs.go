package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/transponder-dev/transponder/internal/jsontest"
)

// The rules about output items, their parts and texts, and the terminal
// response (rules 5–8 of the issue).

// partKind says which list of an item's parts an event is about.
type partKind uint8

const (
	content partKind = iota // content_index: message text, refusal, reasoning text
	summary                 // summary_index: reasoning summary
)

func (k partKind) rule() string {
	if k == summary {
		return "summary-part"
	}
	return "content-part"
}

func (k partKind) field() string {
	if k == summary {
		return "summary_index"
	}
	return "content_index"
}

// textEvents maps the delta and done events of texts to what they are
// about and, for done events, the field holding the whole text.
var textEvents = map[string]struct {
	kind  partKind
	args  bool   // an item's arguments or input, not a part's text
	field string // the done event's text field; "" for a delta
}{
	"response.output_text.delta":             {kind: content},
	"response.output_text.done":              {kind: content, field: "text"},
	"response.refusal.delta":                 {kind: content},
	"response.refusal.done":                  {kind: content, field: "refusal"},
	"response.reasoning_text.delta":          {kind: content},
	"response.reasoning_text.done":           {kind: content, field: "text"},
	"response.reasoning_summary_text.delta":  {kind: summary},
	"response.reasoning_summary_text.done":   {kind: summary, field: "text"},
	"response.function_call_arguments.delta": {args: true},
	"response.function_call_arguments.done":  {args: true, field: "arguments"},
	"response.custom_tool_call_input.delta":  {args: true},
	"response.custom_tool_call_input.done":   {args: true, field: "input"},
}

func (c *Checker) outputs(e event) {
	switch e.Type {
	case "response.output_item.added":
		c.itemAdded(e)
	case "response.output_item.done":
		c.itemDone(e)
	case "response.content_part.added":
		c.partAdded(e, content)
	case "response.content_part.done":
		c.partDone(e, content)
	case "response.reasoning_summary_part.added":
		c.partAdded(e, summary)
	case "response.reasoning_summary_part.done":
		c.partDone(e, summary)
	case "response.output_text.annotation.added":
		c.annotation(e)
	case "response.completed", "response.incomplete", "response.failed":
		c.terminalOutput(e)
	default:
		if t, ok := textEvents[e.Type]; ok {
			c.text(e, t.kind, t.args, t.field)
			return
		}
		if len(e.OutputIndex) > 0 { // web_search_call.searching, shell_call_command.delta, …
			c.item(e)
		}
	}
}

// item returns the open item an event is about, or nil (reported) if
// there is none.
func (c *Checker) item(e event) *item {
	i, ok := c.index("output_index", e.OutputIndex)
	if !ok {
		return nil
	}
	if i >= len(c.items) || c.items[i] == nil {
		c.violation("output-item", "%s for output_index %d before its output_item.added", e.Type, i)
		return nil
	}
	it := c.items[i]
	if id, ok := str(e.ItemID); ok && id != it.id {
		c.violation("item-id", "%s: item_id %q, the item at output_index %d is %q", e.Type, id, i, it.id)
	}
	if it.done && e.Type != "response.output_item.done" {
		c.violation("output-item", "%s for output_index %d after its output_item.done", e.Type, i)
		return nil
	}
	return it
}

type itemHead struct {
	ID   *string `json:"id"`
	Type string  `json:"type"`
}

func (c *Checker) itemAdded(e event) {
	i, ok := c.index("output_index", e.OutputIndex)
	if !ok {
		return
	}
	switch {
	case i < len(c.items) && c.items[i] != nil:
		c.violation("output-item", "output_item.added again for output_index %d", i)
		return
	case i != len(c.items):
		c.violation("output-item", "output_item.added for output_index %d, the next is %d", i, len(c.items))
	}
	var h itemHead
	_ = json.Unmarshal(e.Item, &h) // the schema rule reports a bad item
	if h.ID == nil || *h.ID == "" {
		c.violation("item-id", "the %s item added at output_index %d has no id", h.Type, i)
	}
	for len(c.items) <= i {
		c.items = append(c.items, nil)
	}
	c.items[i] = &item{id: deref(h.ID), typ: h.Type}
}

func (c *Checker) itemDone(e event) {
	it := c.item(e)
	if it == nil {
		return
	}
	i, _ := c.index("output_index", e.OutputIndex)
	if it.done {
		c.violation("output-item", "output_item.done again for output_index %d", i)
		return
	}
	var h itemHead
	_ = json.Unmarshal(e.Item, &h)
	if deref(h.ID) != it.id {
		c.violation("item-id", "output_item.done at output_index %d: item id %q, added as %q", i, deref(h.ID), it.id)
	}
	if h.Type != it.typ {
		c.violation("output-item", "output_item.done at output_index %d: a %s item, added as %s", i, h.Type, it.typ)
	}
	for _, k := range []partKind{content, summary} {
		for j, p := range it.list(k) {
			if p != nil && !p.done {
				c.violation(k.rule(), "output_item.done at output_index %d before the done of its part %s %d", i, k.field(), j)
			}
		}
	}
	if it.args.deltaType != "" && !it.args.textDone {
		c.violation("output-item", "output_item.done at output_index %d before its %s", i, doneOf(it.args.deltaType))
	}
	c.doneTexts(i, it, e.Item)
	it.done, it.doneItem = true, append(json.RawMessage(nil), e.Item...)
}

// doneTexts checks that a done item holds the texts that were streamed
// into it: its content parts' text, its summary parts' text, its
// arguments or input.
func (c *Checker) doneTexts(i int, it *item, raw json.RawMessage) {
	var done struct {
		Content   []json.RawMessage `json:"content"`
		Summary   []json.RawMessage `json:"summary"`
		Arguments *string           `json:"arguments"`
		Input     *string           `json:"input"`
	}
	if json.Unmarshal(raw, &done) != nil {
		return
	}
	for _, k := range []partKind{content, summary} {
		list := done.Content
		if k == summary {
			list = done.Summary
		}
		for j, p := range it.list(k) {
			if p == nil || !p.streamed {
				continue
			}
			if j >= len(list) {
				c.violation("delta-text", "the done item at output_index %d has no %s %d", i, k.field(), j)
				continue
			}
			if got, ok := partText(list[j]); ok && got != string(p.deltas) {
				c.violation("delta-text", "the done item at output_index %d, %s %d: %s, streamed %s", i, k.field(), j, clip(got), clip(string(p.deltas)))
			}
		}
	}
	if it.args.streamed {
		got := done.Arguments
		if got == nil {
			got = done.Input
		}
		if got != nil && *got != string(it.args.deltas) {
			c.violation("delta-text", "the done item at output_index %d: arguments %s, streamed %s", i, clip(*got), clip(string(it.args.deltas)))
		}
	}
}

// doneOf names the done event of a delta event.
func doneOf(delta string) string { return strings.TrimSuffix(delta, ".delta") + ".done" }

// partText reads the text of a part: text (output_text, reasoning_text,
// summary_text) or refusal.
func partText(raw json.RawMessage) (string, bool) {
	var p struct {
		Text    *string `json:"text"`
		Refusal *string `json:"refusal"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return "", false
	}
	switch {
	case p.Text != nil:
		return *p.Text, true
	case p.Refusal != nil:
		return *p.Refusal, true
	}
	return "", false
}

func (it *item) list(k partKind) []*text {
	if k == summary {
		return it.summaries
	}
	return it.parts
}

func (c *Checker) partAdded(e event, k partKind) {
	it := c.item(e)
	if it == nil {
		return
	}
	raw := e.ContentIndex
	if k == summary {
		raw = e.SummaryIndex
	}
	j, ok := c.index(k.field(), raw)
	if !ok {
		return
	}
	list := it.list(k)
	switch {
	case j < len(list) && list[j] != nil:
		c.violation(k.rule(), "%s again for %s %d", e.Type, k.field(), j)
		return
	case j != len(list):
		c.violation(k.rule(), "%s for %s %d, the next is %d", e.Type, k.field(), j, len(list))
	}
	for len(list) <= j {
		list = append(list, nil)
	}
	list[j] = &text{added: true}
	if k == summary {
		it.summaries = list
	} else {
		it.parts = list
	}
}

// part returns the open part an event is about, or nil (reported).
func (c *Checker) part(e event, it *item, k partKind) *text {
	raw := e.ContentIndex
	if k == summary {
		raw = e.SummaryIndex
	}
	j, ok := c.index(k.field(), raw)
	if !ok {
		return nil
	}
	list := it.list(k)
	if j >= len(list) || list[j] == nil {
		added := "content_part.added"
		if k == summary {
			added = "reasoning_summary_part.added"
		}
		c.violation(k.rule(), "%s for %s %d before its %s", e.Type, k.field(), j, added)
		return nil
	}
	if list[j].done && !strings.HasSuffix(e.Type, "part.done") {
		c.violation(k.rule(), "%s for %s %d after its part was done", e.Type, k.field(), j)
		return nil
	}
	return list[j]
}

func (c *Checker) partDone(e event, k partKind) {
	it := c.item(e)
	if it == nil {
		return
	}
	p := c.part(e, it, k)
	if p == nil {
		return
	}
	if p.done {
		c.violation(k.rule(), "%s again", e.Type)
		return
	}
	p.done = true
	if p.deltaType != "" && !p.textDone {
		c.violation(k.rule(), "%s before its %s", e.Type, doneOf(p.deltaType))
	}
	if got, ok := partText(e.Part); ok && p.streamed && got != string(p.deltas) {
		c.violation("delta-text", "%s: %s, streamed %s", e.Type, clip(got), clip(string(p.deltas)))
	}
}

func (c *Checker) text(e event, k partKind, args bool, field string) {
	it := c.item(e)
	if it == nil {
		return
	}
	t := &it.args
	if !args {
		if t = c.part(e, it, k); t == nil {
			return
		}
	}
	if field == "" {
		d, ok := str(e.Delta)
		if !ok {
			return // the schema rule reports it
		}
		t.deltas = append(t.deltas, d...)
		t.streamed, t.deltaType = true, e.Type
		if e.Type == "response.output_text.delta" && d != "" {
			c.streamed = true
		}
		return
	}
	raw := map[string]json.RawMessage{"text": e.Text, "refusal": e.Refusal, "arguments": e.Arguments, "input": e.Input}[field]
	done, ok := str(raw)
	if !ok {
		return
	}
	if t.textDone {
		c.violation("delta-text", "%s again", e.Type)
	}
	t.textDone, t.streamed = true, true
	if done != string(t.deltas) {
		c.violation("delta-text", "%s: %s %s, the deltas join to %s", e.Type, field, clip(done), clip(string(t.deltas)))
	}
}

func (c *Checker) annotation(e event) {
	it := c.item(e)
	if it == nil {
		return
	}
	j, ok := c.index("content_index", e.ContentIndex)
	if !ok {
		return
	}
	if j >= len(it.parts) || it.parts[j] == nil {
		c.violation("annotation", "an annotation for content_index %d of output_index item %q, which has no such part", j, it.id)
		return
	}
	p := it.parts[j]
	if n, ok := c.index("annotation_index", e.AnnotationIndex); ok && n != p.annotations {
		c.violation("annotation", "annotation_index %d, the next is %d", n, p.annotations)
	}
	p.annotations++
}

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
		c.violation("usage", "response.completed without usage")
	}
	if r.OutputText != nil && *r.OutputText == "" && c.streamed {
		c.violation("terminal-output", `output_text is "" after text was streamed`)
	}
	if e.Type != "response.failed" { // a failed response may cut items short
		c.unfinished()
	}
	if len(r.Output) != len(c.items) {
		c.violation("terminal-output", "response.output has %d items, %d were streamed", len(r.Output), len(c.items))
	}
	for i, out := range r.Output {
		if i >= len(c.items) || c.items[i] == nil || !c.items[i].done {
			continue
		}
		if d := sameItem(c.items[i].doneItem, out); d != "" {
			c.violation("terminal-output", "output[%d] is not its output_item.done: %s", i, clip(d))
		}
	}
}

// compared are the fields of an item the terminal response must repeat
// from the item's output_item.done: its identity, status and what was
// streamed into it. (Not, e.g., encrypted_content: OpenAI encrypts the
// reasoning anew for the terminal event.)
var compared = []string{"type", "id", "call_id", "name", "role", "status", "content", "summary", "arguments", "input"}

// sameItem returns how the compared fields of two items differ, or "".
func sameItem(a, b json.RawMessage) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return "not objects"
	}
	var diffs []string
	for _, k := range compared {
		va, oka := ma[k]
		vb, okb := mb[k]
		switch {
		case !oka && !okb:
		case oka != okb:
			diffs = append(diffs, k+" in one only")
		default:
			if d, err := jsontest.Diff(va, vb); err != nil || d != "" {
				diffs = append(diffs, strings.ReplaceAll(d, "$", k))
			}
		}
	}
	return strings.Join(diffs, "; ")
}

// unfinished reports the items and parts added and never done.
func (c *Checker) unfinished() {
	for i, it := range c.items {
		if it == nil {
			continue
		}
		if !it.done {
			c.violation("output-item", "the %s item at output_index %d was added, never done", it.typ, i)
		}
	}
}

// clip shortens a text for a reason: findings name what differs, they do
// not echo payloads.
func clip(s string) string {
	const max = 48
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:max], len(s))
}
