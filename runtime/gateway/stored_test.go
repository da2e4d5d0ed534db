package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver, to make a schema per test

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/pgtest"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// The stored-state tests run on both stores: SQLite in a temporary file,
// and PostgreSQL (TRANSPONDER_TEST_PG, as .ci/run exports it) in a schema
// of their own.

type backend struct {
	name string
	open func(t *testing.T) store.Store
}

func backends(t *testing.T) []backend {
	return []backend{
		{"sqlite", func(t *testing.T) store.Store {
			return openStore(t, store.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "store.db")})
		}},
		{"postgres", func(t *testing.T) store.Store {
			return openStore(t, store.Config{Driver: "postgres", DSN: pgSchema(t)})
		}},
	}
}

func openStore(t testing.TB, cfg store.Config) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// pgSchema is a DSN of the test PostgreSQL with a fresh schema, dropped
// after the test; without TRANSPONDER_TEST_PG the test is skipped (failed
// under CI).
func pgSchema(t testing.TB) string {
	t.Helper()
	return pgtest.Schema(t, "gw")
}

// answer is one scripted chat answer: text, or a call of a function.
type answer struct {
	text       string
	call, args string
}

// chatUpstream answers chat requests from a script (the last answer
// repeats), streamed or not as asked, and records the requests.
type chatUpstream struct {
	mu      sync.Mutex
	script  []answer
	reqs    [][]byte
	pauseAt int           // a stream stops after this many chunks, until release
	release chan struct{} // (nil: no pause)
}

func (u *chatUpstream) requests() [][]byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([][]byte(nil), u.reqs...)
}

// last is the last chat request, decoded.
func (u *chatUpstream) last(t *testing.T) chatRequest {
	t.Helper()
	rs := u.requests()
	if len(rs) == 0 {
		t.Fatal("no chat request")
	}
	var c chatRequest
	if err := json.Unmarshal(rs[len(rs)-1], &c); err != nil {
		t.Fatal(err)
	}
	return c
}

type chatRequest struct {
	Messages []struct {
		Role       string
		Content    any
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string
			Function struct{ Name, Arguments string }
		} `json:"tool_calls"`
	}
}

// roles is the messages' roles and texts, one line each.
func (c chatRequest) String() string {
	var b strings.Builder
	for _, m := range c.Messages {
		fmt.Fprintf(&b, "%s:", m.Role)
		switch v := m.Content.(type) {
		case string:
			b.WriteString(v)
		case []any:
			for _, p := range v {
				if pm, ok := p.(map[string]any); ok {
					fmt.Fprint(&b, pm["text"])
				}
			}
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "call %s %s(%s)", tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " for %s", m.ToolCallID)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (u *chatUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	n := len(u.reqs)
	u.reqs = append(u.reqs, body)
	a := u.script[min(n, len(u.script)-1)]
	u.mu.Unlock()
	var req struct{ Stream bool }
	_ = json.Unmarshal(body, &req)
	usage := `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	if !req.Stream {
		msg, fin := `{"role":"assistant","content":`+q(a.text)+`}`, "stop"
		if a.call != "" {
			msg, fin = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_`+fmt.Sprint(n)+`","type":"function","function":{"name":`+q(a.call)+`,"arguments":`+q(a.args)+`}}]}`, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":`+msg+`,"finish_reason":"`+fin+`"}],"usage":`+usage+`}`)
		return
	}
	var chunks []string
	chunk := func(delta, fin string) string {
		return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fin + `}]}`
	}
	if a.call != "" {
		chunks = append(chunks, chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_`+fmt.Sprint(n)+`","type":"function","function":{"name":`+q(a.call)+`,"arguments":""}}]}`, "null"),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+q(a.args)+`}}]}`, "null"),
			chunk(`{}`, `"tool_calls"`))
	} else {
		for _, word := range strings.SplitAfter(a.text, " ") {
			chunks = append(chunks, chunk(`{"role":"assistant","content":`+q(word)+`}`, "null"))
		}
		chunks = append(chunks, chunk(`{}`, `"stop"`))
	}
	chunks = append(chunks, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":`+usage+`}`)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for i, c := range chunks {
		if u.release != nil && i == u.pauseAt {
			_ = rc.Flush()
			select {
			case <-u.release:
			case <-r.Context().Done():
				return
			}
		}
		_, _ = io.WriteString(w, "data: "+c+"\n\n")
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

// client is a tenant's HTTP client of a gateway.
type client struct {
	t   *testing.T
	url string
	key string
}

func (c client) do(method, path, body string) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.url+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// ok runs a request that must answer 200 and returns its JSON.
func (c client) ok(method, path, body string) map[string]any {
	c.t.Helper()
	code, b := c.do(method, path, body)
	if code != http.StatusOK {
		c.t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
	return m
}

// refused runs a request that must fail with status and param, and
// returns the error object.
func (c client) refused(method, path, body string, status int, param string) map[string]any {
	c.t.Helper()
	code, b := c.do(method, path, body)
	var e struct{ Error map[string]any }
	if err := json.Unmarshal(b, &e); err != nil || code != status || e.Error == nil || e.Error["param"] != anyOrNil(param) {
		c.t.Fatalf("%s %s %s: want %d param %q, got %d %s", method, path, body, status, param, code, b)
	}
	return e.Error
}

func anyOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// stored is a gateway with a store, over a scripted chat upstream, with
// two tenants (keys ka and kb).
type stored struct {
	up    *chatUpstream
	st    store.Store
	url   string
	a, b  client
	gwCfg gateway.Config
}

func newStored(t *testing.T, st store.Store, cfg gateway.Config, script ...answer) *stored {
	t.Helper()
	up := &chatUpstream{script: script}
	cfg.Store = st
	cfg.Keys = []gateway.Key{{Tenant: "a", Key: "ka"}, {Tenant: "b", Key: "kb"}}
	if cfg.IDs == nil {
		cfg.IDs = &translate.SeqIDs{}
	}
	s := newStack(t, up, cfg)
	return &stored{up: up, st: st, url: s.gw.URL, a: client{t, s.gw.URL, "ka"}, b: client{t, s.gw.URL, "kb"}, gwCfg: cfg}
}

const weatherTool = `{"type":"function","name":"get_weather","description":"the weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`

// eachBackend runs f on both stores.
func eachBackend(t *testing.T, f func(t *testing.T, open func(t *testing.T) store.Store)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { f(t, b.open) })
	}
}

// The tool loop as OpenAI documents it: turn 2 sends only the
// function_call_output and previous_response_id; the upstream gets the
// whole chain, with turn 2's instructions only; the Responses say
// store:true and echo previous_response_id; a chain of three turns.
func TestPreviousResponseChain(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{call: "get_weather", args: `{"city":"Paris"}`}, answer{text: "It is sunny."}, answer{text: "You are welcome."})
		r1 := g.a.ok("POST", "/v1/responses", `{"model":"m","instructions":"Be brief.","input":"Weather in Paris?","tools":[`+weatherTool+`]}`)
		if r1["store"] != true {
			t.Fatalf("store: %v", r1["store"])
		}
		call := r1["output"].([]any)[0].(map[string]any)
		if call["type"] != "function_call" {
			t.Fatalf("turn 1 output: %v", r1["output"])
		}
		r2 := g.a.ok("POST", "/v1/responses", `{"model":"m","instructions":"Be kind.","previous_response_id":"`+r1["id"].(string)+`","tools":[`+weatherTool+`],"input":[{"type":"function_call_output","call_id":"`+call["call_id"].(string)+`","output":"sunny"}]}`)
		if r2["previous_response_id"] != r1["id"] || r2["store"] != true {
			t.Fatalf("turn 2 echo: previous_response_id %v store %v", r2["previous_response_id"], r2["store"])
		}
		want := "system:Be kind.\nuser:Weather in Paris?\nassistant:call " + call["call_id"].(string) + ` get_weather({"city":"Paris"})` + "\ntool:sunny for " + call["call_id"].(string) + "\n"
		if got := g.up.last(t).String(); got != want {
			t.Fatalf("turn 2's chat messages:\n%s\nwant:\n%s", got, want)
		}
		g.a.ok("POST", "/v1/responses", `{"model":"m","previous_response_id":"`+r2["id"].(string)+`","input":"Thanks!"}`)
		want = "user:Weather in Paris?\nassistant:call " + call["call_id"].(string) + ` get_weather({"city":"Paris"})` + "\ntool:sunny for " + call["call_id"].(string) + "\nassistant:It is sunny.\nuser:Thanks!\n"
		if got := g.up.last(t).String(); got != want {
			t.Fatalf("turn 3's chat messages:\n%s\nwant:\n%s", got, want)
		}
		// A function_call_output that pairs with nothing in the chain keeps
		// its error, named as sent.
		e := g.a.refused("POST", "/v1/responses", `{"model":"m","previous_response_id":"`+r2["id"].(string)+`","input":[{"type":"function_call_output","call_id":"call_nope","output":"x"}]}`, 400, "input[0]")
		if !strings.Contains(e["message"].(string), "No tool call found") {
			t.Fatalf("unpaired output: %v", e)
		}
	})
}

// previous_response_id that cannot be followed: unknown, another
// tenant's, deleted, a store:false response, malformed; with
// conversation; and a chain through a deleted response (refused: see
// README, "Stored responses").
func TestPreviousResponseNotFound(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "ok"})
		r1 := g.a.ok("POST", "/v1/responses", `{"model":"m","input":"one"}`)
		r2 := g.a.ok("POST", "/v1/responses", `{"model":"m","input":"two","previous_response_id":"`+r1["id"].(string)+`"}`)
		unstored := g.a.ok("POST", "/v1/responses", `{"model":"m","input":"x","store":false}`)
		if unstored["store"] != false {
			t.Fatalf("store:false echoed %v", unstored["store"])
		}
		chained := func(c client, id string) map[string]any {
			return c.refused("POST", "/v1/responses", `{"model":"m","input":"next","previous_response_id":"`+id+`"}`, 400, "previous_response_id")
		}
		for _, c := range []struct {
			c  client
			id string
		}{{g.a, "resp_unknown"}, {g.b, r1["id"].(string)}, {g.a, unstored["id"].(string)}, {g.a, "resp_'; DROP TABLE responses; --"}} {
			e := chained(c.c, c.id)
			if e["code"] != "previous_response_not_found" || e["message"] != "Previous response with id '"+c.id+"' not found." || e["type"] != "invalid_request_error" {
				t.Fatalf("%s: %v", c.id, e)
			}
		}
		if e := chained(g.a, "not-a-response-id"); e["code"] != "invalid_value" {
			t.Fatalf("malformed id: %v", e)
		}
		g.a.refused("POST", "/v1/responses", `{"model":"m","input":"x","previous_response_id":"`+r1["id"].(string)+`","conversation":"conv_1"}`, 400, "conversation")
		// The chain r1 ← r2: deleting r1 leaves r2 readable, but a turn after
		// r2 is refused, naming r1.
		g.a.ok("DELETE", "/v1/responses/"+r1["id"].(string), "")
		g.a.ok("GET", "/v1/responses/"+r2["id"].(string), "")
		e := chained(g.a, r2["id"].(string))
		if e["code"] != "previous_response_not_found" || !strings.Contains(e["message"].(string), "'"+r1["id"].(string)+"', which was deleted") {
			t.Fatalf("chain through a deleted response: %v", e)
		}
		g.a.ok("DELETE", "/v1/responses/"+r2["id"].(string), "")
		if e := chained(g.a, r2["id"].(string)); e["message"] != "Previous response with id '"+r2["id"].(string)+"' not found." {
			t.Fatalf("deleted: %v", e)
		}
		// Nothing was stored for store:false, and the SQL was not run.
		g.a.refused("GET", "/v1/responses/"+unstored["id"].(string), "", 404, "response_id")
		g.a.refused("GET", "/v1/responses/"+url.PathEscape("resp_' OR '1'='1"), "", 404, "response_id")
	})
}

// GET returns the Response as sent, streamed or not (the stream's ids are
// the stored ones); DELETE answers as OpenAI's, then 404; another tenant
// sees none of it.
func TestRetrieveDelete(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "Hello there friend."})
		code, sent := g.a.do("POST", "/v1/responses", `{"model":"m","input":"hi","metadata":{"k":"'; DELETE FROM items; --"}}`)
		if code != 200 {
			t.Fatalf("%d %s", code, sent)
		}
		var r map[string]any
		_ = json.Unmarshal(sent, &r)
		id := r["id"].(string)
		code, got := g.a.do("GET", "/v1/responses/"+id, "")
		if code != 200 || !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(sent)) {
			t.Fatalf("GET: %d\n%s\nsent:\n%s", code, got, sent)
		}
		// Streamed: stored as the terminal event carries it.
		events := streamEvents(t, g.a, `{"model":"m","input":"hi","stream":true}`)
		term := terminal(t, events)
		var tr struct{ ID string }
		_ = json.Unmarshal(term, &tr)
		code, got = g.a.do("GET", "/v1/responses/"+tr.ID, "")
		if code != 200 || !bytes.Equal(bytes.TrimSpace(got), term) {
			t.Fatalf("GET of a streamed response: %d\n%s\nstreamed:\n%s", code, got, term)
		}
		g.b.refused("GET", "/v1/responses/"+id, "", 404, "response_id")
		g.b.refused("DELETE", "/v1/responses/"+id, "", 404, "response_id")
		g.b.refused("GET", "/v1/responses/"+id+"/input_items", "", 404, "response_id")
		g.a.refused("GET", "/v1/responses/"+id+"?include[]=no.such.thing", "", 400, "include")
		d := g.a.ok("DELETE", "/v1/responses/"+id, "")
		if d["id"] != id || d["object"] != "response" || d["deleted"] != true || len(d) != 3 {
			t.Fatalf("DELETE: %v", d)
		}
		g.a.refused("GET", "/v1/responses/"+id, "", 404, "response_id")
		g.a.refused("DELETE", "/v1/responses/"+id, "", 404, "response_id")
	})
}

func streamEvents(t *testing.T, c client, body string) [][]byte {
	t.Helper()
	req, _ := http.NewRequest("POST", c.url+"/v1/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var events [][]byte
	for rd := sse.NewReader(resp.Body); rd.Next(); {
		events = append(events, append([]byte(nil), rd.Event().Data...))
	}
	if fs := conformance.Check(events); conformance.Violations(fs) > 0 {
		t.Fatalf("the stream breaks the checker: %v", fs)
	}
	return events
}

// terminal is the Response of a stream's last event.
func terminal(t *testing.T, events [][]byte) []byte {
	t.Helper()
	var e struct{ Response json.RawMessage }
	if err := json.Unmarshal(events[len(events)-1], &e); err != nil || e.Response == nil {
		t.Fatalf("no terminal response: %s", events[len(events)-1])
	}
	return e.Response
}

// input_items pages through a response's input, in both orders, with
// ids given to the items that came without one.
func TestInputItems(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "ok"})
		var in []string
		for i := range 5 {
			in = append(in, fmt.Sprintf(`{"role":"user","content":"m%d"}`, i))
		}
		r := g.a.ok("POST", "/v1/responses", `{"model":"m","input":[`+strings.Join(in, ",")+`]}`)
		id := r["id"].(string)
		texts := func(l map[string]any) (out []string) {
			for _, it := range l["data"].([]any) {
				m := it.(map[string]any)
				if m["type"] != "message" || !strings.HasPrefix(m["id"].(string), "msg_") {
					t.Fatalf("item %v", m)
				}
				out = append(out, m["content"].([]any)[0].(map[string]any)["text"].(string))
			}
			return out
		}
		l := g.a.ok("GET", "/v1/responses/"+id+"/input_items", "")
		if got := strings.Join(texts(l), ","); got != "m4,m3,m2,m1,m0" || l["has_more"] != false || l["object"] != "list" {
			t.Fatalf("default (desc): %s %v", got, l)
		}
		var pages []string
		after := ""
		for {
			l := g.a.ok("GET", "/v1/responses/"+id+"/input_items?order=asc&limit=2&after="+after, "")
			pages = append(pages, strings.Join(texts(l), ","))
			if l["has_more"] != true {
				break
			}
			after = l["last_id"].(string)
		}
		if got := strings.Join(pages, "|"); got != "m0,m1|m2,m3|m4" {
			t.Fatalf("asc pages: %s", got)
		}
		l = g.a.ok("GET", "/v1/responses/"+id+"/input_items?limit=3", "")
		if got := strings.Join(texts(l), ","); got != "m4,m3,m2" || l["has_more"] != true || l["first_id"] == l["last_id"] {
			t.Fatalf("desc page: %s %v", got, l)
		}
		for _, q := range []string{"limit=0", "limit=101", "limit=x", "order=up"} {
			g.a.refused("GET", "/v1/responses/"+id+"/input_items?"+q, "", 400, strings.SplitN(q, "=", 2)[0])
		}
		g.a.refused("GET", "/v1/responses/"+id+"/input_items?after=msg_nope", "", 400, "after")
	})
}

// item_reference resolves any item the tenant stored (here an output
// item of an earlier response); an unknown one, or another tenant's, is
// a 400 naming input[i].id.
func TestItemReference(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newStored(t, open(t), gateway.Config{}, answer{text: "Remember this."}, answer{text: "ok"})
		r1 := g.a.ok("POST", "/v1/responses", `{"model":"m","input":"say something"}`)
		msg := r1["output"].([]any)[0].(map[string]any)["id"].(string)
		r2 := g.a.ok("POST", "/v1/responses", `{"model":"m","input":[{"type":"item_reference","id":"`+msg+`"},{"role":"user","content":"again?"}]}`)
		if got := g.up.last(t).String(); got != "assistant:Remember this.\nuser:again?\n" {
			t.Fatalf("chat messages:\n%s", got)
		}
		// The reference is stored as the item it named.
		l := g.a.ok("GET", "/v1/responses/"+r2["id"].(string)+"/input_items?order=asc", "")
		if first := l["data"].([]any)[0].(map[string]any); first["id"] != msg || first["role"] != "assistant" {
			t.Fatalf("input items: %v", l)
		}
		g.a.refused("POST", "/v1/responses", `{"model":"m","input":[{"role":"user","content":"x"},{"type":"item_reference","id":"msg_unknown"}]}`, 400, "input[1].id")
		g.b.refused("POST", "/v1/responses", `{"model":"m","input":[{"type":"item_reference","id":"`+msg+`"}]}`, 400, "input[0].id")
	})
}

// A chain longer than the limit is refused, naming it.
func TestChainLimit(t *testing.T) {
	g := newStored(t, backends(t)[0].open(t), gateway.Config{MaxChainItems: 4}, answer{text: "ok"})
	prev := ""
	for i := range 4 {
		body := `{"model":"m","input":"turn"`
		if prev != "" {
			body += `,"previous_response_id":"` + prev + `"`
		}
		if i < 3 { // 0, 2 and 4 stored items before it
			prev = g.a.ok("POST", "/v1/responses", body+"}")["id"].(string)
			continue
		}
		e := g.a.refused("POST", "/v1/responses", body+"}", 400, "previous_response_id")
		if e["code"] != "chain_too_long" || !strings.Contains(e["message"].(string), "limit of 4 items") {
			t.Fatalf("%v", e)
		}
	}
}
