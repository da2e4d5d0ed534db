package gen_test

import (
	"fmt"

	"github.com/transponder-dev/transponder/gen/openai"
)

// Decoding a Responses request with the generated types: a message without
// "type" is an InputItemMessage (the normalizer's merge of the three message
// kinds, and the union's default variant), the tool's
// JSON schema is carried as the bytes it came as, and an open enum (the model)
// is a plain string.
func Example() {
	body := []byte(`{"model":"gpt-4.1-mini","input":[{"role":"user","content":"hi"}],` +
		`"tools":[{"type":"function","name":"think","parameters":{"type":"object","properties":{"thought":{"type":"string"}}}}]}`)
	var req openai.CreateResponse
	if err := req.UnmarshalJSON(body); err != nil {
		fmt.Println("decode:", err)
		return
	}
	items, _ := req.Input.Value.GetInputItemArray()
	msg, ok := items[0].GetInputItemMessage()
	fmt.Println("model:", req.Model.Value)
	fmt.Println("item 0:", items[0].Type, ok, msg.Role.Value)
	fn, _ := req.Tools.Value[0].GetFunctionTool()
	fmt.Println("tool:", fn.Name.Value, string(fn.Parameters))
	// Output:
	// model: gpt-4.1-mini
	// item 0: message true user
	// tool: think {"type":"object","properties":{"thought":{"type":"string"}}}
}
