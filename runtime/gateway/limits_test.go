package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// fakeClock is the limits' clock, moved by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// rateHeaders are a response's x-ratelimit-* headers, in a fixed order.
func rateHeaders(h http.Header) string {
	var out []string
	for _, what := range []string{"requests", "tokens"} {
		for _, k := range []string{"limit", "remaining", "reset"} {
			if v := h.Get("x-ratelimit-" + k + "-" + what); v != "" {
				out = append(out, k+"-"+what+"="+v)
			}
		}
	}
	return strings.Join(out, " ")
}

// checkRateLimited checks a 429 rate_limit_exceeded answer: its type,
// message and Retry-After.
func checkRateLimited(t *testing.T, resp *http.Response, body []byte, typ, message, retryAfter string) {
	t.Helper()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429: %s", resp.StatusCode, body)
	}
	want := `{"error":{"message":` + jsonString(message) + `,"type":"` + typ + `","param":null,"code":"rate_limit_exceeded"}}` + "\n"
	if string(body) != want {
		t.Errorf("body\n%s\nwant\n%s", body, want)
	}
	if got := resp.Header.Get("Retry-After"); got != retryAfter {
		t.Errorf("Retry-After %q, want %q", got, retryAfter)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Requests per minute: a bucket of RPM refilling continuously. With RPM 2
// the third request in a minute is refused (429, OpenAI's body and
// headers); 30 s later one more is allowed; every answer to the tenant
// has the headers, another tenant's none.
func TestRateLimitRequests(t *testing.T) {
	clock := newFakeClock()
	s := newStack(t, &recorder{}, gateway.Config{
		Keys:       []gateway.Key{{Tenant: "team-a", Key: "ka"}, {Tenant: "team-b", Key: "kb"}},
		Limits:     []gateway.TenantLimits{{Tenant: "team-a", RPM: 2}},
		LimitClock: clock.now,
	})
	const req = `{"model":"m","input":"hi"}`
	for i, want := range []string{"limit-requests=2 remaining-requests=1 reset-requests=30s", "limit-requests=2 remaining-requests=0 reset-requests=1m0s"} {
		resp, b := do(t, s.gw.URL, "Bearer ka", req)
		if resp.StatusCode != 200 || rateHeaders(resp.Header) != want {
			t.Fatalf("request %d: %d %q %s, want headers %q", i+1, resp.StatusCode, rateHeaders(resp.Header), b, want)
		}
	}
	clock.add(10 * time.Second)
	resp, b := do(t, s.gw.URL, "Bearer ka", req)
	checkRateLimited(t, resp, b, "requests", "Rate limit reached for tenant team-a on requests per min (RPM): Limit 2, Used 2, Requested 1. Please try again in 20s.", "20")
	if h := rateHeaders(resp.Header); h != "limit-requests=2 remaining-requests=0 reset-requests=50s" {
		t.Errorf("the refusal's headers %q", h)
	}
	clock.add(20 * time.Second) // one request refilled
	if resp, b := do(t, s.gw.URL, "Bearer ka", req); resp.StatusCode != 200 || rateHeaders(resp.Header) != "limit-requests=2 remaining-requests=0 reset-requests=1m0s" {
		t.Fatalf("after 30 s: %d %q %s", resp.StatusCode, rateHeaders(resp.Header), b)
	}
	clock.add(1200 * time.Millisecond)
	resp, b = do(t, s.gw.URL, "Bearer ka", req)
	checkRateLimited(t, resp, b, "requests", "Rate limit reached for tenant team-a on requests per min (RPM): Limit 2, Used 2, Requested 1. Please try again in 28.8s.", "29")
	// a refused request is not charged: the bucket refills as if it had not come
	clock.add(28800 * time.Millisecond)
	if resp, b := do(t, s.gw.URL, "Bearer ka", req); resp.StatusCode != 200 {
		t.Fatalf("after the wait the refusal named: %d %s", resp.StatusCode, b)
	}
	// team-b has no limits: no headers, never refused
	for range 4 {
		if resp, b := do(t, s.gw.URL, "Bearer kb", req); resp.StatusCode != 200 || rateHeaders(resp.Header) != "" {
			t.Fatalf("team-b: %d %q %s", resp.StatusCode, rateHeaders(resp.Header), b)
		}
	}
	if m := scrape(t, s.gw.URL); !strings.Contains(m, `transponder_errors_total{kind="rate_limited"} 2`) {
		t.Errorf("metrics: %s", grepLines(m, "transponder_errors_total"))
	}
}

// Tokens per minute are charged from the usage the upstream reports
// (input + output, after the answer); a tenant whose bucket is empty is
// refused until it refills one token. The limits of DefaultTenant apply to
// the tenant not listed (here the open gateway's "anonymous").
func TestRateLimitTokens(t *testing.T) {
	clock := newFakeClock()
	s := newStack(t, &recorder{}, gateway.Config{
		Limits:     []gateway.TenantLimits{{Tenant: gateway.DefaultTenant, TPM: 10}},
		LimitClock: clock.now,
	})
	// each streamed answer reports 3 + 2 tokens
	for i, want := range []string{"limit-tokens=10 remaining-tokens=10 reset-tokens=0s", "limit-tokens=10 remaining-tokens=5 reset-tokens=30s"} {
		resp, b := do(t, s.gw.URL, "", `{"model":"m","input":"hi","stream":true}`)
		if resp.StatusCode != 200 || rateHeaders(resp.Header) != want {
			t.Fatalf("request %d: %d %q, want %q", i+1, resp.StatusCode, rateHeaders(resp.Header), want)
		}
		checkStream(t, b, "response.completed", `"total_tokens":5`)
	}
	resp, b := do(t, s.gw.URL, "", `{"model":"m","input":"hi"}`)
	checkRateLimited(t, resp, b, "tokens", "Rate limit reached for tenant anonymous on tokens per min (TPM): Limit 10, Used 10. Please try again in 6s.", "6")
	clock.add(6 * time.Second)
	// not streamed: 1 + 1 tokens
	if resp, b := do(t, s.gw.URL, "", `{"model":"m","input":"hi"}`); resp.StatusCode != 200 || rateHeaders(resp.Header) != "limit-tokens=10 remaining-tokens=1 reset-tokens=54s" {
		t.Fatalf("after 6 s: %d %q %s", resp.StatusCode, rateHeaders(resp.Header), b)
	}
	// the bucket went below zero (1 - 2): one token is 12 s away
	resp, b = do(t, s.gw.URL, "", `{"model":"m","input":"hi"}`)
	checkRateLimited(t, resp, b, "tokens", "Rate limit reached for tenant anonymous on tokens per min (TPM): Limit 10, Used 11. Please try again in 12s.", "12")
}

// The chat route is limited as the Responses route: its requests are
// charged, and its stream's tokens are charged from the Responses
// upstream's terminal event (11 + 11 in the recording).
func TestRateLimitChatRoute(t *testing.T) {
	clock := newFakeClock()
	up := newResponsesReplay(t, "azure-text.1", "azure-text.1", "azure-text.1")
	rsrv := httptest.NewServer(up)
	t.Cleanup(rsrv.Close)
	s := newStack(t, http.NotFoundHandler(), gateway.Config{
		ResponsesUpstream: gateway.Upstream{BaseURL: rsrv.URL + "/v1", Dialect: mapping.OpenAI}, IDs: &translate.SeqIDs{},
		Limits: []gateway.TenantLimits{{Tenant: "anonymous", RPM: 2, TPM: 100}}, LimitClock: clock.now,
	})
	chat := func(stream bool) (*http.Response, []byte) {
		body := `{"model":"m","messages":[{"role":"user","content":"hi"}]`
		if stream {
			body += `,"stream":true}`
		} else {
			body += `}`
		}
		resp, err := http.Post(s.gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	if resp, b := chat(true); resp.StatusCode != 200 || rateHeaders(resp.Header) != "limit-requests=2 remaining-requests=1 reset-requests=30s limit-tokens=100 remaining-tokens=100 reset-tokens=0s" {
		t.Fatalf("first: %d %q %s", resp.StatusCode, rateHeaders(resp.Header), b)
	}
	if resp, b := chat(false); resp.StatusCode != 200 || rateHeaders(resp.Header) != "limit-requests=2 remaining-requests=0 reset-requests=1m0s limit-tokens=100 remaining-tokens=78 reset-tokens=13.2s" {
		t.Fatalf("second (the stream's 22 tokens charged): %d %q %s", resp.StatusCode, rateHeaders(resp.Header), b)
	}
	resp, b := chat(false)
	checkRateLimited(t, resp, b, "requests", "Rate limit reached for tenant anonymous on requests per min (RPM): Limit 2, Used 2, Requested 1. Please try again in 30s.", "30")
	if h := rateHeaders(resp.Header); !strings.Contains(h, "remaining-tokens=56") {
		t.Errorf("the completion's 22 tokens not charged: %q", h)
	}
}

// heldUpstream streams a chat answer once released (or fails a request
// whose body has "#fail" with a 500); started gets a value as each
// request arrives.
type heldUpstream struct {
	release chan struct{}
	started chan struct{}
}

func newHeld() *heldUpstream {
	return &heldUpstream{release: make(chan struct{}, 8), started: make(chan struct{}, 8)}
}

func (u *heldUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	if bytes.Contains(b, []byte("#fail")) {
		http.Error(w, `{"error":{"message":"boom","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
	u.started <- struct{}{}
	select {
	case <-u.release:
	case <-r.Context().Done():
		return
	}
	_, _ = io.WriteString(w, "data: "+textChunk("ok")+"\n\ndata: "+stopChunk+"\n\ndata: [DONE]\n\n")
}

// held starts a stream and returns once the gateway sent its first event:
// the stream is then in flight until released or cancelled. A 429 is
// retried: a slot is given back as the handler returns, just after its
// client has the answer.
func held(t *testing.T, url, key, input string) (*http.Response, context.CancelFunc) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/responses", strings.NewReader(`{"model":"m","stream":true,"input":`+jsonString(input)+`}`))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		if resp.StatusCode == 200 {
			t.Cleanup(func() { cancel(); resp.Body.Close() })
			return resp, cancel
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		if resp.StatusCode != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("held stream: %d %s", resp.StatusCode, b)
		}
	}
}

// finish reads a released stream to its end and checks it completed,
// passing the checker.
func finish(t *testing.T, resp *http.Response) {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	checkStream(t, b, "response.completed", `"status":"completed"`)
}

// untilAdmitted retries a stream until it is admitted (a slot is freed
// as the handler returns, just after the client sees the end).
func untilAdmitted(t *testing.T, url, key string) *http.Response {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, b := do(t, url, "Bearer "+key, `{"model":"m","stream":true,"input":"#fail"}`)
		if resp.StatusCode == http.StatusInternalServerError {
			return resp // admitted, and the upstream failed it
		}
		if resp.StatusCode != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
	}
}

// A tenant's streams in flight are capped: beyond MaxStreams a stream is
// refused (429, Retry-After 1) while requests that do not stream go on;
// the slot comes back when a stream ends, whether it completed, failed
// upstream, or its client went away.
func TestStreamCap(t *testing.T) {
	up := newHeld()
	s := newStack(t, up, gateway.Config{Keys: []gateway.Key{{Tenant: "team-a", Key: "ka"}}, Limits: []gateway.TenantLimits{{Tenant: "team-a", MaxStreams: 1}}})
	// a stream the upstream fails (500) gives its slot back
	if resp, b := do(t, s.gw.URL, "Bearer ka", `{"model":"m","stream":true,"input":"#fail"}`); resp.StatusCode != 500 {
		t.Fatalf("failed stream: %d %s", resp.StatusCode, b)
	}
	a, cancelA := held(t, s.gw.URL, "ka", "a")
	<-up.started
	resp, b := do(t, s.gw.URL, "Bearer ka", `{"model":"m","stream":true,"input":"b"}`)
	checkRateLimited(t, resp, b, "requests", "Too many concurrent streams for tenant team-a: Limit 1, in flight 1. Please try again when one of them ends.", "1")
	if resp, b := do(t, s.gw.URL, "Bearer ka", `{"model":"m","input":"#fail"}`); resp.StatusCode != 500 {
		t.Errorf("a request that does not stream is not capped: %d %s", resp.StatusCode, b)
	}
	// the client going away frees the slot
	cancelA()
	a.Body.Close()
	untilAdmitted(t, s.gw.URL, "ka")
	// a completed stream frees it
	c, _ := held(t, s.gw.URL, "ka", "c")
	<-up.started
	if resp, _ := do(t, s.gw.URL, "Bearer ka", `{"model":"m","stream":true,"input":"d"}`); resp.StatusCode != 429 {
		t.Errorf("second stream beside c: %d", resp.StatusCode)
	}
	up.release <- struct{}{}
	finish(t, c)
	untilAdmitted(t, s.gw.URL, "ka")
	if m := scrape(t, s.gw.URL); !strings.Contains(m, `transponder_errors_total{kind="rate_limited"}`) {
		t.Errorf("metrics: %s", grepLines(m, "transponder_errors_total"))
	}
}

// A gateway made with limits CheckLimits refuses (a tenant it does not
// have) says so in its log: New has no error to return.
func TestNewLogsBadLimits(t *testing.T) {
	var log bytes.Buffer
	gateway.New(gateway.Config{Keys: []gateway.Key{{Tenant: "team-a", Key: "ka"}}, Limits: []gateway.TenantLimits{{Tenant: "team-b", RPM: 1}},
		Log: slog.New(slog.NewTextHandler(&log, nil))})
	if !strings.Contains(log.String(), `tenant \"team-b\" is not one of the gateway's`) {
		t.Errorf("log: %s", log.String())
	}
}

// A stream refused by the stream cap does not count against the
// requests per minute: a client retrying it (Retry-After: 1) does not
// drain its budget.
func TestStreamCapRefundsRequest(t *testing.T) {
	up := newHeld()
	s := newStack(t, up, gateway.Config{Keys: []gateway.Key{{Tenant: "team-a", Key: "ka"}}, Limits: []gateway.TenantLimits{{Tenant: "team-a", RPM: 2, MaxStreams: 1}}})
	a, _ := held(t, s.gw.URL, "ka", "a")
	<-up.started
	for range 3 {
		resp, b := do(t, s.gw.URL, "Bearer ka", `{"model":"m","stream":true,"input":"b"}`)
		checkRateLimited(t, resp, b, "requests", "Too many concurrent streams for tenant team-a: Limit 1, in flight 1. Please try again when one of them ends.", "1")
		if got := resp.Header.Get("x-ratelimit-remaining-requests"); got != "1" {
			t.Errorf("remaining requests after a refused stream: %q, want 1", got)
		}
	}
	if resp, b := do(t, s.gw.URL, "Bearer ka", `{"model":"m","input":"#fail"}`); resp.StatusCode != 500 {
		t.Errorf("the second request of the minute: %d %s", resp.StatusCode, b)
	}
	up.release <- struct{}{}
	finish(t, a)
}

// The global cap and the tenants' caps both hold: a tenant at its cap is
// refused while the gateway has room; another tenant fills the gateway,
// and then any request is refused as overloaded.
func TestGlobalAndTenantCaps(t *testing.T) {
	up := newHeld()
	s := newStack(t, up, gateway.Config{
		MaxConcurrent: 2,
		Keys:          []gateway.Key{{Tenant: "team-a", Key: "ka"}, {Tenant: "team-b", Key: "kb"}},
		Limits:        []gateway.TenantLimits{{Tenant: "team-a", MaxStreams: 1}},
	})
	a, _ := held(t, s.gw.URL, "ka", "a")
	<-up.started
	resp, b := do(t, s.gw.URL, "Bearer ka", `{"model":"m","stream":true,"input":"b"}`)
	checkRateLimited(t, resp, b, "requests", "Too many concurrent streams for tenant team-a: Limit 1, in flight 1. Please try again when one of them ends.", "1")
	c, _ := held(t, s.gw.URL, "kb", "c")
	<-up.started
	resp, b = do(t, s.gw.URL, "Bearer kb", `{"model":"m","stream":true,"input":"d"}`)
	checkRateLimited(t, resp, b, "requests", "the gateway is serving as many requests as it is configured to; retry", "1")
	up.release <- struct{}{}
	up.release <- struct{}{}
	finish(t, a)
	finish(t, c)
	m := scrape(t, s.gw.URL)
	// (at least: held may have been refused once as a slot came back)
	if !strings.Contains(m, `transponder_errors_total{kind="rate_limited"}`) || !strings.Contains(m, `transponder_errors_total{kind="overloaded"}`) {
		t.Errorf("metrics: %s", grepLines(m, "transponder_errors_total"))
	}
}

// CheckLimits refuses a tenant the gateway does not have, one listed
// twice, a negative limit.
func TestCheckLimits(t *testing.T) {
	keys := []gateway.Key{{Tenant: "team-a", Key: "ka"}}
	for _, c := range []struct {
		cfg  gateway.Config
		want string
	}{
		{gateway.Config{Keys: keys, Limits: []gateway.TenantLimits{{Tenant: "team-a", RPM: 1}, {Tenant: "*", TPM: 5}}}, ""},
		{gateway.Config{Limits: []gateway.TenantLimits{{Tenant: "anonymous", RPM: 1}}}, ""},
		{gateway.Config{PassThrough: true, Limits: []gateway.TenantLimits{{Tenant: "passthrough", MaxStreams: 1}}}, ""},
		{gateway.Config{Keys: keys, Limits: []gateway.TenantLimits{{Tenant: "team-b", RPM: 1}}}, `limits[0]: tenant "team-b" is not one of the gateway's`},
		{gateway.Config{Keys: keys, Limits: []gateway.TenantLimits{{Tenant: "team-a"}, {Tenant: "team-a"}}}, `limits[1]: tenant "team-a" is listed twice`},
		{gateway.Config{Keys: keys, Limits: []gateway.TenantLimits{{Tenant: "team-a", TPM: -1}}}, `limits[0]: a limit is negative`},
	} {
		err := gateway.CheckLimits(c.cfg)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.cfg.Limits, err, c.want)
		}
	}
}
