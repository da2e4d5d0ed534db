package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// migrations are applied in order; a migration is never edited once
// released, a change is a new one. {{blob}} is the binary column type of the
// dialect. Statements do not use IF NOT EXISTS: a migration that ran twice
// would fail loudly.
var migrations = [][]string{
	1: {
		`CREATE TABLE responses (
			tenant TEXT NOT NULL,
			id TEXT NOT NULL,
			previous_response_id TEXT,
			conversation_id TEXT,
			created_at BIGINT NOT NULL,
			expires_at BIGINT NOT NULL,
			body {{blob}} NOT NULL,
			PRIMARY KEY (tenant, id)
		)`,
		`CREATE INDEX responses_expires_at ON responses (expires_at)`,
		`CREATE TABLE items (
			tenant TEXT NOT NULL,
			response_id TEXT NOT NULL,
			seq INTEGER NOT NULL,
			id TEXT NOT NULL,
			role TEXT NOT NULL CHECK (role IN ('input', 'output')),
			body {{blob}} NOT NULL,
			PRIMARY KEY (tenant, response_id, seq)
		)`,
		`CREATE INDEX items_id ON items (tenant, id)`,
	},
	// Conversations. next_seq is the next free seq of the conversation's
	// items: an appender moves it forward with one UPDATE, which also locks
	// the row (PostgreSQL) so concurrent appenders take distinct ranges.
	2: {
		`CREATE TABLE conversations (
			tenant TEXT NOT NULL,
			id TEXT NOT NULL,
			created_at BIGINT NOT NULL,
			expires_at BIGINT NOT NULL,
			metadata {{blob}} NOT NULL,
			next_seq INTEGER NOT NULL,
			PRIMARY KEY (tenant, id)
		)`,
		`CREATE INDEX conversations_expires_at ON conversations (expires_at)`,
		`CREATE TABLE conversation_items (
			tenant TEXT NOT NULL,
			conversation_id TEXT NOT NULL,
			seq INTEGER NOT NULL,
			id TEXT NOT NULL,
			added_at BIGINT NOT NULL,
			body {{blob}} NOT NULL,
			PRIMARY KEY (tenant, conversation_id, seq)
		)`,
		// An item id once per conversation (as OpenAI refuses duplicate
		// items); led by (tenant, id) it also serves Item's lookup.
		`CREATE UNIQUE INDEX conversation_items_id ON conversation_items (tenant, id, conversation_id)`,
	},
}

// pgMigrationLock is the pg_advisory_xact_lock key of the migration
// transaction (an arbitrary constant: "trsp" in ASCII).
const pgMigrationLock = 0x74727370

func (s *sqlStore) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE on SQLite (_txlock)
	if err != nil {
		return fmt.Errorf("store: migrate: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if s.dialect == postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, pgMigrationLock); err != nil {
			return fmt.Errorf("store: migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrate: schema_migrations: %w", err)
	}
	var current sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("store: migrate: read version: %w", err)
	}
	if int(current.Int64) >= len(migrations)-1 {
		return nil
	}
	blob := "BLOB"
	if s.dialect == postgres {
		blob = "BYTEA"
	}
	for v := int(current.Int64) + 1; v < len(migrations); v++ {
		for _, stmt := range migrations[v] {
			if _, err := tx.ExecContext(ctx, strings.ReplaceAll(stmt, "{{blob}}", blob)); err != nil {
				return fmt.Errorf("store: migration %d: %w", v, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), v, s.now().UnixNano()); err != nil {
			return fmt.Errorf("store: migration %d: record: %w", v, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate: commit: %w", err)
	}
	return nil
}
