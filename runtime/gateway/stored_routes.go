package gateway

// The routes of stored responses: GET and DELETE /v1/responses/{id},
// GET /v1/responses/{id}/input_items, and what they share with the
// Conversations routes (auth with a store, paging, lists, include).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

func (s *Server) authed(w http.ResponseWriter, r *http.Request) (owner string, ok bool) {
	tenant, bearer, aerr := s.tenant(r)
	if aerr != nil {
		s.m.errors.WithLabelValues("auth").Inc()
		writeError(w, aerr)
		return "", false
	}
	if s.cfg.Store == nil {
		s.m.errors.WithLabelValues("not_stored").Inc()
		param := "response_id"
		if strings.HasPrefix(r.URL.Path, "/v1/conversations") {
			param = "conversation_id"
		}
		writeError(w, &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: param,
			Message: "No stored object at " + clip(r.URL.Path, 128) + ": this gateway runs without a store (store.driver none); send the conversation's items in input instead"})
		return "", false
	}
	return s.owner(tenant, bearer), true
}

func responseNotFound(id string) *translate.APIError {
	return &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "response_id", Message: fmt.Sprintf("No response found with id '%s'.", clip(id, maxIDLen))}
}

// storeError answers a store error: not found as 404 (made by nf), the
// rest as 503.
func (s *Server) storeError(w http.ResponseWriter, err error, nf func() *translate.APIError) {
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, nf())
		return
	}
	writeError(w, s.unavailable(err, "the stored object could not be read or written"))
}

// includes reads include / include[] of a query: the values the spec's
// include allows, or an error naming the one it does not.
func includes(r *http.Request) (set map[string]bool, aerr *translate.APIError) {
	q := r.URL.Query()
	vals := append(q["include[]"], q["include"]...)
	if len(vals) == 0 {
		return nil, nil
	}
	allowed := includable()
	set = map[string]bool{}
	for _, v := range vals {
		if !allowed[v] {
			return nil, badRequest("include", "invalid_value", fmt.Sprintf("Invalid value for 'include': %q is not one the API knows.", clip(v, 64)))
		}
		set[v] = true
	}
	return set, nil
}

// includable is the values the pinned spec's include allows (read once).
var includable = sync.OnceValue(func() map[string]bool {
	allowed := map[string]bool{}
	root, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	if sc, err := root.Schema().Lookup("include[]"); err == nil {
		for _, v := range sc.Values() {
			allowed[v] = true
		}
	}
	return allowed
})

// getResponse serves GET /v1/responses/{id}: the Response as it was sent
// (reasoning's encrypted_content only when include asks for it again).
func (s *Server) getResponse(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	inc, aerr := includes(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if st := r.URL.Query().Get("stream"); st == "true" {
		writeError(w, badRequest("stream", "unsupported_parameter", "stream is not supported on GET /v1/responses/{id}: this gateway does not replay streams (background responses come later); omit it to get the Response"))
		return
	}
	if !validID(id) {
		writeError(w, responseNotFound(id))
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	resp, err := s.cfg.Store.GetResponse(ctx, owner, id)
	if err != nil {
		s.storeError(w, err, func() *translate.APIError { return responseNotFound(id) })
		return
	}
	body := resp.Body
	if !inc[mapping.IncludeEncryptedReasoning] {
		body = withoutEncrypted(body)
	}
	writeJSON(w, body)
}

// withoutEncrypted is a Response without its reasoning items'
// encrypted_content (unchanged when it has none).
func withoutEncrypted(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"encrypted_content"`)) {
		return body
	}
	v, ok := codec.Parse(body)
	if !ok {
		return body
	}
	out := []byte{'{'}
	n := 0
	for k, m := range v.Members() {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = appendKey(out, k)
		if !k.Is("output") {
			out = append(out, m.Raw()...)
			continue
		}
		out = append(out, '[')
		for i, it := range m.Elems() {
			if i > 0 {
				out = append(out, ',')
			}
			if typ, _ := it.Get("type").Str(); typ != "reasoning" || !it.Get("encrypted_content").Exists() {
				out = append(out, it.Raw()...)
				continue
			}
			out = append(out, '{')
			j := 0
			for ik, im := range it.Members() {
				if ik.Is("encrypted_content") {
					continue
				}
				if j > 0 {
					out = append(out, ',')
				}
				j++
				out = append(appendKey(out, ik), im.Raw()...)
			}
			out = append(out, '}')
		}
		out = append(out, ']')
	}
	return append(out, '}')
}

// deleteResponse serves DELETE /v1/responses/{id}.
func (s *Server) deleteResponse(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if !validID(id) {
		writeError(w, responseNotFound(id))
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	if err := s.cfg.Store.DeleteResponse(ctx, owner, id); err != nil {
		s.storeError(w, err, func() *translate.APIError { return responseNotFound(id) })
		return
	}
	b := []byte(`{"id":`)
	b = codec.AppendString(b, id)
	writeJSON(w, append(b, `,"object":"response","deleted":true}`...))
}

// page reads after, limit (1–100, default 20) and order (asc|desc,
// default desc) of a list request.
func page(r *http.Request) (after string, limit int, desc bool, aerr *translate.APIError) {
	q := r.URL.Query()
	after, limit, desc = q.Get("after"), 20, true
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		switch {
		case err != nil && !isInteger(l):
			return "", 0, false, badRequest("limit", "invalid_type", fmt.Sprintf("Invalid type for 'limit': expected an integer, but got %q instead.", clip(l, 32)))
		case err == nil && n < 1 || err != nil && l[0] == '-':
			return "", 0, false, badRequest("limit", "integer_below_min_value", fmt.Sprintf("Invalid 'limit': integer below minimum value. Expected a value >= 1, but got %s instead.", clip(l, 32)))
		case err != nil || n > 100:
			return "", 0, false, badRequest("limit", "integer_above_max_value", fmt.Sprintf("Invalid 'limit': integer above maximum value. Expected a value <= 100, but got %s instead.", clip(l, 32)))
		}
		limit = n
	}
	switch o := q.Get("order"); o {
	case "", "desc":
	case "asc":
		desc = false
	default:
		return "", 0, false, badRequest("order", "invalid_value", fmt.Sprintf("Invalid 'order': %q. Expected 'asc' or 'desc'.", clip(o, 32)))
	}
	return after, limit, desc, nil
}

// isInteger says s is an integer's digits (with a sign), of any size.
func isInteger(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// appendList writes a list object of items.
func appendList(dst []byte, items []store.Item, hasMore bool) []byte {
	dst = append(dst, `{"object":"list","data":[`...)
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it.Body...)
	}
	dst = append(dst, `],"first_id":`...)
	if len(items) > 0 {
		dst = codec.AppendString(dst, items[0].ID)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"last_id":`...)
	if len(items) > 0 {
		dst = codec.AppendString(dst, items[len(items)-1].ID)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"has_more":`...)
	dst = strconv.AppendBool(dst, hasMore)
	return append(dst, '}')
}

// inputItems serves GET /v1/responses/{id}/input_items.
func (s *Server) inputItems(w http.ResponseWriter, r *http.Request) {
	s.listItems(w, r, func(ctx context.Context, owner, id, after string, limit int, desc bool) ([]store.Item, bool, error) {
		return s.cfg.Store.InputItems(ctx, owner, id, after, limit, desc)
	}, func(ctx context.Context, owner, id string) error {
		_, err := s.cfg.Store.GetResponse(ctx, owner, id)
		return err
	}, "No input item with id '%s' in response '%s'.", responseNotFound)
}

// listItems serves a page of a stored list of items (a response's input,
// a conversation's items): list reads it; when it fails and the page
// starts after an item, exists tells an unknown item (badAfter, a 400
// naming after) from an unknown owner (notFound).
func (s *Server) listItems(w http.ResponseWriter, r *http.Request,
	list func(ctx context.Context, owner, id, after string, limit int, desc bool) ([]store.Item, bool, error),
	exists func(ctx context.Context, owner, id string) error,
	badAfter string, notFound func(id string) *translate.APIError) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	after, limit, desc, aerr := page(r)
	if aerr == nil {
		_, aerr = includes(r)
	}
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if !validID(id) {
		writeError(w, notFound(id))
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	if after != "" && !validID(after) {
		if err := exists(ctx, owner, id); err != nil {
			s.storeError(w, err, func() *translate.APIError { return notFound(id) })
			return
		}
		writeError(w, badRequest("after", "invalid_value", fmt.Sprintf(badAfter, clip(after, maxIDLen), id)))
		return
	}
	items, more, err := list(ctx, owner, id, after, limit, desc)
	if err != nil {
		s.storeError(w, err, func() *translate.APIError {
			if after != "" && exists(ctx, owner, id) == nil {
				return badRequest("after", "invalid_value", fmt.Sprintf(badAfter, clip(after, maxIDLen), id))
			}
			return notFound(id)
		})
		return
	}
	writeJSON(w, appendList(nil, items, more))
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
}

// ExpireLoop deletes expired objects every interval until ctx ends, in
// the background of the requests (it never blocks one); errors are logged
// and retried at the next tick.
func ExpireLoop(ctx context.Context, st store.Store, every time.Duration, now func() time.Time, log interface{ Info(string, ...any) }) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		n, err := st.Expire(ctx, now())
		switch {
		case err != nil && ctx.Err() == nil:
			log.Info("store expiry failed", "error", err.Error())
		case n > 0:
			log.Info("store expired", "responses", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
