package gateway

// What serving a request takes on either route (POST /v1/responses and
// POST /v1/chat/completions): its lifecycle and metrics, its body, its
// upstream call, the upstream's answer when it is not streamed.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// post sends a request to an upstream (BaseURL+path) and waits for the
// response headers: they must come within UpstreamTimeout; the body then
// reads as long as it streams (StreamIdle bounds its silences).
func (q *request) post(ctx context.Context, u *Upstream, path string, body []byte) (*http.Response, error) {
	s := q.s
	hctx, cancel := context.WithCancelCause(ctx)
	q.cancel = cancel
	hreq, err := http.NewRequestWithContext(hctx, http.MethodPost, u.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	span := s.tr.upstream(hreq, path) // nil when not tracing
	if q.stream {
		h.Set("Accept", "text/event-stream")
	}
	if q.bearer != "" {
		h.Set("Authorization", "Bearer "+q.bearer)
	}
	if u.Referer != "" {
		h.Set("HTTP-Referer", u.Referer)
	}
	if u.Title != "" {
		h.Set("X-Title", u.Title)
	}
	timer := time.AfterFunc(s.cfg.UpstreamTimeout, func() { cancel(errHeaderTimeout) })
	sent := time.Now()
	resp, err := u.Client.Do(hreq)
	span.done(resp, err)
	fired := !timer.Stop()
	s.m.upstream.Observe(time.Since(sent).Seconds())
	if err != nil {
		if fired && ctx.Err() == nil {
			return nil, errHeaderTimeout
		}
		return nil, err
	}
	return resp, nil
}

// send posts to an upstream and answers what went wrong before its
// answer (the client gone, no headers in time, unreachable, an error
// status); ok is false then. It is tried again as Config.Retry says
// (retry.go): before its answer, never after.
func (q *request) send(ctx context.Context, u *Upstream, path string, body []byte) (*http.Response, bool) {
	s := q.s
	resp, err := q.postRetrying(ctx, u, path, body)
	if err != nil {
		switch {
		case q.r.Context().Err() != nil:
			q.outcome = "client_gone"
			s.m.errors.WithLabelValues("client_gone").Inc()
		case errors.Is(err, errHeaderTimeout):
			q.fail("upstream_timeout", &translate.APIError{Status: http.StatusGatewayTimeout, Type: "server_error", Code: "timeout", Message: fmt.Sprintf("the upstream did not answer within %s", s.cfg.UpstreamTimeout)})
		default:
			q.fail("upstream_unreachable", &translate.APIError{Status: http.StatusBadGateway, Type: "server_error", Code: "server_error", Message: "the upstream could not be reached: " + err.Error()})
		}
		return nil, false
	}
	if resp.StatusCode != http.StatusOK {
		data := q.readError(resp.Body)
		q.fail("upstream_"+strconv.Itoa(resp.StatusCode), translate.UpstreamError(resp.StatusCode, resp.Header, data))
		return nil, false
	}
	return resp, true
}

var errHeaderTimeout = errors.New("no response headers within the upstream timeout")

// readError reads an upstream's error body, at most maxErrorBody of it,
// and closes it; a silence of StreamIdle ends it (an error body that
// never ends must not hold the request, its slot and its client).
func (q *request) readError(body io.ReadCloser) []byte {
	idle := watchIdle(q.s.cfg.StreamIdle, func() { _ = body.Close() })
	data, _ := io.ReadAll(io.LimitReader(idle.Reader(body), maxErrorBody))
	idle.Stop()
	body.Close()
	return data
}

// begin starts serving a request of a route: its state and log; end
// (deferred) counts it by mode (prefix + json or stream) and outcome and
// logs it as what.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, prefix, what string) *request {
	q := &request{s: s, w: w, r: r, start: time.Now(), outcome: "error", cancel: func(error) {}, prefix: prefix, what: what}
	q.log = s.log.With("request_id", r.Header.Get("X-Client-Request-Id"), "remote", r.RemoteAddr)
	return q
}

func (q *request) end() {
	q.cancel(nil)
	q.release()
	q.leave()
	q.traceEnd()
	mode := q.prefix + "json"
	if q.stream {
		mode = q.prefix + "stream"
	}
	q.s.m.requests.WithLabelValues(mode, q.outcome).Inc()
	q.s.m.responseTime.WithLabelValues(mode).Observe(time.Since(q.start).Seconds())
	attrs := []any{"mode", mode, "outcome", q.outcome, "seconds", time.Since(q.start).Seconds()}
	for _, a := range [...]struct{ key, val string }{
		{"upstream_id", q.upstream.ID}, {"upstream_model", q.upstream.Model},
		{"provider", q.upstream.Provider}, {"system_fingerprint", q.upstream.SystemFingerprint},
	} {
		if a.val != "" {
			attrs = append(attrs, a.key, clip(a.val, 200))
		}
	}
	q.log.Info(q.what, attrs...)
}

// readBody reads the request's body (within BodyTimeout: a slow body must
// not hold the slot, and MaxBody); ok is false when it answered an error
// instead.
func (q *request) readBody() (body []byte, ok bool) {
	s, w := q.s, q.w
	// A declared length over the limit is refused from the headers: not a
	// byte of the body is waited for.
	if q.r.ContentLength > s.cfg.MaxBody {
		w.Header().Set("Connection", "close") // the body is not read
		q.fail("too_large", tooLarge(s.cfg.MaxBody))
		return nil, false
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, q.r.Body, s.cfg.MaxBody))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var over *http.MaxBytesError
		if errors.As(err, &over) {
			// The rest is not read: net/http would close the connection
			// itself, but not through a wrapped writer (tracing's).
			w.Header().Set("Connection", "close")
			q.fail("too_large", tooLarge(s.cfg.MaxBody))
			return nil, false
		}
		q.fail("client_gone", &translate.APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "reading the request body: " + err.Error()})
		return nil, false
	}
	return body, true
}

// notJSON is the error of a body that is not a JSON object (why, if
// known: where it is not).
func notJSON(why string) *translate.APIError {
	e := badRequest("", "invalid_json", "We could not parse the JSON body of your request: it is not a JSON object.")
	if why != "" {
		e.Message = "We could not parse the JSON body of your request: " + why
	}
	return e
}

// read takes the model and stream of the request's top-level object.
func (q *request) read(doc codec.Value) {
	q.model, _ = doc.Get("model").Str()
	q.stream, _ = doc.Get("stream").Bool()
	q.log = q.log.With("tenant", q.tenant, "model", q.model, "stream", q.stream)
}

func tooLarge(limit int64) *translate.APIError {
	return &translate.APIError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Message: fmt.Sprintf("the request body is over the gateway's limit of %d bytes", limit)}
}

// refuse answers a conversion's error: a *mapping.Error as it is (400,
// naming the path), anything else as a 400 with its message.
func (q *request) refuse(err error) {
	var me *mapping.Error
	if !errors.As(err, &me) {
		q.fail("bad_request", &translate.APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()})
		return
	}
	q.s.m.errors.WithLabelValues("bad_request").Inc()
	q.w.Header().Set("Content-Type", "application/json")
	q.w.WriteHeader(http.StatusBadRequest)
	_, _ = q.w.Write(append(me.AppendJSON(nil), '\n'))
	q.log.Info("refused", "param", me.Param, "code", me.Code, "message", me.Message)
}

// readAnswer reads an upstream's answer that is not streamed: within
// StreamIdle of silence at a time, and at most maxUpstreamBody; ok is
// false when it answered an error instead (or the client went away).
func (q *request) readAnswer(ctx context.Context, body io.ReadCloser) ([]byte, bool) {
	idle := watchIdle(q.s.cfg.StreamIdle, func() { _ = body.Close() })
	data, err := io.ReadAll(io.LimitReader(idle.Reader(body), maxUpstreamBody))
	idle.Stop()
	switch {
	case err != nil && ctx.Err() != nil:
		q.outcome = "client_gone"
		q.s.m.errors.WithLabelValues("client_gone").Inc()
		return nil, false
	case err != nil && idle.Silent():
		err = fmt.Errorf("the upstream sent nothing for %s", q.s.cfg.StreamIdle)
	case err == nil && len(data) == maxUpstreamBody:
		err = fmt.Errorf("its answer is over %d bytes", maxUpstreamBody)
	}
	if err != nil {
		q.fail("upstream_broken", &translate.APIError{Status: http.StatusBadGateway, Type: "server_error", Code: "server_error", Message: "the upstream's response broke off: " + err.Error()})
		return nil, false
	}
	return data, true
}
