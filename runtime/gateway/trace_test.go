package gateway_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// parentRecorder records the traceparent and tracestate of the requests
// it passes on.
type parentRecorder struct {
	h      http.Handler
	mu     sync.Mutex
	parent []string
	state  []string
}

func (p *parentRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.parent = append(p.parent, r.Header.Get("Traceparent"))
	p.state = append(p.state, r.Header.Get("Tracestate"))
	p.mu.Unlock()
	p.h.ServeHTTP(w, r)
}

func (p *parentRecorder) last() (parent, state string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.parent[len(p.parent)-1], p.state[len(p.state)-1]
}

// spans waits for the server span of trace id to end (it ends after the
// client has read the answer) and returns the trace's ended spans.
func spans(t *testing.T, rec *tracetest.SpanRecorder, id trace.TraceID, server string) []sdktrace.ReadOnlySpan {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var out []sdktrace.ReadOnlySpan
		done := false
		for _, s := range rec.Ended() {
			if s.SpanContext().TraceID() == id {
				out = append(out, s)
				done = done || s.Name() == server && s.SpanKind() == trace.SpanKindServer
			}
		}
		if done {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("no server span %q ended in trace %s; have %v", server, id, names(out))
		}
	}
}

func names(ss []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name())
	}
	return out
}

func find(t *testing.T, ss []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range ss {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no span %q in %v", name, names(ss))
	return nil
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.String()
	}
	return m
}

// want checks a span's attributes hold want.
func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[attribute.Key]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span %q: %s = %q, want %q (all: %v)", s.Name(), k, got[k], v, got)
		}
	}
}

const (
	secretKey   = "sk-gateway-secret-key"
	secretInput = "a secret the user typed"
)

// traced is a gateway with a store and a span recorder.
type traced struct {
	rec *tracetest.SpanRecorder
	up  *parentRecorder
	url string
}

func newTraced(t *testing.T, st store.Store, script ...answer) *traced {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	up := &parentRecorder{h: &chatUpstream{script: script}}
	s := newStack(t, up, gateway.Config{Store: st, Tracer: tp, IDs: &translate.SeqIDs{}, Keys: []gateway.Key{{Tenant: "a", Key: secretKey}}})
	return &traced{rec: rec, up: up, url: s.gw.URL}
}

// send posts a Responses request with a traceparent and returns the
// response's id; a stream must pass the conformance checker.
func (g *traced) send(t *testing.T, body, traceparent string, stream bool) string {
	t.Helper()
	req, _ := http.NewRequest("POST", g.url+"/v1/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+secretKey)
	req.Header.Set("Traceparent", traceparent)
	req.Header.Set("Tracestate", "vendor=opaque")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var r struct{ ID string }
	if !stream {
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	var events [][]byte
	for rd := sse.NewReader(resp.Body); rd.Next(); {
		events = append(events, append([]byte(nil), rd.Event().Data...))
	}
	if fs := conformance.Check(events); conformance.Violations(fs) > 0 {
		t.Fatalf("the stream breaks the checker: %v", fs)
	}
	if err := json.Unmarshal(terminal(t, events), &r); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// A request continuing a stored chain, streamed and not: its server span
// continues the client's traceparent; the upstream call and the store's
// chain read and put are its children; the upstream got a traceparent of
// the same trace whose parent is the upstream span; nothing secret is on
// a span.
func TestTraceSpans(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		g := newTraced(t, open(t), answer{text: "first answer"}, answer{text: "second answer"})
		first := g.send(t, `{"model":"m","input":"`+secretInput+`"}`, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", false)
		for i, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
				tid := fmt.Sprintf("4bf92f3577b34da6a3ce929d0e0e47%02x", i)
				client := "00f067aa0ba902b7"
				g.send(t, fmt.Sprintf(`{"model":"m","input":"%s","previous_response_id":"%s","stream":%v}`, secretInput, first, stream), "00-"+tid+"-"+client+"-01", stream)
				id, _ := trace.TraceIDFromHex(tid)
				ss := spans(t, g.rec, id, "POST /v1/responses")
				srv := find(t, ss, "POST /v1/responses")
				if srv.Parent().SpanID().String() != client || !srv.Parent().IsRemote() {
					t.Errorf("server span's parent %v, want the client's remote %s", srv.Parent().SpanID(), client)
				}
				wantAttrs(t, srv, map[attribute.Key]string{
					"http.route": "/v1/responses", "http.request.method": "POST", "http.response.status_code": "200",
					"transponder.model": "m", "transponder.stream": fmt.Sprint(stream), "transponder.tenant": "a", "transponder.outcome": "completed",
				})
				if srv.Status().Code != codes.Unset {
					t.Errorf("server span status %v", srv.Status())
				}
				up := find(t, ss, "POST /chat/completions")
				if up.SpanKind() != trace.SpanKindClient || up.Parent().SpanID() != srv.SpanContext().SpanID() {
					t.Errorf("upstream span: kind %v parent %v, want a client child of %v", up.SpanKind(), up.Parent().SpanID(), srv.SpanContext().SpanID())
				}
				wantAttrs(t, up, map[attribute.Key]string{"http.response.status_code": "200", "url.path": "/api/v1/chat/completions"})
				if attrs(up)["transponder.upstream.body_bytes"] == "0" {
					t.Error("the upstream span ended before the body was read")
				}
				for _, op := range []string{"store Chain", "store PutResponse"} {
					s := find(t, ss, op)
					if s.Parent().SpanID() != srv.SpanContext().SpanID() || s.Status().Code != codes.Unset {
						t.Errorf("%s: parent %v status %v, want an ok child of the server span", op, s.Parent().SpanID(), s.Status())
					}
				}
				wantAttrs(t, find(t, ss, "store Chain"), map[attribute.Key]string{"transponder.store.items": "2"})
				parent, state := g.up.last()
				if want := "00-" + tid + "-" + up.SpanContext().SpanID().String() + "-01"; parent != want {
					t.Errorf("upstream traceparent %q, want %q", parent, want)
				}
				if state != "vendor=opaque" {
					t.Errorf("upstream tracestate %q", state)
				}
				for _, s := range ss {
					for k, v := range attrs(s) {
						if strings.Contains(v, secretKey) || strings.Contains(v, secretInput) || strings.Contains(v, first) {
							t.Errorf("span %q attribute %s holds a secret or an id: %q", s.Name(), k, v)
						}
					}
				}
			})
		}
		// A stored-object route is traced too, named by its pattern.
		req, _ := http.NewRequest("GET", g.url+"/v1/responses/"+first, nil)
		req.Header.Set("Authorization", "Bearer "+secretKey)
		req.Header.Set("Traceparent", "00-5bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		id, _ := trace.TraceIDFromHex("5bf92f3577b34da6a3ce929d0e0e4736")
		ss := spans(t, g.rec, id, "GET /v1/responses/{id}")
		srv := find(t, ss, "GET /v1/responses/{id}")
		wantAttrs(t, srv, map[attribute.Key]string{"http.route": "/v1/responses/{id}", "http.response.status_code": "200"})
		if get := find(t, ss, "store GetResponse"); get.Parent().SpanID() != srv.SpanContext().SpanID() {
			t.Error("store GetResponse is not a child of the route's span")
		}
	})
}

// Failures: an upstream error marks the upstream and the server span as
// errors; a client's bad request is not the server's error; a request
// with no traceparent starts a trace of its own.
func TestTraceErrors(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"message":"boom","code":500}}`)
	}))
	defer up.Close()
	gw := httptest.NewServer(gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: up.URL}, Tracer: tp, Log: quiet()}))
	defer gw.Close()

	resp, _ := do(t, gw.URL, "", `{"model":"m","input":"hi"}`)
	if resp.StatusCode < 500 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	resp, _ = do(t, gw.URL, "", `{"model":"m","input":[{"type":"bogus"}]}`)
	if resp.StatusCode != 400 {
		t.Fatalf("bad request: status %d", resp.StatusCode)
	}
	var servers []sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(10 * time.Second); len(servers) < 2; time.Sleep(5 * time.Millisecond) {
		servers = servers[:0]
		for _, s := range rec.Ended() {
			if s.SpanKind() == trace.SpanKindServer {
				servers = append(servers, s)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server spans: %v", names(servers))
		}
	}
	failed, refused := servers[0], servers[1]
	if attrs(failed)["http.response.status_code"] == "400" {
		failed, refused = refused, failed
	}
	if failed.Status().Code != codes.Error || failed.Parent().IsValid() {
		t.Errorf("upstream failure: server span status %v parent %v, want an error at the root", failed.Status(), failed.Parent())
	}
	ss := spans(t, rec, failed.SpanContext().TraceID(), "POST /v1/responses")
	if u := find(t, ss, "POST /chat/completions"); u.Status().Code != codes.Error || attrs(u)["http.response.status_code"] != "500" {
		t.Errorf("upstream span: %v %v", u.Status(), attrs(u))
	}
	if refused.Status().Code != codes.Unset || attrs(refused)["http.response.status_code"] != "400" {
		t.Errorf("bad request: server span %v %v, want unset status and 400", refused.Status(), attrs(refused))
	}
	if refused.SpanContext().TraceID() == failed.SpanContext().TraceID() {
		t.Error("two requests without a traceparent share a trace")
	}
}

// POST /v1/chat/completions over the gateway's own /v1/responses: one
// trace through both routes, each upstream call carrying it on.
func TestTraceChatRoute(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	up := &parentRecorder{h: &chatUpstream{script: []answer{{text: "hello there"}}}}
	chat := httptest.NewServer(up)
	defer chat.Close()
	var gw http.Handler
	self := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gw.ServeHTTP(w, r) }))
	defer self.Close()
	gw = gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: chat.URL}, ResponsesUpstream: gateway.Upstream{BaseURL: self.URL + "/v1", Dialect: mapping.OpenAI}, Tracer: tp, Log: quiet()})

	req, _ := http.NewRequest("POST", self.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Traceparent", "00-11111111111111111111111111111111-2222222222222222-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	id, _ := trace.TraceIDFromHex("11111111111111111111111111111111")
	ss := spans(t, rec, id, "POST /v1/chat/completions")
	outer := find(t, ss, "POST /v1/chat/completions")
	toSelf := find(t, ss, "POST /responses")
	inner := find(t, ss, "POST /v1/responses")
	toChat := find(t, ss, "POST /chat/completions")
	chain := []sdktrace.ReadOnlySpan{outer, toSelf, inner, toChat}
	for i := 1; i < len(chain); i++ {
		if chain[i].Parent().SpanID() != chain[i-1].SpanContext().SpanID() {
			t.Errorf("%s's parent is %v, want %s's %v", chain[i].Name(), chain[i].Parent().SpanID(), chain[i-1].Name(), chain[i-1].SpanContext().SpanID())
		}
	}
	wantAttrs(t, outer, map[attribute.Key]string{"http.route": "/v1/chat/completions", "transponder.outcome": "completed", "transponder.tenant": "anonymous"})
	if parent, _ := up.last(); !strings.HasPrefix(parent, "00-11111111111111111111111111111111-"+toChat.SpanContext().SpanID().String()) {
		t.Errorf("chat upstream traceparent %q", parent)
	}
}

// Without a Tracer the gateway neither makes spans nor sends a
// traceparent upstream, and the probes are never traced.
func TestTraceOff(t *testing.T) {
	up := &parentRecorder{h: &chatUpstream{script: []answer{{text: "ok"}}}}
	s := newStack(t, up, gateway.Config{})
	req, _ := http.NewRequest("POST", s.gw.URL+"/v1/responses", strings.NewReader(`{"model":"m","input":"hi"}`))
	req.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if p, _ := up.last(); resp.StatusCode != 200 || p != "" {
		t.Errorf("status %d, upstream traceparent %q", resp.StatusCode, p)
	}

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	gw := httptest.NewServer(gateway.New(gateway.Config{Tracer: tp, Log: quiet()}))
	defer gw.Close()
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		resp, err := http.Get(gw.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if n := len(rec.Started()); n != 0 {
		t.Errorf("the probes made %d spans", n)
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// BenchmarkTrace: a streamed request (loadStream's 100 chunks) without a
// Tracer and with the SDK's, sampling every request into a batch
// processor whose exporter drops the spans: what tracing costs a request
// when it is on (off, it must cost nothing: BenchmarkLoad).
//
//	go test -run '^$' -bench BenchmarkTrace -count 6 ./runtime/gateway
func BenchmarkTrace(b *testing.B) {
	for _, impl := range []string{"off", "on"} {
		b.Run("impl="+impl, func(b *testing.B) {
			cfg := gateway.Config{Log: quiet()}
			if impl == "on" {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				defer func() { _ = tp.Shutdown(b.Context()) }()
				cfg.Tracer = tp
			}
			up := httptest.NewServer(&fastUpstream{})
			defer up.Close()
			cfg.Upstream.BaseURL = up.URL
			gw := httptest.NewServer(gateway.New(cfg))
			defer gw.Close()
			client := gw.Client()
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest("POST", gw.URL+"/v1/responses", strings.NewReader(`{"model":"m","stream":true,"input":"hi"}`))
				req.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// A store span of an object not found says so by class, never with the
// error's message: it quotes the id.
func TestTraceStoreNotFound(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	st := openStore(t, store.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "store.db")})
	gw := httptest.NewServer(gateway.New(gateway.Config{Store: st, Tracer: tp, Log: quiet()}))
	defer gw.Close()
	const id = "conv_SOMEIDXYZ"
	resp, err := http.Get(gw.URL + "/v1/conversations/" + id)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var got sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(10 * time.Second); got == nil; time.Sleep(5 * time.Millisecond) {
		for _, s := range rec.Ended() {
			if s.Name() == "store GetConversation" {
				got = s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no store span: %v", names(rec.Ended()))
		}
	}
	if a := attrs(got); a["transponder.store.result"] != "not found" {
		t.Errorf("store span attributes %v", a)
	}
	for _, s := range rec.Ended() {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), id) {
				t.Errorf("span %s: %s = %s", s.Name(), kv.Key, kv.Value.String())
			}
		}
		for _, e := range s.Events() {
			for _, kv := range e.Attributes {
				if strings.Contains(kv.Value.String(), id) {
					t.Errorf("span %s, event %s: %s", s.Name(), e.Name, kv.Value.String())
				}
			}
		}
	}
}
