package gateway_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/fakeupstream"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
)

// Upstream faults on POST /v1/responses (fakeupstream.Faulty), each with
// its one outcome. Before the first byte the client gets a status and an
// OpenAI-shaped error body; after it (a streamed response: the 200 and
// response.created go out as soon as the upstream's headers came), the
// stream ends in response.failed. Each is counted in
// transponder_requests_total{mode,outcome} and, where the gateway sees
// the fault itself, in transponder_errors_total{kind}; none leaves a
// goroutine behind. (The limits under test are small: UpstreamTimeout
// 150 ms for the missing headers; StreamIdle 150 ms for the silence and
// the drip of a byte every 3 ms; 5 s for the 10 MB chunk, whose client
// must take each batch of events, 50 MB, within StreamIdle.)
//
//	fault                        streamed (stream: true)                      not streamed
//	429 + JSON body, Retry-After 429 rate_limit_exceeded, Retry-After kept   same
//	429 without a body           429 rate_limit_exceeded, Retry-After kept   same
//	503 + JSON body              503 server_error, the upstream's message    same
//	500 without a body           500 server_error                            same
//	502 HTML error page          502 server_error, the page's text           same
//	connection refused           502 server_error (upstream_unreachable)     same
//	reset before headers         502 server_error (upstream_unreachable)     same
//	no headers in time           504 timeout (upstream_timeout)              same
//	cut mid-stream               response.failed (stream_failed)             502 server_error (upstream_broken)
//	garbage chunk                response.failed                             502 server_error (upstream_invalid)
//	one 10 MB chunk              response.completed, the 10 MB delta         200 completed
//	silence (StreamIdle)         response.failed "sent nothing for"          502 server_error (upstream_broken)
//	a byte at a time             response.completed (a drip is no silence)   200 completed
//	invalid UTF-8 in a delta     response.failed "invalid UTF-8"             502 server_error "invalid UTF-8" (upstream_invalid)
//	200 with an error object     response.failed, the upstream's message     its code's status (502), the upstream's message (upstream_invalid)
//	[DONE] without a finish      response.failed, the text so far kept       200, a Response with status failed, the text so far
//
// POST /v1/chat/completions runs over a Responses upstream (chat.go): the
// rows before the first byte (to the cut) are run on it too, with the
// same outcomes (its modes chat_stream and chat_json); its faults after
// the headers are a Responses stream's, which this chat fake does not
// speak: not covered here.
func TestFaultUpstream(t *testing.T) {
	type want struct {
		status     int    // before the first byte: the status; 200: after it
		code       string // the error's code (before the first byte)
		retryAfter string
		terminal   string // streamed, after the first byte: the last event's type
		contains   string // in the error body or the terminal event
		kind       string // transponder_errors_total's kind, if the gateway sees the fault
		outcome    string // transponder_requests_total's outcome
	}
	type row struct {
		name   string
		fault  fakeupstream.Fault
		refuse bool // the upstream's port refuses connections
		// the limit under test, small (the others are 2 s)
		upstreamTimeout, streamIdle time.Duration
		stream                      want
		json                        want
	}
	statusRow := func(status int, code, kind, contains string) want {
		return want{status: status, code: code, kind: kind, contains: contains, outcome: "error"}
	}
	rl := want{status: 429, code: "rate_limit_exceeded", retryAfter: "7", kind: "upstream_429", outcome: "error"}
	rows := []row{
		{name: "429_json", fault: fakeupstream.RateLimitedJSON, stream: rl, json: rl},
		{name: "429_bare", fault: fakeupstream.RateLimitedBare, stream: rl, json: rl},
		{name: "503_json", fault: fakeupstream.UnavailableJSON, stream: statusRow(503, "server_error", "upstream_503", "No instances available"), json: statusRow(503, "server_error", "upstream_503", "No instances available")},
		{name: "500_bare", fault: fakeupstream.ServerErrorBare, stream: statusRow(500, "server_error", "upstream_500", "HTTP 500"), json: statusRow(500, "server_error", "upstream_500", "HTTP 500")},
		{name: "html_page", fault: fakeupstream.HTMLErrorPage, stream: statusRow(502, "server_error", "upstream_502", "502 Bad Gateway"), json: statusRow(502, "server_error", "upstream_502", "502 Bad Gateway")},
		{name: "refused", refuse: true, stream: statusRow(502, "server_error", "upstream_unreachable", "could not be reached"), json: statusRow(502, "server_error", "upstream_unreachable", "could not be reached")},
		{name: "reset_before_headers", fault: fakeupstream.ResetBeforeHeaders, stream: statusRow(502, "server_error", "upstream_unreachable", "could not be reached"), json: statusRow(502, "server_error", "upstream_unreachable", "could not be reached")},
		{name: "no_headers", fault: fakeupstream.NoHeaders, upstreamTimeout: 150 * time.Millisecond, stream: statusRow(504, "timeout", "upstream_timeout", "did not answer within 150ms"), json: statusRow(504, "timeout", "upstream_timeout", "did not answer within 150ms")},
		// An error body that stops half-way: what came is the answer once
		// stream_idle passed (not a request held until the client goes).
		{name: "stalled_error_body", fault: fakeupstream.StalledErrorBody, streamIdle: 150 * time.Millisecond, stream: statusRow(503, "server_error", "upstream_503", "HTTP 503"), json: statusRow(503, "server_error", "upstream_503", "HTTP 503")},
		{name: "cut_mid_stream", fault: fakeupstream.CutMidStream,
			stream: want{status: 200, terminal: "response.failed", kind: "stream_failed", outcome: "failed"},
			json:   statusRow(502, "server_error", "upstream_broken", "broke off")},
		{name: "garbage_chunk", fault: fakeupstream.GarbageChunk,
			stream: want{status: 200, terminal: "response.failed", outcome: "failed"},
			json:   statusRow(502, "server_error", "upstream_invalid", "")},
		{name: "huge_chunk", fault: fakeupstream.HugeChunk, streamIdle: 5 * time.Second,
			stream: want{status: 200, terminal: "response.completed", outcome: "completed"},
			json:   want{status: 200, outcome: "completed"}},
		{name: "silent", fault: fakeupstream.Silent, streamIdle: 150 * time.Millisecond,
			stream: want{status: 200, terminal: "response.failed", contains: "sent nothing for 150ms", kind: "stream_failed", outcome: "failed"},
			json:   statusRow(502, "server_error", "upstream_broken", "sent nothing for 150ms")},
		{name: "drip", fault: fakeupstream.Drip, streamIdle: 150 * time.Millisecond,
			stream: want{status: 200, terminal: "response.completed", contains: `"text":"Hel"`, outcome: "completed"},
			json:   want{status: 200, contains: `"text":"Hello"`, outcome: "completed"}},
		{name: "bad_utf8", fault: fakeupstream.BadUTF8,
			stream: want{status: 200, terminal: "response.failed", contains: "invalid UTF-8", outcome: "failed"},
			json:   statusRow(502, "server_error", "upstream_invalid", "invalid UTF-8")},
		{name: "error_object", fault: fakeupstream.ErrorObject,
			stream: want{status: 200, terminal: "response.failed", contains: "Provider returned error", outcome: "failed"},
			json:   statusRow(502, "server_error", "upstream_invalid", "Provider returned error")},
		{name: "done_without_finish", fault: fakeupstream.DoneWithoutFinish,
			stream: want{status: 200, terminal: "response.failed", contains: "before it said how the response finished", outcome: "failed"},
			json:   want{status: 200, contains: `"status":"failed"`, outcome: "failed"}},
	}
	for _, r := range rows {
		// The faults before the headers, also on the chat route (its
		// upstream call is the same send).
		routes := []string{"responses"}
		if r.stream.status != 200 {
			routes = append(routes, "chat")
		}
		for _, route := range routes {
			for _, stream := range []bool{true, false} {
				w, mode := r.json, "json"
				if stream {
					w, mode = r.stream, "stream"
				}
				t.Run(route+"/"+r.name+"/"+mode, func(t *testing.T) {
					cfg := gateway.Config{UpstreamTimeout: cmp.Or(r.upstreamTimeout, 2*time.Second), StreamIdle: cmp.Or(r.streamIdle, 2*time.Second)}
					faultRow(t, &fakeupstream.Faulty{Fault: r.fault, DripEvery: 3 * time.Millisecond}, r.refuse, cfg, route == "chat", stream, func(t *testing.T, resp *http.Response, body []byte) {
						if resp.StatusCode != w.status {
							t.Fatalf("status %d, want %d: %s", resp.StatusCode, w.status, clipped(body))
						}
						if w.status != 200 {
							checkErrorBody(t, resp, body, w.code, w.contains)
							if got := resp.Header.Get("Retry-After"); got != w.retryAfter {
								t.Errorf("Retry-After %q, want %q", got, w.retryAfter)
							}
						} else if stream {
							checkStream(t, body, w.terminal, w.contains)
						} else if !bytes.Contains(body, []byte(w.contains)) {
							t.Errorf("the response lacks %s: %s", w.contains, clipped(body))
						}
					}, mode, w.kind, w.outcome)
				})
			}
		}
	}
}

// faultRow serves one request through a gateway in front of up (or of a
// port that refuses connections), checks the answer, that the metrics
// count it, and that no goroutine is left once the connections are
// closed.
func faultRow(t *testing.T, up http.Handler, refuse bool, cfg gateway.Config, chat, stream bool, check func(*testing.T, *http.Response, []byte), mode, kind, outcome string) {
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	base := upSrv.URL + "/api/v1"
	if refuse {
		var err error
		if base, err = fakeupstream.RefusedURL(); err != nil {
			t.Fatal(err)
		}
	}
	upTransport := &http.Transport{}
	cfg.Upstream = gateway.Upstream{BaseURL: base, Client: &http.Client{Transport: upTransport}}
	path, body := "/v1/responses", `{"model":"m","input":"hi","stream":`+strconv.FormatBool(stream)+`}`
	if chat {
		cfg.ResponsesUpstream = cfg.Upstream
		path, body, mode = "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":`+strconv.FormatBool(stream)+`}`, "chat_"+mode
	}
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	gw := httptest.NewServer(gateway.New(cfg))
	defer gw.Close()
	clientTransport := &http.Transport{}
	client := &http.Client{Transport: clientTransport, Timeout: 10 * time.Second}
	before := runtime.NumGoroutine()

	resp, err := client.Post(gw.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("the gateway did not answer: %v", err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the answer: %v (%d bytes, ending %q)", err, len(got), got[max(0, len(got)-300):])
	}
	check(t, resp, got)

	// The handler counts as it returns, just after the last byte.
	want := []string{`transponder_requests_total{mode="` + mode + `",outcome="` + outcome + `"} 1`, `transponder_active_streams 0`}
	if kind != "" {
		want = append(want, `transponder_errors_total{kind="`+kind+`"} 1`)
	}
	var metrics string
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		metrics = scrapeWith(t, client, gw.URL)
		if containsAll(metrics, want) || time.Now().After(deadline) {
			break
		}
	}
	for _, w := range want {
		if !strings.Contains(metrics, w) {
			t.Errorf("metrics lack %s:\n%s", w, grepLines(metrics, "transponder_requests_total{", "transponder_errors_total{"))
		}
	}
	if kind == "" {
		if l := grepLines(metrics, "transponder_errors_total{"); l != "" {
			t.Errorf("errors counted: %s", l)
		}
	}

	// No goroutine left: the connections the row opened closed, the
	// count is back where it was.
	noneLeft(t, before, clientTransport, upTransport)
}

// noneLeft waits (3 s at most) for the goroutine count to be back at
// before, the transports' idle connections closed; it reports what is
// left (with the goroutines' stacks) otherwise.
func noneLeft(t *testing.T, before int, transports ...*http.Transport) {
	t.Helper()
	var now int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		for _, tr := range transports {
			tr.CloseIdleConnections()
		}
		if now = runtime.NumGoroutine(); now <= before || time.Now().After(deadline) {
			break
		}
	}
	if now > before {
		t.Errorf("%d goroutines left behind", now-before)
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
	}
}

func scrapeWith(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func containsAll(s string, subs []string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

func grepLines(s string, prefixes ...string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n")
}

// checkErrorBody checks an OpenAI-shaped error: JSON, {"error":{message,
// type, param, code}} with a message, the code wanted.
func checkErrorBody(t *testing.T, resp *http.Response, body []byte, code, contains string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var e struct {
		Error *struct {
			Message *string         `json:"message"`
			Type    *string         `json:"type"`
			Param   json.RawMessage `json:"param"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || e.Error.Message == nil || *e.Error.Message == "" || e.Error.Type == nil || *e.Error.Type == "" || e.Error.Param == nil || e.Error.Code == nil {
		t.Fatalf("not an OpenAI error body (%v): %s", err, clipped(body))
	}
	if string(e.Error.Code) != `"`+code+`"` {
		t.Errorf("code %s, want %s", e.Error.Code, code)
	}
	if !strings.Contains(*e.Error.Message, contains) {
		t.Errorf("message %q lacks %q", *e.Error.Message, contains)
	}
}

// checkStream checks a Responses stream: it passes the checker and ends
// in terminal (whose data has contains).
func checkStream(t *testing.T, body []byte, terminal, contains string) {
	t.Helper()
	rd := sse.NewReader(bytes.NewReader(body))
	var evs [][]byte
	var last sse.Event
	for rd.Next() {
		last = rd.Event()
		last.Data = append([]byte(nil), last.Data...)
		evs = append(evs, last.Data)
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("the stream: %v", err)
	}
	if fs := conformance.Check(evs); conformance.Violations(fs) > 0 {
		t.Errorf("the stream breaks the checker: %v", fs)
	}
	if last.Type != terminal {
		t.Fatalf("the last event is %q, want %s: %s", last.Type, terminal, clipped(last.Data))
	}
	if !bytes.Contains(last.Data, []byte(contains)) {
		t.Errorf("the %s lacks %s: %s", terminal, contains, clipped(last.Data))
	}
}
