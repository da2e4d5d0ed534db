// Package gateway is the reference gateway: the OpenAI Responses API served
// over an upstream's Chat Completions (OpenRouter by default, or any
// OpenAI-compatible endpoint), and Chat Completions served over a
// Responses upstream (the reverse direction, chat.go). The mapping
// converts each request (mapping.Converter), the runtime's translators
// convert the answer back (runtime/translate, runtime/reverse), chunk by
// chunk as it streams. State (stored responses, chains, conversations)
// lives in a runtime/store the caller opens (stored.go, conversations.go).
//
// Routes:
//
//	POST   /v1/responses                        a response, streamed (SSE) or not; stored unless store:false
//	GET    /v1/responses/{id}                   a stored response (include[])
//	DELETE /v1/responses/{id}                   deletes it
//	GET    /v1/responses/{id}/input_items       its input items, paged
//	POST   /v1/conversations (and /{id}, /{id}/items, /{id}/items/{item})  the Conversations API
//	POST   /v1/chat/completions                 a chat completion over the Responses upstream
//	GET    /healthz                             "ok" (liveness)
//	GET    /readyz                              "ok" while the store answers, else 503 (readiness)
//	GET    /metrics                             Prometheus
//
// Without a store, previous_response_id, conversation and the stored
// routes answer a clear error: never a silent ignore.
//
// Warnings: what the request had that the upstream request cannot carry
// is known before the first byte: it goes out as the response header
// Transponder-Warnings (a JSON array of {path, reason}, cut to 8 KiB) and
// is logged; what the answer had that the Response cannot carry is in the
// Response's transponder_warnings (runtime/translate).
//
// Errors before the first byte of a response are OpenAI-shaped statuses
// and bodies (the upstream's through translate.UpstreamError, with
// Retry-After passed on); after it, the stream ends in response.failed.
// The client going away cancels the upstream request.
package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// Config is what a gateway is told. The zero values of the limits are
// defaults (below).
type Config struct {
	// Upstream is the Chat Completions endpoint.
	Upstream Upstream
	// ResponsesUpstream is the Responses endpoint POST /v1/chat/completions
	// is served over (the reverse direction): the gateway POSTs
	// BaseURL/responses. Its Dialect is the Responses dialect spoken
	// (mapping.OpenAI: OpenAI's /v1/responses; mapping.OpenRouter:
	// OpenRouter's /api/v1/responses). No BaseURL: the route answers 404.
	// No APIKey: the client's bearer is sent on (another Transponder, or
	// this gateway itself, whose keys the clients hold).
	ResponsesUpstream Upstream
	// Reverse configures the chat → Responses conversion (a leading
	// system message as instructions; store; model renames and the
	// model-aware guards). Its Dialect is set from
	// ResponsesUpstream.Dialect.
	Reverse mapping.ReverseOptions
	// Keys are the gateway keys clients present (Authorization: Bearer),
	// each with a tenant name for the metrics. With none, the gateway is
	// open (tenant "anonymous"): for loopback use.
	Keys []Key
	// PassThrough sends the client's bearer to the upstream as its key
	// (each client pays with its own OpenRouter key; the tenant is
	// "passthrough") instead of Upstream.APIKey. Keys and PassThrough
	// exclude each other.
	PassThrough bool
	// Mapping configures the conversion: the model map, the system
	// message mode, what happens to unknown types and items. Its Dialect
	// is set from Upstream.Dialect.
	Mapping mapping.Options
	// Provider, when set, is OpenRouter's provider preferences object
	// (data collection, ZDR, order, …), injected into every chat request
	// by the operator; the client cannot override it.
	Provider json.RawMessage
	// MaxBody is the largest request body accepted (default 16 MiB).
	MaxBody int64
	// MaxConcurrent bounds the requests served at once (default 256);
	// beyond it a request is refused with 429 at once.
	MaxConcurrent int
	// UpstreamTimeout bounds the wait for the upstream's response headers
	// (default 5 minutes); a stream then runs as long as it streams, but
	// StreamIdle bounds a silence between two chunks (default 5 minutes).
	UpstreamTimeout time.Duration
	StreamIdle      time.Duration
	// BodyTimeout bounds the reading of a request's body (default 30 s):
	// a slow body must not hold a slot.
	BodyTimeout time.Duration
	// Retry is when the upstream call is tried again before the first
	// byte (429, 5xx, unreachable; retry.go): off by default.
	Retry RetryPolicy
	// IDs and Clock are injected into the translator (default: random
	// ids, time.Now).
	IDs   translate.IDSource
	Clock func() time.Time
	// Log receives a JSON line per request (default: slog.Default()).
	// Keys are never logged.
	Log *slog.Logger
	// Registry receives the metrics (default: a new registry of its own,
	// served at /metrics).
	Registry *prometheus.Registry
	// Store keeps responses and conversations: store (default true),
	// previous_response_id, conversation, item_reference and the routes
	// of stored objects. Nil: the gateway is stateless, and refuses them.
	// The caller opens and closes it (and runs ExpireLoop).
	Store store.Store
	// MaxChainItems bounds the stored items a previous_response_id chain
	// or a conversation brings into one request (default
	// DefaultMaxChainItems); beyond it the request is refused (400).
	MaxChainItems int
	// Limits are per-tenant rate limits (requests and tokens per minute)
	// and stream caps on POST /v1/responses and POST
	// /v1/chat/completions (limits.go; CheckLimits checks them). A tenant
	// not listed has the DefaultTenant entry's, or none.
	Limits []TenantLimits
	// LimitClock is the limits' clock (default time.Now).
	LimitClock func() time.Time
	// Observe, if set, is called with the time from an upstream chunk's
	// arrival to the flush of its events, for each chunk (the load
	// benchmark reads it).
	Observe func(time.Duration)
	// Tracer, if set, traces each request (trace.go): a server span, the
	// upstream call and the store operations as its children, W3C
	// traceparent carried in and on to the upstream. Nil: no tracing, at
	// no cost.
	Tracer trace.TracerProvider
}

// Upstream is a Chat Completions endpoint.
type Upstream struct {
	// BaseURL is the API root; the gateway POSTs BaseURL/chat/completions
	// (default https://openrouter.ai/api/v1).
	BaseURL string
	// APIKey is sent as the upstream bearer (OPENROUTER_API_KEY).
	APIKey string
	// Dialect is the chat dialect the upstream speaks (default
	// OpenRouter's; mapping.OpenAI for any OpenAI-compatible endpoint).
	Dialect mapping.Dialect
	// Referer and Title are OpenRouter's optional HTTP-Referer and X-Title
	// headers (app attribution).
	Referer, Title string
	// Client is the HTTP client (default: one with no overall timeout:
	// streams are long).
	Client *http.Client
}

// Key is a gateway key and its tenant.
type Key struct {
	Tenant string `json:"tenant"`
	Key    string `json:"key"`
}

// DefaultBaseURL is OpenRouter's API root.
const DefaultBaseURL = "https://openrouter.ai/api/v1"

// WarningsHeader carries the request's warnings.
const WarningsHeader = "Transponder-Warnings"

// Server is a gateway. It is safe for concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	tr      *tracer // nil: no tracing
	m       *metrics
	sem     chan struct{}
	mux     *http.ServeMux
	workers sync.Pool // *worker: a converter and a responder, reused
	// translators are the streams' translators, reused from one stream
	// to the next (a stream's text grows in the memory of one before).
	translators translate.StreamPool
	// requests are the Requests the answers echo, reused from one
	// request to the next (the echo of a Codex request is tens of KB).
	requests translate.RequestPool
	// streams are the streams in flight, for Shutdown to wait on.
	streams sync.WaitGroup
	// labels are the warning paths the metric has series for.
	labelsMu sync.Mutex
	labels   map[string]bool
	// retry is the retries' jitter and wait (tests replace them).
	retry retryHooks
	// limits are the limited tenants' states (limits.go), built in New;
	// keySums the keys' SHA-256 (secrets.go).
	limits  map[string]*limiter
	keySums [][32]byte
}

type worker struct {
	conv mapping.Converter
	resp translate.Responder
	rev  mapping.ReverseConverter
}

// New returns a gateway for cfg.
func New(cfg Config) *Server {
	if cfg.Upstream.BaseURL == "" {
		cfg.Upstream.BaseURL = DefaultBaseURL
	}
	cfg.Upstream.BaseURL = strings.TrimRight(cfg.Upstream.BaseURL, "/")
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 256
	}
	if cfg.Upstream.Client == nil {
		cfg.Upstream.Client = &http.Client{Transport: upstreamTransport(cfg.MaxConcurrent)}
	}
	cfg.ResponsesUpstream.BaseURL = strings.TrimRight(cfg.ResponsesUpstream.BaseURL, "/")
	if cfg.ResponsesUpstream.Client == nil {
		cfg.ResponsesUpstream.Client = cfg.Upstream.Client
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 16 << 20
	}
	if cfg.UpstreamTimeout <= 0 {
		cfg.UpstreamTimeout = 5 * time.Minute
	}
	if cfg.StreamIdle <= 0 {
		cfg.StreamIdle = 5 * time.Minute
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 30 * time.Second
	}
	if cfg.IDs == nil {
		cfg.IDs = translate.RandomIDs{}
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.LimitClock == nil {
		cfg.LimitClock = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxChainItems <= 0 {
		cfg.MaxChainItems = DefaultMaxChainItems
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	cfg.Mapping.Dialect = cfg.Upstream.Dialect
	cfg.Reverse.Dialect = cfg.ResponsesUpstream.Dialect
	cfg.Mapping.Provider = cfg.Provider
	s := &Server{cfg: cfg, log: cfg.Log, m: newMetrics(cfg.Registry), sem: make(chan struct{}, cfg.MaxConcurrent), labels: map[string]bool{}, tr: newTracer(cfg.Tracer)}
	if s.tr != nil && s.cfg.Store != nil {
		s.cfg.Store = tracedStore{s.cfg.Store, s.tr.t}
	}
	s.limits, s.keySums = newLimits(cfg), keySums(cfg.Keys)
	if err := CheckLimits(cfg); err != nil {
		// New has no error to return (serve checks first): a limit that
		// applies to no tenant is said, not dropped silently.
		s.log.Error("limits not applied as configured", "error", err.Error())
	}
	s.workers.New = func() any { return new(worker) }
	s.cfg.Retry, s.retry = cfg.Retry.withDefaults(), defaultRetryHooks
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.limited(s.create))
	mux.HandleFunc("GET /v1/responses/{id}", s.getResponse)
	mux.HandleFunc("DELETE /v1/responses/{id}", s.deleteResponse)
	mux.HandleFunc("GET /v1/responses/{id}/input_items", s.inputItems)
	mux.HandleFunc("POST /v1/responses/{id}/cancel", s.notBackground)
	s.conversationRoutes(mux)
	mux.HandleFunc("POST /v1/chat/completions", s.limited(s.chatCompletions))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Message: "no route " + r.Method + " " + r.URL.Path + " (this gateway serves POST /v1/responses)"})
	})
	s.mux = mux
	return s
}

// upstreamTransport is the default upstreams' transport: the standard
// one (proxy from the environment, HTTP/2 when the upstream offers it),
// keeping a connection alive for each request the gateway may serve at
// once. The standard one keeps 2 per host: over HTTP/1.1, every stream
// beyond the second would open (and, for TLS, handshake) a connection of
// its own and close it at the end.
//
// An HTTP/1 connection's buffers are held as long as its stream is open,
// for minutes: they are small. The write buffer takes the request's headers
// (a larger body goes past it to the connection), the read buffer the
// answer's headers and what one read of a stream brings (the SSE reader
// keeps its own).
func upstreamTransport(conns int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 2 * conns
	t.MaxIdleConnsPerHost = conns
	t.WriteBufferSize = 1 << 10
	t.ReadBufferSize = 1 << 10
	return t
}

// ServeHTTP serves the routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A path that is not clean (an empty id: /v1/conversations//items)
	// is no route: ServeMux would redirect it, with an HTML body, to
	// another route (/v1/conversations/items, the conversation "items").
	if p := r.URL.Path; p != "" && path.Clean(p) != p && path.Clean(p)+"/" != p {
		writeError(w, &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Message: "no route " + r.Method + " " + clip(p, 200) + " (an empty or relative path segment: an id missing?)"})
		return
	}
	if s.tr != nil {
		s.serveTraced(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Wait waits for the streams in flight to end (after http.Server.Shutdown
// stopped new ones: a graceful shutdown lets them finish; cancelling ctx
// gives up waiting).
func (s *Server) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.streams.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// limited refuses a request beyond MaxConcurrent with 429.
func (s *Server) limited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
			h(w, r)
		default:
			s.m.errors.WithLabelValues("overloaded").Inc()
			w.Header().Set("Retry-After", "1")
			writeError(w, &translate.APIError{Status: http.StatusTooManyRequests, Type: "requests", Code: "rate_limit_exceeded", Message: "the gateway is serving as many requests as it is configured to; retry"})
		}
	}
}

// notBackground answers POST /v1/responses/{id}/cancel: only a
// background response can be cancelled, and the gateway makes none.
func (s *Server) notBackground(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.authed(w, r); !ok {
		return
	}
	writeError(w, badRequest("response_id", "invalid_value", "Only responses created with background: true can be cancelled, and this gateway makes none (background responses come later)."))
}

// tenant authenticates the request: the tenant and the upstream bearer,
// or an error to answer.
func (s *Server) tenant(r *http.Request) (tenant, bearer string, err *translate.APIError) {
	given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		given = ""
	}
	switch {
	case s.cfg.PassThrough:
		if given == "" {
			return "", "", &translate.APIError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Message: "You didn't provide an API key: this gateway passes your bearer on to its upstream (Authorization: Bearer <key>)"}
		}
		return "passthrough", given, nil
	case len(s.cfg.Keys) == 0:
		return "anonymous", s.cfg.Upstream.APIKey, nil
	}
	if i := s.matchKey(given); i >= 0 {
		return s.cfg.Keys[i].Tenant, s.cfg.Upstream.APIKey, nil
	}
	return "", "", &translate.APIError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key provided: use one of the gateway's keys (Authorization: Bearer <key>)"}
}

// writeError writes an OpenAI-shaped error with its status and
// Retry-After.
func writeError(w http.ResponseWriter, e *translate.APIError) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.RetryAfter != "" {
		h.Set("Retry-After", e.RetryAfter)
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(e.AppendJSON(nil), '\n'))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
