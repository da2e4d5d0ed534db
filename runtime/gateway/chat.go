package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/reverse"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// The reverse direction: POST /v1/chat/completions served over a
// Responses upstream (Config.ResponsesUpstream). The chat request becomes
// a Responses request (mapping), the Response or its event stream comes
// back as a chat completion or its chunks (runtime/reverse). Same auth,
// tenants, limits, metrics, warnings header and error table as the
// forward route.

// chatToResponses converts a chat request with a worker's reverse
// converter; the warnings are the caller's.
func (s *Server) chatToResponses(body []byte) ([]byte, []mapping.Warning, error) {
	wk := s.workers.Get().(*worker)
	defer s.workers.Put(wk)
	out, warns, err := wk.rev.ChatToResponses(nil, body, s.cfg.Reverse)
	return out, slices.Clone(warns), err
}

// chatCompletions serves POST /v1/chat/completions.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	q := &request{s: s, w: w, r: r, start: time.Now(), outcome: "error", cancel: func(error) {}}
	defer func() { q.cancel(nil) }()
	q.log = s.log.With("request_id", r.Header.Get("X-Client-Request-Id"), "remote", r.RemoteAddr, "route", "chat")
	defer func() {
		mode := "chat_json"
		if q.stream {
			mode = "chat_stream"
		}
		s.m.requests.WithLabelValues(mode, q.outcome).Inc()
		s.m.responseTime.WithLabelValues(mode).Observe(time.Since(q.start).Seconds())
		q.log.Info("chat completion", "mode", mode, "outcome", q.outcome, "seconds", time.Since(q.start).Seconds())
	}()
	if s.cfg.ResponsesUpstream.BaseURL == "" {
		q.fail("not_configured", &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error",
			Message: "this gateway has no Responses upstream configured for POST /v1/chat/completions (responses_upstream in the config)"})
		return
	}
	var aerr *translate.APIError
	if q.tenant, q.bearer, aerr = s.tenant(r); aerr != nil {
		q.fail("auth", aerr)
		return
	}
	// The Responses upstream's key; without one (another Transponder, or
	// this gateway itself), the client's bearer goes on.
	if k := s.cfg.ResponsesUpstream.APIKey; k != "" && !s.cfg.PassThrough {
		q.bearer = k
	} else {
		q.bearer, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			q.fail("too_large", &translate.APIError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Message: fmt.Sprintf("the request body is over the gateway's limit of %d bytes", s.cfg.MaxBody)})
			return
		}
		q.fail("client_gone", &translate.APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "reading the request body: " + err.Error()})
		return
	}
	doc, ok := codec.Parse(body)
	if !ok || doc.Kind() != codec.Object {
		q.fail("bad_request", &translate.APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "invalid_json", Message: "We could not parse the JSON body of your request: it is not a JSON object."})
		return
	}
	q.model, _ = doc.Get("model").Str()
	q.stream, _ = doc.Get("stream").Bool()
	q.log = q.log.With("tenant", q.tenant, "model", q.model, "stream", q.stream)

	up, warns, err := s.chatToResponses(body)
	if err != nil {
		var me *mapping.Error
		if errors.As(err, &me) {
			s.m.errors.WithLabelValues("bad_request").Inc()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(append(me.AppendJSON(nil), '\n'))
			q.log.Info("refused", "param", me.Param, "code", me.Code, "message", me.Message)
			return
		}
		q.fail("bad_request", &translate.APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()})
		return
	}
	q.warnings(warns)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	resp, err := q.responsesUpstream(ctx, up)
	if err != nil {
		if r.Context().Err() != nil {
			q.outcome = "client_gone"
			s.m.errors.WithLabelValues("client_gone").Inc()
			return
		}
		if errors.Is(err, errHeaderTimeout) {
			q.fail("upstream_timeout", &translate.APIError{Status: http.StatusGatewayTimeout, Type: "server_error", Code: "timeout", Message: fmt.Sprintf("the upstream did not answer within %s", s.cfg.UpstreamTimeout)})
			return
		}
		q.fail("upstream_unreachable", &translate.APIError{Status: http.StatusBadGateway, Type: "server_error", Code: "server_error", Message: "the upstream could not be reached: " + err.Error()})
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		q.fail("upstream_"+strconv.Itoa(resp.StatusCode), translate.UpstreamError(resp.StatusCode, resp.Header, data))
		return
	}
	opts := reverse.Options{IDs: s.cfg.IDs, Clock: s.cfg.Clock, Model: q.model}
	if !q.stream {
		q.chatJSON(ctx, resp.Body, opts)
		return
	}
	q.chatSSE(ctx, resp.Body, opts)
}

// responsesUpstream sends the Responses request and waits for the
// response headers (within UpstreamTimeout).
func (q *request) responsesUpstream(ctx context.Context, body []byte) (*http.Response, error) {
	s, u := q.s, &q.s.cfg.ResponsesUpstream
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u.BaseURL+"/responses", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := hreq.Header
	h.Set("Content-Type", "application/json")
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
	hctx, cancel := context.WithCancelCause(ctx)
	q.cancel = cancel
	timer := time.AfterFunc(s.cfg.UpstreamTimeout, func() { cancel(errHeaderTimeout) })
	sent := time.Now()
	resp, err := u.Client.Do(hreq.WithContext(hctx))
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

// chatJSON serves a chat completion that is not streamed.
func (q *request) chatJSON(ctx context.Context, body io.ReadCloser, opts reverse.Options) {
	var silent atomic.Bool
	idle := time.AfterFunc(q.s.cfg.StreamIdle, func() { silent.Store(true); _ = body.Close() })
	data, err := io.ReadAll(io.LimitReader(idleReader{body, idle, q.s.cfg.StreamIdle}, maxUpstreamBody))
	idle.Stop()
	switch {
	case err != nil && ctx.Err() != nil:
		q.outcome = "client_gone"
		q.s.m.errors.WithLabelValues("client_gone").Inc()
		return
	case err != nil && silent.Load():
		err = fmt.Errorf("the upstream sent nothing for %s", q.s.cfg.StreamIdle)
	}
	if err != nil {
		q.fail("upstream_broken", &translate.APIError{Status: http.StatusBadGateway, Type: "server_error", Code: "server_error", Message: "the upstream's response broke off: " + err.Error()})
		return
	}
	out, warns, err := reverse.ResponseToChat(data, opts)
	if err != nil {
		var ae *translate.APIError
		if !errors.As(err, &ae) {
			ae = &translate.APIError{Status: http.StatusBadGateway, Type: "server_error", Code: "server_error", Message: err.Error()}
		}
		q.fail("upstream_failed", ae)
		return
	}
	q.count(warns)
	if len(warns) > 0 && q.w.Header().Get(WarningsHeader) == "" {
		q.warnings(warns)
	}
	if v, ok := codec.Parse(out); ok {
		q.chatAccount(v)
	}
	q.outcome = "completed"
	q.w.Header().Set("Content-Type", "application/json")
	q.w.WriteHeader(http.StatusOK)
	_, _ = q.w.Write(out)
}

// chatSSE serves a chat completion stream: each upstream event's chunks
// are written and flushed before the next event is read. The headers wait
// for the first chunk: a response that fails before it is answered with
// its status.
func (q *request) chatSSE(ctx context.Context, body io.Reader, opts reverse.Options) {
	s := q.s
	s.streams.Add(1)
	defer s.streams.Done()
	s.m.active.Inc()
	defer s.m.active.Dec()
	rc := http.NewResponseController(q.w)
	defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	cs := reverse.NewChatStream(opts)
	started := false
	write := func(out []byte) error {
		if len(out) == 0 {
			return nil
		}
		if !started {
			started = true
			h := q.w.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Accel-Buffering", "no")
			q.w.WriteHeader(http.StatusOK)
			s.m.firstEvent.Observe(time.Since(q.start).Seconds())
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamIdle))
		if _, err := q.w.Write(out); err != nil {
			return err
		}
		return rc.Flush()
	}
	var silent atomic.Bool
	idle := time.AfterFunc(s.cfg.StreamIdle, func() { silent.Store(true); _ = closeBody(body) })
	defer idle.Stop()
	in := sse.NewReader(body)
	for in.Next() {
		idle.Reset(s.cfg.StreamIdle)
		e := in.Event()
		if e.Done() {
			break
		}
		if len(bytes.TrimSpace(e.Data)) == 0 {
			continue
		}
		arrived := time.Now()
		out := cs.Next(e.Data)
		if err := cs.Err(); err != nil && !started {
			q.fail("upstream_failed", err)
			return
		}
		if err := write(out); err != nil {
			q.gone()
			return
		}
		s.m.chunk.Observe(time.Since(arrived).Seconds())
	}
	if ctx.Err() != nil {
		q.gone()
		return
	}
	if err := in.Err(); err != nil {
		s.m.errors.WithLabelValues("stream_failed").Inc()
	}
	out := cs.Finish()
	if err := cs.Err(); err != nil && !started {
		q.fail("upstream_failed", err)
		return
	}
	if err := write(out); err != nil {
		q.gone()
		return
	}
	q.count(cs.Warnings())
	q.outcome = "completed"
	if cs.Err() != nil {
		q.outcome = "failed"
	}
}

// chatAccount counts a chat completion's tokens and cost.
func (q *request) chatAccount(v codec.Value) {
	u := v.Get("usage")
	if in, ok := u.Get("prompt_tokens").Int(); ok {
		q.s.m.tokens.WithLabelValues(q.model, q.tenant, "input").Add(float64(in))
	}
	if out, ok := u.Get("completion_tokens").Int(); ok {
		q.s.m.tokens.WithLabelValues(q.model, q.tenant, "output").Add(float64(out))
	}
	if c, ok := u.Get("cost").Float(); ok && c > 0 {
		q.s.m.cost.WithLabelValues(q.model, q.tenant).Add(c)
	}
}
