package gateway

// Retries of the upstream call before the first byte (Config.Retry): off
// by default. They live in send, before anything is written to the
// client: once send returned a 200, nothing is retried (a stream cut
// after its headers ends in response.failed, as without retries).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// RetryPolicy is when and how the upstream call is tried again. It
// applies to both routes' upstream (Upstream and ResponsesUpstream), and
// only before the upstream's answer began: never once a byte went to the
// client.
//
// Retried: the statuses 429, 500, 502, 503 and 504, and an upstream that
// could not be reached or dropped the connection before the request was
// written (refused, reset, any other transport error). A connection that
// fails once the request went out whole is not retried: the upstream may
// be working on it already (and billing it). Not retried: other
// statuses (4xx are the request's; 501 and 505 are permanent; other
// vendors' 5xx such as Cloudflare's 52x mean too many things), the
// client going away, and an upstream that sent no headers within
// UpstreamTimeout (it already had that long: a second wait as long would
// double what the client waits for an answer that may never come).
//
// The wait before try n+1 is full jitter: a uniform duration in [0,
// min(Max, Base·2^(n-1))]; when the upstream said how long to wait
// (Retry-After, in seconds or an HTTP date, or OpenAI's retry-after-ms),
// the wait is at least that. An upstream asking for more than
// MaxRetryAfter is not waited for: its answer goes to the client as it
// would without retries (Retry-After kept). The client going away during
// a wait ends it at once, with no further try.
type RetryPolicy struct {
	// Attempts is the number of tries in all: 0 or 1 (or less) is no
	// retry (the default).
	Attempts int
	// Base is the first wait's bound (default 500 ms); each retry doubles
	// it, up to Max (default 8 s).
	Base, Max time.Duration
	// MaxRetryAfter is the longest Retry-After waited for (default 20 s).
	MaxRetryAfter time.Duration
}

// The policy's defaults.
const (
	DefaultRetryBase          = 500 * time.Millisecond
	DefaultRetryMax           = 8 * time.Second
	DefaultRetryMaxRetryAfter = 20 * time.Second
)

// withDefaults fills the policy's zero (or negative) durations.
func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Base <= 0 {
		p.Base = DefaultRetryBase
	}
	if p.Max <= 0 {
		p.Max = DefaultRetryMax
	}
	if p.Max < p.Base {
		p.Max = p.Base
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultRetryMaxRetryAfter
	}
	return p
}

// retryHooks are what tests replace: the jitter (a duration in [0, d])
// and the wait (which ends early, with ctx's error, when ctx ends).
type retryHooks struct {
	jitter func(d time.Duration) time.Duration
	sleep  func(ctx context.Context, d time.Duration) error
}

var defaultRetryHooks = retryHooks{jitter: fullJitter, sleep: sleepCtx}

func fullJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// sleepCtx waits d, or until ctx ends; its timer is stopped either way.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// postRetrying is post, tried again as s.cfg.Retry says. It returns the
// last try's answer or error as post would (a status's body unread): send
// answers it as it answers a single try. A transport error after retries
// says how many tries there were.
func (q *request) postRetrying(ctx context.Context, u *Upstream, path string, body []byte) (*http.Response, error) {
	s := q.s
	p := s.cfg.Retry
	if p.Attempts <= 1 {
		return q.post(ctx, u, path, body)
	}
	for attempt := 1; ; attempt++ {
		var wrote atomic.Bool // the whole request went out on this try
		tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) { wrote.Store(i.Err == nil) }})
		resp, err := q.post(tctx, u, path, body)
		if err != nil && wrote.Load() && ctx.Err() == nil {
			return resp, err // the upstream had it whole: no second copy
		}
		if attempt >= p.Attempts {
			if err != nil {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return resp, err
		}
		reason, after, ok := q.retryable(ctx, resp, err)
		if !ok || after > p.MaxRetryAfter {
			return resp, err
		}
		wait := max(s.retry.jitter(backoffCap(p, attempt)), after)
		if resp != nil {
			// The status's body is read (within its bound and StreamIdle)
			// so that the connection can carry the next try.
			q.readError(resp.Body)
		}
		q.cancel(nil) // this try's context
		s.m.retries.WithLabelValues(reason).Inc()
		q.log.Info("upstream retry", "attempt", attempt, "reason", reason, "wait_seconds", wait.Seconds())
		if err := s.retry.sleep(ctx, wait); err != nil {
			return nil, err // the client went away: send sees it
		}
	}
}

// backoffCap is the bound of the wait after try n: Base·2^(n-1), at
// most Max (doubled without overflow).
func backoffCap(p RetryPolicy, n int) time.Duration {
	d := p.Base
	for range n - 1 {
		if d >= p.Max/2 {
			return p.Max
		}
		d *= 2
	}
	return min(d, p.Max)
}

// retryable says whether a try's outcome is retried, why (the metric's
// reason: the status, or refused, reset, transport) and what the
// upstream asked to wait (0: nothing said).
func (q *request) retryable(ctx context.Context, resp *http.Response, err error) (reason string, after time.Duration, ok bool) {
	if err != nil {
		switch {
		case ctx.Err() != nil, errors.Is(err, errHeaderTimeout):
			return "", 0, false
		case errors.Is(err, syscall.ECONNREFUSED):
			return "refused", 0, true
		case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return "reset", 0, true
		}
		return "transport", 0, true
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return strconv.Itoa(resp.StatusCode), retryAfter(resp.Header, q.s.cfg.Clock()), true
	}
	return "", 0, false
}

// retryAfter is the wait an upstream's headers ask for: OpenAI's
// retry-after-ms (milliseconds), else Retry-After (delta-seconds, or an
// HTTP date, against now); 0 when they ask for none or it cannot be read.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, 1<<30)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
