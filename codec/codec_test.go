package codec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

func decode(t *testing.T, d *codec.Dialect, p codec.Payload, body string) *codec.Doc {
	t.Helper()
	r, ok := d.Payload(p)
	if !ok {
		t.Fatalf("%s has no %s", d.Name(), p)
	}
	doc, err := codec.Decode(r, []byte(body))
	if err != nil {
		t.Fatalf("%s as %s: %v", d.Name(), p, err)
	}
	if out := doc.AppendJSON(nil); string(out) != body {
		t.Fatalf("re-encoded bytes differ:\n%s\n%s", body, out)
	}
	return doc
}

// nodes lists a document's nodes as "path type variant" lines ("?" for an
// unknown type, "(default)" for a missing tag).
func nodes(doc *codec.Doc) []string {
	var out []string
	for n := range doc.Nodes() {
		typ := n.Type()
		if n.Defaulted() {
			typ = "(default)"
		}
		v := n.Variant()
		if !n.Known() {
			v = "?"
		}
		out = append(out, fmt.Sprintf("%s %s %s", n.Path(), typ, v))
	}
	return out
}

func findings(doc *codec.Doc) []string {
	var out []string
	for _, f := range doc.Findings() {
		out = append(out, fmt.Sprintf("%s %s", f, f.Raw))
	}
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// A message item without "type" is the union's default variant, in both
// specs, and decodes as the generated message type.
func TestMessageWithoutType(t *testing.T) {
	body := `{"model":"m","input":[{"role":"user","content":"hi"},{"type":"message","role":"developer","content":[{"type":"input_text","text":"be brief"}]}]}`
	for _, c := range []struct {
		d       *codec.Dialect
		variant string
	}{{codec.OpenAI, "InputItemMessage"}, {codec.OpenRouter, "InputsMessage"}} {
		doc := decode(t, c.d, codec.ResponsesRequest, body)
		equal(t, c.d.Name()+" nodes", nodes(doc), []string{
			"input[0] (default) " + c.variant,
			"input[1] message " + c.variant,
			"input[1].content[0] input_text " + map[string]string{"openai": "InputTextContent", "openrouter": "InputText"}[c.d.Name()],
		})
		equal(t, c.d.Name()+" findings", findings(doc), nil)
	}
	doc := decode(t, codec.OpenAI, codec.ResponsesRequest, body)
	var m openai.InputItemMessage
	if err := doc.Node(0).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Role.Value != openai.InputItemMessageRoleUser {
		t.Errorf("role %+v", m.Role)
	}
	if s, ok := m.Content.Value.GetString(); !ok || s != "hi" {
		t.Errorf("content %+v", m.Content)
	}
	doc = decode(t, codec.OpenRouter, codec.ResponsesRequest, body)
	var om openrouter.InputsMessage
	if err := doc.Node(0).Decode(&om); err != nil {
		t.Fatal(err)
	}
}

// Codex replays its own assistant message (output_text content, an id, a
// status, a phase) as input: it is a message, with every part known.
func TestAssistantReplayed(t *testing.T) {
	body := `{"model":"m","input":[` +
		`{"type":"message","id":"msg_1","role":"user","content":[{"type":"input_text","text":"hi"}]},` +
		`{"type":"message","id":"msg_2","status":"completed","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"hello","annotations":[]},{"type":"refusal","refusal":"no"}]},` +
		`{"type":"item_reference","id":"msg_0"}]}`
	doc := decode(t, codec.OpenAI, codec.ResponsesRequest, body)
	equal(t, "nodes", nodes(doc), []string{
		"input[0] message InputItemMessage",
		"input[0].content[0] input_text InputTextContent",
		"input[1] message InputItemMessage",
		"input[1].content[0] output_text OutputTextContent",
		"input[1].content[1] refusal RefusalContent",
		"input[2] item_reference ItemReferenceParam",
	})
	// The spec requires logprobs of output text; Codex does not send them.
	equal(t, "findings", findings(doc), []string{"input[1].content[0].logprobs: missing field "})
	msg := doc.Node(2)
	var m openai.InputItemMessage
	if err := msg.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Role.Value != openai.InputItemMessageRoleAssistant || m.ID.Value != "msg_2" {
		t.Errorf("decoded %+v", m)
	}
	var kids []string
	for c := range msg.Children() {
		p, _ := c.Parent()
		kids = append(kids, fmt.Sprintf("%s<%s", c.Type(), p.Path()))
	}
	equal(t, "children", kids, []string{"output_text<input[1]", "refusal<input[1]"})
	doc = decode(t, codec.OpenRouter, codec.ResponsesRequest, body)
	for n := range doc.Nodes() {
		if !n.Known() {
			t.Errorf("openrouter: %s %s unknown", n.Path(), n.Type())
		}
	}
}

// An input item, content part, tool, tool_choice or stream event of a type
// the spec does not know is a node that says so, with its path and its
// bytes; the rest of the payload decodes as usual.
func TestUnknownTypes(t *testing.T) {
	for _, c := range []struct {
		payload    codec.Payload
		body       string
		path, typ  string
		raw        string
		knownNodes int
	}{
		{codec.ResponsesRequest, `{"model":"m","input":[{"role":"user","content":"a"},{"type":"compaction_summary","id":"cs_1","encrypted_content":"gAAA"}]}`,
			"input[1]", "compaction_summary", `{"type":"compaction_summary","id":"cs_1","encrypted_content":"gAAA"}`, 1},
		{codec.ResponsesRequest, `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_audio_v2","data":"T2dnUw==","meta":{"ms":1}}]}]}`,
			"input[0].content[1]", "input_audio_v2", `{"type":"input_audio_v2","data":"T2dnUw==","meta":{"ms":1}}`, 2},
		{codec.ResponsesRequest, `{"model":"m","tools":[{"type":"function","name":"f","parameters":{},"strict":true},{"type":"image_generation_v2","size":"8k"}]}`,
			"tools[1]", "image_generation_v2", `{"type":"image_generation_v2","size":"8k"}`, 1},
		{codec.ResponsesRequest, `{"model":"m","tool_choice":{"type":"future_tool_choice","mode":"required"}}`,
			"tool_choice", "future_tool_choice", `{"type":"future_tool_choice","mode":"required"}`, 0},
		{codec.ResponsesEvent, `{"type":"response.audio_transcript.delta_v2","sequence_number":3,"delta":"x"}`,
			"", "response.audio_transcript.delta_v2", `{"type":"response.audio_transcript.delta_v2","sequence_number":3,"delta":"x"}`, 0},
		{codec.ResponsesBody, `{"id":"r","object":"response","output":[{"type":"future_call","id":"fc_1"}]}`,
			"output[0]", "future_call", `{"type":"future_call","id":"fc_1"}`, 0},
		// Chat Completions: a message role, a content part, a tool, a tool
		// choice.
		{codec.ChatRequest, `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"critic","content":"x"}]}`,
			"messages[1]", "critic", `{"role":"critic","content":"x"}`, 1},
		{codec.ChatRequest, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"input_hologram","url":"u"}]}]}`,
			"messages[0].content[1]", "input_hologram", `{"type":"input_hologram","url":"u"}`, 2},
		{codec.ChatRequest, `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f"}},{"type":"quantum","q":1}]}`,
			"tools[1]", "quantum", `{"type":"quantum","q":1}`, 1},
		{codec.ChatRequest, `{"model":"m","messages":[],"tool_choice":{"type":"future","x":1}}`,
			"tool_choice", "future", `{"type":"future","x":1}`, 0},
	} {
		for _, d := range dialects {
			doc := decode(t, d, c.payload, c.body)
			var unknown []codec.Node
			known := 0
			for n := range doc.Nodes() {
				if n.Known() {
					known++
				} else {
					unknown = append(unknown, n)
				}
			}
			if len(unknown) != 1 || known != c.knownNodes {
				t.Errorf("%s %s: %d unknown, %d known nodes: %q", d.Name(), c.typ, len(unknown), known, nodes(doc))
				continue
			}
			n := unknown[0]
			if n.Path() != c.path || n.Type() != c.typ || string(n.Raw()) != c.raw || n.Variant() != "" {
				t.Errorf("%s: node %q %q %s", d.Name(), n.Path(), n.Type(), n.Raw())
			}
			// An unknown input item does not decode as the generated type,
			// and the error names its path.
			if item := strings.HasPrefix(n.Path(), "input[") && !strings.Contains(n.Path(), "."); item {
				if err := n.Decode(new(openai.InputItem)); err == nil || !strings.Contains(err.Error(), n.Path()) {
					t.Errorf("%s: typed decoding of an unknown node: %v", d.Name(), err)
				}
			}
			var types []string
			for _, f := range doc.Findings() {
				if f.Kind == codec.UnknownType {
					types = append(types, f.Path()+" "+f.Name()+" "+string(f.Raw))
				}
			}
			equal(t, d.Name()+" unknown-type findings", types, []string{c.path + " " + c.typ + " " + c.raw})
		}
	}
}

// An enum value the spec does not list is a finding with its path and bytes;
// the generated type keeps it too, and encodes it unchanged.
func TestUnknownEnumValue(t *testing.T) {
	body := `{"model":"m","reasoning":{"effort":"ludicrous","summary":"auto"},"text":{"verbosity":"extreme"}}`
	doc := decode(t, codec.OpenAI, codec.ResponsesRequest, body)
	equal(t, "findings", findings(doc), []string{
		`reasoning.effort: unknown value "ludicrous" "ludicrous"`,
		`text.verbosity: unknown value "extreme" "extreme"`,
	})
	var req openai.CreateResponse
	if err := req.UnmarshalJSON([]byte(body)); err != nil {
		t.Fatal(err)
	}
	out, err := req.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"effort":"ludicrous"`)) {
		t.Errorf("the generated type lost the value: %s", out)
	}
}

// Unknown keys are findings at every level, with their bytes; what one spec
// knows (OpenRouter's provider, models, plugins; its native_finish_reason)
// the other reports.
func TestUnknownFields(t *testing.T) {
	req := `{"model":"m","provider":{"order":["a"]},"models":["x/y"],"plugins":[{"id":"web"}],` +
		`"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}","x_trace":{"k":[1]}}],"reasoning":{"effort":"low","budget_tokens":100}}`
	unknown := func(doc *codec.Doc) []string {
		var out []string
		for _, f := range doc.Findings() {
			if f.Kind == codec.UnknownField {
				out = append(out, f.Path()+"="+string(f.Raw))
			}
		}
		return out
	}
	equal(t, "openai", unknown(decode(t, codec.OpenAI, codec.ResponsesRequest, req)), []string{
		`provider={"order":["a"]}`, `models=["x/y"]`, `plugins=[{"id":"web"}]`, `input[0].x_trace={"k":[1]}`, `reasoning.budget_tokens=100`,
	})
	equal(t, "openrouter", unknown(decode(t, codec.OpenRouter, codec.ResponsesRequest, req)), []string{
		`input[0].x_trace={"k":[1]}`, `reasoning.budget_tokens=100`,
	})
	chunk := `{"id":"g","object":"chat.completion.chunk","created":1,"model":"m","obfuscation":"ab","choices":[{"index":0,"delta":{"content":"x","x_meta":1},"finish_reason":"stop","native_finish_reason":"end_turn","content_filter_results":{}}]}`
	equal(t, "openai chunk", unknown(decode(t, codec.OpenAI, codec.ChatChunk, chunk)), []string{
		`choices[0].delta.x_meta=1`, `choices[0].native_finish_reason="end_turn"`, `choices[0].content_filter_results={}`,
	})
	equal(t, "openrouter chunk", unknown(decode(t, codec.OpenRouter, codec.ChatChunk, chunk)), []string{
		`obfuscation="ab"`, `choices[0].delta.x_meta=1`, `choices[0].content_filter_results={}`,
	})
	// Keys of free-form values (metadata, tool parameters) are not unknown:
	// the spec allows any.
	free := `{"model":"m","metadata":{"anything":"goes"},"tools":[{"type":"function","name":"f","strict":true,"parameters":{"type":"object","x-whatever":1}}]}`
	equal(t, "free-form", unknown(decode(t, codec.OpenAI, codec.ResponsesRequest, free)), nil)
}

// A value of the wrong JSON kind, and a missing required key, are findings;
// the payload still decodes and re-encodes as it was.
func TestWrongKindAndMissing(t *testing.T) {
	body := `{"model":7,"input":[{"type":"function_call","name":"f","arguments":"{}"}],"temperature":"hot"}`
	doc := decode(t, codec.OpenAI, codec.ResponsesRequest, body)
	equal(t, "findings", findings(doc), []string{
		`model: wrong kind: want a string or null 7`,
		`input[0].call_id: missing field `,
		`temperature: wrong kind: want a number or null "hot"`,
	})
}

// Decoding is deterministic: the same bytes give the same nodes and
// findings, with a fresh Doc or a reused one.
func TestDeterministic(t *testing.T) {
	large, err := fixtures.CodexLarge(shared(t))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	first, err := codec.Decode(r, large)
	if err != nil {
		t.Fatal(err)
	}
	want := append(nodes(first), findings(first)...)
	if len(want) < 56 {
		t.Fatalf("only %d nodes and findings in the assembled request", len(want))
	}
	var reused codec.Doc
	for i := range 5 {
		if err := reused.Decode(r, large); err != nil {
			t.Fatal(err)
		}
		if i == 2 { // a different payload in between
			if err := reused.Decode(r, []byte(`{"input":[{"type":"x"}]}`)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		equal(t, fmt.Sprint("decode ", i), append(nodes(&reused), findings(&reused)...), want)
	}
}

// typed lists the generated types of the variants the recorded corpus has,
// so each node of the corpus can be decoded as its variant's type.
var typed = map[string]func() json.Unmarshaler{}

func register[T any, P interface {
	*T
	json.Unmarshaler
}](names ...string) {
	for _, n := range names {
		typed[n] = func() json.Unmarshaler { return P(new(T)) }
	}
}

func init() {
	register[openai.InputItemMessage]("InputItemMessage")
	register[openai.InputTextContent]("InputTextContent")
	register[openai.OutputTextContent]("OutputTextContent")
	register[openai.FunctionToolCall]("FunctionToolCall")
	register[openai.FunctionCallOutputItemParam]("FunctionCallOutputItemParam")
	register[openai.ReasoningItem]("ReasoningItem")
	register[openai.CustomToolCall]("CustomToolCall")
	register[openai.FunctionTool]("FunctionTool")
	register[openai.CustomToolParam]("CustomToolParam")
	register[openai.WebSearchTool]("WebSearchTool")
	register[openai.OutputMessage]("OutputMessage")
	register[openai.WebSearchToolCall]("WebSearchToolCall")
	register[openai.ResponseCreatedEvent]("ResponseCreatedEvent")
	register[openai.ResponseInProgressEvent]("ResponseInProgressEvent")
	register[openai.ResponseCompletedEvent]("ResponseCompletedEvent")
	register[openai.ResponseOutputItemAddedEvent]("ResponseOutputItemAddedEvent")
	register[openai.ResponseOutputItemDoneEvent]("ResponseOutputItemDoneEvent")
	register[openai.ResponseContentPartAddedEvent]("ResponseContentPartAddedEvent")
	register[openai.ResponseContentPartDoneEvent]("ResponseContentPartDoneEvent")
	register[openai.ResponseTextDeltaEvent]("ResponseTextDeltaEvent")
	register[openai.ResponseTextDoneEvent]("ResponseTextDoneEvent")
	register[openai.ResponseFunctionCallArgumentsDeltaEvent]("ResponseFunctionCallArgumentsDeltaEvent")
	register[openai.ResponseFunctionCallArgumentsDoneEvent]("ResponseFunctionCallArgumentsDoneEvent")
	register[openai.ResponseReasoningSummaryTextDeltaEvent]("ResponseReasoningSummaryTextDeltaEvent")
	register[openai.ResponseReasoningSummaryPartAddedEvent]("ResponseReasoningSummaryPartAddedEvent")
	register[openai.ResponseErrorEvent]("ResponseErrorEvent")
}

// Every node of the recorded corpus whose variant has a type above, and
// whose bytes hold nothing the spec does not know, decodes as that type:
// the codec and the generated types agree on what each value is.
func TestNodesDecodeAsTheirVariant(t *testing.T) {
	payloads, err := fixtures.Corpus(shared(t))
	if err != nil {
		t.Fatal(err)
	}
	decoded := map[string]int{}
	var doc codec.Doc
	for _, p := range payloads {
		r, _ := codec.OpenAI.Payload(p.Kind)
		if err := doc.Decode(r, p.Data); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		for n := range doc.Nodes() {
			mk, ok := typed[n.Variant()]
			if !ok || unknownInside(&doc, n) {
				continue
			}
			if err := n.Decode(mk()); err != nil {
				t.Errorf("%s: %s as %s: %v", p.Name, n.Path(), n.Variant(), err)
			}
			decoded[n.Variant()]++
		}
	}
	for name := range typed {
		if decoded[name] == 0 {
			t.Errorf("no node of the corpus decoded as %s: drop it from the list", name)
		}
	}
}

// unknownInside reports whether a finding other than an unknown or missing
// key lies within n.
func unknownInside(doc *codec.Doc, n codec.Node) bool {
	for _, f := range doc.Findings() {
		if f.Kind == codec.UnknownField || f.Kind == codec.MissingField {
			continue
		}
		if p := n.Path(); p == "" || f.Path() == p || strings.HasPrefix(f.Path(), p+".") || strings.HasPrefix(f.Path(), p+"[") {
			return true
		}
	}
	return false
}

// The three payloads of the spec-pipeline issue: every union value is
// known, in both specs, and nothing is unknown.
func TestPipelinePayloads(t *testing.T) {
	want := map[string][][]string{
		"openai": {
			{"input[0] (default) InputItemMessage", "input[0].content[0] input_text InputTextContent", "tools[0] function FunctionTool"},
			{"input[0] function_call_output FunctionCallOutputItemParam", "input[0].output[0] input_text InputTextContentParam", "input[1] (default) InputItemMessage"},
			{"text.format json_schema TextResponseFormatJsonSchema", "tool_choice allowed_tools ToolChoiceAllowed"},
		},
		"openrouter": {
			{"input[0] (default) InputsMessage", "input[0].content[0] input_text InputText", "tools[0] function ResponsesRequestToolsFunction"},
			{"input[0] function_call_output FunctionCallOutputItem", "input[0].output[0] input_text InputText", "input[1] (default) InputsMessage"},
			{"text.format json_schema FormatJsonSchemaConfig", "tool_choice allowed_tools ToolChoiceAllowed"},
		},
	}
	for _, d := range dialects {
		for i, p := range fixtures.PipelinePayloads {
			doc := decode(t, d, codec.ResponsesRequest, p)
			equal(t, fmt.Sprintf("%s payload %d", d.Name(), i+1), nodes(doc), want[d.Name()][i])
			for _, f := range doc.Findings() {
				if f.Kind != codec.MissingField {
					t.Errorf("%s payload %d: %s", d.Name(), i+1, f)
				}
			}
		}
	}
}

// An item without a type is the default variant (a message) unless it has
// what another variant with an optional type requires and a message lacks:
// OpenAI's item reference is {"id": …}, its type optional. A null type is
// no type.
func TestUntaggedItems(t *testing.T) {
	body := `{"input":[{"id":"msg_0"},{"type":null,"role":"user","content":"hi"},{"id":"msg_1","role":"assistant","content":"a"},{"type":null,"id":"msg_2"}]}`
	doc := decode(t, codec.OpenAI, codec.ResponsesRequest, body)
	equal(t, "openai", nodes(doc), []string{
		"input[0] (default) ItemReferenceParam",
		"input[1] (default) InputItemMessage",
		"input[2] (default) InputItemMessage",
		"input[3] (default) ItemReferenceParam",
	})
	equal(t, "openai findings", findings(doc), nil)
	var ref openai.ItemReferenceParam
	if err := doc.Node(0).Decode(&ref); err != nil || ref.ID.Value != "msg_0" {
		t.Errorf("%v %+v", err, ref)
	}
	// OpenRouter's item reference requires its type: a bare id is a
	// message without a role.
	doc = decode(t, codec.OpenRouter, codec.ResponsesRequest, `{"input":[{"id":"msg_0"}]}`)
	equal(t, "openrouter", nodes(doc), []string{"input[0] (default) InputsMessage"})
	equal(t, "openrouter findings", findings(doc), []string{"input[0].role: missing field "})
}
