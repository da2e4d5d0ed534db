package gateway

// Tracing (Config.Tracer): a server span per request, continuing the
// client's W3C traceparent; the upstream call and the store operations
// as its children; the upstream request carries traceparent (and
// tracestate). Only the OpenTelemetry API is used here: the SDK and the
// exporter are the caller's (cmd/transponder). Without a Tracer nothing
// of this runs: no span, no wrapper, no allocation.
//
// Spans carry routes, models, tenants, outcomes and statuses: never a
// request or response body, a key or a bearer.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/transponder-dev/transponder/runtime/store"
)

// TracerName is the instrumentation scope of the gateway's spans.
const TracerName = "github.com/transponder-dev/transponder/runtime/gateway"

// tracer is the gateway's tracing; nil when Config.Tracer is nil.
type tracer struct {
	t    trace.Tracer
	prop propagation.TraceContext
}

func newTracer(tp trace.TracerProvider) *tracer {
	if tp == nil {
		return nil
	}
	return &tracer{t: tp.Tracer(TracerName)}
}

// untraced are the routes probes and scrapers call every few seconds: a
// trace each would be noise.
func untraced(path string) bool {
	return path == "/healthz" || path == "/readyz" || path == "/metrics"
}

// serveTraced serves r in a server span named for its route ("POST
// /v1/responses"), a child of the client's traceparent if it sent one.
func (s *Server) serveTraced(w http.ResponseWriter, r *http.Request) {
	if untraced(r.URL.Path) {
		s.mux.ServeHTTP(w, r)
		return
	}
	_, pattern := s.mux.Handler(r)
	name, route := r.Method, ""
	if pattern != "/" && pattern != "" {
		name = pattern
		_, route, _ = strings.Cut(pattern, " ")
	}
	ctx := s.tr.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, span := s.tr.t.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", r.Method),
		attribute.String("http.route", route),
	))
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		status := sw.status
		if status == 0 {
			status = http.StatusOK // what net/http sends for a handler that wrote nothing
		}
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		// A client's error (4xx) is not the server's (OpenTelemetry's HTTP
		// conventions); a stream that ended in response.failed is, though
		// its status was 200.
		switch {
		case status >= 500:
			span.SetStatus(codes.Error, http.StatusText(status))
		case status < 400 && sw.failed != "":
			span.SetStatus(codes.Error, sw.failed)
		}
		span.End()
	}()
	s.mux.ServeHTTP(sw, r.WithContext(ctx))
}

// statusWriter notes the status a handler wrote. Unwrap keeps
// http.ResponseController (flushes, deadlines) working through it.
type statusWriter struct {
	http.ResponseWriter
	status int
	failed string // the outcome, when the request failed (set by traceEnd)
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// traceEnd puts what the request was on its server span: the tenant, the
// model, stream or not, the outcome.
func (q *request) traceEnd() {
	if q.s.tr == nil {
		return
	}
	span := trace.SpanFromContext(q.r.Context())
	span.SetAttributes(
		attribute.String("transponder.tenant", q.tenant),
		attribute.String("transponder.model", q.model),
		attribute.Bool("transponder.stream", q.stream),
		attribute.String("transponder.outcome", q.outcome),
	)
	if sw, ok := q.w.(*statusWriter); ok {
		switch q.outcome {
		case "completed", "incomplete", "client_gone":
		default:
			sw.failed = q.outcome
		}
	}
}

// upstreamSpan is the span of one upstream call: from the request's
// sending to the end of the upstream's body (its last byte read, an error
// reading it, or its closing, whichever comes first).
type upstreamSpan struct {
	span trace.Span
	once sync.Once
	n    atomic.Int64 // the body's bytes read (the idle timer may Close while a Read runs)
}

// upstream starts the upstream call's client span (a child of the
// request's server span) and writes its traceparent and tracestate into
// hreq's headers; nil when not tracing.
func (t *tracer) upstream(hreq *http.Request, path string) *upstreamSpan {
	if t == nil {
		return nil
	}
	ctx, span := t.t.Start(hreq.Context(), hreq.Method+" "+path, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("http.request.method", hreq.Method),
		attribute.String("server.address", hreq.URL.Hostname()),
		attribute.String("url.path", hreq.URL.Path),
	))
	t.prop.Inject(ctx, propagation.HeaderCarrier(hreq.Header))
	return &upstreamSpan{span: span}
}

// done notes the upstream's answer (or failure): the span ends with err,
// or with the answer's body, which it wraps.
func (u *upstreamSpan) done(resp *http.Response, err error) {
	if u == nil {
		return
	}
	if err != nil {
		u.end(err)
		return
	}
	u.span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 400 {
		u.span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
	}
	resp.Body = &tracedBody{ReadCloser: resp.Body, u: u}
}

func (u *upstreamSpan) end(err error) {
	u.once.Do(func() {
		if err != nil && !errors.Is(err, io.EOF) {
			u.span.RecordError(err)
			u.span.SetStatus(codes.Error, err.Error())
		}
		u.span.SetAttributes(attribute.Int64("transponder.upstream.body_bytes", u.n.Load()))
		u.span.End()
	})
}

// tracedBody ends the upstream span with the body.
type tracedBody struct {
	io.ReadCloser
	u *upstreamSpan
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.u.n.Add(int64(n))
	if err != nil {
		b.u.end(err)
	}
	return n, err
}

func (b *tracedBody) Close() error {
	err := b.ReadCloser.Close()
	b.u.end(nil)
	return err
}

// tracedStore makes each store operation a span, a child of the request's
// (the context carries it). Ping, Expire and Close are not traced: probes
// and the expiry loop have no request.
type tracedStore struct {
	store.Store
	t trace.Tracer
}

func (s tracedStore) start(ctx context.Context, op string) (context.Context, trace.Span) {
	return s.t.Start(ctx, "store "+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attribute.String("db.operation.name", op)))
}

// end ends a store span: an object not found or already there is the
// request's error, not the store's; anything else is the store failing.
func end(span trace.Span, err error, items int) {
	if items >= 0 {
		span.SetAttributes(attribute.Int("transponder.store.items", items))
	}
	switch {
	case err == nil:
	// The results are classes, never the errors' messages: those quote
	// stored objects' ids (and a database's errors, their values).
	case errors.Is(err, store.ErrNotFound):
		span.SetAttributes(attribute.String("transponder.store.result", "not found"))
	case errors.Is(err, store.ErrExists):
		span.SetAttributes(attribute.String("transponder.store.result", "exists"))
	case errors.Is(err, store.ErrInvalid):
		span.SetAttributes(attribute.String("transponder.store.result", "invalid"))
	default:
		var long *store.ChainLimitError
		if errors.As(err, &long) {
			span.SetAttributes(attribute.String("transponder.store.result", "chain limit"))
			break
		}
		span.SetAttributes(attribute.String("error.type", fmt.Sprintf("%T", err)))
		span.SetStatus(codes.Error, "store failed")
	}
	span.End()
}
