package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// DefaultMaxChainItems bounds the items a previous_response_id chain or a
// conversation brings into one request.
const DefaultMaxChainItems = 10000

// storeTimeout bounds one store operation (a database that hangs must not
// hold a request for ever: it answers 503).
const storeTimeout = 10 * time.Second

// maxIDLen bounds the ids the gateway looks up: longer ones are malformed.
const maxIDLen = 256

// validID says id can name a stored object: not empty, at most maxIDLen
// bytes of valid UTF-8 without control characters. Another id names
// nothing, and is answered so without asking the store (PostgreSQL's text
// cannot even hold a NUL or invalid UTF-8: it fails, which would be a 503).
func validID(id string) bool {
	return id != "" && len(id) <= maxIDLen && utf8.ValidString(id) && !strings.ContainsFunc(id, unicode.IsControl)
}

// turn is what a request does with the store: whether its response is
// stored, what it continues (previous_response_id or conversation), how
// many items that brought in front of its input, and its own input items
// (with ids) to store.
type turn struct {
	store   bool
	prev    string
	conv    string
	history int
	input   []store.Item
}

// owner is the tenant stored objects belong to: the gateway key's tenant,
// or in pass-through mode a hash of the client's bearer (each key sees its
// own objects; the bearer itself is never stored).
func (s *Server) owner(tenant, bearer string) string {
	if !s.cfg.PassThrough {
		return tenant
	}
	sum := sha256.Sum256([]byte(bearer))
	return "bearer:" + hex.EncodeToString(sum[:16])
}

// storeCtx is the context of a store operation: not cancelled with the
// request (a response whose client left is still stored), bounded.
func storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
}

// unavailable is the answer when the store fails: 503, retryable. The
// error itself is logged, not sent (it may name the database's host and
// user).
func (s *Server) unavailable(err error, what string) *translate.APIError {
	s.m.errors.WithLabelValues("store_failed").Inc()
	s.log.Error("store", "error", err.Error())
	return &translate.APIError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "server_error", RetryAfter: "1",
		Message: "the gateway's store is unavailable: " + what + "; retry"}
}

func badRequest(param, code, msg string) *translate.APIError {
	return &translate.APIError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param, Code: code, Message: msg}
}

// prepare reads what the request asks of the store, loads what it
// continues and resolves its item references. body is what the mapping
// converts: the request as sent, or, when it continues a stored chain or
// conversation or references items, the request with its input made of
// the stored items then its own (and no conversation member: the mapping
// knows none).
func (q *request) prepare(doc codec.Value, body []byte) ([]byte, *translate.APIError) {
	s := q.s
	tu := &q.turn
	prev, conv := doc.Get("previous_response_id"), doc.Get("conversation")
	if s.cfg.Store == nil { // the mapping refuses conversation
		if prev.Kind() == codec.String {
			return nil, badRequest("previous_response_id", "unsupported_parameter", "previous_response_id is not supported: this gateway runs without a store; send the conversation's items in input instead")
		}
		return body, nil
	}
	tu.store = true
	switch v := doc.Get("store"); v.Kind() {
	case codec.Bool:
		tu.store, _ = v.Bool()
	case codec.Null, codec.Invalid:
	default:
		return nil, badRequest("store", "invalid_type", "Invalid type for 'store': expected a boolean.")
	}
	switch prev.Kind() {
	case codec.String:
		tu.prev, _ = prev.Str()
		if !strings.HasPrefix(tu.prev, "resp") || !validID(tu.prev) {
			return nil, badRequest("previous_response_id", "invalid_value", fmt.Sprintf("Invalid 'previous_response_id': %q. Expected an ID that begins with 'resp'.", clip(tu.prev, 64)))
		}
	case codec.Null, codec.Invalid:
	default:
		return nil, badRequest("previous_response_id", "invalid_type", "Invalid type for 'previous_response_id': expected a string.")
	}
	switch conv.Kind() {
	case codec.String:
		tu.conv, _ = conv.Str()
		if tu.conv == "" {
			return nil, badRequest("conversation", "invalid_value", "Invalid 'conversation': an empty string. Expected an ID that begins with 'conv'.")
		}
	case codec.Object:
		id := conv.Get("id")
		if id.Kind() != codec.String {
			return nil, badRequest("conversation.id", "missing_required_parameter", "Missing required parameter: 'conversation.id'.")
		}
		tu.conv, _ = id.Str()
	case codec.Null, codec.Invalid:
	default:
		return nil, badRequest("conversation", "invalid_type", "Invalid type for 'conversation': expected a string or an object with an id.")
	}
	if tu.conv != "" && (!strings.HasPrefix(tu.conv, "conv") || !validID(tu.conv)) {
		return nil, badRequest("conversation", "invalid_value", fmt.Sprintf("Invalid 'conversation': %q. Expected an ID that begins with 'conv'.", clip(tu.conv, 64)))
	}
	if tu.prev != "" && tu.conv != "" {
		return nil, badRequest("conversation", "mutually_exclusive_parameters", "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.")
	}

	ctx, cancel := storeCtx(q.r.Context())
	defer cancel()
	var history []store.Item
	var err error
	start := time.Now()
	switch {
	case tu.prev != "":
		history, err = s.cfg.Store.Chain(ctx, q.owner, tu.prev, s.cfg.MaxChainItems)
		var missing *store.MissingLinkError
		var long *store.ChainLimitError
		switch {
		case errors.As(err, &missing) && missing.ID != tu.prev:
			return nil, badRequest("previous_response_id", "previous_response_not_found", fmt.Sprintf("Previous response with id '%s' not found: the chain it continues goes through response '%s', which was deleted or has expired.", tu.prev, clip(missing.ID, maxIDLen)))
		case errors.Is(err, store.ErrNotFound):
			return nil, badRequest("previous_response_id", "previous_response_not_found", fmt.Sprintf("Previous response with id '%s' not found.", tu.prev))
		case errors.As(err, &long):
			return nil, badRequest("previous_response_id", "chain_too_long", fmt.Sprintf("the chain of previous_response_id '%s' holds more than the gateway's limit of %d items; start a new chain with the items you need in input", tu.prev, long.Limit))
		}
	case tu.conv != "":
		history, err = s.cfg.Store.ConversationHistory(ctx, q.owner, tu.conv, s.cfg.MaxChainItems)
		var long *store.ChainLimitError
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil, badRequest("conversation", "conversation_not_found", fmt.Sprintf("Conversation with id '%s' not found.", clip(tu.conv, maxIDLen)))
		case errors.As(err, &long):
			return nil, badRequest("conversation", "conversation_too_long", fmt.Sprintf("conversation '%s' holds more than the gateway's limit of %d items", tu.conv, long.Limit))
		}
	}
	if err != nil {
		return nil, s.unavailable(err, "what the request continues could not be read")
	}
	if tu.prev != "" || tu.conv != "" {
		s.m.store.WithLabelValues("chain").Observe(time.Since(start).Seconds())
	}
	tu.history = len(history)

	// This request's input: its items with ids, item references resolved.
	rewrite := tu.history > 0 || tu.conv != ""
	items, refs, ok, aerr := s.resolveItems(ctx, q.owner, doc.Get("input"), "input")
	if aerr != nil {
		return nil, aerr
	}
	if !ok {
		return body, nil // the mapping refuses the input, naming what is wrong
	}
	tu.input, rewrite = items, rewrite || refs
	if tu.store || len(history) > 0 { // a stored turn (and what it continues) holds an item once
		seen := make(map[string]bool, len(history)+len(items))
		for _, it := range history {
			seen[it.ID] = true
		}
		for i, it := range items {
			if seen[it.ID] {
				return nil, badRequest(fmt.Sprintf("input[%d].id", i), "invalid_value", fmt.Sprintf("Duplicate item found with id '%s'.", clip(it.ID, maxIDLen)))
			}
			seen[it.ID] = true
		}
	}
	if !rewrite {
		return body, nil
	}
	size := len(body) + 16
	for _, items := range [][]store.Item{history, tu.input} {
		for _, it := range items {
			size += len(it.Body) + 1
		}
	}
	// At its final size, in a buffer of an earlier request's (a chain may
	// be megabytes: allocating them anew for each turn is garbage the
	// next turns pay for); the request gives it back when it ends.
	q.buf = bodyBuffers.Get().(*[]byte)
	if cap(*q.buf) < size {
		*q.buf = make([]byte, 0, size)
	}
	out := append((*q.buf)[:0], '{')
	first := true
	for k, m := range doc.Members() {
		if k.Is("input") || k.Is("conversation") {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(appendKey(out, k), m.Raw()...)
	}
	if !first {
		out = append(out, ',')
	}
	out = append(out, `"input":[`...)
	n := 0
	for _, items := range [][]store.Item{history, tu.input} {
		for _, it := range items {
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = append(out, it.Body...)
		}
	}
	out = append(out, "]}"...)
	*q.buf = out
	return out, nil
}

// bodyBuffers hold the bodies prepare assembles, for reuse.
var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBody bounds the buffers kept for reuse.
const maxPooledBody = 32 << 20

// release gives the assembled body's buffer back (when the request ends:
// nothing reads the body after).
func (q *request) release() {
	if q.buf != nil && cap(*q.buf) <= maxPooledBody {
		bodyBuffers.Put(q.buf)
	}
	q.buf = nil
}

// resolveItems reads a list of input items (or a string: one user
// message) as stored: each with an id (given one when it has none), an
// item_reference replaced by the stored item. refs says whether there
// was one; ok is false when the list is not one the gateway can read (not
// a string or an array of objects: the mapping names what is wrong).
func (s *Server) resolveItems(ctx context.Context, owner string, in codec.Value, param string) (items []store.Item, refs, ok bool, aerr *translate.APIError) {
	switch in.Kind() {
	case codec.String:
		text, _ := in.Str()
		id := s.cfg.IDs.NewID("msg")
		b := []byte(`{"id":`)
		b = codec.AppendString(b, id)
		b = append(b, `,"type":"message","role":"user","content":[{"type":"input_text","text":`...)
		b = append(codec.AppendString(b, text), "}]"...)
		if needsStatus("message") {
			b = append(b, `,"status":"completed"`...)
		}
		b = append(b, '}')
		return []store.Item{{ID: id, Role: store.RoleInput, Body: b}}, false, true, nil
	case codec.Array:
	case codec.Invalid, codec.Null:
		return nil, false, true, nil // none: what is continued is the input
	default:
		return nil, false, false, nil
	}
	for i, it := range in.Elems() {
		if it.Kind() != codec.Object {
			return nil, false, false, nil
		}
		typ, _ := it.Get("type").Str()
		if typ == "item_reference" {
			p := fmt.Sprintf("%s[%d].id", param, i)
			id, _ := it.Get("id").Str()
			if !validID(id) {
				return nil, false, false, badRequest(p, "invalid_value", fmt.Sprintf("Invalid item_reference id %q.", clip(id, 64)))
			}
			stored, err := s.cfg.Store.Item(ctx, owner, id)
			if errors.Is(err, store.ErrNotFound) {
				return nil, false, false, badRequest(p, "invalid_value", fmt.Sprintf("Item with id '%s' not found.", id))
			}
			if err != nil {
				return nil, false, false, s.unavailable(err, "the item reference could not be resolved")
			}
			refs = true
			items = append(items, store.Item{ID: stored.ID, Role: store.RoleInput, Body: stored.Body})
			continue
		}
		id, b := withID(it, typ, s.cfg.IDs)
		items = append(items, store.Item{ID: id, Role: store.RoleInput, Body: b})
	}
	return items, refs, true, nil
}

// idPrefixes are the prefixes of the ids the gateway gives input items
// that come without one, by type (OpenAI's where it has one).
var idPrefixes = map[string]string{
	"message":              "msg",
	"function_call":        "fc",
	"function_call_output": "fco",
	"reasoning":            "rs",
	"custom_tool_call":     "ctc",
}

// withID is an input item as stored: the item as sent when it has an id
// and the shape the spec's stored item requires; otherwise with an id
// given (first) if it has none, an easy message made a message item
// (type "message", a string content made one input_text part, or
// output_text for the assistant's), and "status":"completed" where the
// stored item requires a status — the shape input_items and the
// conversation's items list. (Parts sent as arrays are kept as sent.)
func withID(it codec.Value, typ string, ids translate.IDSource) (string, []byte) {
	role, _ := it.Get("role").Str()
	msg := typ == "message" || typ == "" && role != ""
	kind := typ
	if msg {
		kind = "message"
	}
	status := needsStatus(kind) && it.Get("status").Kind() != codec.String
	text := msg && it.Get("content").Kind() == codec.String
	id := ""
	if v := it.Get("id"); v.Kind() == codec.String {
		id, _ = v.Str() // "" is none
		if id != "" && !status && !text {
			return id, append([]byte(nil), it.Raw()...)
		}
	}
	if id == "" {
		prefix := "item"
		if p, ok := idPrefixes[typ]; ok {
			prefix = p
		} else if msg {
			prefix = "msg"
		}
		id = ids.NewID(prefix)
	}
	b := []byte(`{"id":`)
	b = codec.AppendString(b, id)
	if typ == "" && msg {
		b = append(b, `,"type":"message"`...)
	}
	for k, m := range it.Members() {
		if k.Is("id") || k.Is("status") && status {
			continue // a null id or status
		}
		b = appendKey(append(b, ','), k)
		if msg && k.Is("content") && m.Kind() == codec.String {
			text, _ := m.Str()
			part := "input_text"
			if role == "assistant" {
				part = "output_text"
			}
			b = append(append(append(b, `[{"type":"`...), part...), `","text":`...)
			b = codec.AppendString(b, text)
			if role == "assistant" {
				b = append(b, `,"annotations":[],"logprobs":[]`...)
			}
			b = append(b, "}]"...)
			continue
		}
		b = append(b, m.Raw()...)
	}
	if status {
		b = append(b, `,"status":"completed"`...)
	}
	return id, append(b, '}')
}

// statusRequired lists the item types whose stored form (the pinned
// spec's ConversationItem variant) requires a status.
var statusRequired = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	root, ok := codec.OpenAI.Payload(codec.ConversationItemBody)
	if !ok {
		return out
	}
	for v := range root.Schema().Variants() {
		if p, ok := v.Schema.Property("status"); ok && p.Required {
			out[v.Value] = true
		}
	}
	return out
})

func needsStatus(typ string) bool { return statusRequired()[typ] }

// appendKey appends a member's key as it was sent, and its colon.
func appendKey(dst []byte, k codec.Key) []byte {
	return append(append(append(append(dst, '"'), k.Raw()...), '"'), ':')
}

// unshift names a path of the converted request as the client sent it:
// input[N] counts the stored items in front of the client's.
func (tu *turn) unshift(path string) string {
	if tu.history == 0 || !strings.HasPrefix(path, "input[") {
		return path
	}
	end := strings.IndexByte(path, ']')
	if end < 0 {
		return path
	}
	n, err := strconv.Atoi(path[len("input["):end])
	if err != nil {
		return path
	}
	if n >= tu.history {
		return "input[" + strconv.Itoa(n-tu.history) + path[end:]
	}
	from := "previous_response_id"
	if tu.conv != "" {
		from = "conversation"
	}
	return from + ": stored item " + strconv.Itoa(n) + path[end+1:]
}

// unshiftWarnings names the warnings' paths as the client sent them.
func (tu *turn) unshiftWarnings(ws []mapping.Warning) []mapping.Warning {
	if tu.history == 0 {
		return ws
	}
	out := make([]mapping.Warning, len(ws))
	for i, w := range ws {
		w.Path = tu.unshift(w.Path)
		out[i] = w
	}
	return out
}

// commit stores a Response (its JSON as sent) with the turn's input and
// its output items; in a conversation, they are appended to it in the
// same transaction. Nothing is written for store:false, in a
// conversation or not (the conversation's items are read, not added to).
func (q *request) commit(resp []byte) error {
	tu := &q.turn
	if q.s.cfg.Store == nil || !tu.store {
		return nil
	}
	body := append([]byte(nil), resp...) // the store keeps it, and the items are slices of it
	v, ok := codec.Parse(body)
	if !ok {
		return errors.New("the response to store is not JSON")
	}
	id, _ := v.Get("id").Str()
	var output []store.Item
	for _, it := range v.Get("output").Elems() {
		iid, _ := it.Get("id").Str()
		output = append(output, store.Item{ID: iid, Role: store.RoleOutput, Body: it.Raw()})
	}
	ctx, cancel := storeCtx(q.r.Context())
	defer cancel()
	start := time.Now()
	err := q.s.cfg.Store.PutResponse(ctx, q.owner, store.Response{
		ID: id, PreviousID: tu.prev, ConversationID: tu.conv, CreatedAt: q.s.cfg.Clock(),
		Body: body, Input: tu.input, Output: output,
	})
	q.s.m.store.WithLabelValues("put").Observe(time.Since(start).Seconds())
	if err != nil {
		if errors.Is(err, store.ErrNotFound) && tu.conv != "" {
			return &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "conversation_not_found", Param: "conversation", Message: fmt.Sprintf("Conversation with id '%s' was deleted while the response was made: the response is not stored.", tu.conv)}
		}
		return q.s.unavailable(fmt.Errorf("response %s: %w", id, err), "the response was made but could not be stored")
	}
	return nil
}
