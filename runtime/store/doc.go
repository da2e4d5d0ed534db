// Package store keeps stored Responses and their items, per tenant, for the
// gateway's stateful features (store, previous_response_id, GET/DELETE
// /responses/{id}, input_items, item_reference).
//
// Two backends share one implementation of the queries and one test suite:
// SQLite through the pure-Go driver modernc.org/sqlite (a file, WAL mode, a
// busy timeout, write transactions BEGIN IMMEDIATE) — the embedded default —
// and PostgreSQL through pgx's database/sql driver (github.com/jackc/pgx/v5/stdlib)
// for several gateway instances on one database. database/sql rather than
// pgxpool because the two backends then run the same code: the same
// transactions, the same scans, the same queries (written with ? and rebound to
// $n for PostgreSQL); pgxpool's extras (COPY, batches, its own pool) buy
// nothing at this size, and database/sql's pool is enough for one gateway.
//
// Schema (see migrations.go): responses(tenant, id, previous_response_id,
// conversation_id, created_at, expires_at, body) keyed by (tenant, id), and
// items(tenant, response_id, seq, id, role, body) keyed by (tenant,
// response_id, seq). A response stores only its own turn: its input items (seq
// 0..) then its output items. A chain of N turns therefore costs O(N) rows; it
// is read back with one recursive query over previous_response_id. Bodies are
// the JSON bytes given to PutResponse, returned byte for byte. Times are
// stored as Unix nanoseconds.
//
// Item ids are unique per response, not per tenant: an input item resolved
// from an item_reference is stored again under the new response with the same
// id. Item returns the most recently created copy.
//
// Decisions:
//   - Chain is strict: when a link of the chain is missing (deleted, expired,
//     or never stored) it fails with an error that wraps ErrNotFound and is a
//     *MissingLinkError naming the missing id; nothing is dropped silently. The
//     gateway decides what the API does with it.
//   - Every read of another tenant's object, or of an expired one, is
//     ErrNotFound; expired rows are removed by Expire, which a background
//     task calls, and are invisible before that.
//   - Migrations are versioned (schema_migrations) and applied at Open inside
//     one transaction that first takes a lock: pg_advisory_xact_lock on
//     PostgreSQL, BEGIN IMMEDIATE on SQLite. Several instances can Open the
//     same database at once; each migration runs exactly once.
//   - The clock is injected (Config.Now); time.Now is only its default.
package store
