package gateway_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/runtime/gateway"
)

// A client that stops reading a stream does not hold it: a write it does
// not take times out after StreamIdle (7/8 of it at least), and the
// upstream, not read meanwhile, is a silence of StreamIdle too; either
// ends the stream and cancels the upstream's, whose chunks come as fast as
// it can send them. (With neither, the stream runs until the client goes.)
func TestStalledClient(t *testing.T) {
	const idle = 200 * time.Millisecond
	cancelled := make(chan time.Time, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		chunk := "data: " + textChunk(strings.Repeat("many words ", 1000)) + "\n\n"
		for {
			if _, err := fmt.Fprint(w, chunk); err != nil || rc.Flush() != nil {
				break
			}
			if r.Context().Err() != nil {
				break
			}
		}
		cancelled <- time.Now()
	}))
	defer up.Close()
	gw := httptest.NewServer(gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: up.URL}, StreamIdle: idle, Log: discard()}))
	defer gw.Close()

	conn, err := net.Dial("tcp", strings.TrimPrefix(gw.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"m","input":"hi","stream":true}`
	fmt.Fprintf(conn, "POST /v1/responses HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// Nothing is read: the socket's buffers fill, the gateway's writes
	// block, and StreamIdle later they time out.
	select {
	case <-cancelled:
	case <-time.After(50 * idle):
		t.Fatalf("the stream of a client that reads nothing still runs %s later (StreamIdle %s)", 50*idle, idle)
	}
}
