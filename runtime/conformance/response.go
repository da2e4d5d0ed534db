package conformance

import (
	"encoding/json"
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
		Status string `json:"status"`
		Output []struct {
			ID      *string `json:"id"`
			Type    string  `json:"type"`
			Content []struct {
				Type        string          `json:"type"`
				Annotations json.RawMessage `json:"annotations"`
			} `json:"content"`
		} `json:"output"`
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(data, &r) != nil {
		return c.findings // the schema rule reported it
	}
	for i, it := range r.Output {
		if it.ID == nil || *it.ID == "" {
			c.violation("item-id", "output[%d]: a %s item without id", i, it.Type)
		}
		for j, p := range it.Content {
			if p.Type == "output_text" && (len(p.Annotations) == 0 || p.Annotations[0] != '[') {
				c.violation("annotation", "output[%d].content[%d]: annotations is not an array", i, j)
			}
		}
	}
	if r.Status == "completed" && (len(r.Usage) == 0 || string(r.Usage) == "null") {
		c.violation("usage", "a completed response without usage")
	}
	return c.findings
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
