package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// steppedUpstream streams chunks one at a time, then [DONE]: each waits
// for a value on next; it records the chat request, and closes cancelled
// if the request ended (the client went away) while it waited.
type steppedUpstream struct {
	chunks    []string
	next      chan struct{}
	body      chan []byte
	cancelled chan struct{}
}

func newStepped(chunks ...string) *steppedUpstream {
	return &steppedUpstream{chunks: chunks, next: make(chan struct{}, len(chunks)), body: make(chan []byte, 1), cancelled: make(chan struct{})}
}

func (u *steppedUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.body <- b
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush() // the headers now, as OpenRouter sends them
	for _, c := range u.chunks {
		select {
		case <-u.next:
		case <-r.Context().Done():
			close(u.cancelled)
			return
		}
		_, _ = io.WriteString(w, "data: "+c+"\n\n")
		_ = rc.Flush()
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return `{"id":"g","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` + string(b) + `},"finish_reason":null}]}`
}

const stopChunk = `{"id":"g","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"cost":0.5}}`

// readEvent reads the next SSE event of a stream (or fails after 5 s).
func readEvents(t *testing.T, rd *sse.Reader, until string) [][]byte {
	t.Helper()
	var out [][]byte
	done := make(chan struct{})
	go func() {
		defer close(done)
		for rd.Next() {
			out = append(out, append([]byte(nil), rd.Event().Data...))
			if rd.Event().Type == until {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s within 5 s (events so far: %d)", until, len(out))
	}
	return out
}

// Each upstream chunk's events reach the client before the gateway reads
// the next chunk; the operator's provider preferences are injected; the
// stream passes the checker and its tokens and cost are counted.
func TestStreamFlushesPerChunk(t *testing.T) {
	up := newStepped(textChunk("Hel"), textChunk("lo"), stopChunk)
	reg := gateway.Config{Provider: json.RawMessage(`{"data_collection":"deny","zdr":true}`), Keys: []gateway.Key{{Tenant: "team-a", Key: "k1"}}}
	s := newStack(t, up, reg)
	req, _ := http.NewRequest(http.MethodPost, s.gw.URL+"/v1/responses", strings.NewReader(`{"model":"m","input":"hi","stream":true,"truncation":"auto"}`))
	req.Header.Set("Authorization", "Bearer k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	chat := <-up.body
	if !bytes.Contains(chat, []byte(`"provider":{"data_collection":"deny","zdr":true}`)) {
		t.Errorf("no provider preferences in %s", chat)
	}
	if w := resp.Header.Get(gateway.WarningsHeader); !strings.Contains(w, `"path":"truncation"`) {
		t.Errorf("warnings header %q", w)
	}
	rd := sse.NewReader(resp.Body)
	var all [][]byte
	all = append(all, readEvents(t, rd, "response.in_progress")...)
	up.next <- struct{}{}
	got := readEvents(t, rd, "response.output_text.delta") // before the next chunk is sent
	if !bytes.Contains(got[len(got)-1], []byte(`"delta":"Hel"`)) {
		t.Errorf("first delta %s", got[len(got)-1])
	}
	all = append(all, got...)
	up.next <- struct{}{}
	all = append(all, readEvents(t, rd, "response.output_text.delta")...)
	up.next <- struct{}{}
	all = append(all, readEvents(t, rd, "response.completed")...)
	if fs := conformance.Check(all); conformance.Violations(fs) > 0 {
		t.Fatalf("the stream breaks the checker: %v", fs)
	}
	// the handler counts as it returns, just after the last event
	var metrics string
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		metrics = scrape(t, s.gw.URL)
		if strings.Contains(metrics, `transponder_requests_total{mode="stream",outcome="completed"} 1`) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		`transponder_tokens_total{kind="input",model="m",tenant="team-a"} 3`,
		`transponder_tokens_total{kind="output",model="m",tenant="team-a"} 2`,
		`transponder_cost_total{model="m",tenant="team-a"} 0.5`,
		`transponder_requests_total{mode="stream",outcome="completed"} 1`,
		`transponder_warnings_total{path="truncation"} 1`,
		`transponder_active_streams 0`,
		`transponder_chunk_latency_seconds_count 3`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// The client going away mid-stream cancels the upstream request.
func TestClientGoneCancelsUpstream(t *testing.T) {
	up := newStepped(textChunk("Hel"), textChunk("lo"), stopChunk)
	s := newStack(t, up, gateway.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.gw.URL+"/v1/responses", strings.NewReader(`{"model":"m","input":"hi","stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-up.body
	up.next <- struct{}{}
	readEvents(t, sse.NewReader(resp.Body), "response.output_text.delta")
	cancel()
	resp.Body.Close()
	select {
	case <-up.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
}

// MaxConcurrent: a request beyond it is refused at once (429,
// Retry-After); MaxBody: a larger body is refused (413); a body that is
// not JSON: 400 invalid_json; /healthz.
func TestLimits(t *testing.T) {
	up := newStepped(stopChunk)
	s := newStack(t, up, gateway.Config{MaxConcurrent: 1, MaxBody: 200})
	busy := make(chan *http.Response)
	go func() {
		resp, _ := http.Post(s.gw.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":"hi","stream":true}`))
		busy <- resp
	}()
	<-up.body // the first request holds the one slot
	resp := post(t, s.gw.URL, `{"model":"m","input":"hi"}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !bytes.Contains(b, []byte(`"code":"rate_limit_exceeded"`)) {
		t.Errorf("over the limit: %d %s", resp.StatusCode, b)
	}
	up.next <- struct{}{}
	first := <-busy
	readEvents(t, sse.NewReader(first.Body), "response.completed")
	first.Body.Close()
	// the slot frees when the first handler returns, just after its last event
	for deadline := time.Now().Add(2 * time.Second); ; {
		resp = post(t, s.gw.URL, `{"model":"m","input":"`+strings.Repeat("x", 300)+`"}`)
		if resp.StatusCode != 429 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 413 || !bytes.Contains(b, []byte(`"type":"invalid_request_error"`)) {
		t.Errorf("too large: %d %s", resp.StatusCode, b)
	}
	resp = post(t, s.gw.URL, `{"model":`)
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !bytes.Contains(b, []byte(`"code":"invalid_json"`)) {
		t.Errorf("not JSON: %d %s", resp.StatusCode, b)
	}
	resp, err := http.Get(s.gw.URL + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz: %v %v", resp, err)
	}
}

// A request the mapping refuses is OpenAI's 400 naming the JSON path, and
// never reaches the upstream: a wrong role, no model (OpenAI's
// missing_required_parameter, not a Response with "model":"").
func TestRefusedRequest(t *testing.T) {
	up := newStepped()
	s := newStack(t, up, gateway.Config{})
	for _, tc := range []struct{ body, want string }{
		{`{"model":"m","input":[{"type":"message","role":"wizard","content":"hi"}]}`, `"param":"input[0].role"`},
		{`{"input":"hi"}`, `"type":"invalid_request_error","param":"model","code":"missing_required_parameter"`},
		{`{"model":"","input":"hi","stream":true}`, `"type":"invalid_request_error","param":"model","code":"missing_required_parameter"`},
	} {
		resp := post(t, s.gw.URL, tc.body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !bytes.Contains(b, []byte(tc.want)) {
			t.Errorf("%s: %d %s, want 400 with %s", tc.body, resp.StatusCode, b, tc.want)
		}
		select {
		case <-up.body:
			t.Errorf("%s: the upstream was asked", tc.body)
		default:
		}
	}
}

// A graceful shutdown lets a stream in flight finish: http.Server.Shutdown
// waits for it, and Wait returns once it ended.
func TestGracefulShutdown(t *testing.T) {
	up := newStepped(textChunk("Hel"), stopChunk)
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	gw := gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: upSrv.URL}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: gw}
	go func() { _ = srv.Serve(ln) }()
	resp := post(t, "http://"+ln.Addr().String(), `{"model":"m","input":"hi","stream":true}`)
	defer resp.Body.Close()
	<-up.body
	br := bufio.NewReader(resp.Body)
	rd := sse.NewReader(br)
	readEvents(t, rd, "response.in_progress")
	var wg sync.WaitGroup
	wg.Add(1)
	shutdown := make(chan error, 1)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shutdown <- srv.Shutdown(ctx)
	}()
	time.Sleep(50 * time.Millisecond) // the shutdown has begun; the stream goes on
	up.next <- struct{}{}
	up.next <- struct{}{}
	evs := readEvents(t, rd, "response.completed")
	if !bytes.Contains(evs[len(evs)-1], []byte(`"type":"response.completed"`)) {
		t.Errorf("the stream did not complete: %s", evs[len(evs)-1])
	}
	wg.Wait()
	if err := <-shutdown; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := gw.Wait(ctx); err != nil {
		t.Errorf("wait: %v", err)
	}
}

// An upstream silent for longer than StreamIdle ends the stream in
// response.failed saying so (the text so far kept).
func TestStreamIdle(t *testing.T) {
	up := newStepped(textChunk("Hel"), stopChunk)
	s := newStack(t, up, gateway.Config{StreamIdle: 200 * time.Millisecond})
	resp := post(t, s.gw.URL, `{"model":"m","input":"hi","stream":true}`)
	defer resp.Body.Close()
	<-up.body
	up.next <- struct{}{} // the first chunk, then silence
	evs := readEvents(t, sse.NewReader(resp.Body), "response.failed")
	last := evs[len(evs)-1]
	if !bytes.Contains(last, []byte(`the upstream sent nothing for 200ms`)) || !bytes.Contains(last, []byte(`"text":"Hel"`)) {
		t.Errorf("%s", last)
	}
	if fs := conformance.Check(evs); conformance.Violations(fs) > 0 {
		t.Errorf("the stream breaks the checker: %v", fs)
	}
}

// recorder is an upstream that keeps the last request and answers a
// fixed chat completion (or stream).
type recorder struct {
	mu     sync.Mutex
	header http.Header
	body   []byte
}

func (u *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.header, u.body = r.Header.Clone(), b
	u.mu.Unlock()
	if bytes.Contains(b, []byte(`"stream":true`)) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+textChunk("ok")+"\n\ndata: "+stopChunk+"\n\ndata: [DONE]\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
}

func (u *recorder) last() (http.Header, []byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.header, u.body
}

func do(t *testing.T, url, auth, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/responses", strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// What goes upstream: the operator's key and OpenRouter's attribution
// headers, or the client's bearer (pass-through, Bearer only); an empty
// gateway key matches nothing; the OpenAI dialect's streams ask for
// usage; keys never reach the log.
func TestUpstreamRequest(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), nil))
	up := &recorder{}
	s := newStack(t, up, gateway.Config{Upstream: gateway.Upstream{APIKey: "sk-or-operator", Referer: "https://example.com", Title: "My App"}, Keys: []gateway.Key{{Tenant: "a", Key: "gw-1"}, {Tenant: "empty", Key: ""}}, Log: logger})
	if resp, b := do(t, s.gw.URL, "Bearer gw-1", `{"model":"m","input":"hi"}`); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	h, _ := up.last()
	if h.Get("Authorization") != "Bearer sk-or-operator" || h.Get("HTTP-Referer") != "https://example.com" || h.Get("X-Title") != "My App" {
		t.Errorf("upstream headers %v", h)
	}
	if resp, _ := do(t, s.gw.URL, "", `{"model":"m","input":"hi"}`); resp.StatusCode != 401 {
		t.Errorf("no key (an empty gateway key is configured): %d", resp.StatusCode)
	}
	pt := newStack(t, up, gateway.Config{PassThrough: true, Upstream: gateway.Upstream{Dialect: 1}, Log: logger})
	if resp, b := do(t, pt.gw.URL, "Bearer sk-or-client", `{"model":"m","input":"hi","stream":true}`); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	h, body := up.last()
	if h.Get("Authorization") != "Bearer sk-or-client" || !bytes.Contains(body, []byte(`"stream_options":{"include_usage":true}`)) {
		t.Errorf("pass-through: %v %s", h, body)
	}
	if resp, _ := do(t, pt.gw.URL, "Basic c2stb3I=", `{"model":"m","input":"hi"}`); resp.StatusCode != 401 {
		t.Errorf("pass-through of a non-bearer: %d", resp.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"sk-or-operator", "sk-or-client", "gw-1"} {
		if strings.Contains(logs.String(), k) {
			t.Errorf("the log has the key %s", k)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Unknown fields a client names do not each become a metric series.
func TestWarningLabelsBounded(t *testing.T) {
	s := newStack(t, &recorder{}, gateway.Config{})
	var b strings.Builder
	b.WriteString(`{"model":"m","input":"hi"`)
	for i := range 300 {
		fmt.Fprintf(&b, `,"x_%d":1`, i)
	}
	b.WriteString("}")
	resp, body := do(t, s.gw.URL, "", b.String())
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if n := strings.Count(scrape(t, s.gw.URL), "transponder_warnings_total{"); n > 3 {
		t.Errorf("%d warning series for one request's unknown fields", n)
	}
}

// What the upstream's answer says of itself that the Response has no
// place for (its id, the model it routed to, the provider, the system
// fingerprint: the mapping's gateway fields) is in the request's log
// line, streamed or not.
func TestUpstreamLogged(t *testing.T) {
	const self = `"id":"gen-9","provider":"Prov\u0065r","model":"vendor/routed","system_fingerprint":"fp_1","object":"chat.completion`
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {"+self+`.chunk","created":1,"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}`+"\n\ndata: "+stopChunk+"\n\ndata: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{"+self+`","created":1,"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	})
	for _, stream := range []bool{false, true} {
		var logs bytes.Buffer
		var mu sync.Mutex
		logger := slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), nil))
		s := newStack(t, up, gateway.Config{Log: logger})
		resp, b := do(t, s.gw.URL, "", fmt.Sprintf(`{"model":"m","input":"hi","stream":%t}`, stream))
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		s.gw.Close() // the handler, and its log line, done
		mu.Lock()
		var line map[string]any
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["outcome"] != nil {
				line = m
			}
		}
		mu.Unlock()
		if line == nil {
			t.Fatalf("stream %v: no request line in\n%s", stream, logs.String())
		}
		for k, want := range map[string]string{"upstream_id": "gen-9", "upstream_model": "vendor/routed", "provider": "Prover", "system_fingerprint": "fp_1"} {
			if line[k] != want {
				t.Errorf("stream %v: %s = %v, want %q (%v)", stream, k, line[k], want, line)
			}
		}
	}
}
