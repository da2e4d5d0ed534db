// Command demo decodes a Responses request with the forward-compatible
// codec and the generated types, and encodes it again: what `make run`
// shows after regenerating.
//
//	go run ./internal/cmd/demo [request.json]
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/gen/openai"
)

// sample is newer than the pinned spec: an item type it does not know, an
// effort value it does not list, OpenRouter's routing fields.
const sample = `{"model":"gpt-4.1-mini","input":[{"role":"developer","content":"Be brief."},` +
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"What is 2+2?"}]},` +
	`{"type":"compaction_summary","id":"cs_1","encrypted_content":"gAAAA"}],` +
	`"tools":[{"type":"function","name":"think","strict":true,"parameters":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}],` +
	`"tool_choice":"auto","reasoning":{"effort":"ultra","summary":"auto"},"provider":{"order":["openai"]}}`

func main() {
	log.SetFlags(0)
	log.SetPrefix("demo: ")
	body := []byte(sample)
	if len(os.Args) > 1 {
		var err error
		if body, err = os.ReadFile(os.Args[1]); err != nil {
			log.Fatal(err)
		}
	}
	root, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	doc, err := codec.Decode(root, body)
	if err != nil {
		log.Fatal(err)
	}
	for n := range doc.Nodes() {
		switch {
		case !n.Known():
			fmt.Printf("%-20s type %q is unknown to the spec: kept as %d bytes\n", n.Path(), n.Type(), len(n.Raw()))
		case n.Variant() == "InputItemMessage":
			var m openai.InputItemMessage
			if err := n.Decode(&m); err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%-20s %s message (%s)\n", n.Path(), m.Role.Value, map[bool]string{true: "no type: the default variant", false: "type " + n.Type()}[n.Defaulted()])
		default:
			fmt.Printf("%-20s %s → %s\n", n.Path(), n.Type(), n.Variant())
		}
	}
	for _, f := range doc.Findings() {
		fmt.Printf("finding: %s: %s\n", f, f.Raw)
	}
	out := doc.AppendJSON(nil)
	fmt.Printf("re-encoded: %d bytes, identical to the input: %v\n", len(out), bytes.Equal(out, body))
}
