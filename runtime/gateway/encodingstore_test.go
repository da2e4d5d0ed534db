package gateway_test

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/transponder-dev/transponder/runtime/store"
)

// encodingStore is a store that, like PostgreSQL's text columns, fails
// (not ErrNotFound) on an id with a NUL or invalid UTF-8: such an id names
// nothing, and the gateway must say so without asking.
type encodingStore struct{ store.Store }

var errEncoding = errors.New(`invalid byte sequence for encoding "UTF8"`)

func unstorable(ids ...string) bool {
	for _, id := range ids {
		if strings.ContainsRune(id, 0) || !utf8.ValidString(id) {
			return true
		}
	}
	return false
}

func (s encodingStore) GetResponse(ctx context.Context, tenant, id string) (store.Response, error) {
	if unstorable(id) {
		return store.Response{}, errEncoding
	}
	return s.Store.GetResponse(ctx, tenant, id)
}

func (s encodingStore) DeleteResponse(ctx context.Context, tenant, id string) error {
	if unstorable(id) {
		return errEncoding
	}
	return s.Store.DeleteResponse(ctx, tenant, id)
}

func (s encodingStore) Chain(ctx context.Context, tenant, id string, maxItems int) ([]store.Item, error) {
	if unstorable(id) {
		return nil, errEncoding
	}
	return s.Store.Chain(ctx, tenant, id, maxItems)
}

func (s encodingStore) Item(ctx context.Context, tenant, id string) (store.Item, error) {
	if unstorable(id) {
		return store.Item{}, errEncoding
	}
	return s.Store.Item(ctx, tenant, id)
}

func (s encodingStore) InputItems(ctx context.Context, tenant, id, after string, limit int, desc bool) ([]store.Item, bool, error) {
	if unstorable(id, after) {
		return nil, false, errEncoding
	}
	return s.Store.InputItems(ctx, tenant, id, after, limit, desc)
}

func (s encodingStore) GetConversation(ctx context.Context, tenant, id string) (store.Conversation, error) {
	if unstorable(id) {
		return store.Conversation{}, errEncoding
	}
	return s.Store.GetConversation(ctx, tenant, id)
}

func (s encodingStore) UpdateConversation(ctx context.Context, tenant, id string, metadata []byte) (store.Conversation, error) {
	if unstorable(id) {
		return store.Conversation{}, errEncoding
	}
	return s.Store.UpdateConversation(ctx, tenant, id, metadata)
}

func (s encodingStore) DeleteConversation(ctx context.Context, tenant, id string) error {
	if unstorable(id) {
		return errEncoding
	}
	return s.Store.DeleteConversation(ctx, tenant, id)
}

func (s encodingStore) AppendConversationItems(ctx context.Context, tenant, id string, items []store.Item) error {
	if unstorable(id) {
		return errEncoding
	}
	return s.Store.AppendConversationItems(ctx, tenant, id, items)
}

func (s encodingStore) ConversationItems(ctx context.Context, tenant, id, after string, limit int, desc bool) ([]store.Item, bool, error) {
	if unstorable(id, after) {
		return nil, false, errEncoding
	}
	return s.Store.ConversationItems(ctx, tenant, id, after, limit, desc)
}

func (s encodingStore) ConversationItem(ctx context.Context, tenant, id, item string) (store.Item, error) {
	if unstorable(id, item) {
		return store.Item{}, errEncoding
	}
	return s.Store.ConversationItem(ctx, tenant, id, item)
}

func (s encodingStore) DeleteConversationItem(ctx context.Context, tenant, id, item string) error {
	if unstorable(id, item) {
		return errEncoding
	}
	return s.Store.DeleteConversationItem(ctx, tenant, id, item)
}

func (s encodingStore) ConversationHistory(ctx context.Context, tenant, id string, maxItems int) ([]store.Item, error) {
	if unstorable(id) {
		return nil, errEncoding
	}
	return s.Store.ConversationHistory(ctx, tenant, id, maxItems)
}
