package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
)

// A client that leaves mid-stream: the response is stored, cancelled, with
// the text streamed so far; its id is the streamed one.
func TestStoredWhenClientLeaves(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "one two three four"})
		g.up.pauseAt, g.up.release = 2, make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", g.url+"/v1/responses", strings.NewReader(`{"model":"m","input":"count","stream":true}`))
		req.Header.Set("Authorization", "Bearer ka")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rd := sse.NewReader(resp.Body)
		var id string
		for rd.Next() {
			var e struct {
				Type     string
				Delta    string
				Response struct{ ID string }
			}
			_ = json.Unmarshal(rd.Event().Data, &e)
			if e.Type == "response.created" {
				id = e.Response.ID
			}
			if e.Type == "response.output_text.delta" && e.Delta == "two " {
				break
			}
		}
		cancel()
		resp.Body.Close()
		var got map[string]any
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if code, b := g.a.do("GET", "/v1/responses/"+id, ""); code == 200 {
				_ = json.Unmarshal(b, &got)
				break
			}
		}
		if got == nil {
			t.Fatalf("the response %s of a client that left is not stored", id)
		}
		out := got["output"].([]any)
		if got["status"] != "cancelled" || len(out) != 1 || out[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != "one two " {
			t.Fatalf("stored: %v", got)
		}
	})
}

// Pass-through: each bearer is a tenant of its own (a hash of it: the
// bearer is never stored).
func TestPassThroughTenancy(t *testing.T) {
	st := backends(t)[0].open(t)
	up := &chatUpstream{script: []answer{{text: "ok"}}}
	s := newStack(t, up, gateway.Config{PassThrough: true, Store: st})
	one, two := client{t, s.gw.URL, "sk-or-one"}, client{t, s.gw.URL, "sk-or-two"}
	r := one.ok("POST", "/v1/responses", `{"model":"m","input":"hi"}`)
	id := r["id"].(string)
	one.ok("GET", "/v1/responses/"+id, "")
	two.refused("GET", "/v1/responses/"+id, "", 404, "response_id")
	two.refused("POST", "/v1/responses", `{"model":"m","input":"x","previous_response_id":"`+id+`"}`, 400, "previous_response_id")
	one.ok("POST", "/v1/responses", `{"model":"m","input":"x","previous_response_id":"`+id+`"}`)
	if _, err := st.GetResponse(context.Background(), "sk-or-one", id); err == nil {
		t.Fatal("stored under the bearer itself")
	}
}

// Objects live for the TTL: the expiry loop deletes them in the
// background; before it runs, expired ones are already invisible.
func TestStoreTTL(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1767225600, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	st := openStore(t, store.Config{Driver: "sqlite", DSN: t.TempDir() + "/s.db", TTL: time.Hour, Now: clock})
	g := newStored(t, st, gateway.Config{Clock: clock}, answer{text: "ok"})
	id := g.a.ok("POST", "/v1/responses", `{"model":"m","input":"hi"}`)["id"].(string)
	conv := g.a.ok("POST", "/v1/conversations", `{}`)["id"].(string)
	g.a.ok("GET", "/v1/responses/"+id, "")
	mu.Lock()
	now = now.Add(time.Hour + time.Second)
	mu.Unlock()
	g.a.refused("GET", "/v1/responses/"+id, "", 404, "response_id")
	g.a.refused("GET", "/v1/conversations/"+conv, "", 404, "conversation_id")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var logged strings.Builder
	var lmu sync.Mutex
	go func() {
		gateway.ExpireLoop(ctx, st, time.Hour, clock, logFunc(func(msg string, args ...any) {
			lmu.Lock()
			defer lmu.Unlock()
			logged.WriteString(msg)
		}))
		close(done)
	}()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		lmu.Lock()
		l := logged.String()
		lmu.Unlock()
		if strings.Contains(l, "store expired") {
			break
		}
	}
	cancel()
	<-done
	if !strings.Contains(logged.String(), "store expired") {
		t.Fatalf("the loop did not expire: %q", logged.String())
	}
	if n, err := st.Expire(context.Background(), clock()); err != nil || n != 0 {
		t.Fatalf("left behind: %d %v", n, err)
	}
}

type logFunc func(string, ...any)

func (f logFunc) Info(msg string, args ...any) { f(msg, args...) }

// Inputs that are odd but fine: an empty id is none (one is given); no
// input at all continues what is stored; a message with an id, a status
// and string content is stored in the listed shape. Duplicates are not
// fine: an item given twice, or again after the chain holds it, is a 400.
func TestStoredInputEdges(t *testing.T) {
	g := newStored(t, backends(t)[0].open(t), gateway.Config{}, answer{text: "ok"})
	r := g.a.ok("POST", "/v1/responses", `{"model":"m","input":[{"type":"message","role":"user","content":"hi","id":"","status":"completed"},{"type":"message","role":"user","content":"there","id":"m1","status":"completed"}]}`)
	l := g.a.ok("GET", "/v1/responses/"+r["id"].(string)+"/input_items?order=asc", "")
	first, second := l["data"].([]any)[0].(map[string]any), l["data"].([]any)[1].(map[string]any)
	if id, _ := first["id"].(string); !strings.HasPrefix(id, "msg_") {
		t.Fatalf("an empty id stays empty: %v", first)
	}
	if _, ok := second["content"].([]any); !ok || second["id"] != "m1" {
		t.Fatalf("string content not listed as parts: %v", second)
	}
	// No input: the chain (or the conversation) is the input.
	g.a.ok("POST", "/v1/responses", `{"model":"m","previous_response_id":"`+r["id"].(string)+`"}`)
	if got := g.up.last(t).String(); got != "user:hi\nuser:there\nassistant:ok\n" {
		t.Fatalf("continued with no input:\n%s", got)
	}
	conv := g.a.ok("POST", "/v1/conversations", `{"items":[{"role":"user","content":"from the items API"}]}`)["id"].(string)
	g.a.ok("POST", "/v1/responses", `{"model":"m","conversation":"`+conv+`"}`)
	if got := g.up.last(t).String(); got != "user:from the items API\n" {
		t.Fatalf("a conversation with no input:\n%s", got)
	}
	g.a.refused("POST", "/v1/responses", `{"model":"m","conversation":"","input":"x"}`, 400, "conversation")
	g.a.refused("POST", "/v1/responses", `{"model":"m","input":[{"id":"d","type":"message","role":"user","content":"a"},{"id":"d","type":"message","role":"user","content":"b"}]}`, 400, "input[1].id")
	g.a.refused("POST", "/v1/responses", `{"model":"m","previous_response_id":"`+r["id"].(string)+`","input":[{"type":"item_reference","id":"m1"}]}`, 400, "input[0].id")
}
