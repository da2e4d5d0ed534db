package gateway_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/internal/fakeupstream"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
)

// Retries before the first byte (gateway.RetryPolicy) over
// fakeupstream.Flaky: the upstream's requests counted, the waits seen by
// an injected sleep (the jitter injected as its bound: the waits are the
// backoff's caps), the retries counted in
// transponder_upstream_retries_total{reason} and logged, and no
// goroutine left behind.

// retryCase is one request through a gateway in front of up (or of a
// port that refuses connections).
type retryCase struct {
	up            http.Handler
	refuse        bool
	policy        gateway.RetryPolicy
	chat, stream  bool
	streamIdle    time.Duration
	upTimeout     time.Duration
	sleep         func(context.Context, time.Duration) error // default: recorded, returns at once
	ctx           context.Context                            // the client's (default: background)
	wantMode      string                                     // transponder_requests_total's mode (default from chat, stream)
	wantCountedAs string                                     // its outcome, waited for before the metrics are read
}

type retryResult struct {
	resp    *http.Response
	body    []byte
	err     error // the client's
	waits   []time.Duration
	metrics string
	log     string
}

// lockedBuffer is a buffer the gateway's log writes to from its handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func runRetry(t *testing.T, c retryCase) retryResult {
	t.Helper()
	upSrv := httptest.NewServer(c.up)
	defer upSrv.Close()
	base := upSrv.URL + "/api/v1"
	if c.refuse {
		var err error
		if base, err = fakeupstream.RefusedURL(); err != nil {
			t.Fatal(err)
		}
	}
	upTransport := &http.Transport{}
	up := gateway.Upstream{BaseURL: base, Client: &http.Client{Transport: upTransport}}
	var logs lockedBuffer
	cfg := gateway.Config{Retry: c.policy, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		UpstreamTimeout: cmp.Or(c.upTimeout, 2*time.Second), StreamIdle: cmp.Or(c.streamIdle, 2*time.Second)}
	path, body, mode := "/v1/responses", `{"model":"m","input":"hi","stream":`+strconv.FormatBool(c.stream)+`}`, "json"
	if c.stream {
		mode = "stream"
	}
	if c.chat {
		cfg.ResponsesUpstream, cfg.ResponsesUpstream.Dialect = up, mapping.OpenAI
		path, body, mode = "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":`+strconv.FormatBool(c.stream)+`}`, "chat_"+mode
	} else {
		cfg.Upstream = up
	}
	gw := gateway.New(cfg)
	var mu sync.Mutex
	var res retryResult
	sleep := c.sleep
	if sleep == nil {
		sleep = func(context.Context, time.Duration) error { return nil }
	}
	gateway.SetRetryHooks(gw, func(d time.Duration) time.Duration { return d }, func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		res.waits = append(res.waits, d)
		mu.Unlock()
		return sleep(ctx, d)
	})
	gwSrv := httptest.NewServer(gw)
	defer gwSrv.Close()
	clientTransport := &http.Transport{}
	client := &http.Client{Transport: clientTransport, Timeout: 10 * time.Second}
	before := runtime.NumGoroutine()

	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, gwSrv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res.resp, res.err = client.Do(req)
	if res.err == nil {
		res.body, res.err = io.ReadAll(res.resp.Body)
		res.resp.Body.Close()
	}

	// The handler counts the request as it returns.
	want := `transponder_requests_total{mode="` + cmp.Or(c.wantMode, mode) + `",outcome="` + c.wantCountedAs + `"} 1`
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		res.metrics = scrapeWith(t, client, gwSrv.URL)
		if strings.Contains(res.metrics, want) || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(res.metrics, want) {
		t.Errorf("metrics lack %s:\n%s", want, grepLines(res.metrics, "transponder_requests_total{", "transponder_errors_total{"))
	}
	noneLeft(t, before, clientTransport, upTransport)
	mu.Lock()
	defer mu.Unlock()
	res.waits = append([]time.Duration(nil), res.waits...)
	res.log = logs.String()
	return res
}

// retried checks the retries' metric and log lines: n retries, each of
// reason.
func (r retryResult) retried(t *testing.T, reason string, n int) {
	t.Helper()
	lines := grepLines(r.metrics, "transponder_upstream_retries_total{")
	want := ""
	if n > 0 {
		want = `transponder_upstream_retries_total{reason="` + reason + `"} ` + strconv.Itoa(n)
	}
	if lines != want {
		t.Errorf("retries counted %q, want %q", lines, want)
	}
	if got := strings.Count(r.log, `msg="upstream retry"`); got != n {
		t.Errorf("%d retries logged, want %d:\n%s", got, n, r.log)
	}
	if n > 0 && !strings.Contains(r.log, "reason="+reason) {
		t.Errorf("the retries' log lacks reason=%s:\n%s", reason, r.log)
	}
}

// checkAnswer checks a successful answer on either route: a Responses
// stream passing the checker and completed, a chat stream passing the
// chat checker, or a non-streamed answer with its text.
func checkAnswer(t *testing.T, r retryResult, chat, stream bool, text string) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("the client: %v", r.err)
	}
	if r.resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", r.resp.StatusCode, clipped(r.body))
	}
	switch {
	case stream && !chat:
		checkStream(t, r.body, "response.completed", `"text":"`+text+`"`)
	case stream:
		var chunks [][]byte
		sc := bufio.NewScanner(bytes.NewReader(r.body))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				chunks = append(chunks, []byte(d))
			}
		}
		if fs := conformance.CheckChat(chunks); conformance.Violations(fs) > 0 || len(chunks) < 2 {
			t.Errorf("the chat stream breaks the checker (%d chunks): %v", len(chunks), fs)
		}
		if !bytes.Contains(r.body, []byte(text)) {
			t.Errorf("the chat stream lacks %q: %s", text, clipped(r.body))
		}
	default:
		if !bytes.Contains(r.body, []byte(text)) {
			t.Errorf("the answer lacks %q: %s", text, clipped(r.body))
		}
	}
}

// Off by default: one upstream request, the fault's outcome of
// faults_test.go, nothing retried.
func TestRetryOffByDefault(t *testing.T) {
	for _, f := range []struct {
		name   string
		fault  fakeupstream.Fault
		status int
	}{
		{"503", fakeupstream.UnavailableJSON, 503},
		{"429", fakeupstream.RateLimitedJSON, 429},
		{"500", fakeupstream.ServerErrorBare, 500},
		{"reset", fakeupstream.ResetBeforeHeaders, 502},
	} {
		for _, chat := range []bool{false, true} {
			for _, stream := range []bool{false, true} {
				t.Run(f.name+"/"+routeName(chat)+"/"+modeName(stream), func(t *testing.T) {
					up := &fakeupstream.Flaky{Fault: f.fault, Fails: 1}
					r := runRetry(t, retryCase{up: up, chat: chat, stream: stream, wantCountedAs: "error"})
					if r.err != nil || r.resp.StatusCode != f.status {
						t.Fatalf("%v %v: %s, want %d", r.err, r.resp, clipped(r.body), f.status)
					}
					if n := up.Requests(); n != 1 {
						t.Errorf("the upstream saw %d requests, want 1", n)
					}
					if len(r.waits) != 0 {
						t.Errorf("waited %v", r.waits)
					}
					r.retried(t, "", 0)
				})
			}
		}
	}
}

func routeName(chat bool) string {
	if chat {
		return "chat"
	}
	return "responses"
}

func modeName(stream bool) string {
	if stream {
		return "stream"
	}
	return "json"
}

// On: two failures, then the answer on the third try, on both routes,
// streamed and not; the waits are the backoff's (10 ms, then 20 ms), or
// the upstream's Retry-After when longer.
func TestRetryThenSuccess(t *testing.T) {
	policy := gateway.RetryPolicy{Attempts: 3, Base: 10 * time.Millisecond, Max: time.Second, MaxRetryAfter: 5 * time.Second}
	backoff := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}
	for _, f := range []struct {
		name, reason string
		fault        fakeupstream.Fault
		retryAfter   string
		waits        []time.Duration
	}{
		{"503", "503", fakeupstream.UnavailableJSON, "", backoff},
		{"429_retry_after", "429", fakeupstream.RateLimitedJSON, "2", []time.Duration{2 * time.Second, 2 * time.Second}},
		{"429_bare", "429", fakeupstream.RateLimitedBare, "0", backoff},
		{"500_bare", "500", fakeupstream.ServerErrorBare, "", backoff},
		{"502_html", "502", fakeupstream.HTMLErrorPage, "", backoff},
	} {
		for _, chat := range []bool{false, true} {
			for _, stream := range []bool{false, true} {
				t.Run(f.name+"/"+routeName(chat)+"/"+modeName(stream), func(t *testing.T) {
					up := &fakeupstream.Flaky{Fault: f.fault, Fails: 2, RetryAfter: f.retryAfter}
					text, outcome := "Hel", "completed"
					if !stream {
						text = "Hello"
					}
					if chat {
						up.Next = newResponsesReplay(t, "azure-text.1")
						text = "" // the recording's text: checked below
					}
					r := runRetry(t, retryCase{up: up, policy: policy, chat: chat, stream: stream, wantCountedAs: outcome})
					if chat {
						text = firstWords(up.Next.(*responsesReplay).terminalText("azure-text.1"))
					}
					checkAnswer(t, r, chat, stream, text)
					if n := up.Requests(); n != 3 {
						t.Errorf("the upstream saw %d requests, want 3", n)
					}
					if !equalDurations(r.waits, f.waits) {
						t.Errorf("waits %v, want %v", r.waits, f.waits)
					}
					r.retried(t, f.reason, 2)
				})
			}
		}
	}
}

// firstWords is a prefix of s that a chat stream carries whole (the
// text streams in deltas: its first few bytes are in the first one).
func firstWords(s string) string { return s[:min(len(s), 3)] }

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Always refused: the attempts run out and the client gets the 502 it
// gets without retries, which says how many tries there were.
func TestRetryRefusedExhausted(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(modeName(stream), func(t *testing.T) {
			r := runRetry(t, retryCase{up: http.NotFoundHandler(), refuse: true, stream: stream, wantCountedAs: "error",
				policy: gateway.RetryPolicy{Attempts: 3, Base: 10 * time.Millisecond, Max: 15 * time.Millisecond}})
			if r.err != nil || r.resp.StatusCode != 502 {
				t.Fatalf("%v: %s", r.err, clipped(r.body))
			}
			checkErrorBody(t, r.resp, r.body, "server_error", "could not be reached")
			if !bytes.Contains(r.body, []byte("after 3 attempts")) {
				t.Errorf("the error does not say how many tries: %s", r.body)
			}
			if !strings.Contains(r.metrics, `transponder_errors_total{kind="upstream_unreachable"} 1`) {
				t.Errorf("not counted as upstream_unreachable: %s", grepLines(r.metrics, "transponder_errors_total{"))
			}
			if want := []time.Duration{10 * time.Millisecond, 15 * time.Millisecond}; !equalDurations(r.waits, want) {
				t.Errorf("waits %v, want %v (the second capped at Max)", r.waits, want)
			}
			r.retried(t, "refused", 2)
		})
	}
}

// An upstream asking for a longer wait than MaxRetryAfter is not waited
// for: its 429 goes to the client with its Retry-After, at once.
func TestRetryAfterOverMax(t *testing.T) {
	for _, chat := range []bool{false, true} {
		t.Run(routeName(chat), func(t *testing.T) {
			up := &fakeupstream.Flaky{Fault: fakeupstream.RateLimitedJSON, Fails: -1, RetryAfter: "60"}
			r := runRetry(t, retryCase{up: up, chat: chat, wantCountedAs: "error",
				policy: gateway.RetryPolicy{Attempts: 3, Base: 10 * time.Millisecond, MaxRetryAfter: 30 * time.Second}})
			if r.err != nil || r.resp.StatusCode != 429 {
				t.Fatalf("%v: %s", r.err, clipped(r.body))
			}
			checkErrorBody(t, r.resp, r.body, "rate_limit_exceeded", "")
			if got := r.resp.Header.Get("Retry-After"); got != "60" {
				t.Errorf("Retry-After %q, want 60", got)
			}
			if n := up.Requests(); n != 1 || len(r.waits) != 0 {
				t.Errorf("%d upstream requests, waits %v: want 1, none", n, r.waits)
			}
			r.retried(t, "", 0)
		})
	}
}

// Never a retry once the upstream's 200 came (the first byte goes to the
// client then, or its answer is being read): a fault after it has the
// outcome it has without retries, over one upstream request. Nor is a
// missing header retried: UpstreamTimeout was already waited.
func TestRetryNotAfterTheHeaders(t *testing.T) {
	policy := gateway.RetryPolicy{Attempts: 4, Base: time.Millisecond}
	for _, f := range []struct {
		name       string
		fault      fakeupstream.Fault
		stream     bool
		status     int    // 200: streamed, ends in terminal
		contains   string // in the error or the terminal event
		outcome    string
		streamIdle time.Duration
		upTimeout  time.Duration
	}{
		// A reset once the request went out whole: the upstream may be
		// working on it, so no second copy.
		{"reset/stream", fakeupstream.ResetBeforeHeaders, true, 502, "could not be reached", "error", 0, 0},
		{"reset/json", fakeupstream.ResetBeforeHeaders, false, 502, "could not be reached", "error", 0, 0},
		{"cut/stream", fakeupstream.CutMidStream, true, 200, "", "failed", 0, 0},
		{"cut/json", fakeupstream.CutMidStream, false, 502, "broke off", "error", 0, 0},
		{"garbage/stream", fakeupstream.GarbageChunk, true, 200, "", "failed", 0, 0},
		{"garbage/json", fakeupstream.GarbageChunk, false, 502, "", "error", 0, 0},
		{"silent/stream", fakeupstream.Silent, true, 200, "sent nothing for 150ms", "failed", 150 * time.Millisecond, 0},
		{"silent/json", fakeupstream.Silent, false, 502, "sent nothing for 150ms", "error", 150 * time.Millisecond, 0},
		{"error_object/stream", fakeupstream.ErrorObject, true, 200, "Provider returned error", "failed", 0, 0},
		{"no_headers/stream", fakeupstream.NoHeaders, true, 504, "did not answer within 150ms", "error", 0, 150 * time.Millisecond},
		{"no_headers/json", fakeupstream.NoHeaders, false, 504, "did not answer within 150ms", "error", 0, 150 * time.Millisecond},
	} {
		t.Run(f.name, func(t *testing.T) {
			up := &fakeupstream.Flaky{Fault: f.fault, Fails: -1}
			r := runRetry(t, retryCase{up: up, policy: policy, stream: f.stream, streamIdle: f.streamIdle, upTimeout: f.upTimeout, wantCountedAs: f.outcome})
			if r.err != nil || r.resp.StatusCode != f.status {
				t.Fatalf("%v: status %v: %s", r.err, r.resp, clipped(r.body))
			}
			if f.status == 200 {
				checkStream(t, r.body, "response.failed", f.contains)
			} else if !bytes.Contains(r.body, []byte(f.contains)) {
				t.Errorf("the error lacks %q: %s", f.contains, r.body)
			}
			if n := up.Requests(); n != 1 {
				t.Errorf("the upstream saw %d requests, want exactly 1", n)
			}
			r.retried(t, "", 0)
		})
	}
}

// The client going away during a backoff ends it at once (the real wait,
// an hour long here): no further upstream request, no goroutine left.
func TestRetryClientGoneDuringBackoff(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(modeName(stream), func(t *testing.T) {
			up := &fakeupstream.Flaky{Fault: fakeupstream.UnavailableJSON, Fails: -1}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			var slept error
			r := runRetry(t, retryCase{up: up, stream: stream, ctx: ctx, wantCountedAs: "client_gone",
				policy: gateway.RetryPolicy{Attempts: 3, Base: time.Hour, Max: time.Hour},
				sleep: func(sctx context.Context, d time.Duration) error {
					cancel() // the client goes away as the wait begins
					err := gateway.SleepCtx(sctx, d)
					mu.Lock()
					defer mu.Unlock()
					slept = err
					return err
				}})
			mu.Lock()
			defer mu.Unlock()
			if r.err == nil {
				t.Fatalf("the client got an answer: %d %s", r.resp.StatusCode, clipped(r.body))
			}
			if slept == nil {
				t.Error("the wait ran to its end")
			}
			if n := up.Requests(); n != 1 {
				t.Errorf("the upstream saw %d requests, want 1", n)
			}
			if len(r.waits) != 1 || r.waits[0] != time.Hour {
				t.Errorf("waits %v, want [1h]", r.waits)
			}
			if !strings.Contains(r.metrics, `transponder_errors_total{kind="client_gone"} 1`) {
				t.Errorf("not counted as client_gone: %s", grepLines(r.metrics, "transponder_errors_total{"))
			}
			r.retried(t, "503", 1)
		})
	}
}
