package fakeupstream

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault is a way a chat upstream fails (Faulty serves it).
type Fault int

// The faults. Before the headers: a status (429, 500, 503) with or
// without a JSON error body, an HTML error page, a connection reset, no
// headers at all until the request goes away, an error body that stops
// half-way. After a 200: the body cut
// off, a chunk that is not JSON, one chunk of 10 MB, silence, a slow drip,
// invalid UTF-8 in a delta, an error object as the answer, [DONE] with no
// finish reason; or no fault at all. Connection refused is no handler's
// doing: RefusedURL. Flaky fails the first requests, then answers.
const (
	RateLimitedJSON    Fault = iota // 429, OpenAI's error body, Retry-After
	RateLimitedBare                 // 429, no body, Retry-After
	UnavailableJSON                 // 503, OpenRouter's error body
	ServerErrorBare                 // 500, no body
	HTMLErrorPage                   // 502, a proxy's HTML page
	ResetBeforeHeaders              // the connection reset, nothing written
	NoHeaders                       // nothing written until the request goes away
	CutMidStream                    // a 200, some of the answer, then the connection dropped
	GarbageChunk                    // a 200, a chunk (or body) that is not JSON
	HugeChunk                       // a 200, one chunk (or body) of over 10 MB of text
	Silent                          // a 200, some of the answer, then nothing until the request goes away
	Drip                            // a 200, the whole answer one byte at a time, DripEvery apart
	BadUTF8                         // a 200, a delta (or content) with invalid UTF-8
	ErrorObject                     // a 200 whose chunk (or body) is an error object
	DoneWithoutFinish               // a 200, text, then [DONE] with no finish reason
	NoFault                         // a 200, the whole answer ("Hello" not streamed; "Hel" streamed)
	StalledErrorBody                // 503, part of a JSON error body, then nothing until the request goes away
)

// HugeSize is the length of HugeChunk's text.
const HugeSize = 10 << 20

// Faulty is a chat upstream (POST …/chat/completions) that fails as its
// Fault says, streamed or not as the request asks. It reads the whole
// request first. It is safe for concurrent use.
type Faulty struct {
	Fault Fault
	// RetryAfter is the 429s' Retry-After (default "7").
	RetryAfter string
	// DripEvery is Drip's pause between two bytes (default 100 ms).
	DripEvery time.Duration
}

const (
	faultText  = `{"id":"f","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`
	faultStop  = `{"id":"f","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	faultError = `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Example"}}}`
)

func faultCompletion(content string, finish string) string {
	return `{"id":"f","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + content + `"},"finish_reason":` + finish + `}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
}

func (f *Faulty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	stream := bytes.Contains(b, []byte(`"stream":true`))
	retry := f.RetryAfter
	if retry == "" {
		retry = "7"
	}
	switch f.Fault {
	case RateLimitedJSON:
		w.Header().Set("Retry-After", retry)
		status(w, http.StatusTooManyRequests, "application/json", `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
		return
	case RateLimitedBare:
		w.Header().Set("Retry-After", retry)
		w.WriteHeader(http.StatusTooManyRequests)
		return
	case UnavailableJSON:
		status(w, http.StatusServiceUnavailable, "application/json", `{"error":{"code":503,"message":"No instances available","metadata":{"provider_name":"Example"}}}`)
		return
	case ServerErrorBare:
		w.WriteHeader(http.StatusInternalServerError)
		return
	case HTMLErrorPage:
		status(w, http.StatusBadGateway, "text/html", "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n")
		return
	case ResetBeforeHeaders:
		reset(w)
		return
	case NoHeaders:
		<-r.Context().Done()
		return
	case StalledErrorBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":503,"message":"No instan`)
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done()
		return
	}
	if !stream {
		f.answer(w, r)
		return
	}
	var huge string // made before the headers: no silence after them
	if f.Fault == HugeChunk {
		huge = "data: " + `{"id":"f","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", HugeSize) + `"},"finish_reason":null}]}` + "\n\n"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	event := func(data string) { _, _ = io.WriteString(w, "data: "+data+"\n\n"); _ = rc.Flush() }
	switch f.Fault {
	case CutMidStream:
		event(faultText)
		_, _ = io.WriteString(w, `data: {"id":"f","object":"chat.comp`)
		_ = rc.Flush()
		reset(w)
		return
	case GarbageChunk:
		event(faultText)
		event(`{"id":"f","choices":[{"index":0,"delta":{"content":"x"}`)
	case HugeChunk:
		_, _ = io.WriteString(w, huge)
		_ = rc.Flush()
	case Silent:
		event(faultText)
		<-r.Context().Done()
		return
	case Drip:
		all := "data: " + faultText + "\n\ndata: " + faultStop + "\n\ndata: [DONE]\n\n"
		f.drip(w, r, all)
		return
	case BadUTF8:
		event(`{"id":"f","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a` + "\xff\xfe" + `b"},"finish_reason":null}]}`)
	case ErrorObject:
		event(faultText)
		event(faultError)
	case DoneWithoutFinish:
		event(faultText)
		event("[DONE]")
		return
	case NoFault:
		event(faultText)
	}
	event(faultStop)
	event("[DONE]")
}

// answer serves a fault after the headers of an answer that is not
// streamed.
func (f *Faulty) answer(w http.ResponseWriter, r *http.Request) {
	body := faultCompletion("Hello", `"stop"`)
	switch f.Fault {
	case CutMidStream:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		reset(w)
		return
	case GarbageChunk:
		body = body[:len(body)/2]
	case HugeChunk:
		body = faultCompletion(strings.Repeat("a", HugeSize), `"stop"`)
	case Silent:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done()
		return
	case Drip:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		f.drip(w, r, body)
		return
	case BadUTF8:
		body = faultCompletion("a\xff\xfeb", `"stop"`)
	case ErrorObject:
		body = faultError
	case DoneWithoutFinish:
		body = faultCompletion("Hel", "null")
	}
	status(w, http.StatusOK, "application/json", body)
}

// drip writes s a byte at a time, DripEvery apart (the headers already
// sent), until the request goes away.
func (f *Faulty) drip(w http.ResponseWriter, r *http.Request, s string) {
	every := f.DripEvery
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	t := time.NewTicker(every)
	defer t.Stop()
	for i := range len(s) {
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, s[i:i+1])
		_ = rc.Flush()
	}
}

func status(w http.ResponseWriter, code int, typ, body string) {
	w.Header().Set("Content-Type", typ)
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

// reset drops the connection with a TCP reset (SO_LINGER 0).
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // not hijackable (HTTP/2): abort the stream
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// RefusedURL is the base URL of a loopback port nothing listens on (it
// was listened on, then closed): connecting is refused.
func RefusedURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", err
	}
	return "http://" + addr + "/api/v1", nil
}
