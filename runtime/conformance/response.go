package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/jsontest"
)

// CheckResponse checks a Response object (the body of a non-stream POST
// /responses, or GET /responses/{id}): the schema rule against the pinned
// spec, unknown types, items with ids, output_text annotations present as
// arrays (not null), usage on a completed response. Findings have Event -1.
func CheckResponse(data []byte) []Finding {
	c := &Checker{n: -1}
	root, _ := codec.OpenAI.Payload(codec.ResponsesBody)
	if err := c.doc.Decode(root, data); err != nil {
		c.violation("json", "%v", err)
		return c.findings
	}
	c.schema("")
	var r struct {
		Status string          `json:"status"`
		Usage  json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(data, &r) != nil {
		return c.findings // the schema rule reported it
	}
	for _, f := range outputItems(data) {
		c.violation(f.Rule, "%s", f.Reason)
	}
	if r.Status == "completed" && (len(r.Usage) == 0 || string(r.Usage) == "null") {
		c.add("usage", Warning, "a completed response without usage")
	}
	return c.findings
}

// outputItems checks a response's output items: each has an id, and the
// output text parts of messages have annotations, an array (not null).
func outputItems(resp []byte) []Finding {
	var r struct {
		Output []struct {
			ID      *string `json:"id"`
			Type    string  `json:"type"`
			Content []struct {
				Type        string          `json:"type"`
				Annotations json.RawMessage `json:"annotations"`
			} `json:"content"`
		} `json:"output"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return nil
	}
	var out []Finding
	for i, it := range r.Output {
		if it.ID == nil || *it.ID == "" {
			out = append(out, Finding{Rule: "item-id", Reason: fmt.Sprintf("output[%d]: a %s item without id", i, it.Type)})
		}
		for j, p := range it.Content {
			if p.Type == "output_text" && (len(p.Annotations) == 0 || p.Annotations[0] != '[') {
				out = append(out, Finding{Rule: "annotation", Reason: fmt.Sprintf("output[%d].content[%d]: annotations is not an array", i, j)})
			}
		}
	}
	return out
}

// CompareResponses checks that a non-stream Response and the terminal
// response of the stream of the same exchange are the same JSON (the
// gateway's two paths must agree). Findings have Event -1 and rule
// same-response.
func CompareResponses(stream, body []byte) []Finding {
	d, err := jsontest.Diff(stream, body)
	if err != nil {
		return []Finding{{Event: -1, Rule: "json", Reason: err.Error()}}
	}
	if d == "" {
		return nil
	}
	var out []Finding
	for _, diff := range strings.Split(d, "; ") {
		out = append(out, Finding{Event: -1, Rule: "same-response", Reason: diff})
	}
	return out
}
