// Command demo decodes a Responses request with the generated types and
// encodes it again: what `make run` shows after regenerating.
//
//	go run ./internal/cmd/demo [request.json]
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/transponder-dev/transponder/gen/openai"
)

const sample = `{"model":"gpt-4.1-mini","input":[{"role":"developer","content":"Be brief."},` +
	`{"role":"user","content":[{"type":"input_text","text":"What is 2+2?"}]}],` +
	`"tools":[{"type":"function","name":"think","parameters":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}],` +
	`"tool_choice":"auto","reasoning":{"effort":"high","summary":"auto"}}`

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
	var req openai.CreateResponse
	if err := req.UnmarshalJSON(body); err != nil {
		log.Fatalf("decode: %v", err)
	}
	fmt.Printf("model %s", req.Model.Value)
	if effort, ok := req.Reasoning.Value.Effort.Get(); ok {
		fmt.Printf(", reasoning effort %s", effort)
	}
	fmt.Println()
	if items, ok := req.Input.Value.GetInputItemArray(); ok {
		for i, it := range items {
			if m, ok := it.GetInputItemMessage(); ok {
				fmt.Printf("input[%d] %s: %s message\n", i, it.Type, m.Role.Value)
				continue
			}
			fmt.Printf("input[%d] %s\n", i, it.Type)
		}
	}
	for i, t := range req.Tools.Value {
		if fn, ok := t.GetFunctionTool(); ok {
			fmt.Printf("tools[%d] function %s, parameters carried as %d bytes: %s\n", i, fn.Name.Value, len(fn.Parameters), fn.Parameters)
			continue
		}
		fmt.Printf("tools[%d] %s\n", i, t.Type)
	}
	out, err := req.MarshalJSON()
	if err != nil {
		log.Fatalf("encode: %v", err)
	}
	fmt.Printf("re-encoded: %s\n", out)
}
