package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/conversations"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
)

// The official Go SDK against the stateful gateway (a store on SQLite and
// on PostgreSQL), over the scripted chat upstream of stored_test.go:
// previous_response_id chains, retrieve/delete/input_items, and the
// Conversations API, as an SDK user writes them.

// sdkClient is tenant a's SDK client of a stored gateway.
func (g *stored) sdkClient() openai.Client {
	return openai.NewClient(option.WithBaseURL(g.url+"/v1"), option.WithAPIKey("ka"), option.WithMaxRetries(0))
}

// create makes a response with the SDK, streamed or not; a stream's events
// must pass the conformance checker and end in response.completed, whose
// Response is returned.
func create(t *testing.T, c openai.Client, streamed bool, params responses.ResponseNewParams) *responses.Response {
	t.Helper()
	if !streamed {
		r, err := c.Responses.New(context.Background(), params)
		if err != nil {
			t.Fatal(err)
		}
		if fs := conformance.CheckResponse([]byte(r.RawJSON())); conformance.Violations(fs) > 0 {
			t.Fatalf("the Response breaks the checker: %v", fs)
		}
		return r
	}
	evs := streamWith(t, c, params)
	last := evs[len(evs)-1]
	if last.Type != "response.completed" {
		t.Fatalf("last event %s", last.Type)
	}
	return &last.Response
}

// storedFlag is the store member of a Response (the Go SDK has no field
// for it).
func storedFlag(r *responses.Response) string {
	return r.JSON.ExtraFields["store"].Raw()
}

func notFound(t *testing.T, what string, err error) {
	t.Helper()
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != 404 {
		t.Fatalf("%s: %v, want an *openai.Error with status 404", what, err)
	}
}

// The tool loop chained by previous_response_id, streamed and not: turn 1
// calls get_weather, turn 2 sends only the function_call_output and gets
// the text; the upstream's turn-2 chat request carries the whole chain.
func TestSDKStoredChain(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		for _, streamed := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream=%v", streamed), func(t *testing.T) {
				g := newStored(t, open(t), gateway.Config{}, answer{call: "get_weather", args: `{"city":"Paris"}`}, answer{text: "It is sunny in Paris."})
				c := g.sdkClient()
				tools := []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}, true)}
				r1 := create(t, c, streamed, responses.ResponseNewParams{Model: "m", Tools: tools,
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is the weather in Paris?")}})
				if len(r1.Output) != 1 || r1.Output[0].Type != "function_call" || storedFlag(r1) != "true" {
					t.Fatalf("turn 1: store %s, %s", storedFlag(r1), r1.RawJSON())
				}
				call := r1.Output[0].AsFunctionCall()
				out := responses.ResponseInputItemParamOfFunctionCallOutput(`{"sky":"sunny"}`)
				out.OfFunctionCallOutput.CallID = openai.String(call.CallID)
				r2 := create(t, c, streamed, responses.ResponseNewParams{Model: "m", Tools: tools, PreviousResponseID: openai.String(r1.ID),
					Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}}})
				if r2.OutputText() != "It is sunny in Paris." || r2.PreviousResponseID != r1.ID || storedFlag(r2) != "true" || r2.Status != "completed" {
					t.Fatalf("turn 2: %q previous %q store %s status %s", r2.OutputText(), r2.PreviousResponseID, storedFlag(r2), r2.Status)
				}
				reqs := g.up.requests()
				if len(reqs) != 2 {
					t.Fatalf("%d chat requests", len(reqs))
				}
				want := "user:What is the weather in Paris?\nassistant:call " + call.CallID + ` get_weather({"city":"Paris"})` + "\ntool:{\"sky\":\"sunny\"} for " + call.CallID + "\n"
				if got := g.up.last(t).String(); got != want {
					t.Fatalf("turn 2's chat messages:\n%s\nwant:\n%s", got, want)
				}
				var last struct{ Stream bool }
				_ = json.Unmarshal(reqs[1], &last)
				if last.Stream != streamed {
					t.Fatalf("the upstream was asked stream=%v", last.Stream)
				}
			})
		}
	})
}

// responses.Get returns what create returned (streamed or not);
// input_items pages in both orders, by hand and with the auto-pager;
// Delete, then Get and input_items are 404s.
func TestSDKStoredRetrieve(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "Noted, all five."})
		c := g.sdkClient()
		ctx := context.Background()
		var input responses.ResponseInputParam
		for i := range 5 {
			input = append(input, responses.ResponseInputItemParamOfMessage(fmt.Sprintf("m%d", i), responses.EasyInputMessageRoleUser))
		}
		for _, streamed := range []bool{false, true} {
			r := create(t, c, streamed, responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
				Metadata: shared.Metadata{"run": fmt.Sprint(streamed)}})
			got, err := c.Responses.Get(ctx, r.ID, responses.ResponseGetParams{})
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != r.ID || got.OutputText() != "Noted, all five." || got.Status != "completed" || storedFlag(got) != "true" || got.Metadata["run"] != fmt.Sprint(streamed) {
				t.Fatalf("stream=%v: got %s\ncreated %s", streamed, got.RawJSON(), r.RawJSON())
			}
			if strings.TrimSpace(got.RawJSON()) != strings.TrimSpace(r.RawJSON()) {
				t.Fatalf("stream=%v: retrieved\n%s\ncreated\n%s", streamed, got.RawJSON(), r.RawJSON())
			}
		}
		r := create(t, c, false, responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})

		// asc with the auto-pager, two a page: the five in the order sent,
		// each a message with a msg_ id given by the gateway.
		var asc []string
		pager := c.Responses.InputItems.ListAutoPaging(ctx, r.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc, Limit: openai.Int(2)})
		for pager.Next() {
			it := pager.Current()
			if it.Type != "message" || it.Role != "user" || !strings.HasPrefix(it.ID, "msg_") {
				t.Fatalf("item %s", it.RawJSON())
			}
			if want := fmt.Sprintf("m%d", len(asc)); it.Content.OfInputItemContentList[0].Text != want {
				t.Fatalf("item %d: %s, want text %s", len(asc), it.RawJSON(), want)
			}
			asc = append(asc, it.ID)
		}
		if err := pager.Err(); err != nil {
			t.Fatal(err)
		}
		if len(asc) != 5 {
			t.Fatalf("asc: %v", asc)
		}
		// desc (the default) by hand, two a page: the reverse, in pages of
		// 2, 2, 1, has_more on all but the last.
		var desc, sizes []string
		page, err := c.Responses.InputItems.List(ctx, r.ID, responses.InputItemListParams{Limit: openai.Int(2)})
		for ; err == nil && page != nil; page, err = page.GetNextPage() {
			for _, it := range page.Data {
				desc = append(desc, it.ID)
			}
			sizes = append(sizes, fmt.Sprintf("%d/%v", len(page.Data), page.HasMore))
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(sizes, ","); got != "2/true,2/true,1/false" {
			t.Fatalf("desc pages: %s", got)
		}
		for i := range asc {
			if desc[len(desc)-1-i] != asc[i] {
				t.Fatalf("desc %v is not asc %v reversed", desc, asc)
			}
		}
		// after, in both orders.
		page, err = c.Responses.InputItems.List(ctx, r.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc, After: openai.String(asc[1]), Limit: openai.Int(2)})
		if err != nil || len(page.Data) != 2 || page.Data[0].ID != asc[2] || page.Data[1].ID != asc[3] || !page.HasMore {
			t.Fatalf("asc after %s: %v %+v", asc[1], err, page)
		}
		page, err = c.Responses.InputItems.List(ctx, r.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderDesc, After: openai.String(asc[2])})
		if err != nil || len(page.Data) != 2 || page.Data[0].ID != asc[1] || page.Data[1].ID != asc[0] || page.HasMore {
			t.Fatalf("desc after %s: %v %+v", asc[2], err, page)
		}

		if err := c.Responses.Delete(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		_, err = c.Responses.Get(ctx, r.ID, responses.ResponseGetParams{})
		notFound(t, "get after delete", err)
		_, err = c.Responses.InputItems.List(ctx, r.ID, responses.InputItemListParams{})
		notFound(t, "input items after delete", err)
		notFound(t, "delete again", c.Responses.Delete(ctx, r.ID))
	})
}

// A conversation made with an initial item and metadata, used by three
// turns (the second streamed): its items are the initial item, then each
// turn's input and output, in order; the third chat request carries the
// whole conversation. Then retrieve/update, items add/get/delete, and
// delete.
func TestSDKConversation(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "Hello Ada."}, answer{text: "Your name is Ada."}, answer{text: "Goodbye Ada."})
		c := g.sdkClient()
		ctx := context.Background()
		conv, err := c.Conversations.New(ctx, conversations.ConversationNewParams{
			Items:    []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage("My name is Ada.", responses.EasyInputMessageRoleUser)},
			Metadata: shared.Metadata{"topic": "names"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(conv.ID, "conv_") || conv.Metadata.(map[string]any)["topic"] != "names" || conv.Object != "conversation" {
			t.Fatalf("created %s", conv.RawJSON())
		}
		var want []string // the item ids, in order, as the turns make them
		first, err := c.Conversations.Items.List(ctx, conv.ID, conversations.ItemListParams{})
		if err != nil || len(first.Data) != 1 || first.Data[0].Type != "message" || first.Data[0].Content.OfMessageContentArray[0].Text != "My name is Ada." {
			t.Fatalf("initial items: %v %+v", err, first)
		}
		want = append(want, first.Data[0].ID)
		for i, q := range []string{"Hi!", "What is my name?", "Bye!"} {
			r := create(t, c, i == 1, responses.ResponseNewParams{Model: "m", Conversation: responses.ResponseNewParamsConversationUnion{OfString: openai.String(conv.ID)},
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(q)}})
			if r.Conversation.ID != conv.ID || storedFlag(r) != "true" {
				t.Fatalf("turn %d: conversation %q store %s", i+1, r.Conversation.ID, storedFlag(r))
			}
			in, err := c.Responses.InputItems.List(ctx, r.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc})
			if err != nil || len(in.Data) != 1 || in.Data[0].Content.OfInputItemContentList[0].Text != q {
				t.Fatalf("turn %d's input items: %v %+v", i+1, err, in)
			}
			want = append(want, in.Data[0].ID)
			for _, o := range r.Output {
				want = append(want, o.ID)
			}
		}
		if got := g.up.last(t).String(); got != "user:My name is Ada.\nuser:Hi!\nassistant:Hello Ada.\nuser:What is my name?\nassistant:Your name is Ada.\nuser:Bye!\n" {
			t.Fatalf("turn 3's chat messages:\n%s", got)
		}

		// The items, asc with the auto-pager three a page (the cursor is
		// last_id), and desc in one page.
		var got, texts []string
		pager := c.Conversations.Items.ListAutoPaging(ctx, conv.ID, conversations.ItemListParams{Order: conversations.ItemListParamsOrderAsc, Limit: openai.Int(3)})
		for pager.Next() {
			it := pager.Current()
			got = append(got, it.ID)
			texts = append(texts, it.Role+":"+it.Content.OfMessageContentArray[0].Text)
		}
		if err := pager.Err(); err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("items asc: %v, want %v", got, want)
		}
		if s := strings.Join(texts, "|"); s != "user:My name is Ada.|user:Hi!|assistant:Hello Ada.|user:What is my name?|assistant:Your name is Ada.|user:Bye!|assistant:Goodbye Ada." {
			t.Fatalf("items asc: %s", s)
		}
		page, err := c.Conversations.Items.List(ctx, conv.ID, conversations.ItemListParams{})
		if err != nil || len(page.Data) != len(want) || page.HasMore || page.Data[0].ID != want[len(want)-1] || page.Data[len(want)-1].ID != want[0] || page.LastID != want[0] {
			t.Fatalf("items desc: %v %s", err, page.RawJSON())
		}

		// retrieve, update
		gotConv, err := c.Conversations.Get(ctx, conv.ID)
		if err != nil || gotConv.ID != conv.ID || gotConv.CreatedAt != conv.CreatedAt || gotConv.Metadata.(map[string]any)["topic"] != "names" {
			t.Fatalf("retrieve: %v %+v", err, gotConv)
		}
		upd, err := c.Conversations.Update(ctx, conv.ID, conversations.ConversationUpdateParams{Metadata: shared.Metadata{"topic": "farewells"}})
		if err != nil || upd.Metadata.(map[string]any)["topic"] != "farewells" {
			t.Fatalf("update: %v %+v", err, upd)
		}
		if gotConv, err = c.Conversations.Get(ctx, conv.ID); err != nil || gotConv.Metadata.(map[string]any)["topic"] != "farewells" {
			t.Fatalf("retrieve after update: %v %+v", err, gotConv)
		}

		// items: add, get, delete
		added, err := c.Conversations.Items.New(ctx, conv.ID, conversations.ItemNewParams{Items: []responses.ResponseInputItemUnionParam{
			responses.ResponseInputItemParamOfMessage("One more thing.", responses.EasyInputMessageRoleUser)}})
		if err != nil || len(added.Data) != 1 || added.Data[0].Content.OfMessageContentArray[0].Text != "One more thing." {
			t.Fatalf("add: %v %+v", err, added)
		}
		extra := added.Data[0].ID
		it, err := c.Conversations.Items.Get(ctx, conv.ID, want[2], conversations.ItemGetParams{})
		if err != nil || it.ID != want[2] || it.Role != "assistant" || it.Content.OfMessageContentArray[0].Text != "Hello Ada." {
			t.Fatalf("get item: %v %+v", err, it)
		}
		after, err := c.Conversations.Items.Delete(ctx, conv.ID, want[2])
		if err != nil || after.ID != conv.ID {
			t.Fatalf("delete item: %v %+v", err, after)
		}
		_, err = c.Conversations.Items.Get(ctx, conv.ID, want[2], conversations.ItemGetParams{})
		notFound(t, "get a deleted item", err)
		page, err = c.Conversations.Items.List(ctx, conv.ID, conversations.ItemListParams{Order: conversations.ItemListParamsOrderAsc})
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, it := range page.Data {
			got = append(got, it.ID)
		}
		if wantNow := append(append(append([]string(nil), want[:2]...), want[3:]...), extra); strings.Join(got, ",") != strings.Join(wantNow, ",") {
			t.Fatalf("items after add and delete: %v, want %v", got, wantNow)
		}

		// delete
		del, err := c.Conversations.Delete(ctx, conv.ID)
		if err != nil || del.ID != conv.ID || !del.Deleted || del.Object != "conversation.deleted" {
			t.Fatalf("delete: %v %+v", err, del)
		}
		_, err = c.Conversations.Get(ctx, conv.ID)
		notFound(t, "get a deleted conversation", err)
		_, err = c.Conversations.Items.List(ctx, conv.ID, conversations.ItemListParams{})
		notFound(t, "items of a deleted conversation", err)
		_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Conversation: responses.ResponseNewParamsConversationUnion{OfString: openai.String(conv.ID)},
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Still there?")}})
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Param != "conversation" {
			t.Fatalf("a turn in a deleted conversation: %v", err)
		}
	})
}

// The tool loop inside a conversation: turn 1 (streamed) calls
// get_weather, turn 2 sends only the function_call_output with the
// conversation; the upstream gets the call and its output, and the
// conversation's items decode in the SDK as the call, its output and the
// answer. A store:false turn reads the conversation and writes nothing:
// not the response, not its items to the conversation.
func TestSDKConversationToolLoop(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{call: "get_weather", args: `{"city":"Paris"}`}, answer{text: "Sunny."}, answer{text: "Still sunny."})
		c := g.sdkClient()
		ctx := context.Background()
		conv, err := c.Conversations.New(ctx, conversations.ConversationNewParams{})
		if err != nil {
			t.Fatal(err)
		}
		tools := []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}, false)}
		cv := responses.ResponseNewParamsConversationUnion{OfString: openai.String(conv.ID)}
		r1 := create(t, c, true, responses.ResponseNewParams{Model: "m", Tools: tools, Conversation: cv, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris?")}})
		call := r1.Output[0].AsFunctionCall()
		out := responses.ResponseInputItemParamOfFunctionCallOutput("sunny")
		out.OfFunctionCallOutput.CallID = openai.String(call.CallID)
		r2 := create(t, c, false, responses.ResponseNewParams{Model: "m", Tools: tools, Conversation: cv, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}}})
		if r2.OutputText() != "Sunny." || r2.Conversation.ID != conv.ID {
			t.Fatalf("turn 2: %s", r2.RawJSON())
		}
		want := "user:Weather in Paris?\nassistant:call " + call.CallID + ` get_weather({"city":"Paris"})` + "\ntool:sunny for " + call.CallID + "\n"
		if got := g.up.last(t).String(); got != want {
			t.Fatalf("turn 2's chat messages:\n%s\nwant:\n%s", got, want)
		}
		r3, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Store: openai.Bool(false), Conversation: cv, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("And now?")}})
		if err != nil || storedFlag(r3) != "false" || r3.OutputText() != "Still sunny." {
			t.Fatalf("store:false turn: %v", err)
		}
		if got := g.up.last(t).String(); got != want+"assistant:Sunny.\nuser:And now?\n" {
			t.Fatalf("the store:false turn's chat messages:\n%s", got)
		}
		_, err = c.Responses.Get(ctx, r3.ID, responses.ResponseGetParams{})
		notFound(t, "a store:false response", err)

		p, err := c.Conversations.Items.List(ctx, conv.ID, conversations.ItemListParams{Order: conversations.ItemListParamsOrderAsc})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range p.Data {
			s := it.Type
			switch it.Type {
			case "message":
				s += " " + it.Role + ":" + it.Content.OfMessageContentArray[0].Text
			case "function_call":
				fc := it.AsFunctionCall()
				s += " " + fc.CallID + " " + fc.Name + fc.Arguments
			case "function_call_output":
				s += " " + it.CallID + " " + it.Output.OfString
			}
			got = append(got, s)
		}
		if s := strings.Join(got, "|"); s != "message user:Weather in Paris?|function_call "+call.CallID+` get_weather{"city":"Paris"}|function_call_output `+call.CallID+" sunny|message assistant:Sunny." {
			t.Fatalf("items: %s", s)
		}
		if p.Data[1].ID != r1.Output[0].ID || p.Data[3].ID != r2.Output[0].ID {
			t.Fatalf("output item ids: %s", p.RawJSON())
		}
	})
}
