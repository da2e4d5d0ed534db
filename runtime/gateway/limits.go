package gateway

// Per-tenant limits (Config.Limits) on the limited routes (POST
// /v1/responses, POST /v1/chat/completions), checked after
// authentication, answered as OpenAI answers them: requests and tokens per
// minute as token buckets refilling continuously, and a cap on a tenant's
// streams in flight. The global MaxConcurrent cap (limited) comes first
// and keeps working.
//
// Tokens are charged after the answer, from the usage the upstream
// reports (input + output, the figures the tokens metric counts); no
// estimate is charged before. A request is refused while the tenant's
// token bucket is empty (less than one whole token: the remaining header
// says 0): one large answer may overdraw it, and the tenant then waits
// until it refills to one token. A request is charged to
// the requests bucket once admitted, whatever happens to it next (as
// OpenAI counts failed requests); a refused one is not.

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// TenantLimits are a tenant's limits; 0 is unlimited.
type TenantLimits struct {
	// Tenant is the tenant's name (a key's tenant, "anonymous" when the
	// gateway is open, "passthrough" for every client of a pass-through
	// gateway, who share its limits); DefaultTenant ("*") stands for
	// every tenant not listed.
	Tenant string `json:"tenant"`
	// RPM is requests per minute, TPM tokens (input + output) per minute.
	RPM int `json:"rpm"`
	TPM int `json:"tpm"`
	// MaxStreams bounds the tenant's streamed requests in flight.
	MaxStreams int `json:"max_streams"`
}

// DefaultTenant is the TenantLimits.Tenant of the limits of every tenant
// not listed.
const DefaultTenant = "*"

// CheckLimits says what is wrong with a config's limits: a tenant that is
// none of the gateway's (a typo must not pass for no limit), one listed
// twice, a negative limit.
func CheckLimits(cfg Config) error {
	known := map[string]bool{}
	for _, t := range tenants(cfg) {
		known[t] = true
	}
	seen := map[string]bool{}
	for i, l := range cfg.Limits {
		switch {
		case l.Tenant != DefaultTenant && !known[l.Tenant]:
			return fmt.Errorf("limits[%d]: tenant %q is not one of the gateway's (its keys' tenants, anonymous when it has none, passthrough, or %q for every other)", i, l.Tenant, DefaultTenant)
		case seen[l.Tenant]:
			return fmt.Errorf("limits[%d]: tenant %q is listed twice", i, l.Tenant)
		case l.RPM < 0 || l.TPM < 0 || l.MaxStreams < 0:
			return fmt.Errorf("limits[%d]: a limit is negative (0 is unlimited)", i)
		}
		seen[l.Tenant] = true
	}
	return nil
}

// tenants are the tenants a config has: each is known before a request.
func tenants(cfg Config) []string {
	switch {
	case cfg.PassThrough:
		return []string{"passthrough"}
	case len(cfg.Keys) == 0:
		return []string{"anonymous"}
	}
	out := make([]string, 0, len(cfg.Keys))
	for _, k := range cfg.Keys {
		out = append(out, k.Tenant)
	}
	return out
}

// newLimits builds each limited tenant's state, once: the map does not
// grow with input.
func newLimits(cfg Config) map[string]*limiter {
	var def TenantLimits
	byName := map[string]TenantLimits{}
	for _, l := range cfg.Limits {
		if l.Tenant == DefaultTenant {
			def = l
			continue
		}
		byName[l.Tenant] = l
	}
	out := map[string]*limiter{}
	for _, t := range tenants(cfg) {
		l, ok := byName[t]
		if !ok {
			l = def
		}
		l.Tenant = t
		if out[t] != nil || (l.RPM <= 0 && l.TPM <= 0 && l.MaxStreams <= 0) {
			continue
		}
		out[t] = &limiter{lim: l, req: bucket{limit: float64(l.RPM), level: float64(l.RPM)}, tok: bucket{limit: float64(l.TPM), level: float64(l.TPM)}}
	}
	return out
}

// limiter is a tenant's state.
type limiter struct {
	lim      TenantLimits
	mu       sync.Mutex
	req, tok bucket
	streams  int
}

// bucket is a token bucket of limit tokens refilling at limit a minute.
type bucket struct {
	limit, level float64
	at           time.Time // of the last refill; zero before the first
}

func (b *bucket) refill(now time.Time) {
	if !b.at.IsZero() && now.After(b.at) {
		b.level = min(b.limit, b.level+b.limit*now.Sub(b.at).Minutes())
	}
	if b.at.IsZero() || now.After(b.at) {
		b.at = now
	}
}

// until is the time until the level reaches need, in whole milliseconds
// (up: the float's error is tolerated, a nanosecond past a whole
// millisecond is not one more).
func (b *bucket) until(need float64) time.Duration {
	if b.level >= need || b.limit <= 0 {
		return 0
	}
	ms := (need - b.level) / b.limit * float64(time.Minute/time.Millisecond)
	return time.Duration(math.Ceil(ms-1e-6)) * time.Millisecond
}

// limitState is what a request holds of its tenant's limits.
type limitState struct {
	l      *limiter
	stream bool // holds one of the tenant's stream slots
}

// admit charges an authenticated request to its tenant's requests bucket,
// or answers 429 when a bucket is empty; either way the answer gets the
// x-ratelimit-* headers. ok is false when it answered.
func (q *request) admit() bool {
	l := q.s.limits[q.tenant]
	if l == nil {
		return true
	}
	q.limit.l = l
	lim := l.lim
	l.mu.Lock()
	now := q.s.cfg.LimitClock()
	l.req.refill(now)
	l.tok.refill(now)
	var refused *translate.APIError
	switch {
	case lim.RPM > 0 && l.req.level < 1:
		wait := l.req.until(1)
		refused = rateLimited("requests", fmt.Sprintf("Rate limit reached for tenant %s on requests per min (RPM): Limit %d, Used %d, Requested 1. Please try again in %s.",
			lim.Tenant, lim.RPM, lim.RPM-int(math.Floor(l.req.level)), humanDuration(wait)), wait)
	case lim.TPM > 0 && l.tok.level < 1:
		wait := l.tok.until(1)
		refused = rateLimited("tokens", fmt.Sprintf("Rate limit reached for tenant %s on tokens per min (TPM): Limit %d, Used %d. Please try again in %s.",
			lim.Tenant, lim.TPM, int(math.Ceil(float64(lim.TPM)-l.tok.level)), humanDuration(wait)), wait)
	case lim.RPM > 0:
		l.req.level--
	}
	h := q.w.Header()
	if lim.RPM > 0 {
		setRateHeaders(h, "requests", lim.RPM, &l.req)
	}
	if lim.TPM > 0 {
		setRateHeaders(h, "tokens", lim.TPM, &l.tok)
	}
	l.mu.Unlock()
	if refused != nil {
		q.fail("rate_limited", refused)
		return false
	}
	return true
}

// admitStream takes one of the tenant's stream slots for a streamed
// request (known once its body is read), or answers 429; end gives it
// back (leave). ok is false when it answered.
func (q *request) admitStream() bool {
	l := q.limit.l
	if l == nil || l.lim.MaxStreams <= 0 || !q.stream {
		return true
	}
	l.mu.Lock()
	n := l.streams
	if n < l.lim.MaxStreams {
		l.streams++
		q.limit.stream = true
	}
	l.mu.Unlock()
	if !q.limit.stream {
		// The request admit charged is refused: it gives its request back
		// (a refused request does not count), and the headers say so.
		if l.lim.RPM > 0 {
			l.mu.Lock()
			l.req.level = min(l.req.level+1, float64(l.lim.RPM))
			setRateHeaders(q.w.Header(), "requests", l.lim.RPM, &l.req)
			l.mu.Unlock()
		}
		e := rateLimited("requests", fmt.Sprintf("Too many concurrent streams for tenant %s: Limit %d, in flight %d. Please try again when one of them ends.", l.lim.Tenant, l.lim.MaxStreams, n), time.Second)
		q.fail("rate_limited", e)
		return false
	}
	return true
}

// leave gives the request's stream slot back (end calls it, on every
// path).
func (q *request) leave() {
	if q.limit.stream {
		q.limit.stream = false
		q.limit.l.mu.Lock()
		q.limit.l.streams--
		q.limit.l.mu.Unlock()
	}
}

// charge takes the tokens the upstream reported from the tenant's tokens
// bucket (it may go below zero).
func (q *request) charge(tokens int64) {
	l := q.limit.l
	if l == nil || l.lim.TPM <= 0 || tokens <= 0 {
		return
	}
	l.mu.Lock()
	l.tok.refill(q.s.cfg.LimitClock())
	l.tok.level -= float64(tokens)
	l.mu.Unlock()
}

// chargeUsage charges a usage object's tokens: input_tokens and
// output_tokens (a Response's) or prompt_tokens and completion_tokens (a
// chat completion's).
func (q *request) chargeUsage(u codec.Value) {
	var n int64
	for _, k := range [...]string{"input_tokens", "output_tokens", "prompt_tokens", "completion_tokens"} {
		if v, ok := u.Get(k).Int(); ok && v > 0 {
			n += v
		}
	}
	q.charge(n)
}

func rateLimited(typ, msg string, wait time.Duration) *translate.APIError {
	secs := int64(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return &translate.APIError{Status: http.StatusTooManyRequests, Type: typ, Code: "rate_limit_exceeded", Message: msg, RetryAfter: strconv.FormatInt(secs, 10)}
}

// setRateHeaders sets OpenAI's x-ratelimit-limit-, -remaining- and
// -reset-<what> headers: the limit, the whole tokens left, the time until
// the bucket is full again.
func setRateHeaders(h http.Header, what string, limit int, b *bucket) {
	h.Set("x-ratelimit-limit-"+what, strconv.Itoa(limit))
	h.Set("x-ratelimit-remaining-"+what, strconv.FormatInt(max(0, int64(math.Floor(b.level))), 10))
	h.Set("x-ratelimit-reset-"+what, humanDuration(b.until(b.limit)))
}

// humanDuration writes a duration as OpenAI's headers do: "120ms",
// "1.2s", "6m0s".
func humanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return max(d.Round(time.Millisecond), time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
