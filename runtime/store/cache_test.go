package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// The suite again with no items cache: Chain reads every item from the
// database.
func TestSQLiteNoCache(t *testing.T) {
	testStore(t, func(t testing.TB) func(Config) (Store, error) {
		open := sqliteBackend(t)
		return func(cfg Config) (Store, error) { cfg.CacheBytes = -1; return open(cfg) }
	})
}

// Two instances on one database: what one deletes, the other's cached
// chain no longer has; expiry likewise; a chain the other instance made
// is read whole.
func TestCacheAcrossInstances(t *testing.T) {
	for name, be := range map[string]backend{"sqlite": sqliteBackend, "postgres": pgBackend} {
		t.Run(name, func(t *testing.T) {
			open := be(t)
			clk := &clock{t: t0.Add(10 * time.Second)}
			a, b := mustOpen(t, open, clk), mustOpen(t, open, clk)
			ctx := context.Background()
			prev := ""
			for i, id := range []string{"resp_1", "resp_2", "resp_3"} {
				if err := a.PutResponse(ctx, "t", turn(id, prev, i)); err != nil {
					t.Fatal(err)
				}
				prev = id
			}
			for _, s := range []Store{a, b, a} { // a from its cache, b from the database
				items, err := s.Chain(ctx, "t", "resp_3", 100)
				if err != nil || ids(items) != "in_resp_1,out_resp_1,in_resp_2,out_resp_2,in_resp_3,out_resp_3" {
					t.Fatalf("chain: %s %v", ids(items), err)
				}
			}
			if err := b.DeleteResponse(ctx, "t", "resp_2"); err != nil {
				t.Fatal(err)
			}
			var missing *MissingLinkError
			if _, err := a.Chain(ctx, "t", "resp_3", 100); !errors.As(err, &missing) || missing.ID != "resp_2" {
				t.Fatalf("after b deleted resp_2, a's chain: %v", err)
			}
			// Stored anew under the deleted id (not the gateway's way, but the
			// store's API allows it): the new items, not the cached ones.
			r := turn("resp_2", "resp_1", 7)
			r.Input[0].ID, r.Output[0].ID = "in_new", "out_new"
			if err := b.PutResponse(ctx, "t", r); err != nil {
				t.Fatal(err)
			}
			if items, err := a.Chain(ctx, "t", "resp_3", 100); err != nil || ids(items) != "in_resp_1,out_resp_1,in_new,out_new,in_resp_3,out_resp_3" {
				t.Fatalf("after resp_2 was stored anew: %s %v", ids(items), err)
			}
			clk.Set(t0.Add(2 * time.Hour)) // past the TTL
			if _, err := a.Chain(ctx, "t", "resp_3", 100); !errors.Is(err, ErrNotFound) {
				t.Fatalf("expired, a's chain: %v", err)
			}
		})
	}
}

// The cache stays within its bound, least recently used out first.
func TestItemCacheBound(t *testing.T) {
	c := newItemCache(4000)
	body := make([]byte, 800)
	for i := range 10 {
		c.put(cacheKey("t", string(rune('a'+i)), 1), []Item{{ID: "x", Body: body}})
		if _, ok := c.get(cacheKey("t", "a", 1)); !ok && i < 3 {
			t.Fatalf("a evicted after %d puts though it is used", i)
		}
	}
	if c.bytes > c.max {
		t.Fatalf("%d bytes over the bound %d", c.bytes, c.max)
	}
	if _, ok := c.get(cacheKey("t", "a", 1)); !ok {
		t.Fatal("the most used entry was evicted")
	}
	if _, ok := c.get(cacheKey("t", "b", 1)); ok {
		t.Fatal("the least recently used entry is still there")
	}
	c.put(cacheKey("t", "huge", 1), []Item{{ID: "x", Body: make([]byte, 2000)}})
	if _, ok := c.get(cacheKey("t", "huge", 1)); ok {
		t.Fatal("an entry over a quarter of the bound was cached")
	}
}

// 10,000 concurrent reads of one chain, on each backend, through
// the items cache: every one whole and the same (the pool bounds the
// connections; the rest wait for one).
func TestConcurrentChainReads(t *testing.T) {
	for name, c := range map[string]struct {
		be    backend
		cache int64
	}{"sqlite": {sqliteBackend, 0}, "postgres": {pgBackend, 0}} {
		t.Run(name, func(t *testing.T) {
			open := c.be(t)
			clk := &clock{t: t0.Add(time.Minute)}
			s, err := open(Config{TTL: time.Hour, Now: clk.Now, CacheBytes: c.cache})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			head := putChain(t, s, 20)
			want, err := s.Chain(context.Background(), "t", head, 1000)
			if err != nil || len(want) != 40 {
				t.Fatalf("%d items, %v", len(want), err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 10000)
			for range 10000 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := s.Chain(context.Background(), "t", head, 1000)
					if err == nil && ids(got) != ids(want) {
						err = fmt.Errorf("a different chain: %s", ids(got))
					}
					if err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			n := 0
			for err := range errs {
				if n++; n <= 3 {
					t.Error(err)
				}
			}
			if n > 0 {
				t.Fatalf("%d of 10000 reads failed", n)
			}
		})
	}
}

// Expire deletes in batches (a writer never waits for a scan of the
// store), until nothing expired is left.
func TestExpireInBatches(t *testing.T) {
	clk := &clock{t: t0}
	s := mustOpen(t, sqliteBackend(t), clk)
	ctx := context.Background()
	n := 2*expireBatch + 7
	for i := range n {
		r := turn(fmt.Sprintf("resp_%04d", i), "", 0)
		r.Input[0].ID, r.Output[0].ID = fmt.Sprintf("in_%d", i), fmt.Sprintf("out_%d", i)
		if err := s.PutResponse(ctx, "t", r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	keep := turn("resp_late", "", 0)
	keep.CreatedAt = t0.Add(30 * time.Minute)
	if err := s.PutResponse(ctx, "t", keep); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(61 * time.Minute))
	got, err := s.Expire(ctx, clk.Now())
	if err != nil || got != n+1 {
		t.Fatalf("expired %d (%v), want %d responses and 1 conversation", got, err, n)
	}
	var rows int
	if err := s.(*sqlStore).db.QueryRow(`SELECT COUNT(*) FROM items`).Scan(&rows); err != nil || rows != 2 {
		t.Fatalf("%d items left (%v), want the 2 of the response that lives on", rows, err)
	}
	if _, err := s.GetResponse(ctx, "t", "resp_late"); err != nil {
		t.Fatalf("the live response: %v", err)
	}
}
