package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Reading what is stored: a chain of responses, one item, a response's
// input items.

// linksQuery walks previous_response_id from the head (depth 0) back at
// most ? links, over live responses only: the chain's ids, links and
// creation times, no bodies.
const linksQuery = `WITH RECURSIVE chain (id, prev, created, depth) AS (
		SELECT id, previous_response_id, created_at, 0 FROM responses WHERE tenant = ? AND id = ? AND expires_at > ?
	UNION ALL
		SELECT r.id, r.previous_response_id, r.created_at, c.depth + 1 FROM chain c
		JOIN responses r ON r.tenant = ? AND r.id = c.prev AND r.expires_at > ?
		WHERE c.depth < ?
	)
	SELECT depth, id, prev, created FROM chain`

// itemsBatch bounds the responses whose items one query reads.
const itemsBatch = 500

// Chain reads the chain's links (one small query), then the items of the
// responses the cache does not have — each response's items are read at
// most once per instance while they stay cached: a chain grows by one
// response a turn, and the turn before was cached when it was stored.
func (s *sqlStore) Chain(ctx context.Context, tenant, id string, maxItems int) ([]Item, error) {
	if maxItems <= 0 {
		return nil, fmt.Errorf("store: chain %q: limit %d: %w", id, maxItems, ErrInvalid)
	}
	now := s.now().UnixNano()
	// A turn holds at least one item in practice, so maxItems also bounds
	// the turns walked (and a cycle, which PutResponse cannot make anyway).
	rows, err := s.db.QueryContext(ctx, s.q(linksQuery), tenant, id, now, tenant, now, maxItems)
	if err != nil {
		return nil, fmt.Errorf("store: chain %q: %w", id, err)
	}
	type link struct {
		depth   int
		id      string
		prev    sql.NullString
		created int64
		items   []Item
	}
	var links []link
	for rows.Next() {
		var l link
		if err := rows.Scan(&l.depth, &l.id, &l.prev, &l.created); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: chain %q: %w", id, err)
		}
		links = append(links, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: chain %q: %w", id, err)
	}
	if len(links) == 0 {
		return nil, fmt.Errorf("store: response %q: %w", id, ErrNotFound)
	}
	slices.SortFunc(links, func(a, b link) int { return cmp.Compare(b.depth, a.depth) }) // oldest first
	if tail := links[0]; tail.prev.Valid {
		if tail.depth >= maxItems {
			return nil, fmt.Errorf("store: chain %q: %w", id, &ChainLimitError{Limit: maxItems})
		}
		return nil, fmt.Errorf("store: chain %q: %w", id, &MissingLinkError{ID: tail.prev.String})
	}
	// The cached responses' items; the others read, by batches.
	missing := map[string]int{} // id → index in links
	var ids []any
	for i := range links {
		l := &links[i]
		var ok bool
		if l.items, ok = s.cache.get(cacheKey(tenant, l.id, l.created)); !ok {
			missing[l.id] = i
			ids = append(ids, l.id)
		}
	}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), itemsBatch)]
		ids = ids[len(batch):]
		if err := s.readItems(ctx, tenant, now, batch, func(respID string, created int64, items []Item) {
			if i, ok := missing[respID]; ok && links[i].created == created {
				links[i].items = items
				s.cache.put(cacheKey(tenant, respID, created), items)
				delete(missing, respID)
			}
		}); err != nil {
			return nil, fmt.Errorf("store: chain %q: %w", id, err)
		}
	}
	// A response deleted (or stored anew) between the two reads.
	for _, l := range links {
		if _, ok := missing[l.id]; ok {
			return nil, fmt.Errorf("store: chain %q: %w", id, &MissingLinkError{ID: l.id})
		}
	}
	n := 0
	for _, l := range links {
		n += len(l.items)
	}
	if n > maxItems {
		return nil, fmt.Errorf("store: chain %q: %w", id, &ChainLimitError{Limit: maxItems})
	}
	items := make([]Item, 0, n)
	for _, l := range links {
		items = append(items, l.items...)
	}
	return items, nil
}

// readItems reads the items of the live responses among ids, each
// response's in order, handing them to f per response (with the
// response's creation time; a response without items is handed none).
func (s *sqlStore) readItems(ctx context.Context, tenant string, now int64, ids []any, f func(id string, created int64, items []Item)) error {
	q := `SELECT r.id, r.created_at, i.seq, i.id, i.role, i.body FROM responses r
		LEFT JOIN items i ON i.tenant = r.tenant AND i.response_id = r.id
		WHERE r.tenant = ? AND r.expires_at > ? AND r.id IN (?` + strings.Repeat(",?", len(ids)-1) + `)`
	rows, err := s.db.QueryContext(ctx, s.q(q), append([]any{tenant, now}, ids...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	// No ORDER BY: sorting would carry the bodies through the database's
	// sorter; the rows are put in order here, by their small keys.
	type row struct {
		seq  int64
		item Item
	}
	byResp := map[string][]row{}
	created := map[string]int64{}
	var order []string
	for rows.Next() {
		var (
			respID       string
			at           int64
			seq          sql.NullInt64
			itemID, role sql.NullString
			body         []byte
		)
		if err := rows.Scan(&respID, &at, &seq, &itemID, &role, &body); err != nil {
			return err
		}
		if _, ok := created[respID]; !ok {
			created[respID] = at
			order = append(order, respID)
		}
		if itemID.Valid {
			byResp[respID] = append(byResp[respID], row{seq.Int64, Item{ID: itemID.String, Role: Role(role.String), Body: body}})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range order {
		rs := byResp[id]
		slices.SortFunc(rs, func(a, b row) int { return cmp.Compare(a.seq, b.seq) })
		items := make([]Item, len(rs))
		for i, r := range rs {
			items[i] = r.item
		}
		f(id, created[id], items)
	}
	return nil
}

func (s *sqlStore) Item(ctx context.Context, tenant, id string) (Item, error) {
	it := Item{ID: id}
	var role sql.NullString
	now := s.now().UnixNano()
	// The newest copy: a response's items were stored at its created_at, a
	// conversation's at their added_at; at a tie (a response made in a
	// conversation stores both) the response's copy, which has a role.
	err := s.db.QueryRowContext(ctx, s.q(`SELECT role, body FROM (
			SELECT i.role AS role, i.body AS body, r.created_at AS t, 0 AS place, i.seq AS seq FROM items i
			JOIN responses r ON r.tenant = i.tenant AND r.id = i.response_id
			WHERE i.tenant = ? AND i.id = ? AND r.expires_at > ?
		UNION ALL
			SELECT NULL, ci.body, ci.added_at, 1, ci.seq FROM conversation_items ci
			JOIN conversations c ON c.tenant = ci.tenant AND c.id = ci.conversation_id
			WHERE ci.tenant = ? AND ci.id = ? AND c.expires_at > ?
		) copies ORDER BY t DESC, place, seq DESC LIMIT 1`), tenant, id, now, tenant, id, now).Scan(&role, &it.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, fmt.Errorf("store: item %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Item{}, fmt.Errorf("store: item %q: %w", id, err)
	}
	it.Role = Role(role.String)
	return it, nil
}

func (s *sqlStore) InputItems(ctx context.Context, tenant, responseID, after string, limit int, desc bool) ([]Item, bool, error) {
	if limit <= 0 {
		return nil, false, fmt.Errorf("store: input items of %q: limit %d: %w", responseID, limit, ErrInvalid)
	}
	if _, err := s.GetResponse(ctx, tenant, responseID); err != nil {
		return nil, false, err
	}
	cmp, order, cursor := ">", "ASC", int64(-1)
	if desc {
		cmp, order, cursor = "<", "DESC", int64(math.MaxInt32) // seq is INTEGER: int4 on PostgreSQL
	}
	if after != "" {
		err := s.db.QueryRowContext(ctx, s.q(`SELECT seq FROM items WHERE tenant = ? AND response_id = ? AND role = 'input' AND id = ? ORDER BY seq LIMIT 1`),
			tenant, responseID, after).Scan(&cursor)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, false, fmt.Errorf("store: input items of %q: after %q: %w", responseID, after, ErrNotFound)
		}
		if err != nil {
			return nil, false, fmt.Errorf("store: input items of %q: %w", responseID, err)
		}
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, body FROM items WHERE tenant = ? AND response_id = ? AND role = 'input' AND seq `+cmp+` ?
		ORDER BY seq `+order+` LIMIT ?`), tenant, responseID, cursor, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("store: input items of %q: %w", responseID, err)
	}
	defer rows.Close()
	var items []Item
	for rows.Next() {
		it := Item{Role: RoleInput}
		if err := rows.Scan(&it.ID, &it.Body); err != nil {
			return nil, false, fmt.Errorf("store: input items of %q: %w", responseID, err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: input items of %q: %w", responseID, err)
	}
	if len(items) > limit {
		return items[:limit], true, nil
	}
	return items, false, nil
}
