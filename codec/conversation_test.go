package codec_test

import (
	"slices"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/gen/openai"
)

// The Conversations API's bodies decode against the pinned OpenAI spec's
// shapes (the gateway validates requests and tests check answers with
// them): their union items are nodes, what the spec does not know or
// requires are findings, and the bytes come back unchanged.
func TestConversationPayloads(t *testing.T) {
	for _, c := range []struct {
		p    codec.Payload
		body string
		want []string // nodes (path variant) and findings, in order
	}{{
		p: codec.ConversationCreateRequest,
		body: `{"items":[{"role":"user","content":"hi"},{"type":"function_call_output","call_id":"c","output":"x"},{"type":"nope"}],` +
			`"metadata":{"k":"v"},"x":1}`,
		want: []string{"items[0] InputItemMessage", "items[1] FunctionCallOutputItemParam", "items[2] ?",
			`items[2]: unknown type "nope"`, "x: unknown field"},
	}, {
		p: codec.ConversationCreateRequest, body: `{}`,
	}, {
		p: codec.ConversationUpdateRequest, body: `{}`, want: []string{"metadata: missing field"},
	}, {
		p: codec.ConversationUpdateRequest, body: `{"metadata":{"topic":"x"}}`,
	}, {
		p: codec.ConversationItemsCreateRequest, body: `{}`, want: []string{"items: missing field"},
	}, {
		p: codec.ConversationItemsCreateRequest, body: `{"items":"x"}`, want: []string{"items: wrong kind: want an array or null"},
	}, {
		p: codec.ConversationItemsCreateRequest, body: `{"items":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`,
		want: []string{"items[0] InputItemMessage", "items[0].content[0] InputTextContent"},
	}, {
		p: codec.ConversationBody, body: `{"id":"conv_1","object":"conversation","created_at":1,"metadata":{}}`,
	}, {
		p: codec.ConversationBody, body: `{"id":"conv_1","object":"conversation"}`,
		want: []string{"created_at: missing field", "metadata: missing field"},
	}, {
		p: codec.ConversationDeletedBody, body: `{"id":"conv_1","object":"conversation.deleted","deleted":true}`,
	}, {
		p: codec.ConversationItemsBody,
		body: `{"object":"list","data":[{"type":"message","id":"m","status":"completed","role":"user","content":[{"type":"input_text","text":"hi"}]}],` +
			`"has_more":false,"first_id":"m","last_id":"m"}`,
		want: []string{"data[0] Message", "data[0].content[0] InputTextContent"},
	}, {
		// A conversation item as the spec has it carries a status.
		p: codec.ConversationItemBody, body: `{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":"{}"}`,
		want: []string{" FunctionToolCallResource", "status: missing field"},
	}} {
		t.Run(c.p.String()+" "+c.body, func(t *testing.T) {
			r, ok := codec.OpenAI.Payload(c.p)
			if !ok {
				t.Fatal("no root")
			}
			d, err := codec.Decode(r, []byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for n := range d.Nodes() {
				v := n.Variant()
				if !n.Known() {
					v = "?"
				}
				got = append(got, n.Path()+" "+v)
			}
			for _, f := range d.Findings() {
				got = append(got, f.String())
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if out := d.AppendJSON(nil); string(out) != c.body {
				t.Errorf("re-encoded: %s", out)
			}
		})
	}
	// The roots are the generated types' schemas: a node decodes into one.
	r, _ := codec.OpenAI.Payload(codec.ConversationItemsBody)
	d, err := codec.Decode(r, []byte(`{"object":"list","data":[{"type":"function_call_output","id":"fco","call_id":"c","output":"42","status":"completed"}],"has_more":false,"first_id":"fco","last_id":"fco"}`))
	if err != nil {
		t.Fatal(err)
	}
	nodes := 0
	for n := range d.Nodes() {
		nodes++
		var item openai.FunctionToolCallOutputResource
		if err := n.Decode(&item); err != nil || n.Variant() != "FunctionToolCallOutputResource" || item.CallID.Value != "c" {
			t.Errorf("%s %s: %v %+v", n.Path(), n.Variant(), err, item)
		}
	}
	if nodes != 1 {
		t.Errorf("%d nodes, want the one item", nodes)
	}
}

// OpenRouter's spec has no conversations: a dialect lacking a payload has
// no root for it.
func TestConversationPayloadsOpenRouter(t *testing.T) {
	for _, p := range []codec.Payload{codec.ConversationCreateRequest, codec.ConversationUpdateRequest, codec.ConversationItemsCreateRequest,
		codec.ConversationBody, codec.ConversationDeletedBody, codec.ConversationItemsBody, codec.ConversationItemBody} {
		if r, ok := codec.OpenRouter.Payload(p); ok || r.Name() != "" {
			t.Errorf("openrouter %s: %q", p, r.Name())
		}
		if _, ok := codec.OpenAI.Payload(p); !ok {
			t.Errorf("openai %s: none", p)
		}
	}
}
