package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/transponder-dev/transponder/codec"
)

// Prepare runs what POST /v1/responses does with the store before the
// request is converted (reading what it continues, resolving its
// references, assembling the input), for owner: the benchmarks time it.
// release ends the request (the body is not to be read after it).
func Prepare(s *Server, r *http.Request, owner string, body []byte) (out []byte, release func(), err error) {
	q := &request{s: s, r: r, owner: owner}
	doc, ok := codec.Parse(body)
	if !ok {
		return nil, q.release, errors.New("not JSON")
	}
	out, aerr := q.prepare(doc, body)
	if aerr != nil {
		return nil, q.release, aerr
	}
	return out, q.release, nil
}

// SetRetryHooks replaces s's retry jitter (a duration in [0, d]) and wait
// (nil keeps the real one), before s serves.
func SetRetryHooks(s *Server, jitter func(time.Duration) time.Duration, sleep func(context.Context, time.Duration) error) {
	if jitter != nil {
		s.retry.jitter = jitter
	}
	if sleep != nil {
		s.retry.sleep = sleep
	}
}

// SleepCtx is the retries' real wait.
func SleepCtx(ctx context.Context, d time.Duration) error { return sleepCtx(ctx, d) }

// FullJitter is the retries' real jitter.
func FullJitter(d time.Duration) time.Duration { return fullJitter(d) }

// RetryAfter is the wait an upstream's headers ask for.
func RetryAfter(h http.Header, now time.Time) time.Duration { return retryAfter(h, now) }

// BackoffCap is the bound of the retries' wait after try n.
func BackoffCap(p RetryPolicy, n int) time.Duration { return backoffCap(p, n) }
