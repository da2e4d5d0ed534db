package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The faults the soak injects (the marker "fault=<name>" in a request's
// input), each with the gateway's documented outcome (README, Reliability).
var faults = []struct {
	name   string
	status int  // the gateway's status
	failed bool // a 200 whose stream ends in response.failed
}{
	{"503", http.StatusServiceUnavailable, false},
	{"429", http.StatusTooManyRequests, false},
	{"reset", http.StatusBadGateway, false},
	{"cut", http.StatusOK, true},
	{"garbage", http.StatusOK, true},
}

// upstream is a fast chat upstream: a stream of chunks, one every every,
// each chunk's content the time it was written (Unix ns, 19 digits), so a
// client in the same process reads from it how long the chunk took to
// reach it. The request's fault marker makes it fail.
type upstream struct {
	chunks int
	every  time.Duration

	mu      sync.Mutex
	release chan struct{} // what held streams wait on (held.go)
}

const (
	chunkHead = `data: {"id":"s","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"`
	chunkTail = ` "},"finish_reason":null}]}` + "\n\n"
	stopChunk = `data: {"id":"s","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":100,"total_tokens":110}}` + "\n\ndata: [DONE]\n\n"
)

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	fault := ""
	if i := bytes.Index(body, []byte("fault=")); i >= 0 {
		rest := body[i+len("fault="):]
		if j := bytes.IndexAny(rest, `" `); j >= 0 {
			fault = string(rest[:j])
		}
	}
	switch fault {
	case "503":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":503,"message":"No instances available","metadata":{"provider_name":"Soak"}}}`)
		return
	case "429":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
		return
	case "reset":
		drop(w)
		return
	}
	hold := u.holding(body)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	buf := make([]byte, 0, 256)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for i := range u.chunks {
		if i == u.chunks/2 && hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		if i == u.chunks/2 {
			switch fault {
			case "cut":
				_ = rc.Flush()
				drop(w)
				return
			case "garbage":
				_, _ = io.WriteString(w, "data: {\"id\":\"s\",\"choices\":[{\"delta\":\n\n")
				_ = rc.Flush()
				return
			}
		}
		buf = append(strconv.AppendInt(append(buf[:0], chunkHead...), time.Now().UnixNano(), 10), chunkTail...)
		if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
			return
		}
		t.Reset(u.every)
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
	}
	_, _ = io.WriteString(w, stopChunk)
}

// drop resets the connection: nothing more is written.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
