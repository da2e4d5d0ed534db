package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// The Conversations API: a conversation is an ordered list of items kept
// by the gateway; a response made with conversation: its items come
// before the request's input, and its input and output items are
// appended to it (with the stored response, in one transaction).

// maxAddItems is the most items one create or add may carry (the spec's
// maxItems); metadata is held to mapping.CheckMetadata.
const (
	maxAddItems = 20
	maxConvBody = 4 << 20
)

func (s *Server) conversationRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/conversations", s.createConversation)
	mux.HandleFunc("GET /v1/conversations/{id}", s.getConversation)
	mux.HandleFunc("POST /v1/conversations/{id}", s.updateConversation)
	mux.HandleFunc("DELETE /v1/conversations/{id}", s.deleteConversation)
	mux.HandleFunc("GET /v1/conversations/{id}/items", s.listConversationItems)
	mux.HandleFunc("POST /v1/conversations/{id}/items", s.addConversationItems)
	mux.HandleFunc("GET /v1/conversations/{id}/items/{item}", s.getConversationItem)
	mux.HandleFunc("DELETE /v1/conversations/{id}/items/{item}", s.deleteConversationItem)
}

func conversationNotFound(id string) *translate.APIError {
	return &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "conversation_id", Message: fmt.Sprintf("Conversation with id '%s' not found.", clip(id, maxIDLen))}
}

func itemNotFound(conv, item string) *translate.APIError {
	return &translate.APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "item_id", Message: fmt.Sprintf("Item with id '%s' not found in conversation '%s'.", clip(item, maxIDLen), clip(conv, maxIDLen))}
}

// knownConversation says id can name a conversation (validID); if not,
// it answers the 404 an unknown one gets, without asking the store
// (PostgreSQL's text cannot hold a NUL or invalid UTF-8: asking would fail,
// a 503). The routes call it where they would ask the store, after
// authentication and the request's own checks, so such an id is answered
// as an unknown one is.
func knownConversation(w http.ResponseWriter, id string) bool {
	if !validID(id) {
		writeError(w, conversationNotFound(id))
		return false
	}
	return true
}

// readObject reads a request body that must be a JSON object (an empty
// body is {} when empty is allowed) of the payload p: what the pinned
// spec does not allow of it (an unknown parameter, a value of the wrong
// kind, a missing required one) is refused, naming it. Input items are
// checked by the mapping afterwards (newItems).
func (s *Server) readObject(w http.ResponseWriter, r *http.Request, empty bool, p codec.Payload) (codec.Value, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxConvBody))
	if err != nil {
		writeError(w, badRequest("", "invalid_json", "reading the request body: "+err.Error()))
		return codec.Value{}, false
	}
	if empty && len(body) == 0 {
		body = []byte("{}")
	}
	v, ok := codec.Parse(body)
	if !ok || v.Kind() != codec.Object {
		writeError(w, badRequest("", "invalid_json", "We could not parse the JSON body of your request: it is not a JSON object."))
		return codec.Value{}, false
	}
	root, ok := codec.OpenAI.Payload(p)
	if !ok {
		return v, true
	}
	doc, err := codec.Decode(root, body)
	if err != nil {
		writeError(w, badRequest("", "invalid_json", "We could not parse the JSON body of your request: "+err.Error()))
		return codec.Value{}, false
	}
	for _, f := range doc.Findings() {
		switch {
		case f.Kind == codec.UnknownField && f.TopLevel():
			writeError(w, badRequest(f.Path(), "unknown_parameter", fmt.Sprintf("Unknown parameter: '%s'.", clip(f.Path(), 80))))
			return codec.Value{}, false
		case f.Kind == codec.WrongKind:
			writeError(w, badRequest(f.Path(), "invalid_type", fmt.Sprintf("Invalid type for '%s': want %s.", clip(f.Path(), 80), f.Want())))
			return codec.Value{}, false
		case f.Kind == codec.MissingField && f.TopLevel():
			writeError(w, badRequest(f.Path(), "missing_required_parameter", fmt.Sprintf("Missing required parameter: '%s'.", f.Path())))
			return codec.Value{}, false
		}
	}
	return v, true
}

// metadata checks a metadata value as a request's is checked
// (mapping.CheckMetadata), or null/absent ({}). It returns the bytes to
// store, as sent.
func metadata(v codec.Value) ([]byte, *translate.APIError) {
	if v.Kind() == codec.Invalid || v.Kind() == codec.Null {
		return []byte("{}"), nil
	}
	if e := mapping.CheckMetadata(v); e != nil {
		return nil, badRequest(e.Param, e.Code, e.Message)
	}
	return append([]byte(nil), v.Raw()...), nil
}

// newItems reads the items of a create or add: at most 20 input items,
// each stored with an id, item references resolved. The items must be
// ones the mapping can send upstream later, after the conversation's
// (history): they are checked by converting them so.
func (s *Server) newItems(ctx context.Context, owner string, history []store.Item, v codec.Value, required bool) ([]store.Item, *translate.APIError) {
	switch v.Kind() {
	case codec.Invalid, codec.Null:
		if required {
			return nil, badRequest("items", "missing_required_parameter", "Missing required parameter: 'items'.")
		}
		return nil, nil
	case codec.Array:
	default:
		return nil, badRequest("items", "invalid_type", "Invalid type for 'items': expected an array.")
	}
	n := 0
	for range v.Elems() {
		n++
	}
	if n > maxAddItems {
		return nil, badRequest("items", "array_above_max_length", fmt.Sprintf("Invalid 'items': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", maxAddItems, n))
	}
	items, _, ok, aerr := s.resolveItems(ctx, owner, v, "items")
	if aerr != nil {
		return nil, aerr
	}
	if !ok {
		return nil, badRequest("items", "invalid_type", "Invalid 'items': expected an array of input items (objects).")
	}
	if aerr := s.checkItems(history, items); aerr != nil {
		return nil, aerr
	}
	return items, nil
}

// checkItems refuses items the mapping could not send upstream after the
// conversation's, naming them as items[i]: converting them as a
// request's input is the check.
func (s *Server) checkItems(history, items []store.Item) *translate.APIError {
	if len(items) == 0 {
		return nil
	}
	body := []byte(`{"model":"check","input":[`)
	n := 0
	for _, list := range [][]store.Item{history, items} {
		for _, it := range list {
			if n > 0 {
				body = append(body, ',')
			}
			n++
			body = append(body, it.Body...)
		}
	}
	body = append(body, "]}"...)
	wk := s.workers.Get().(*worker)
	defer s.workers.Put(wk)
	opts := s.cfg.Mapping
	opts.Items = nil
	opts.OpenCalls = true // a conversation may end with calls to run
	_, _, err := wk.conv.ResponsesToChat(nil, body, opts)
	var me *mapping.Error
	switch {
	case errors.As(err, &me):
		tu := turn{history: len(history), conv: "conversation"}
		param := tu.unshift(me.Param)
		if rest, ok := strings.CutPrefix(param, "input"); ok {
			param = "items" + rest
		}
		return badRequest(param, me.Code, me.Message)
	case err != nil:
		return badRequest("items", "invalid_value", err.Error())
	}
	return nil
}

func (s *Server) appendConversation(dst []byte, c store.Conversation) []byte {
	dst = append(dst, `{"id":`...)
	dst = codec.AppendString(dst, c.ID)
	dst = append(dst, `,"object":"conversation","created_at":`...)
	dst = strconv.AppendInt(dst, c.CreatedAt.Unix(), 10)
	dst = append(dst, `,"metadata":`...)
	if len(c.Metadata) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = append(dst, c.Metadata...)
	}
	return append(dst, '}')
}

// createConversation serves POST /v1/conversations.
func (s *Server) createConversation(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	v, ok := s.readObject(w, r, true, codec.ConversationCreateRequest)
	if !ok {
		return
	}
	meta, aerr := metadata(v.Get("metadata"))
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	items, aerr := s.newItems(ctx, owner, nil, v.Get("items"), false)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	c := store.Conversation{ID: s.cfg.IDs.NewID("conv"), CreatedAt: s.cfg.Clock(), Metadata: meta, Items: items}
	if err := s.cfg.Store.CreateConversation(ctx, owner, c); err != nil {
		if errors.Is(err, store.ErrExists) {
			writeError(w, badRequest("items", "invalid_value", "Duplicate item found: an item id is given twice."))
			return
		}
		s.storeError(w, err, func() *translate.APIError { return conversationNotFound(c.ID) })
		return
	}
	writeJSON(w, s.appendConversation(nil, c))
}

// getConversation serves GET /v1/conversations/{id}.
func (s *Server) getConversation(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if !knownConversation(w, id) {
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	c, err := s.cfg.Store.GetConversation(ctx, owner, id)
	if err != nil {
		s.storeError(w, err, func() *translate.APIError { return conversationNotFound(id) })
		return
	}
	writeJSON(w, s.appendConversation(nil, c))
}

// updateConversation serves POST /v1/conversations/{id}: its metadata
// replaced.
func (s *Server) updateConversation(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	v, ok := s.readObject(w, r, false, codec.ConversationUpdateRequest)
	if !ok {
		return
	}
	mv := v.Get("metadata")
	if !mv.Exists() {
		writeError(w, badRequest("metadata", "missing_required_parameter", "Missing required parameter: 'metadata'."))
		return
	}
	meta, aerr := metadata(mv)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if !knownConversation(w, id) {
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	c, err := s.cfg.Store.UpdateConversation(ctx, owner, id, meta)
	if err != nil {
		s.storeError(w, err, func() *translate.APIError { return conversationNotFound(id) })
		return
	}
	writeJSON(w, s.appendConversation(nil, c))
}

// deleteConversation serves DELETE /v1/conversations/{id}.
func (s *Server) deleteConversation(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if !knownConversation(w, id) {
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	if err := s.cfg.Store.DeleteConversation(ctx, owner, id); err != nil {
		s.storeError(w, err, func() *translate.APIError { return conversationNotFound(id) })
		return
	}
	b := []byte(`{"id":`)
	b = codec.AppendString(b, id)
	writeJSON(w, append(b, `,"object":"conversation.deleted","deleted":true}`...))
}

// listConversationItems serves GET /v1/conversations/{id}/items.
func (s *Server) listConversationItems(w http.ResponseWriter, r *http.Request) {
	s.listItems(w, r, func(ctx context.Context, owner, id, after string, limit int, desc bool) ([]store.Item, bool, error) {
		return s.cfg.Store.ConversationItems(ctx, owner, id, after, limit, desc)
	}, func(ctx context.Context, owner, id string) error {
		_, err := s.cfg.Store.GetConversation(ctx, owner, id)
		return err
	}, "No item with id '%s' in conversation '%s'.", conversationNotFound)
}

// addConversationItems serves POST /v1/conversations/{id}/items: the
// items appended; the answer lists them.
func (s *Server) addConversationItems(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if _, aerr := includes(r); aerr != nil {
		writeError(w, aerr)
		return
	}
	v, ok := s.readObject(w, r, false, codec.ConversationItemsCreateRequest)
	if !ok || !knownConversation(w, id) {
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	history, err := s.cfg.Store.ConversationHistory(ctx, owner, id, s.cfg.MaxChainItems)
	var long *store.ChainLimitError
	if errors.As(err, &long) {
		writeError(w, badRequest("items", "conversation_too_long", fmt.Sprintf("conversation '%s' holds more than the gateway's limit of %d items", id, long.Limit)))
		return
	}
	if err != nil {
		s.storeError(w, err, func() *translate.APIError { return conversationNotFound(id) })
		return
	}
	items, aerr := s.newItems(ctx, owner, history, v.Get("items"), true)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if err := s.cfg.Store.AppendConversationItems(ctx, owner, id, items); err != nil {
		if errors.Is(err, store.ErrExists) {
			writeError(w, badRequest("items", "invalid_value", fmt.Sprintf("Duplicate item found: conversation '%s' already holds an item of these ids, or one is given twice.", id)))
			return
		}
		s.storeError(w, err, func() *translate.APIError { return conversationNotFound(id) })
		return
	}
	writeJSON(w, appendList(nil, items, false))
}

// getConversationItem serves GET /v1/conversations/{id}/items/{item}.
func (s *Server) getConversationItem(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id, item := r.PathValue("id"), r.PathValue("item")
	if _, aerr := includes(r); aerr != nil {
		writeError(w, aerr)
		return
	}
	if !knownConversation(w, id) {
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	if !validID(item) { // the item names nothing: which of the two is not found
		writeError(w, s.itemOrConversation(ctx, owner, id, item))
		return
	}
	it, err := s.cfg.Store.ConversationItem(ctx, owner, id, item)
	if err != nil {
		s.storeError(w, err, func() *translate.APIError { return s.itemOrConversation(ctx, owner, id, item) })
		return
	}
	writeJSON(w, it.Body)
}

// deleteConversationItem serves DELETE
// /v1/conversations/{id}/items/{item}: the answer is the conversation.
func (s *Server) deleteConversationItem(w http.ResponseWriter, r *http.Request) {
	owner, ok := s.authed(w, r)
	if !ok {
		return
	}
	id, item := r.PathValue("id"), r.PathValue("item")
	if !knownConversation(w, id) {
		return
	}
	ctx, cancel := storeCtx(r.Context())
	defer cancel()
	if !validID(item) { // the item names nothing: which of the two is not found
		writeError(w, s.itemOrConversation(ctx, owner, id, item))
		return
	}
	if err := s.cfg.Store.DeleteConversationItem(ctx, owner, id, item); err != nil {
		s.storeError(w, err, func() *translate.APIError { return s.itemOrConversation(ctx, owner, id, item) })
		return
	}
	c, err := s.cfg.Store.GetConversation(ctx, owner, id)
	if err != nil {
		s.storeError(w, err, func() *translate.APIError { return conversationNotFound(id) })
		return
	}
	writeJSON(w, s.appendConversation(nil, c))
}

// itemOrConversation says which of the two is not found.
func (s *Server) itemOrConversation(ctx context.Context, owner, conv, item string) *translate.APIError {
	if _, err := s.cfg.Store.GetConversation(ctx, owner, conv); err != nil {
		return conversationNotFound(conv)
	}
	return itemNotFound(conv, item)
}
