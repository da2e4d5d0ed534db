package gateway

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/runtime/reverse"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// The reverse direction: POST /v1/chat/completions served over a
// Responses upstream (Config.ResponsesUpstream). The chat request becomes
// a Responses request (mapping), the Response or its event stream comes
// back as a chat completion or its chunks (runtime/reverse). Same auth,
// tenants, limits, metrics, warnings header and error table as the
// forward route.

// chatCompletions serves POST /v1/chat/completions.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	q := s.begin(w, r, "chat_", "chat completion")
	defer q.end()
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
	if !q.admit() {
		return
	}
	// The Responses upstream's key; without one (another Transponder, or
	// this gateway itself), the client's bearer goes on.
	if k := s.cfg.ResponsesUpstream.APIKey; k != "" && !s.cfg.PassThrough {
		q.bearer = k
	} else {
		q.bearer, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	body, ok := q.readBody()
	if !ok {
		return
	}
	// Read once, by a worker's reverse converter: the model and stream
	// the gateway reads come from its reading. The worker goes back to
	// the pool once the request is converted.
	wk := s.workers.Get().(*worker)
	doc, err := wk.rev.Decode(body)
	if err != nil {
		s.workers.Put(wk)
		q.fail("bad_request", decodeError(err))
		return
	}
	q.read(doc)
	if !q.admitStream() {
		s.workers.Put(wk)
		return
	}
	up, warns, err := wk.rev.Convert(nil, s.cfg.Reverse)
	warns = slices.Clone(warns) // the converter's until its next conversion
	s.workers.Put(wk)
	if err != nil {
		q.refuse(err)
		return
	}
	q.warnings(warns)
	q.sent = warns

	ctx := r.Context() // the request's end cancels the upstream's (q.end)
	resp, ok := q.send(ctx, &s.cfg.ResponsesUpstream, "/responses", up)
	if !ok {
		return
	}
	defer resp.Body.Close()
	opts := reverse.Options{IDs: s.cfg.IDs, Clock: s.cfg.Clock, Model: q.model, Redact: q.redact}
	if !q.stream {
		q.chatJSON(ctx, resp.Body, opts)
		return
	}
	q.chatSSE(ctx, resp.Body, opts)
}

// chatJSON serves a chat completion that is not streamed.
func (q *request) chatJSON(ctx context.Context, body io.ReadCloser, opts reverse.Options) {
	data, ok := q.readAnswer(ctx, body)
	if !ok {
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
	// What the answer had that the completion cannot carry: the header is
	// not sent yet, so it goes there beside the request's.
	q.count(warns)
	q.logWarnings(warns)
	q.warningsHeader(append(slices.Clip(q.sent), warns...))
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
	deadline := writeDeadline{rc: rc, idle: s.cfg.StreamIdle}
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
		deadline.before()
		if _, err := q.w.Write(out); err != nil {
			return err
		}
		return rc.Flush()
	}
	idle := watchIdle(s.cfg.StreamIdle, func() { _ = closeBody(body) })
	defer idle.Stop()
	// any byte read breaks a silence, as on /v1/responses (a slow drip or
	// one large event is no silence)
	in := sse.NewReader(idle.Reader(body))
	for in.Next() {
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
	q.streamAccount(cs.Usage())
	q.count(cs.Warnings())
	q.logWarnings(cs.Warnings()) // after the header: the log is where they go
	q.outcome = "completed"
	if cs.Err() != nil {
		q.outcome = "failed"
	}
}

// streamAccount counts the tokens and cost of a streamed answer's usage
// (the translator read it from the upstream's terminal event): in the
// metrics and the tenant's tokens bucket.
func (q *request) streamAccount(u reverse.Usage) {
	if !u.Present {
		return
	}
	q.charge(u.InputTokens + u.OutputTokens)
	q.s.m.tokens.WithLabelValues(q.model, q.tenant, "input").Add(float64(u.InputTokens))
	q.s.m.tokens.WithLabelValues(q.model, q.tenant, "output").Add(float64(u.OutputTokens))
	if u.Cost > 0 {
		q.s.m.cost.WithLabelValues(q.model, q.tenant).Add(u.Cost)
	}
}

// chatAccount counts a chat completion's tokens and cost.
func (q *request) chatAccount(v codec.Value) {
	u := v.Get("usage")
	q.chargeUsage(u)
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
