package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// maxWarningsHeader bounds the Transponder-Warnings header.
const maxWarningsHeader = 8 << 10

// maxErrorBody bounds what is read of an upstream error body, and
// maxUpstreamBody an answer that is not streamed.
const (
	maxErrorBody    = 64 << 10
	maxUpstreamBody = 64 << 20
)

// request is one request being served (POST /v1/responses, or POST
// /v1/chat/completions).
type request struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	start  time.Time
	tenant string
	bearer string
	owner  string  // the tenant stored objects belong to
	turn   turn    // what the request does with the store
	buf    *[]byte // the body prepare assembled, pooled
	model  string  // the client's
	stream bool
	// upstream is what the upstream's answer said of itself (logged at
	// the end: the mapping leaves its id, model, provider and system
	// fingerprint to the log)
	upstream translate.Upstream
	log      *slog.Logger
	outcome  string
	cancel   context.CancelCauseFunc // the upstream request's
	prefix   string                  // the route's prefix of its mode label ("" or "chat_")
	sent     []mapping.Warning       // the request's warnings (the chat route's header adds the answer's)
	what     string                  // what its log line says it served
	limit    limitState              // what it holds of its tenant's limits
}

// create serves POST /v1/responses.
func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	q := s.begin(w, r, "", "response")
	defer q.end()
	var aerr *translate.APIError
	if q.tenant, q.bearer, aerr = s.tenant(r); aerr != nil {
		q.fail("auth", aerr)
		return
	}
	if !q.admit() {
		return
	}
	body, ok := q.readBody()
	if !ok {
		return
	}
	// The request is read once, by the converter of a worker: what the
	// gateway reads of it (its model, what it continues) and what the
	// answer echoes come from the converter's reading. The worker goes
	// back to the pool once the request is converted: a stream may last
	// minutes, and what it holds (the converter's buffers) the stream
	// does not need. An answer not streamed takes one again. (It is held
	// while prepare reads the store: a request in flight holds one
	// converter either way.)
	wk := s.workers.Get().(*worker)
	defer func() {
		if wk != nil {
			s.workers.Put(wk)
		}
	}()
	doc, err := wk.conv.Decode(body)
	if err != nil {
		q.fail("bad_request", decodeError(err))
		return
	}
	q.read(doc)
	if !q.admitStream() {
		return
	}
	q.owner = s.owner(q.tenant, q.bearer)
	// What the request continues (a stored chain, a conversation) comes
	// before its input; its item references are resolved.
	converted, aerr := q.prepare(doc, body)
	if aerr != nil {
		kind := "bad_request"
		if aerr.Status == http.StatusServiceUnavailable {
			kind = "store_failed"
		}
		q.fail(kind, aerr)
		return
	}
	if !sameBytes(converted, body) { // prepare assembled another body
		if _, err := wk.conv.Decode(converted); err != nil {
			q.refuseTurn(err)
			return
		}
	}

	opts := s.cfg.Mapping
	if id := r.Header.Get("Session-Id"); id != "" {
		opts.SessionID = id
	}
	// The chat request gets memory of its own: the transport may still be
	// writing it when an early upstream answer ends the request.
	chat, warns, err := wk.conv.Convert(nil, opts)
	if err != nil {
		q.refuseTurn(err)
		return
	}
	q.warnings(q.turn.unshiftWarnings(warns)) // the converter's until its next conversion
	// What the answer echoes is read from the request as the converter
	// read it. (What prepare rewrote, input and conversation, is not
	// echoed.)
	req := s.requests.Of(&wk.conv)
	defer s.requests.Put(req) // after the answer: every use of req is done by then
	s.workers.Put(wk)
	wk = nil
	req.Stored, req.Conversation = q.turn.store, q.turn.conv

	// Upstream: the client going away cancels it (and the end of the
	// request: q.end); the headers must come within UpstreamTimeout.
	ctx := r.Context()
	resp, ok := q.send(ctx, &s.cfg.Upstream, "/chat/completions", chat)
	if !ok {
		return
	}
	defer resp.Body.Close()
	topts := translate.Options{IDs: s.cfg.IDs, Clock: s.cfg.Clock, Redact: q.redact}
	if !q.stream {
		wk := s.workers.Get().(*worker)
		defer s.workers.Put(wk)
		q.json(ctx, wk, req, resp.Body, topts)
		return
	}
	topts.Commit = q.commit // stored before the terminal event goes out
	q.sse(ctx, req, resp.Body, topts)
}

// refuseTurn refuses a request the mapping refused in the body prepare
// made, naming its param as the client sent it.
func (q *request) refuseTurn(err error) {
	var me *mapping.Error
	if errors.As(err, &me) {
		me.Param = q.turn.unshift(me.Param)
	}
	q.refuse(err)
}

// decodeError is the error of a body the converter's Decode refuses: not
// JSON (where, and why), or not an object.
func decodeError(err error) *translate.APIError {
	var me *mapping.Error
	if errors.As(err, &me) && me.Code == "invalid_json" {
		e := notJSON(strings.TrimPrefix(me.Message, "the body is not valid JSON: "))
		e.Param = me.Param
		return e
	}
	return notJSON("")
}

// sameBytes reports whether a and b are the same bytes in memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// json serves a response that is not streamed.
func (q *request) json(ctx context.Context, wk *worker, req *translate.Request, body io.ReadCloser, opts translate.Options) {
	data, ok := q.readAnswer(ctx, body)
	if !ok {
		return
	}
	out, warns, err := wk.resp.Convert(req, data, opts)
	q.upstream = wk.resp.Upstream()
	if err != nil {
		var ae *translate.APIError
		if !errors.As(err, &ae) {
			ae = &translate.APIError{Status: http.StatusBadGateway, Type: "server_error", Code: "server_error", Message: err.Error()}
		}
		q.fail("upstream_invalid", ae)
		return
	}
	q.count(warns)
	if v, ok := codec.Parse(out); ok {
		q.account(v)
	}
	// Stored before it is sent: a client that has it can chain from it.
	if err := q.commit(out); err != nil {
		var ae *translate.APIError
		if !errors.As(err, &ae) {
			ae = q.s.unavailable(err, "the response was made but could not be stored")
		}
		q.outcome = "error"
		writeError(q.w, ae)
		return
	}
	q.w.Header().Set("Content-Type", "application/json")
	q.w.WriteHeader(http.StatusOK)
	_, _ = q.w.Write(out)
}

// sse serves a stream: each upstream chunk's events are written and
// flushed before the next chunk is read.
func (q *request) sse(ctx context.Context, req *translate.Request, body io.Reader, opts translate.Options) {
	s := q.s
	s.streams.Add(1)
	defer s.streams.Done()
	s.m.active.Inc()
	defer s.m.active.Dec()
	rc := http.NewResponseController(q.w)
	defer func() { _ = rc.SetWriteDeadline(time.Time{}) }() // the connection may serve another request
	deadline := writeDeadline{rc: rc, idle: s.cfg.StreamIdle}
	h := q.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	q.w.WriteHeader(http.StatusOK)
	t := s.translators.Get(req, opts)
	defer s.translators.Put(t)                   // last: the deferred calls below use it
	defer func() { q.upstream = t.Upstream() }() // however the stream ended
	// A client that went away leaves its response stored as cancelled,
	// with what was streamed (a no-op once the terminal event was made).
	defer func() {
		if q.outcome == "client_gone" {
			t.Abandon()
		}
	}()
	first := true
	// A client that stops reading gets StreamIdle (7/8 of it at least)
	// to take each batch.
	write := func(evs []translate.Event) error {
		// Framed and written from pools: the stream holds no buffer
		// until its next chunk.
		defer t.Release()
		if len(evs) == 0 {
			return nil
		}
		deadline.before()
		if err := translate.WriteSSE(q.w, evs); err != nil {
			return err
		}
		return rc.Flush()
	}
	// A silence longer than StreamIdle ends the upstream read: any byte
	// read breaks a silence (a slow drip or one large chunk is no silence).
	idle := watchIdle(s.cfg.StreamIdle, func() { _ = closeBody(body) })
	defer idle.Stop()
	var terminal []translate.Event
	finish := func(evs []translate.Event) {
		terminal = evs
		if err := write(evs); err != nil {
			q.gone()
		}
	}
	if err := write(t.Start()); err != nil {
		q.gone()
		return
	}
	in := sse.NewReader(idle.Reader(body))
	for {
		if !in.Next() {
			err := in.Err()
			switch {
			case ctx.Err() != nil:
				q.gone()
				return
			case err != nil:
				s.m.errors.WithLabelValues("stream_failed").Inc()
				if idle.Silent() {
					err = fmt.Errorf("the upstream sent nothing for %s", s.cfg.StreamIdle)
				}
				finish(t.Fail(err))
			default:
				finish(t.Finish()) // cut before [DONE]: fails unless a finish reason came
			}
			break
		}
		arrived := time.Now()
		e := in.Event()
		if e.Done() {
			finish(t.Finish())
			break
		}
		if len(bytes.TrimSpace(e.Data)) == 0 {
			continue
		}
		evs := t.Next(e.Data)
		if err := write(evs); err != nil {
			q.gone()
			return
		}
		if first && len(evs) > 0 {
			first = false // the first events made of the upstream's answer
			s.m.firstEvent.Observe(time.Since(q.start).Seconds())
		}
		d := time.Since(arrived)
		s.m.chunk.Observe(d.Seconds())
		if s.cfg.Observe != nil {
			s.cfg.Observe(d)
		}
		if isTerminal(evs) {
			terminal = evs
			break
		}
	}
	q.count(t.Warnings())
	if len(terminal) > 0 {
		last := terminal[len(terminal)-1]
		q.outcome = outcomeOf(last.Type)
		if v, ok := codec.Parse(last.Data); ok {
			q.account(v.Get("response"))
		}
	}
}

func isTerminal(evs []translate.Event) bool {
	if len(evs) == 0 {
		return false
	}
	switch evs[len(evs)-1].Type {
	case "response.completed", "response.incomplete", "response.failed":
		return true
	}
	return false
}

func outcomeOf(typ string) string {
	switch typ {
	case "response.completed":
		return "completed"
	case "response.incomplete":
		return "incomplete"
	}
	return "failed"
}

// gone records that the client went away mid-stream (the upstream
// request is cancelled with the request's context).
func (q *request) gone() {
	q.outcome = "client_gone"
	q.s.m.errors.WithLabelValues("client_gone").Inc()
	q.log.Info("client gone mid-stream")
}

// fail answers an error before the first byte.
func (q *request) fail(kind string, e *translate.APIError) {
	e = e.Redacted(q.redact) // an upstream's echo of a key or bearer is masked
	q.s.m.errors.WithLabelValues(kind).Inc()
	q.log.Info("error", "kind", kind, "status", e.Status, "code", e.Code, "message", clip(e.Message, 300))
	writeError(q.w, e)
}

// warnings sends the request's warnings as a header and logs them.
func (q *request) warnings(ws []mapping.Warning) {
	if len(ws) == 0 {
		return
	}
	q.count(ws)
	q.warningsHeader(ws)
	q.logWarnings(ws)
}

// warningsHeader sets the Transponder-Warnings header (cut to
// maxWarningsHeader).
func (q *request) warningsHeader(ws []mapping.Warning) {
	if len(ws) == 0 {
		return
	}
	b := []byte{'['}
	for i, w := range ws {
		next := b
		if i > 0 {
			next = append(next, ',')
		}
		next = append(next, `{"path":`...)
		next = codec.AppendString(next, w.Path)
		next = append(next, `,"reason":`...)
		next = codec.AppendString(next, w.Reason)
		next = append(next, '}')
		if len(next) > maxWarningsHeader-1 {
			break
		}
		b = next
	}
	q.w.Header().Set(WarningsHeader, string(append(b, ']')))
}

// logWarnings logs warnings (at most maxWarningsLogged, then a count).
func (q *request) logWarnings(ws []mapping.Warning) {
	for i, w := range ws {
		if i == maxWarningsLogged {
			q.log.Info("more warnings", "count", len(ws)-i)
			break
		}
		q.log.Info("warning", "path", clip(w.Path, 200), "reason", w.Reason)
	}
}

var indexes = regexp.MustCompile(`\[\d+\]`)

// maxWarningLabels bounds the warnings metric's series: a path past it
// counts as "<other>".
const maxWarningLabels = 500

// maxWarningsLogged bounds the warnings logged per request (the rest are
// counted in one line).
const maxWarningsLogged = 20

// count counts warnings by path: indexes left out (a label per field), the
// paths of fields the spec does not know (which the client names) as one.
func (q *request) count(ws []mapping.Warning) {
	for _, w := range ws {
		label := indexes.ReplaceAllString(w.Path, "[]")
		if w.Unknown {
			label = "<unknown field>" // a key the client (or upstream) chose
		}
		q.s.m.warnings.WithLabelValues(q.s.warningLabel(label)).Inc()
	}
}

// warningLabel is label while the metric has room for it, else "<other>".
func (s *Server) warningLabel(label string) string {
	s.labelsMu.Lock()
	defer s.labelsMu.Unlock()
	if s.labels[label] || len(s.labels) < maxWarningLabels {
		s.labels[label] = true
		return label
	}
	return "<other>"
}

// account counts a Response's tokens and cost.
func (q *request) account(v codec.Value) {
	u := v.Get("usage")
	q.chargeUsage(u)
	model := q.model
	if in, ok := u.Get("input_tokens").Int(); ok {
		q.s.m.tokens.WithLabelValues(model, q.tenant, "input").Add(float64(in))
	}
	if out, ok := u.Get("output_tokens").Int(); ok {
		q.s.m.tokens.WithLabelValues(model, q.tenant, "output").Add(float64(out))
	}
	if c, ok := u.Get("cost").Float(); ok && c > 0 {
		q.s.m.cost.WithLabelValues(model, q.tenant).Add(c)
	}
	if st, _ := v.Get("status").Str(); st != "" && !q.stream {
		q.outcome = st
	}
}

func closeBody(r io.Reader) error {
	if c, ok := r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
