package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
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

// textEvent says what a delta or done event of a text is about.
type textEvent struct {
	kind  partKind
	part  string // the part type it belongs to; "" for an item's arguments
	item  string // for arguments: the item type it belongs to
	field string // done events: the field holding the whole text
}

var textEvents = map[string]textEvent{
	"response.output_text.delta":             {kind: content, part: "output_text"},
	"response.output_text.done":              {kind: content, part: "output_text", field: "text"},
	"response.refusal.delta":                 {kind: content, part: "refusal"},
	"response.refusal.done":                  {kind: content, part: "refusal", field: "refusal"},
	"response.reasoning_text.delta":          {kind: content, part: "reasoning_text"},
	"response.reasoning_text.done":           {kind: content, part: "reasoning_text", field: "text"},
	"response.reasoning_summary_text.delta":  {kind: summary, part: "summary_text"},
	"response.reasoning_summary_text.done":   {kind: summary, part: "summary_text", field: "text"},
	"response.function_call_arguments.delta": {item: "function_call"},
	"response.function_call_arguments.done":  {item: "function_call", field: "arguments"},
	"response.custom_tool_call_input.delta":  {item: "custom_tool_call"},
	"response.custom_tool_call_input.done":   {item: "custom_tool_call", field: "input"},
}

// textDone names the done event of a part's text, by part type.
var textDone = map[string]string{
	"output_text":    "response.output_text.done",
	"refusal":        "response.refusal.done",
	"reasoning_text": "response.reasoning_text.done",
	"summary_text":   "response.reasoning_summary_text.done",
}

// argsDone names the done event of an item's arguments, by item type.
var argsDone = map[string]string{
	"function_call":    "response.function_call_arguments.done",
	"custom_tool_call": "response.custom_tool_call_input.done",
}

// partTypes lists the part types each item type may have, by kind.
var partTypes = map[partKind]map[string][]string{
	content: {"message": {"output_text", "refusal"}, "reasoning": {"reasoning_text"}},
	summary: {"reasoning": {"summary_text"}},
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
			c.text(e, t)
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
	ID     *string `json:"id"`
	Type   string  `json:"type"`
	CallID *string `json:"call_id"`
	Name   *string `json:"name"`
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
		return // (not followed: its events are reported as before their added)
	}
	var h itemHead
	_ = json.Unmarshal(e.Item, &h) // the schema rule reports a bad item
	id := deref(h.ID)
	switch prev, dup := c.ids[id]; {
	case id == "":
		c.violation("item-id", "the %s item added at output_index %d has no id", h.Type, i)
	case dup:
		c.violation("item-id", "the %s item added at output_index %d has the id of output_index %d, %q", h.Type, i, prev, id)
	}
	if c.ids == nil {
		c.ids = map[string]int{}
	}
	c.ids[id] = i
	c.items = append(c.items, &item{id: id, typ: h.Type, callID: deref(h.CallID), name: deref(h.Name)})
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
	if it.callID != "" && deref(h.CallID) != it.callID || it.name != "" && deref(h.Name) != it.name {
		c.violation("item-id", "output_item.done at output_index %d: call_id or name changed since added", i)
	}
	if h.Type != it.typ {
		c.violation("output-item", "output_item.done at output_index %d: a %s item, added as %s", i, h.Type, it.typ)
	}
	for _, k := range []partKind{content, summary} {
		for j, p := range it.list(k) {
			if !p.done {
				c.violation(k.rule(), "output_item.done at output_index %d before the done of its part %s %d", i, k.field(), j)
			}
		}
	}
	if done, ok := argsDone[it.typ]; ok && !it.args.textDone {
		c.violation("output-item", "output_item.done at output_index %d before its %s", i, done)
	}
	c.doneTexts(i, it, e.Item)
	it.done, it.doneItem = true, append(json.RawMessage(nil), e.Item...)
	// What was streamed is no longer needed: the terminal response is
	// compared with the done item.
	it.parts, it.summaries, it.args.deltas = nil, nil, nil
}

// doneTexts checks that a done item holds what was streamed into it: as
// many parts, each with its text; its arguments or input.
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
		list, streamed := done.Content, it.list(k)
		if k == summary {
			list = done.Summary
		}
		if len(streamed) > 0 && len(list) != len(streamed) {
			c.violation("delta-text", "the done item at output_index %d has %d parts by %s, %d were streamed", i, len(list), k.field(), len(streamed))
		}
		for j, p := range streamed {
			if j >= len(list) {
				break
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

func partType(raw json.RawMessage) string {
	var p struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &p)
	return p.Type
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
	case j < len(list):
		c.violation(k.rule(), "%s again for %s %d", e.Type, k.field(), j)
		return
	case j != len(list):
		c.violation(k.rule(), "%s for %s %d, the next is %d", e.Type, k.field(), j, len(list))
		return // (not followed: its events are reported as before their part)
	}
	typ := partType(e.Part)
	if allowed := partTypes[k][it.typ]; !contains(allowed, typ) {
		c.violation(k.rule(), "%s: a %s part on a %s item", e.Type, typ, it.typ)
	}
	list = append(list, &text{typ: typ})
	if k == summary {
		it.summaries = list
	} else {
		it.parts = list
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
	if j >= len(list) {
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
	if typ := partType(e.Part); typ != p.typ {
		c.violation(k.rule(), "%s: a %s part, added as %s", e.Type, typ, p.typ)
	}
	if done, ok := textDone[p.typ]; ok && !p.textDone {
		c.violation(k.rule(), "%s before its %s", e.Type, done)
	}
	if got, ok := partText(e.Part); ok && got != string(p.deltas) {
		c.violation("delta-text", "%s: %s, streamed %s", e.Type, clip(got), clip(string(p.deltas)))
	}
}

func (c *Checker) text(e event, t textEvent) {
	it := c.item(e)
	if it == nil {
		return
	}
	x := &it.args
	if t.part == "" {
		if it.typ != t.item {
			c.violation("output-item", "%s for a %s item", e.Type, it.typ)
			return
		}
	} else {
		if x = c.part(e, it, t.kind); x == nil {
			return
		}
		if x.typ != t.part {
			c.violation(t.kind.rule(), "%s for a %s part", e.Type, x.typ)
			return
		}
	}
	if x.textDone {
		c.violation("delta-text", "%s after the text's done event", e.Type)
		return
	}
	if t.field == "" {
		d, ok := str(e.Delta)
		if !ok {
			return // the schema rule reports it
		}
		x.deltas = append(x.deltas, d...)
		x.streamed = true
		if e.Type == "response.output_text.delta" && d != "" {
			c.streamed = true
		}
		return
	}
	raw := e.Text
	switch t.field {
	case "refusal":
		raw = e.Refusal
	case "arguments":
		raw = e.Arguments
	case "input":
		raw = e.Input
	}
	done, ok := str(raw)
	if !ok {
		return
	}
	x.textDone, x.streamed = true, true
	if done != string(x.deltas) {
		c.violation("delta-text", "%s: %s %s, the deltas join to %s", e.Type, t.field, clip(done), clip(string(x.deltas)))
		x.deltas = append(x.deltas[:0], done...) // judge what follows by the done text
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
	if j >= len(it.parts) {
		c.violation("annotation", "an annotation for content_index %d of item %q, which has no such part", j, it.id)
		return
	}
	p := it.parts[j]
	switch {
	case p.typ != "output_text":
		c.violation("annotation", "an annotation for a %s part", p.typ)
	case p.done:
		c.violation("annotation", "an annotation for content_index %d after its part was done", j)
	}
	if n, ok := c.index("annotation_index", e.AnnotationIndex); ok && n != p.annotations {
		c.violation("annotation", "annotation_index %d, the next is %d", n, p.annotations)
	}
	p.annotations++
}

// clip shortens a text for a reason: findings name what differs, they do
// not echo payloads.
func clip(s string) string {
	const max = 48
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	n := max
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:n], len(s))
}
