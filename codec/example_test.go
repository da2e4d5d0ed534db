package codec_test

import (
	"fmt"
	"strings"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/gen/openai"
)

// A request newer than the spec: a message without type, an item type
// and an effort value the spec does not know, OpenRouter's routing field.
func ExampleDecode() {
	body := []byte(`{"model":"m","input":[{"role":"user","content":"hi"},{"type":"compaction_summary","id":"cs_1"}],` +
		`"reasoning":{"effort":"ludicrous"},"provider":{"order":["a"]}}`)
	root, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	doc, err := codec.Decode(root, body)
	if err != nil {
		fmt.Println(err)
		return
	}
	for n := range doc.Nodes() {
		if !n.Known() {
			fmt.Printf("%s: unknown type %q, %d bytes kept\n", n.Path(), n.Type(), len(n.Raw()))
			continue
		}
		var m openai.InputItemMessage
		if n.Variant() == "InputItemMessage" && n.Decode(&m) == nil {
			fmt.Printf("%s: %s message\n", n.Path(), m.Role.Value)
		}
	}
	for _, f := range doc.Findings() {
		fmt.Printf("%s: %s\n", f, f.Raw)
	}
	fmt.Println(string(doc.AppendJSON(nil)) == string(body))
	// Output:
	// input[0]: user message
	// input[1]: unknown type "compaction_summary", 41 bytes kept
	// input[1]: unknown type "compaction_summary": {"type":"compaction_summary","id":"cs_1"}
	// reasoning.effort: unknown value "ludicrous": "ludicrous"
	// provider: unknown field: {"order":["a"]}
	// true
}

// A stream of chat chunks, ended by [DONE].
func ExampleStream() {
	root, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	s := codec.NewStream(strings.NewReader(": OPENROUTER PROCESSING\n\n"+
		`data: {"id":"g","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`+"\n\n"+
		"data: [DONE]\n\n"), root)
	for s.Next() {
		fmt.Printf("%d bytes, %d findings\n", len(s.Doc().Bytes()), len(s.Doc().Findings()))
	}
	fmt.Println(s.Done(), s.Err())
	// Output:
	// 137 bytes, 0 findings
	// true <nil>
}
