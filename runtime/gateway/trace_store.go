package gateway

// The store's operations as spans (see tracedStore). Their arguments are
// ids and tenants' owners (in pass-through mode a hash of a bearer): none
// is put on a span.

import (
	"context"

	"github.com/transponder-dev/transponder/runtime/store"
)

func (s tracedStore) PutResponse(ctx context.Context, tenant string, r store.Response) error {
	ctx, span := s.start(ctx, "PutResponse")
	err := s.Store.PutResponse(ctx, tenant, r)
	end(span, err, len(r.Input)+len(r.Output))
	return err
}

func (s tracedStore) GetResponse(ctx context.Context, tenant, id string) (store.Response, error) {
	ctx, span := s.start(ctx, "GetResponse")
	r, err := s.Store.GetResponse(ctx, tenant, id)
	end(span, err, -1)
	return r, err
}

func (s tracedStore) DeleteResponse(ctx context.Context, tenant, id string) error {
	ctx, span := s.start(ctx, "DeleteResponse")
	err := s.Store.DeleteResponse(ctx, tenant, id)
	end(span, err, -1)
	return err
}

func (s tracedStore) Chain(ctx context.Context, tenant, id string, maxItems int) ([]store.Item, error) {
	ctx, span := s.start(ctx, "Chain")
	items, err := s.Store.Chain(ctx, tenant, id, maxItems)
	end(span, err, len(items))
	return items, err
}

func (s tracedStore) Item(ctx context.Context, tenant, id string) (store.Item, error) {
	ctx, span := s.start(ctx, "Item")
	it, err := s.Store.Item(ctx, tenant, id)
	end(span, err, -1)
	return it, err
}

func (s tracedStore) InputItems(ctx context.Context, tenant, responseID, after string, limit int, desc bool) ([]store.Item, bool, error) {
	ctx, span := s.start(ctx, "InputItems")
	items, more, err := s.Store.InputItems(ctx, tenant, responseID, after, limit, desc)
	end(span, err, len(items))
	return items, more, err
}

func (s tracedStore) CreateConversation(ctx context.Context, tenant string, c store.Conversation) error {
	ctx, span := s.start(ctx, "CreateConversation")
	err := s.Store.CreateConversation(ctx, tenant, c)
	end(span, err, len(c.Items))
	return err
}

func (s tracedStore) GetConversation(ctx context.Context, tenant, id string) (store.Conversation, error) {
	ctx, span := s.start(ctx, "GetConversation")
	c, err := s.Store.GetConversation(ctx, tenant, id)
	end(span, err, -1)
	return c, err
}

func (s tracedStore) UpdateConversation(ctx context.Context, tenant, id string, metadata []byte) (store.Conversation, error) {
	ctx, span := s.start(ctx, "UpdateConversation")
	c, err := s.Store.UpdateConversation(ctx, tenant, id, metadata)
	end(span, err, -1)
	return c, err
}

func (s tracedStore) DeleteConversation(ctx context.Context, tenant, id string) error {
	ctx, span := s.start(ctx, "DeleteConversation")
	err := s.Store.DeleteConversation(ctx, tenant, id)
	end(span, err, -1)
	return err
}

func (s tracedStore) AppendConversationItems(ctx context.Context, tenant, conversationID string, items []store.Item) error {
	ctx, span := s.start(ctx, "AppendConversationItems")
	err := s.Store.AppendConversationItems(ctx, tenant, conversationID, items)
	end(span, err, len(items))
	return err
}

func (s tracedStore) ConversationItems(ctx context.Context, tenant, conversationID, after string, limit int, desc bool) ([]store.Item, bool, error) {
	ctx, span := s.start(ctx, "ConversationItems")
	items, more, err := s.Store.ConversationItems(ctx, tenant, conversationID, after, limit, desc)
	end(span, err, len(items))
	return items, more, err
}

func (s tracedStore) ConversationItem(ctx context.Context, tenant, conversationID, itemID string) (store.Item, error) {
	ctx, span := s.start(ctx, "ConversationItem")
	it, err := s.Store.ConversationItem(ctx, tenant, conversationID, itemID)
	end(span, err, -1)
	return it, err
}

func (s tracedStore) DeleteConversationItem(ctx context.Context, tenant, conversationID, itemID string) error {
	ctx, span := s.start(ctx, "DeleteConversationItem")
	err := s.Store.DeleteConversationItem(ctx, tenant, conversationID, itemID)
	end(span, err, -1)
	return err
}

func (s tracedStore) ConversationHistory(ctx context.Context, tenant, conversationID string, maxItems int) ([]store.Item, error) {
	ctx, span := s.start(ctx, "ConversationHistory")
	items, err := s.Store.ConversationHistory(ctx, tenant, conversationID, maxItems)
	end(span, err, len(items))
	return items, err
}
