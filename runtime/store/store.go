package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// DefaultTTL is how long a stored response lives when Config.TTL is zero.
const DefaultTTL = 30 * 24 * time.Hour

// Errors. Reads of another tenant's object or of an expired one are
// ErrNotFound too.
var (
	ErrNotFound = errors.New("not found")
	ErrExists   = errors.New("already exists")
	ErrInvalid  = errors.New("invalid argument")
)

// MissingLinkError is returned by Chain when a response the chain goes
// through is not stored (deleted, expired, never stored). It wraps
// ErrNotFound.
type MissingLinkError struct{ ID string }

func (e *MissingLinkError) Error() string {
	return fmt.Sprintf("store: chain link %q: %v", e.ID, ErrNotFound)
}
func (e *MissingLinkError) Unwrap() error { return ErrNotFound }

// ChainLimitError is returned by Chain when the chain holds more items (or
// turns) than the limit asked for.
type ChainLimitError struct{ Limit int }

func (e *ChainLimitError) Error() string {
	return fmt.Sprintf("store: chain has more than %d items (the limit of stored items per chain)", e.Limit)
}

// Role says whether an item was a response's input or its output.
type Role string

const (
	RoleInput  Role = "input"
	RoleOutput Role = "output"
)

// Item is one stored item: its id and its JSON, verbatim. Role is set on the
// items of responses; a conversation's items have none ("").
type Item struct {
	ID   string
	Role Role
	Body []byte
}

// Response is one stored response. Input and Output are written by
// PutResponse; GetResponse leaves them empty (Body has the output, InputItems
// and Chain read the items).
type Response struct {
	ID             string
	PreviousID     string // "" when the response starts a chain
	ConversationID string // "" when not in a conversation; else PutResponse appends Input and Output to it
	CreatedAt      time.Time
	ExpiresAt      time.Time // set by PutResponse: CreatedAt + TTL
	Body           []byte
	Input, Output  []Item
}

// Config selects and configures a backend.
type Config struct {
	// Driver is "sqlite" or "postgres".
	Driver string
	// DSN: for sqlite the database file's path (its directory is created);
	// for postgres a pgx connection string.
	DSN string
	// TTL of stored responses; DefaultTTL when zero.
	TTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// CacheBytes bounds the cache of stored responses' items that Chain
	// reads from (DefaultCacheBytes when zero; negative: no cache).
	CacheBytes int64
	// MaxConns bounds the database connections (default 16 for SQLite,
	// 32 for PostgreSQL: under its usual max_connections of 100 with
	// several instances); requests beyond it wait for one.
	MaxConns int
}

// Store is the stored-responses API the gateway uses.
type Store interface {
	// PutResponse stores r with its items in one transaction: all or nothing.
	// It keeps the items' bodies (cached for Chain): the caller must not
	// change them afterwards.
	// An id already stored for the tenant is ErrExists. Item ids must be set.
	// When r.ConversationID is set, the same transaction appends r.Input then
	// r.Output to that conversation (see AppendConversationItems): a
	// conversation the tenant does not have is ErrNotFound and nothing is
	// written.
	PutResponse(ctx context.Context, tenant string, r Response) error
	// GetResponse returns the response without its items.
	GetResponse(ctx context.Context, tenant, id string) (Response, error)
	// DeleteResponse removes the response and its items.
	DeleteResponse(ctx context.Context, tenant, id string) error
	// Chain returns the items of the chain ending at id: each turn's input then
	// output, oldest turn first. See MissingLinkError and ChainLimitError.
	Chain(ctx context.Context, tenant, id string, maxItems int) ([]Item, error)
	// Item returns a stored item by id: an input or output item of a live
	// response or an item of a live conversation; of several copies, the
	// most recently stored.
	Item(ctx context.Context, tenant, id string) (Item, error)
	// InputItems pages through a response's input items, in stored order
	// (desc: reversed), starting after the item with id after ("" from the
	// start). hasMore says whether items follow the page.
	InputItems(ctx context.Context, tenant, responseID, after string, limit int, desc bool) (items []Item, hasMore bool, err error)

	// CreateConversation stores c with its items (in order) in one
	// transaction. An id already stored for the tenant is ErrExists, so is
	// an item id given twice. c.ExpiresAt is ignored (CreatedAt + TTL).
	CreateConversation(ctx context.Context, tenant string, c Conversation) error
	// GetConversation returns the conversation without its items.
	GetConversation(ctx context.Context, tenant, id string) (Conversation, error)
	// UpdateConversation replaces the metadata and returns the conversation.
	// It does not extend the conversation's life.
	UpdateConversation(ctx context.Context, tenant, id string, metadata []byte) (Conversation, error)
	// DeleteConversation removes the conversation and its items (not the
	// responses made in it).
	DeleteConversation(ctx context.Context, tenant, id string) error
	// AppendConversationItems appends items at the end of the conversation,
	// atomically: concurrent appends do not interleave. An item id already in
	// the conversation is ErrExists (nothing appended). Appending does not
	// extend the conversation's life.
	AppendConversationItems(ctx context.Context, tenant, conversationID string, items []Item) error
	// ConversationItems pages through a conversation's items like InputItems:
	// oldest first (desc: newest first), after the item with id after; an
	// after that is not an item of the conversation is ErrNotFound.
	ConversationItems(ctx context.Context, tenant, conversationID, after string, limit int, desc bool) (items []Item, hasMore bool, err error)
	// ConversationItem returns one item of the conversation.
	ConversationItem(ctx context.Context, tenant, conversationID, itemID string) (Item, error)
	// DeleteConversationItem removes one item from the conversation.
	DeleteConversationItem(ctx context.Context, tenant, conversationID, itemID string) error
	// ConversationHistory returns all the conversation's items, oldest
	// first: the context a response made in the conversation starts from.
	// More than maxItems is a *ChainLimitError.
	ConversationHistory(ctx context.Context, tenant, conversationID string, maxItems int) ([]Item, error)

	// Expire deletes the responses and conversations expired at now with
	// their items and returns how many responses and conversations it
	// deleted.
	Expire(ctx context.Context, now time.Time) (int, error)
	// Ping asks the database a cheap query (its tables are readable): nil
	// when it answers, within ctx.
	Ping(ctx context.Context) error
	Close() error
}

type dialect int

const (
	sqlite dialect = iota
	postgres
)

type sqlStore struct {
	db      *sql.DB
	dialect dialect
	ttl     time.Duration
	now     func() time.Time
	cache   *itemCache // nil: none
}

// Open opens (creating it if needed) the store and applies the pending
// migrations.
func Open(ctx context.Context, cfg Config) (Store, error) {
	s := &sqlStore{ttl: cfg.TTL, now: cfg.Now}
	if s.ttl == 0 {
		s.ttl = DefaultTTL
	}
	if s.ttl < 0 {
		return nil, fmt.Errorf("store: ttl %v: %w", cfg.TTL, ErrInvalid)
	}
	if s.now == nil {
		s.now = time.Now
	}
	switch {
	case cfg.CacheBytes == 0:
		s.cache = newItemCache(DefaultCacheBytes)
	case cfg.CacheBytes > 0:
		s.cache = newItemCache(cfg.CacheBytes)
	}
	var err error
	switch cfg.Driver {
	case "sqlite":
		if cfg.DSN == "" {
			return nil, fmt.Errorf("store: sqlite: empty database path: %w", ErrInvalid)
		}
		if err := os.MkdirAll(filepath.Dir(cfg.DSN), 0o755); err != nil {
			return nil, fmt.Errorf("store: sqlite: %w", err)
		}
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "journal_mode(WAL)")
		// WAL's usual setting: a commit is durable across a crash of the
		// process (kill -9) and the file is never corrupt; a power cut may
		// lose the last commits. FULL would fsync every commit, on the way
		// to each terminal event.
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
		s.dialect = sqlite
		s.db, err = sql.Open("sqlite", "file:"+(&url.URL{Path: cfg.DSN}).EscapedPath()+"?"+q.Encode())
	case "postgres":
		s.dialect = postgres
		s.db, err = sql.Open("pgx", cfg.DSN)
	default:
		return nil, fmt.Errorf("store: driver %q (want sqlite or postgres): %w", cfg.Driver, ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", cfg.Driver, err)
	}
	conns := cfg.MaxConns
	if conns <= 0 {
		conns = 16
		if s.dialect == postgres {
			conns = 32
		}
	}
	s.db.SetMaxOpenConns(conns)
	s.db.SetMaxIdleConns(conns)
	if err := s.migrateRetrying(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// migrateRetrying migrates, again while SQLite answers busy: instances
// opening a new file at once race for the switch to WAL, which SQLite
// refuses at once (SQLITE_BUSY, no busy handler) rather than waits for.
func (s *sqlStore) migrateRetrying(ctx context.Context) error {
	deadline := time.Now().Add(busyRetry)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := s.migrate(ctx)
		if err == nil || s.dialect != sqlite || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// busyRetry bounds migrateRetrying.
const busyRetry = 30 * time.Second

// isBusy reports whether err is SQLite's SQLITE_BUSY (or SQLITE_LOCKED).
func isBusy(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		c := coded.Code() & 0xff
		return c == 5 || c == 6
	}
	return strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked")
}

func (s *sqlStore) Close() error { return s.db.Close() }

// q rebinds a query written with ? placeholders for the dialect.
func (s *sqlStore) q(query string) string {
	if s.dialect != postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func nullable(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func (s *sqlStore) PutResponse(ctx context.Context, tenant string, r Response) error {
	if r.ID == "" {
		return fmt.Errorf("store: put response: empty id: %w", ErrInvalid)
	}
	created := r.CreatedAt
	if created.IsZero() {
		created = s.now()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: put response %q: %w", r.ID, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	res, err := tx.ExecContext(ctx, s.q(`INSERT INTO responses (tenant, id, previous_response_id, conversation_id, created_at, expires_at, body)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, id) DO NOTHING`),
		tenant, r.ID, nullable(r.PreviousID), nullable(r.ConversationID), created.UnixNano(), created.Add(s.ttl).UnixNano(), nonNil(r.Body))
	if err != nil {
		return fmt.Errorf("store: put response %q: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: put response %q: %w", r.ID, err)
	} else if n == 0 {
		return fmt.Errorf("store: put response %q: %w", r.ID, ErrExists)
	}
	seq := 0
	for _, part := range []struct {
		role  Role
		items []Item
	}{{RoleInput, r.Input}, {RoleOutput, r.Output}} {
		for i, it := range part.items {
			if it.ID == "" {
				return fmt.Errorf("store: put response %q: %s item %d: empty id: %w", r.ID, part.role, i, ErrInvalid)
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO items (tenant, response_id, seq, id, role, body) VALUES (?, ?, ?, ?, ?, ?)`),
				tenant, r.ID, seq, it.ID, string(part.role), nonNil(it.Body)); err != nil {
				return fmt.Errorf("store: put response %q: %s item %d: %w", r.ID, part.role, i, err)
			}
			seq++
		}
	}
	if r.ConversationID != "" {
		items := append(append(make([]Item, 0, len(r.Input)+len(r.Output)), r.Input...), r.Output...)
		if err := s.appendItems(ctx, tx, tenant, r.ConversationID, items, created); err != nil {
			return fmt.Errorf("store: put response %q: %w", r.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: put response %q: commit: %w", r.ID, err)
	}
	// The next turn chains from it: its items are cached (their bodies
	// as given: PutResponse keeps them).
	items := make([]Item, 0, len(r.Input)+len(r.Output))
	for _, part := range [][]Item{r.Input, r.Output} {
		for _, it := range part {
			role := RoleInput
			if len(items) >= len(r.Input) {
				role = RoleOutput
			}
			items = append(items, Item{ID: it.ID, Role: role, Body: nonNil(it.Body)})
		}
	}
	s.cache.put(cacheKey(tenant, r.ID, created.UnixNano()), items)
	return nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (s *sqlStore) GetResponse(ctx context.Context, tenant, id string) (Response, error) {
	var (
		r              = Response{ID: id}
		prev, conv     sql.NullString
		created, expir int64
	)
	err := s.db.QueryRowContext(ctx, s.q(`SELECT previous_response_id, conversation_id, created_at, expires_at, body
		FROM responses WHERE tenant = ? AND id = ? AND expires_at > ?`), tenant, id, s.now().UnixNano()).
		Scan(&prev, &conv, &created, &expir, &r.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return Response{}, fmt.Errorf("store: response %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Response{}, fmt.Errorf("store: response %q: %w", id, err)
	}
	r.PreviousID, r.ConversationID = prev.String, conv.String
	r.CreatedAt, r.ExpiresAt = time.Unix(0, created).UTC(), time.Unix(0, expir).UTC()
	return r, nil
}

func (s *sqlStore) DeleteResponse(ctx context.Context, tenant, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: delete response %q: %w", id, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	res, err := tx.ExecContext(ctx, s.q(`DELETE FROM responses WHERE tenant = ? AND id = ? AND expires_at > ?`), tenant, id, s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("store: delete response %q: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: delete response %q: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("store: delete response %q: %w", id, ErrNotFound)
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM items WHERE tenant = ? AND response_id = ?`), tenant, id); err != nil {
		return fmt.Errorf("store: delete response %q: items: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: delete response %q: commit: %w", id, err)
	}
	return nil
}
