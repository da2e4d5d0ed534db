package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is the injected clock of the tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// backend opens stores on one fresh database (SQLite file or PostgreSQL
// schema) per test.
type backend func(t testing.TB) (open func(cfg Config) (Store, error))

func sqliteBackend(t testing.TB) func(Config) (Store, error) {
	path := filepath.Join(t.TempDir(), "data", "store.db")
	return func(cfg Config) (Store, error) {
		cfg.Driver, cfg.DSN = "sqlite", path
		return Open(context.Background(), cfg)
	}
}

func pgDSN(t testing.TB) string {
	dsn := os.Getenv("TRANSPONDER_TEST_PG")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TRANSPONDER_TEST_PG is not set and CI is: the PostgreSQL store tests must run")
		}
		t.Skip("TRANSPONDER_TEST_PG not set (e.g. postgres://transponder:transponder@127.0.0.1:5432/postgres?sslmode=disable): skipping the PostgreSQL store tests")
	}
	return dsn
}

// pgBackend creates a fresh schema for the test, drops it at cleanup, and
// opens stores with search_path set to it.
func pgBackend(t testing.TB) func(Config) (Store, error) {
	dsn := pgDSN(t)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "store_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
		admin.Close()
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return func(cfg Config) (Store, error) {
		cfg.Driver, cfg.DSN = "postgres", dsn+sep+"search_path="+schema
		return Open(context.Background(), cfg)
	}
}

func TestSQLite(t *testing.T)   { testStore(t, sqliteBackend) }
func TestPostgres(t *testing.T) { testStore(t, pgBackend) }

func mustOpen(t testing.TB, open func(Config) (Store, error), clk *clock) Store {
	t.Helper()
	s, err := open(Config{TTL: time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// turn builds response n of a chain: one input and one output item whose
// bodies are deliberately not canonical JSON.
func turn(id, prev string, n int) Response {
	return Response{
		ID: id, PreviousID: prev, CreatedAt: t0.Add(time.Duration(n) * time.Second),
		Body:   []byte(fmt.Sprintf(`{"id":%q,  "object":"response","n":%d}`, id, n)),
		Input:  []Item{{ID: fmt.Sprintf("in_%s", id), Body: []byte(fmt.Sprintf(`{"type":"message", "role":"user","content":"turn %d"}`, n))}},
		Output: []Item{{ID: fmt.Sprintf("out_%s", id), Body: []byte(fmt.Sprintf(`{"type":"message","role":"assistant","content":"answer %d" }`, n))}},
	}
}

func ids(items []Item) string {
	var b []string
	for _, it := range items {
		b = append(b, it.ID)
	}
	return strings.Join(b, ",")
}

func testStore(t *testing.T, be backend) {
	ctx := context.Background()

	t.Run("RoundTrip", func(t *testing.T) {
		clk := &clock{t: t0}
		s := mustOpen(t, be(t), clk)
		// Free-form JSON with odd spacing, key order, escapes, non-ASCII and
		// SQL metacharacters, in the id and conversation id too.
		body := []byte("{\"z\":1, \"a\" :[ ], \"s\":\"it's \\u00e9 é \\\"q\\\" ; DROP TABLE responses; --\",\n\t\"n\":1.50e+01}")
		r := Response{
			ID: "resp_'; DROP TABLE items; --", ConversationID: `conv_"x"?$1`, CreatedAt: t0,
			Body:   body,
			Input:  []Item{{ID: "msg_'1'", Body: []byte(`{"b":2,"a":1}`)}, {ID: "msg_2", Body: []byte(`[ 1,2 ]`)}},
			Output: []Item{{ID: "out_?", Body: []byte("{\"x\":\"\\ud83d\\ude00\"}")}},
		}
		if err := s.CreateConversation(ctx, "tenant'a", Conversation{ID: r.ConversationID}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutResponse(ctx, "tenant'a", r); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetResponse(ctx, "tenant'a", r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Body, body) {
			t.Errorf("body:\n got %q\nwant %q", got.Body, body)
		}
		if got.ID != r.ID || got.PreviousID != "" || got.ConversationID != r.ConversationID ||
			!got.CreatedAt.Equal(t0) || !got.ExpiresAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("metadata: got %+v", got)
		}
		items, err := s.Chain(ctx, "tenant'a", r.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := append(append([]Item{}, r.Input...), r.Output...)
		if len(items) != len(want) {
			t.Fatalf("chain: got %d items, want %d", len(items), len(want))
		}
		for i := range want {
			wantRole := RoleInput
			if i >= len(r.Input) {
				wantRole = RoleOutput
			}
			if items[i].ID != want[i].ID || items[i].Role != wantRole || !bytes.Equal(items[i].Body, want[i].Body) {
				t.Errorf("chain item %d: got %s %s %q, want %s %s %q", i, items[i].ID, items[i].Role, items[i].Body, want[i].ID, wantRole, want[i].Body)
			}
		}
		it, err := s.Item(ctx, "tenant'a", "out_?")
		if err != nil || it.Role != RoleOutput || !bytes.Equal(it.Body, r.Output[0].Body) {
			t.Errorf("item: %+v %v", it, err)
		}
		if err := s.PutResponse(ctx, "tenant'a", r); !errors.Is(err, ErrExists) {
			t.Errorf("second put: got %v, want ErrExists", err)
		}
		// The conversation got the turn once (the refused second put appended nothing).
		if hist, err := s.ConversationHistory(ctx, "tenant'a", r.ConversationID, 10); err != nil || ids(hist) != ids(want) {
			t.Errorf("conversation history: %s %v, want %s", ids(hist), err, ids(want))
		}
	})

	t.Run("AllOrNothing", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		r := turn("resp_1", "", 1)
		r.Output = append(r.Output, Item{ID: "", Body: []byte(`{}`)}) // rejected after rows were written
		if err := s.PutResponse(ctx, "t", r); !errors.Is(err, ErrInvalid) {
			t.Fatalf("put: got %v, want ErrInvalid", err)
		}
		if _, err := s.GetResponse(ctx, "t", "resp_1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get after failed put: got %v, want ErrNotFound", err)
		}
		if _, err := s.Item(ctx, "t", "in_resp_1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("item after failed put: got %v, want ErrNotFound", err)
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		if err := s.PutResponse(ctx, "alice", turn("resp_a", "", 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetResponse(ctx, "bob", "resp_a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get: %v", err)
		}
		if _, err := s.Chain(ctx, "bob", "resp_a", 10); !errors.Is(err, ErrNotFound) {
			t.Errorf("chain: %v", err)
		}
		if _, err := s.Item(ctx, "bob", "in_resp_a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("item: %v", err)
		}
		if _, _, err := s.InputItems(ctx, "bob", "resp_a", "", 10, false); !errors.Is(err, ErrNotFound) {
			t.Errorf("input items: %v", err)
		}
		if err := s.DeleteResponse(ctx, "bob", "resp_a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete: %v", err)
		}
		// Bob chaining onto Alice's response: the link is missing for him.
		if err := s.PutResponse(ctx, "bob", turn("resp_b", "resp_a", 2)); err != nil {
			t.Fatal(err)
		}
		var missing *MissingLinkError
		if _, err := s.Chain(ctx, "bob", "resp_b", 10); !errors.As(err, &missing) || missing.ID != "resp_a" || !errors.Is(err, ErrNotFound) {
			t.Errorf("chain across tenants: got %v, want MissingLinkError resp_a", err)
		}
		// Alice's response survived Bob's attempts.
		if _, err := s.Chain(ctx, "alice", "resp_a", 10); err != nil {
			t.Errorf("alice's chain: %v", err)
		}
		// The same id in two tenants is two responses.
		if err := s.PutResponse(ctx, "bob", turn("resp_a", "", 3)); err != nil {
			t.Fatalf("same id, other tenant: %v", err)
		}
		a, _ := s.GetResponse(ctx, "alice", "resp_a")
		b, _ := s.GetResponse(ctx, "bob", "resp_a")
		if bytes.Equal(a.Body, b.Body) {
			t.Errorf("tenants share a body: %s", a.Body)
		}
	})

	t.Run("ChainOrderAndDelete", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		prev := ""
		for n := 1; n <= 4; n++ {
			id := fmt.Sprintf("resp_%d", n)
			if err := s.PutResponse(ctx, "t", turn(id, prev, n)); err != nil {
				t.Fatal(err)
			}
			prev = id
		}
		items, err := s.Chain(ctx, "t", "resp_4", 100)
		if err != nil {
			t.Fatal(err)
		}
		want := "in_resp_1,out_resp_1,in_resp_2,out_resp_2,in_resp_3,out_resp_3,in_resp_4,out_resp_4"
		if got := ids(items); got != want {
			t.Errorf("chain:\n got %s\nwant %s", got, want)
		}
		// A fork: two children of resp_2 chain independently.
		if err := s.PutResponse(ctx, "t", turn("resp_fork", "resp_2", 5)); err != nil {
			t.Fatal(err)
		}
		items, err = s.Chain(ctx, "t", "resp_fork", 100)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(items), "in_resp_1,out_resp_1,in_resp_2,out_resp_2,in_resp_fork,out_resp_fork"; got != want {
			t.Errorf("fork chain:\n got %s\nwant %s", got, want)
		}
		// The limit: exactly 8 items fit in 8, not in 7.
		if _, err := s.Chain(ctx, "t", "resp_4", 8); err != nil {
			t.Errorf("chain at its limit: %v", err)
		}
		var limit *ChainLimitError
		if _, err := s.Chain(ctx, "t", "resp_4", 7); !errors.As(err, &limit) || limit.Limit != 7 || !strings.Contains(err.Error(), "7") {
			t.Errorf("chain over the limit: got %v, want ChainLimitError{7}", err)
		}
		// Delete a middle link: the response and its items are gone, the
		// later turns' chains fail naming the missing link.
		if err := s.DeleteResponse(ctx, "t", "resp_2"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetResponse(ctx, "t", "resp_2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get deleted: %v", err)
		}
		if _, err := s.Item(ctx, "t", "out_resp_2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("item of deleted: %v", err)
		}
		if err := s.DeleteResponse(ctx, "t", "resp_2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		var missing *MissingLinkError
		if _, err := s.Chain(ctx, "t", "resp_4", 100); !errors.As(err, &missing) || missing.ID != "resp_2" {
			t.Errorf("chain through deleted: got %v, want MissingLinkError resp_2", err)
		}
		if items, err := s.Chain(ctx, "t", "resp_1", 100); err != nil || ids(items) != "in_resp_1,out_resp_1" {
			t.Errorf("chain before the deleted link: %s %v", ids(items), err)
		}
		if _, err := s.Chain(ctx, "t", "resp_nope", 100); !errors.Is(err, ErrNotFound) {
			t.Errorf("chain of unknown: %v", err)
		}
	})

	t.Run("InputItemsPagination", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		r := turn("resp_p", "", 1)
		r.Input = nil
		for i := range 5 {
			r.Input = append(r.Input, Item{ID: fmt.Sprintf("in_%d", i), Body: []byte(fmt.Sprintf(`{"i":%d}`, i))})
		}
		if err := s.PutResponse(ctx, "t", r); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			after   string
			limit   int
			desc    bool
			want    string
			hasMore bool
		}{
			{"", 2, false, "in_0,in_1", true},
			{"in_1", 2, false, "in_2,in_3", true},
			{"in_3", 2, false, "in_4", false},
			{"", 5, false, "in_0,in_1,in_2,in_3,in_4", false},
			{"", 20, false, "in_0,in_1,in_2,in_3,in_4", false},
			{"", 2, true, "in_4,in_3", true},
			{"in_3", 2, true, "in_2,in_1", true},
			{"in_1", 2, true, "in_0", false},
			{"in_0", 2, true, "", false},
			{"in_4", 2, false, "", false},
		} {
			items, more, err := s.InputItems(ctx, "t", "resp_p", c.after, c.limit, c.desc)
			if err != nil {
				t.Errorf("%+v: %v", c, err)
				continue
			}
			if got := ids(items); got != c.want || more != c.hasMore {
				t.Errorf("after %q limit %d desc %v: got %s more=%v, want %s more=%v", c.after, c.limit, c.desc, got, more, c.want, c.hasMore)
			}
			for _, it := range items {
				if it.Role != RoleInput || !bytes.Equal(it.Body, []byte(`{"i":`+strings.TrimPrefix(it.ID, "in_")+`}`)) {
					t.Errorf("item %s: %s %q", it.ID, it.Role, it.Body)
				}
			}
		}
		if _, _, err := s.InputItems(ctx, "t", "resp_p", "out_resp_p", 2, false); !errors.Is(err, ErrNotFound) {
			t.Errorf("after an output item: got %v, want ErrNotFound", err)
		}
		if _, _, err := s.InputItems(ctx, "t", "resp_p", "", 0, false); !errors.Is(err, ErrInvalid) {
			t.Errorf("limit 0: got %v, want ErrInvalid", err)
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		clk := &clock{t: t0}
		s := mustOpen(t, be(t), clk) // TTL one hour
		if err := s.PutResponse(ctx, "t", turn("resp_old", "", 0)); err != nil {
			t.Fatal(err)
		}
		late := turn("resp_new", "resp_old", 0)
		late.CreatedAt = t0.Add(30 * time.Minute)
		if err := s.PutResponse(ctx, "t", late); err != nil {
			t.Fatal(err)
		}
		clk.Set(t0.Add(time.Hour)) // resp_old expires now, resp_new in 30 min
		if _, err := s.GetResponse(ctx, "t", "resp_old"); !errors.Is(err, ErrNotFound) {
			t.Errorf("expired get: %v", err)
		}
		if _, err := s.Item(ctx, "t", "in_resp_old"); !errors.Is(err, ErrNotFound) {
			t.Errorf("expired item: %v", err)
		}
		if _, err := s.GetResponse(ctx, "t", "resp_new"); err != nil {
			t.Errorf("live get: %v", err)
		}
		var missing *MissingLinkError
		if _, err := s.Chain(ctx, "t", "resp_new", 10); !errors.As(err, &missing) || missing.ID != "resp_old" {
			t.Errorf("chain through expired: got %v", err)
		}
		n, err := s.Expire(ctx, clk.Now())
		if err != nil || n != 1 {
			t.Fatalf("expire: %d %v, want 1", n, err)
		}
		// The rows are gone: even a clock set back cannot see them.
		clk.Set(t0)
		if _, err := s.GetResponse(ctx, "t", "resp_old"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get after expire: %v", err)
		}
		if _, err := s.Item(ctx, "t", "out_resp_old"); !errors.Is(err, ErrNotFound) {
			t.Errorf("item after expire: %v", err)
		}
		if _, err := s.GetResponse(ctx, "t", "resp_new"); err != nil {
			t.Errorf("live get after expire: %v", err)
		}
		if n, err := s.Expire(ctx, t0.Add(2*time.Hour)); err != nil || n != 1 {
			t.Errorf("second expire: %d %v, want 1", n, err)
		}
	})

	t.Run("ConcurrentOpen", func(t *testing.T) {
		open := be(t)
		clk := &clock{t: t0}
		stores := make([]Store, 4)
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range stores {
			wg.Go(func() { stores[i], errs[i] = open(Config{Now: clk.Now}) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			t.Cleanup(func() { stores[i].Close() })
		}
		ss := stores[0].(*sqlStore)
		var n, max int
		if err := ss.db.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatal(err)
		}
		if n != len(migrations)-1 || max != len(migrations)-1 {
			t.Errorf("schema_migrations: %d rows up to version %d, want %d", n, max, len(migrations)-1)
		}
		// Each store works, and sees the others' writes.
		for i, s := range stores {
			if err := s.PutResponse(ctx, "t", turn(fmt.Sprintf("resp_%d", i), "", i)); err != nil {
				t.Fatalf("store %d put: %v", i, err)
			}
		}
		for i := range stores {
			if _, err := stores[(i+1)%4].GetResponse(ctx, "t", fmt.Sprintf("resp_%d", i)); err != nil {
				t.Errorf("store %d get: %v", i, err)
			}
		}
	})

	t.Run("LongChain", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		head := putChain(t, s, 100)
		items, err := s.Chain(ctx, "t", head, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 200 {
			t.Fatalf("got %d items, want 200", len(items))
		}
		for n := 1; n <= 100; n++ {
			in, out := items[2*(n-1)], items[2*n-1]
			if in.ID != fmt.Sprintf("in_resp_%03d", n) || out.ID != fmt.Sprintf("out_resp_%03d", n) {
				t.Fatalf("turn %d: got %s %s", n, in.ID, out.ID)
			}
		}
		var limit *ChainLimitError
		if _, err := s.Chain(ctx, "t", head, 199); !errors.As(err, &limit) {
			t.Errorf("199 items: got %v, want ChainLimitError", err)
		}
		// Stored once: 100 turns are 100 response rows and 200 item rows.
		var rows int
		if err := s.(*sqlStore).db.QueryRow(`SELECT COUNT(*) FROM items`).Scan(&rows); err != nil || rows != 200 {
			t.Errorf("item rows: %d %v, want 200", rows, err)
		}
	})

	testConversations(t, be)
}

// putChain stores a chain of n turns shaped like Codex turns (a few KB each)
// and returns its head.
func putChain(t testing.TB, s Store, n int) string {
	t.Helper()
	pad := strings.Repeat("x", 2000)
	prev := ""
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("resp_%03d", i)
		r := turn(id, prev, i)
		r.Input[0].Body = []byte(fmt.Sprintf(`{"type":"function_call_output","call_id":"c%d","output":%q}`, i, pad))
		r.Output[0].Body = []byte(fmt.Sprintf(`{"type":"function_call","call_id":"c%d","arguments":%q}`, i+1, pad))
		if err := s.PutResponse(context.Background(), "t", r); err != nil {
			t.Fatal(err)
		}
		prev = id
	}
	return prev
}

func BenchmarkChain(b *testing.B) {
	for _, c := range []struct {
		name string
		be   backend
	}{{"impl=sqlite", sqliteBackend}, {"impl=postgres", pgBackend}} {
		b.Run(c.name, func(b *testing.B) {
			s := mustOpen(b, c.be(b), &clock{t: t0})
			head := putChain(b, s, 100)
			b.ResetTimer()
			for b.Loop() {
				items, err := s.Chain(context.Background(), "t", head, 1000)
				if err != nil || len(items) != 200 {
					b.Fatalf("%d items, %v", len(items), err)
				}
			}
		})
	}
}
