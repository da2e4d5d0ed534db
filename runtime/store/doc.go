// Package store keeps stored Responses and their items, and Conversations
// and theirs, per tenant, for the gateway's stateful features (store,
// previous_response_id, GET/DELETE /responses/{id}, input_items,
// item_reference, the Conversations API and the conversation parameter).
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
// id. Item returns the most recently stored copy, wherever it is.
//
// Conversations (migration 2): conversations(tenant, id, created_at,
// expires_at, metadata, next_seq) keyed by (tenant, id), and
// conversation_items(tenant, conversation_id, seq, id, added_at, body) keyed
// by (tenant, conversation_id, seq), the order of the conversation. Indexes,
// each for a query: conversations(expires_at) for Expire, like responses; a
// UNIQUE conversation_items(tenant, id, conversation_id), which both refuses
// an item id twice in one conversation (ErrExists; OpenAI refuses duplicate
// items too) and, led by (tenant, id), serves Item and ConversationItem.
// An item is stored once per place: a response made in a conversation has its
// input and output in items (for input_items and Chain) and, appended by the
// same PutResponse transaction, in conversation_items; deleting the response
// leaves the conversation's copy, deleting a conversation item leaves the
// response's. Conversation items have no Role (""): OpenAI's conversation
// items are one list. added_at (when the item was stored: the response's or
// the conversation's created_at, or the append's now) only orders the copies
// for Item.
//
// Appends: next_seq is the conversation's next free seq. An append moves it
// forward by the batch's size with one UPDATE ... RETURNING, inside the
// append's transaction, and writes the batch at the seqs it reserved. On
// PostgreSQL the UPDATE takes the row lock, so a concurrent appender waits
// and then reads the moved counter; on SQLite writers are serialized by BEGIN
// IMMEDIATE. The same UPDATE is the existence check: a conversation gone (or
// another tenant's, or expired) is ErrNotFound and the transaction writes
// nothing. DeleteConversation and Expire delete the conversation row before
// its items for the same lock: the items statement then sees every
// committed append and no item outlives its conversation. Deleted items
// leave gaps in seq; the order is kept.
//
// Paging (InputItems, ConversationItems): after is an item id; an id that is
// not in the response's input or the conversation is ErrNotFound (as for an
// unknown response: the gateway answers 404 naming it), not ErrInvalid.
//
// Decisions:
//   - Chain is strict: when a link of the chain is missing (deleted, expired,
//     or never stored) it fails with an error that wraps ErrNotFound and is a
//     *MissingLinkError naming the missing id; nothing is dropped silently. The
//     gateway decides what the API does with it.
//   - Every read of another tenant's object, or of an expired one, is
//     ErrNotFound; expired rows are removed by Expire, which a background
//     task calls, and are invisible before that.
//   - A conversation lives like a response: expires_at = CreatedAt + TTL,
//     fixed at creation. Neither UpdateConversation nor appending items
//     (directly or by a response made in it) extends it; its items go with
//     it. (OpenAI documents conversations as not subject to the responses'
//     30-day TTL; a separate conversation TTL would be a Config field, the
//     schema already has its own expires_at.)
//   - ConversationHistory is what a request with conversation starts from:
//     all items oldest first, read in one statement, and a *ChainLimitError
//     past the gateway's limit rather than a silently truncated context.
//   - Migrations are versioned (schema_migrations) and applied at Open inside
//     one transaction that first takes a lock: pg_advisory_xact_lock on
//     PostgreSQL, BEGIN IMMEDIATE on SQLite. Several instances can Open the
//     same database at once; each migration runs exactly once.
//   - The clock is injected (Config.Now); time.Now is only its default.
package store
