package gateway_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/runtime/gateway"
)

// The retries' parts alone (retry_test.go runs them through the gateway).

// The real wait ends when its context does, and the real jitter stays
// within its bound.
func TestRetryHooks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := gateway.SleepCtx(ctx, time.Hour); err != context.Canceled {
		t.Errorf("a cancelled wait: %v", err)
	}
	if err := gateway.SleepCtx(context.Background(), 0); err != nil {
		t.Errorf("a zero wait: %v", err)
	}
	if d := gateway.FullJitter(0); d != 0 {
		t.Errorf("jitter(0) = %v", d)
	}
	for range 1000 {
		if d := gateway.FullJitter(time.Millisecond); d < 0 || d > time.Millisecond {
			t.Fatalf("jitter(1ms) = %v", d)
		}
	}
}

// Retry-After as seconds or an HTTP date, and OpenAI's retry-after-ms
// (first when both are there); what cannot be read, or is past, is no
// wait.
func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		h    map[string]string
		want time.Duration
	}{
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": " 0 "}, 0},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{map[string]string{"retry-after-ms": "12.5", "Retry-After": "1"}, 12500 * time.Microsecond},
		{map[string]string{"retry-after-ms": "x", "Retry-After": "2"}, 2 * time.Second},
		{map[string]string{}, 0},
	} {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		if got := gateway.RetryAfter(h, now); got != c.want {
			t.Errorf("%v: %v, want %v", c.h, got, c.want)
		}
	}
}

// The backoff's bound doubles from Base up to Max, and stays there
// however many tries (no overflow into a negative wait).
func TestRetryBackoffCap(t *testing.T) {
	p := gateway.RetryPolicy{Base: 100 * time.Millisecond, Max: time.Second}
	for n, want := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second} {
		if got := gateway.BackoffCap(p, n+1); got != want {
			t.Errorf("after try %d: %v, want %v", n+1, got, want)
		}
	}
	big := gateway.RetryPolicy{Base: time.Hour, Max: 1 << 62}
	for _, n := range []int{30, 40, 100} {
		if got := gateway.BackoffCap(big, n); got != 1<<62 {
			t.Errorf("Base 1h, after try %d: %v, want Max", n, got)
		}
	}
}
