package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// Conversation is one stored conversation. Items are written by
// CreateConversation; GetConversation and UpdateConversation leave them
// empty (ConversationItems and ConversationHistory read them).
type Conversation struct {
	ID        string
	CreatedAt time.Time
	ExpiresAt time.Time // set by CreateConversation: CreatedAt + TTL
	// Metadata is the JSON object, stored and returned byte for byte; the
	// gateway validates it (at most 16 pairs). nil is stored as empty.
	Metadata []byte
	Items    []Item
}

func (s *sqlStore) CreateConversation(ctx context.Context, tenant string, c Conversation) error {
	if c.ID == "" {
		return fmt.Errorf("store: create conversation: empty id: %w", ErrInvalid)
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = s.now()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: create conversation %q: %w", c.ID, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	res, err := tx.ExecContext(ctx, s.q(`INSERT INTO conversations (tenant, id, created_at, expires_at, metadata, next_seq)
		VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (tenant, id) DO NOTHING`),
		tenant, c.ID, created.UnixNano(), created.Add(s.ttl).UnixNano(), nonNil(c.Metadata))
	if err != nil {
		return fmt.Errorf("store: create conversation %q: %w", c.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: create conversation %q: %w", c.ID, err)
	} else if n == 0 {
		return fmt.Errorf("store: create conversation %q: %w", c.ID, ErrExists)
	}
	if err := s.appendItems(ctx, tx, tenant, c.ID, c.Items, created); err != nil {
		return fmt.Errorf("store: create conversation %q: %w", c.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: create conversation %q: commit: %w", c.ID, err)
	}
	return nil
}

// appendItems appends items to a live conversation inside tx. Moving
// next_seq forward reserves the seqs: the UPDATE locks the row on
// PostgreSQL (a concurrent appender waits, then reads the moved counter) and
// runs inside a BEGIN IMMEDIATE transaction on SQLite (writers are
// serialized). It also says whether the conversation exists.
func (s *sqlStore) appendItems(ctx context.Context, tx *sql.Tx, tenant, convID string, items []Item, added time.Time) error {
	for i, it := range items {
		if it.ID == "" {
			return fmt.Errorf("conversation %q: item %d: empty id: %w", convID, i, ErrInvalid)
		}
	}
	var next int64
	err := tx.QueryRowContext(ctx, s.q(`UPDATE conversations SET next_seq = next_seq + ?
		WHERE tenant = ? AND id = ? AND expires_at > ? RETURNING next_seq`),
		len(items), tenant, convID, s.now().UnixNano()).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("conversation %q: %w", convID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("conversation %q: %w", convID, err)
	}
	seq := next - int64(len(items))
	for _, it := range items {
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO conversation_items (tenant, conversation_id, seq, id, added_at, body)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, id, conversation_id) DO NOTHING`),
			tenant, convID, seq, it.ID, added.UnixNano(), nonNil(it.Body))
		if err != nil {
			return fmt.Errorf("conversation %q: item %q: %w", convID, it.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("conversation %q: item %q: %w", convID, it.ID, err)
		} else if n == 0 {
			return fmt.Errorf("conversation %q: item %q: %w", convID, it.ID, ErrExists)
		}
		seq++
	}
	return nil
}

func (s *sqlStore) AppendConversationItems(ctx context.Context, tenant, convID string, items []Item) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: append to conversation %q: %w", convID, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if err := s.appendItems(ctx, tx, tenant, convID, items, s.now()); err != nil {
		return fmt.Errorf("store: append to %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: append to conversation %q: commit: %w", convID, err)
	}
	return nil
}

func (s *sqlStore) GetConversation(ctx context.Context, tenant, id string) (Conversation, error) {
	c := Conversation{ID: id}
	var created, expires int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT created_at, expires_at, metadata FROM conversations
		WHERE tenant = ? AND id = ? AND expires_at > ?`), tenant, id, s.now().UnixNano()).
		Scan(&created, &expires, &c.Metadata)
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("store: conversation %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Conversation{}, fmt.Errorf("store: conversation %q: %w", id, err)
	}
	c.CreatedAt, c.ExpiresAt = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	return c, nil
}

func (s *sqlStore) UpdateConversation(ctx context.Context, tenant, id string, metadata []byte) (Conversation, error) {
	c := Conversation{ID: id}
	var created, expires int64
	err := s.db.QueryRowContext(ctx, s.q(`UPDATE conversations SET metadata = ?
		WHERE tenant = ? AND id = ? AND expires_at > ? RETURNING created_at, expires_at, metadata`),
		nonNil(metadata), tenant, id, s.now().UnixNano()).Scan(&created, &expires, &c.Metadata)
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("store: update conversation %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Conversation{}, fmt.Errorf("store: update conversation %q: %w", id, err)
	}
	c.CreatedAt, c.ExpiresAt = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	return c, nil
}

func (s *sqlStore) DeleteConversation(ctx context.Context, tenant, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: delete conversation %q: %w", id, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	// The conversation row first: on PostgreSQL this waits for an appender
	// holding it, so the items statement (a fresh snapshot under READ
	// COMMITTED) sees what it appended.
	res, err := tx.ExecContext(ctx, s.q(`DELETE FROM conversations WHERE tenant = ? AND id = ? AND expires_at > ?`), tenant, id, s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("store: delete conversation %q: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: delete conversation %q: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("store: delete conversation %q: %w", id, ErrNotFound)
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM conversation_items WHERE tenant = ? AND conversation_id = ?`), tenant, id); err != nil {
		return fmt.Errorf("store: delete conversation %q: items: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: delete conversation %q: commit: %w", id, err)
	}
	return nil
}

func (s *sqlStore) ConversationItems(ctx context.Context, tenant, convID, after string, limit int, desc bool) ([]Item, bool, error) {
	if limit <= 0 {
		return nil, false, fmt.Errorf("store: items of conversation %q: limit %d: %w", convID, limit, ErrInvalid)
	}
	if _, err := s.GetConversation(ctx, tenant, convID); err != nil {
		return nil, false, err
	}
	cmp, order, cursor := ">", "ASC", int64(-1)
	if desc {
		cmp, order, cursor = "<", "DESC", int64(math.MaxInt32) // seq is INTEGER: int4 on PostgreSQL
	}
	if after != "" {
		err := s.db.QueryRowContext(ctx, s.q(`SELECT seq FROM conversation_items WHERE tenant = ? AND conversation_id = ? AND id = ?`),
			tenant, convID, after).Scan(&cursor)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, false, fmt.Errorf("store: items of conversation %q: after %q: %w", convID, after, ErrNotFound)
		}
		if err != nil {
			return nil, false, fmt.Errorf("store: items of conversation %q: %w", convID, err)
		}
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, body FROM conversation_items WHERE tenant = ? AND conversation_id = ? AND seq `+cmp+` ?
		ORDER BY seq `+order+` LIMIT ?`), tenant, convID, cursor, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("store: items of conversation %q: %w", convID, err)
	}
	defer rows.Close()
	var items []Item
	for rows.Next() {
		var it Item
		if err := rows.Scan(&it.ID, &it.Body); err != nil {
			return nil, false, fmt.Errorf("store: items of conversation %q: %w", convID, err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: items of conversation %q: %w", convID, err)
	}
	if len(items) > limit {
		return items[:limit], true, nil
	}
	return items, false, nil
}

func (s *sqlStore) ConversationItem(ctx context.Context, tenant, convID, itemID string) (Item, error) {
	it := Item{ID: itemID}
	err := s.db.QueryRowContext(ctx, s.q(`SELECT ci.body FROM conversation_items ci
		JOIN conversations c ON c.tenant = ci.tenant AND c.id = ci.conversation_id
		WHERE ci.tenant = ? AND ci.conversation_id = ? AND ci.id = ? AND c.expires_at > ?`),
		tenant, convID, itemID, s.now().UnixNano()).Scan(&it.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, fmt.Errorf("store: conversation %q: item %q: %w", convID, itemID, ErrNotFound)
	}
	if err != nil {
		return Item{}, fmt.Errorf("store: conversation %q: item %q: %w", convID, itemID, err)
	}
	return it, nil
}

func (s *sqlStore) DeleteConversationItem(ctx context.Context, tenant, convID, itemID string) error {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM conversation_items WHERE tenant = ? AND conversation_id = ? AND id = ?
		AND EXISTS (SELECT 1 FROM conversations c WHERE c.tenant = conversation_items.tenant
			AND c.id = conversation_items.conversation_id AND c.expires_at > ?)`),
		tenant, convID, itemID, s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("store: delete conversation %q: item %q: %w", convID, itemID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: delete conversation %q: item %q: %w", convID, itemID, err)
	} else if n == 0 {
		return fmt.Errorf("store: delete conversation %q: item %q: %w", convID, itemID, ErrNotFound)
	}
	return nil
}

func (s *sqlStore) ConversationHistory(ctx context.Context, tenant, convID string, maxItems int) ([]Item, error) {
	if maxItems <= 0 {
		return nil, fmt.Errorf("store: history of conversation %q: limit %d: %w", convID, maxItems, ErrInvalid)
	}
	limit := int64(maxItems) + 1 // one more than allowed says there are too many
	if limit <= 0 {
		limit = math.MaxInt64
	}
	// One statement: the conversation's liveness and its items agree.
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT ci.id, ci.body FROM conversations c
		LEFT JOIN conversation_items ci ON ci.tenant = c.tenant AND ci.conversation_id = c.id
		WHERE c.tenant = ? AND c.id = ? AND c.expires_at > ?
		ORDER BY ci.seq LIMIT ?`), tenant, convID, s.now().UnixNano(), limit)
	if err != nil {
		return nil, fmt.Errorf("store: history of conversation %q: %w", convID, err)
	}
	defer rows.Close()
	var (
		items []Item
		seen  bool
	)
	for rows.Next() {
		var (
			id   sql.NullString
			body []byte
		)
		if err := rows.Scan(&id, &body); err != nil {
			return nil, fmt.Errorf("store: history of conversation %q: %w", convID, err)
		}
		seen = true
		if !id.Valid {
			continue // no items
		}
		if len(items) == maxItems {
			return nil, fmt.Errorf("store: history of conversation %q: %w", convID, &ChainLimitError{Limit: maxItems})
		}
		items = append(items, Item{ID: id.String, Body: body})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: history of conversation %q: %w", convID, err)
	}
	if !seen {
		return nil, fmt.Errorf("store: conversation %q: %w", convID, ErrNotFound)
	}
	return items, nil
}

// expireConversations deletes, inside Expire's transaction, the
// conversations expired at t, then their items: deleting the rows first
// waits (PostgreSQL) for appenders holding them, so the item deletes see
// every committed append and leave no orphans.
func (s *sqlStore) expireConversations(ctx context.Context, tx *sql.Tx, t int64) (int, error) {
	rows, err := tx.QueryContext(ctx, s.q(`SELECT tenant, id FROM conversations WHERE expires_at <= ? LIMIT ?`), t, expireBatch)
	if err != nil {
		return 0, fmt.Errorf("store: expire conversations: %w", err)
	}
	type key struct{ tenant, id string }
	var gone []key
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.tenant, &k.id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store: expire conversations: %w", err)
		}
		gone = append(gone, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: expire conversations: %w", err)
	}
	for _, k := range gone { // the conversation first: an append waits for it, then finds it gone
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM conversations WHERE tenant = ? AND id = ?`), k.tenant, k.id); err != nil {
			return 0, fmt.Errorf("store: expire conversation %q: %w", k.id, err)
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM conversation_items WHERE tenant = ? AND conversation_id = ?`), k.tenant, k.id); err != nil {
			return 0, fmt.Errorf("store: expire conversation %q: items: %w", k.id, err)
		}
	}
	return len(gone), nil
}
