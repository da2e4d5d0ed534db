package gateway_test

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/runtime/gateway"
)

// The default upstream client keeps a connection alive for each stream in
// flight: three rounds of 20 concurrent streams open 20 connections to
// the upstream, not one per stream beyond the standard transport's 2 per
// host.
func TestUpstreamKeepAlive(t *testing.T) {
	var opened atomic.Int64
	up := httptest.NewUnstartedServer(&fastUpstream{})
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	gw := httptest.NewServer(gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: up.URL}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer gw.Close()
	const streams, rounds = 20, 3
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
	for round := range rounds {
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				resp, err := client.Post(gw.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":"hi","stream":true}`))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				checkStream(t, body, "response.completed", "word99")
			})
		}
		wg.Wait()
		// The next round once every handler is done with its upstream
		// connection.
		want := `transponder_requests_total{mode="stream",outcome="completed"} ` + strconv.Itoa(streams*(round+1))
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if m := scrapeWith(t, client, gw.URL); strings.Contains(m, want) && strings.Contains(m, "transponder_active_streams 0") || time.Now().After(deadline) {
				break
			}
		}
	}
	if n := opened.Load(); n > streams+streams/4 {
		t.Errorf("%d rounds of %d streams opened %d upstream connections", rounds, streams, n)
	}
}
