package gateway_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
)

// itemTexts is a list's items as type:text, comma-separated.
func itemTexts(t *testing.T, l map[string]any) string {
	t.Helper()
	var out []string
	for _, it := range l["data"].([]any) {
		m := it.(map[string]any)
		s := fmt.Sprint(m["type"])
		if c, ok := m["content"].([]any); ok && len(c) > 0 {
			s += ":" + fmt.Sprint(c[0].(map[string]any)["text"])
		}
		if m["id"] == nil || m["id"] == "" {
			t.Fatalf("an item without an id: %v", m)
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

// A conversation: created with an item and metadata, used by three
// responses (each sees the items before it, and appends its input and
// output), listed, updated, its items read and deleted, then deleted.
func TestConversation(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "One."}, answer{text: "Two."}, answer{text: "Three."})
		c := g.a.ok("POST", "/v1/conversations", `{"metadata":{"topic":"'; DROP TABLE conversations; --"},"items":[{"type":"message","role":"user","content":"Hello"}]}`)
		id, _ := c["id"].(string)
		if !strings.HasPrefix(id, "conv_") || c["object"] != "conversation" || c["metadata"].(map[string]any)["topic"] != "'; DROP TABLE conversations; --" {
			t.Fatalf("create: %v", c)
		}
		for i, q := range []string{"first?", "second?", "third?"} {
			conv := `"` + id + `"`
			if i == 1 {
				conv = `{"id":"` + id + `"}`
			}
			r := g.a.ok("POST", "/v1/responses", `{"model":"m","conversation":`+conv+`,"input":"`+q+`"}`)
			if r["conversation"].(map[string]any)["id"] != id {
				t.Fatalf("turn %d: conversation %v", i, r["conversation"])
			}
		}
		want := "user:Hello\nuser:first?\nassistant:One.\nuser:second?\nassistant:Two.\nuser:third?\n"
		if got := g.up.last(t).String(); got != want {
			t.Fatalf("turn 3's chat messages:\n%s\nwant:\n%s", got, want)
		}
		l := g.a.ok("GET", "/v1/conversations/"+id+"/items?order=asc", "")
		if got := itemTexts(t, l); got != "message:Hello,message:first?,message:One.,message:second?,message:Two.,message:third?,message:Three." {
			t.Fatalf("items: %s", got)
		}
		d := g.a.ok("GET", "/v1/conversations/"+id+"/items?limit=2", "")
		if got := itemTexts(t, d); got != "message:Three.,message:third?" || d["has_more"] != true {
			t.Fatalf("desc page: %s %v", got, d)
		}
		// Items added by hand come next; one read and deleted.
		added := g.a.ok("POST", "/v1/conversations/"+id+"/items", `{"items":[{"role":"user","content":"Added"}]}`)
		aid := added["data"].([]any)[0].(map[string]any)["id"].(string)
		if it := g.a.ok("GET", "/v1/conversations/"+id+"/items/"+aid, ""); it["id"] != aid {
			t.Fatalf("item: %v", it)
		}
		if cv := g.a.ok("DELETE", "/v1/conversations/"+id+"/items/"+aid, ""); cv["id"] != id || cv["object"] != "conversation" {
			t.Fatalf("delete item answers the conversation: %v", cv)
		}
		g.a.refused("GET", "/v1/conversations/"+id+"/items/"+aid, "", 404, "item_id")
		u := g.a.ok("POST", "/v1/conversations/"+id, `{"metadata":{"topic":"weather"}}`)
		if u["metadata"].(map[string]any)["topic"] != "weather" {
			t.Fatalf("update: %v", u)
		}
		if got := g.a.ok("GET", "/v1/conversations/"+id, ""); got["metadata"].(map[string]any)["topic"] != "weather" || got["created_at"] != c["created_at"] {
			t.Fatalf("get: %v", got)
		}
		// An item the conversation holds, sent again (as a reference or
		// itself), is refused: a conversation holds an item once.
		first := l["data"].([]any)[1].(map[string]any)["id"].(string)
		g.a.refused("POST", "/v1/responses", `{"model":"m","conversation":"`+id+`","input":[{"type":"item_reference","id":"`+first+`"}]}`, 400, "input[0].id")
		g.a.refused("POST", "/v1/responses", `{"model":"m","conversation":"`+id+`","input":[{"id":"msg_x","type":"message","role":"user","content":"a"},{"id":"msg_x","type":"message","role":"user","content":"b"}]}`, 400, "input[1].id")
		// Another tenant sees nothing of it.
		g.b.refused("GET", "/v1/conversations/"+id, "", 404, "conversation_id")
		g.b.refused("GET", "/v1/conversations/"+id+"/items", "", 404, "conversation_id")
		g.b.refused("POST", "/v1/conversations/"+id+"/items", `{"items":[{"role":"user","content":"x"}]}`, 404, "conversation_id")
		g.b.refused("DELETE", "/v1/conversations/"+id, "", 404, "conversation_id")
		g.b.refused("POST", "/v1/responses", `{"model":"m","conversation":"`+id+`","input":"x"}`, 400, "conversation")
		del := g.a.ok("DELETE", "/v1/conversations/"+id, "")
		if del["id"] != id || del["object"] != "conversation.deleted" || del["deleted"] != true {
			t.Fatalf("delete: %v", del)
		}
		g.a.refused("GET", "/v1/conversations/"+id, "", 404, "conversation_id")
		e := g.a.refused("POST", "/v1/responses", `{"model":"m","conversation":"`+id+`","input":"x"}`, 400, "conversation")
		if e["code"] != "conversation_not_found" {
			t.Fatalf("%v", e)
		}
	})
}

// Bad conversation requests: OpenAI-shaped 400s naming the parameter.
func TestConversationBadInput(t *testing.T) {
	g := newStored(t, backends(t)[0].open(t), gateway.Config{}, answer{text: "ok"})
	many := strings.Repeat(`{"role":"user","content":"x"},`, 21)
	var meta []string
	for i := range 17 {
		meta = append(meta, fmt.Sprintf(`"k%d":"v"`, i))
	}
	for _, c := range []struct{ body, param string }{
		{`[]`, ""},
		{`{"metadat":{}}`, "metadat"},
		{`{"items":[{"role":"user","content":7}]}`, "items[0].content"},
		{`{"items":[` + many[:len(many)-1] + `]}`, "items"},
		{`{"items":"x"}`, "items"},
		{`{"items":[1]}`, "items[0]"},
		{`{"items":[{"type":"function_call_output","call_id":"c","output":"o"}]}`, "items[0]"},
		{`{"metadata":{` + strings.Join(meta, ",") + `}}`, "metadata"},
		{`{"metadata":{"k":1}}`, "metadata.k"},
		{`{"metadata":{"` + strings.Repeat("k", 65) + `":"v"}}`, "metadata"},
		{`{"items":[{"type":"item_reference","id":"msg_nope"}]}`, "items[0].id"},
	} {
		g.a.refused("POST", "/v1/conversations", c.body, 400, c.param)
	}
	// An output added later pairs with the conversation's call; one that
	// pairs with nothing is refused, named as sent.
	tc := g.a.ok("POST", "/v1/conversations", `{"items":[{"role":"user","content":"weather?"},{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{}"}]}`)["id"].(string)
	g.a.ok("POST", "/v1/conversations/"+tc+"/items", `{"items":[{"type":"function_call_output","call_id":"c1","output":"sunny"}]}`)
	g.a.refused("POST", "/v1/conversations/"+tc+"/items", `{"items":[{"role":"user","content":"x"},{"type":"function_call_output","call_id":"c2","output":"o"}]}`, 400, "items[1]")
	g.a.refused("POST", "/v1/conversations/"+tc+"/items", `{"items":[{"id":"msg_same","role":"user","content":"x"},{"id":"msg_same","role":"user","content":"y"}]}`, 400, "items")
	g.a.refused("POST", "/v1/conversations", `{"items":[{"id":"msg_same","role":"user","content":"x"},{"id":"msg_same","role":"user","content":"y"}]}`, 400, "items")
	id := g.a.ok("POST", "/v1/conversations", ``)["id"].(string) // no body: an empty conversation
	g.a.refused("POST", "/v1/conversations/"+id, `{}`, 400, "metadata")
	g.a.refused("POST", "/v1/conversations/"+id+"/items", `{}`, 400, "items")
	g.a.refused("GET", "/v1/conversations/"+id+"/items?limit=500", "", 400, "limit")
	g.a.refused("GET", "/v1/conversations/conv_nope", "", 404, "conversation_id")
	g.a.refused("POST", "/v1/responses", `{"model":"m","conversation":"not-a-conversation","input":"x"}`, 400, "conversation")
	g.a.refused("POST", "/v1/responses", `{"model":"m","conversation":{"name":"x"},"input":"x"}`, 400, "conversation.id")
}

// What the Conversations routes answer has the pinned spec's shapes (no
// finding: nothing missing, nothing of the wrong kind or unknown) — items
// made from easy messages, a string input, a call and its output included.
func TestConversationShapes(t *testing.T) {
	g := newStored(t, backends(t)[0].open(t), gateway.Config{}, answer{call: "get_weather", args: `{"city":"Paris"}`}, answer{text: "ok"})
	c := g.a.ok("POST", "/v1/conversations", `{"items":[{"role":"user","content":"Hello"},{"type":"message","role":"developer","content":[{"type":"input_text","text":"x"}]}],"metadata":{"k":"v"}}`)
	id := c["id"].(string)
	g.a.ok("POST", "/v1/responses", `{"model":"m","conversation":"`+id+`","input":"weather?","tools":[`+weatherTool+`]}`)
	l := g.a.ok("GET", "/v1/conversations/"+id+"/items?order=asc", "")
	call := l["data"].([]any)[3].(map[string]any)
	g.a.ok("POST", "/v1/responses", `{"model":"m","conversation":"`+id+`","input":[{"type":"function_call_output","call_id":"`+call["call_id"].(string)+`","output":"sunny"}],"tools":[`+weatherTool+`]}`)
	added := g.a.ok("POST", "/v1/conversations/"+id+"/items", `{"items":[{"role":"assistant","content":"noted"}]}`)
	aid := added["data"].([]any)[0].(map[string]any)["id"].(string)
	for _, c := range []struct {
		p            codec.Payload
		method, path string
	}{
		{codec.ConversationBody, "GET", "/v1/conversations/" + id},
		{codec.ConversationItemsBody, "GET", "/v1/conversations/" + id + "/items?order=asc"},
		{codec.ConversationItemsBody, "GET", "/v1/conversations/" + id + "/items?limit=2"},
		{codec.ConversationItemBody, "GET", "/v1/conversations/" + id + "/items/" + call["id"].(string)},
		{codec.ConversationItemBody, "GET", "/v1/conversations/" + id + "/items/" + aid},
		{codec.ConversationBody, "DELETE", "/v1/conversations/" + id + "/items/" + aid},
		{codec.ConversationDeletedBody, "DELETE", "/v1/conversations/" + id},
	} {
		code, b := g.a.do(c.method, c.path, "")
		if code != 200 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, code, b)
		}
		root, _ := codec.OpenAI.Payload(c.p)
		doc, err := codec.Decode(root, b)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		for _, f := range doc.Findings() {
			t.Errorf("%s %s: %s\n%s", c.method, c.path, f, b)
		}
	}
}

// A conversation or item id PostgreSQL's text cannot hold (a NUL, invalid
// UTF-8) names nothing: every Conversations route taking one answers 404
// naming it, as for an unknown id, never a 5xx from the store; the
// conversation is untouched.
func TestConversationUnstorableIDs(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "ok"})
		id := g.a.ok("POST", "/v1/conversations", `{"items":[{"role":"user","content":"Hello"}]}`)["id"].(string)
		for _, bad := range []string{"conv_%00", "conv_%FF", "conv_a%00b", "conv_%C3%28"} {
			for _, c := range []struct{ method, path, body string }{
				{"GET", "/v1/conversations/" + bad, ""},
				{"POST", "/v1/conversations/" + bad, `{"metadata":{"k":"v"}}`},
				{"DELETE", "/v1/conversations/" + bad, ""},
				{"GET", "/v1/conversations/" + bad + "/items", ""},
				{"POST", "/v1/conversations/" + bad + "/items", `{"items":[{"role":"user","content":"x"}]}`},
				{"GET", "/v1/conversations/" + bad + "/items/msg_1", ""},
				{"DELETE", "/v1/conversations/" + bad + "/items/msg_1", ""},
			} {
				t.Run(c.method+" "+c.path, func(t *testing.T) {
					code, b := g.a.do(c.method, c.path, c.body)
					checkOpenAIError(t, code, b, 404, "invalid_request_error", "", "conversation_id")
					if !strings.Contains(string(b), `"message":"Conversation with id '`) {
						t.Errorf("%s", b)
					}
				})
			}
		}
		for _, bad := range []string{"msg_%00", "msg_%FF"} {
			for _, method := range []string{"GET", "DELETE"} {
				t.Run(method+" item "+bad, func(t *testing.T) {
					code, b := g.a.do(method, "/v1/conversations/"+id+"/items/"+bad, "")
					checkOpenAIError(t, code, b, 404, "invalid_request_error", "", "item_id")
					if !strings.Contains(string(b), `"message":"Item with id '`) {
						t.Errorf("%s", b)
					}
				})
			}
		}
		if l := g.a.ok("GET", "/v1/conversations/"+id+"/items", ""); itemTexts(t, l) != "message:Hello" {
			t.Fatalf("the conversation after: %v", l)
		}
	})
}
