package store

import (
	"context"
	"fmt"
	"time"
)

// expireBatch bounds the responses (and conversations) one expiry
// transaction deletes: a writer waits for one batch at most, never for a
// scan of the store.
const expireBatch = 256

func (s *sqlStore) Expire(ctx context.Context, now time.Time) (int, error) {
	t := now.UnixNano()
	total := 0
	for {
		resps, convs, err := s.expireOnce(ctx, t)
		total += resps + convs
		if err != nil || resps < expireBatch && convs < expireBatch {
			return total, err
		}
	}
}

// expireOnce deletes one batch of expired responses and conversations
// with their items, found through the expires_at indexes and deleted by
// their keys.
func (s *sqlStore) expireOnce(ctx context.Context, t int64) (resps, convs int, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("store: expire: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	type key struct{ tenant, id string }
	var gone []key
	rows, err := tx.QueryContext(ctx, s.q(`SELECT tenant, id FROM responses WHERE expires_at <= ? LIMIT ?`), t, expireBatch)
	if err != nil {
		return 0, 0, fmt.Errorf("store: expire responses: %w", err)
	}
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.tenant, &k.id); err != nil {
			rows.Close()
			return 0, 0, fmt.Errorf("store: expire responses: %w", err)
		}
		gone = append(gone, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("store: expire responses: %w", err)
	}
	for _, k := range gone {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM items WHERE tenant = ? AND response_id = ?`), k.tenant, k.id); err != nil {
			return 0, 0, fmt.Errorf("store: expire response %q: items: %w", k.id, err)
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM responses WHERE tenant = ? AND id = ?`), k.tenant, k.id); err != nil {
			return 0, 0, fmt.Errorf("store: expire response %q: %w", k.id, err)
		}
	}
	convs, err = s.expireConversations(ctx, tx, t)
	if err != nil {
		return 0, 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("store: expire: commit: %w", err)
	}
	return len(gone), convs, nil
}
