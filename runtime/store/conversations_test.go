package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// rowCount counts the rows a query (written with ?) selects, straight from
// the database: what is stored, not what the API shows.
func rowCount(t *testing.T, s Store, query string, args ...any) int {
	t.Helper()
	ss := s.(*sqlStore)
	var n int
	if err := ss.db.QueryRow(ss.q(query), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// convItems makes items id_0.. with bodies {"n":i} (not canonical JSON).
func convItems(prefix string, from, to int) []Item {
	var items []Item
	for i := from; i < to; i++ {
		items = append(items, Item{ID: fmt.Sprintf("%s%d", prefix, i), Body: []byte(fmt.Sprintf(`{ "n":%d}`, i))})
	}
	return items
}

func testConversations(t *testing.T, be backend) {
	ctx := context.Background()

	t.Run("ConversationRoundTrip", func(t *testing.T) {
		clk := &clock{t: t0}
		s := mustOpen(t, be(t), clk) // TTL one hour
		const tenant = "tenant'; DROP TABLE conversations; --"
		id := "conv_'; DROP TABLE items; --"
		meta := []byte("{\"topic\" : \"'; DROP TABLE items; --\",\"q\":\"?$1 \\\"x\\\" \\u0000 é\",\n\"a\":\"1\"}")
		items := []Item{
			{ID: "msg_'1'; --", Body: []byte(`{"type":"message", "role":"user","content":"'; DELETE FROM conversation_items; --"}`)},
			{ID: `msg_"?$2"`, Body: []byte("{\"x\":\"\\ud83d\\ude00\"}")},
		}
		if err := s.CreateConversation(ctx, tenant, Conversation{ID: id, CreatedAt: t0, Metadata: meta, Items: items}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetConversation(ctx, tenant, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != id || !bytes.Equal(got.Metadata, meta) || !got.CreatedAt.Equal(t0) || !got.ExpiresAt.Equal(t0.Add(time.Hour)) || got.Items != nil {
			t.Errorf("get: got %+v (metadata %q)", got, got.Metadata)
		}
		hist, err := s.ConversationHistory(ctx, tenant, id, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != len(items) {
			t.Fatalf("history: %d items, want %d", len(hist), len(items))
		}
		for i := range items {
			if hist[i].ID != items[i].ID || !bytes.Equal(hist[i].Body, items[i].Body) || hist[i].Role != "" {
				t.Errorf("history item %d: got %+v, want %+v", i, hist[i], items[i])
			}
		}
		// item_reference finds conversation items too.
		if it, err := s.Item(ctx, tenant, items[1].ID); err != nil || !bytes.Equal(it.Body, items[1].Body) {
			t.Errorf("item: %+v %v", it, err)
		}
		if err := s.CreateConversation(ctx, tenant, Conversation{ID: id}); !errors.Is(err, ErrExists) {
			t.Errorf("second create: got %v, want ErrExists", err)
		}

		clk.Set(t0.Add(10 * time.Minute))
		meta2 := []byte(`{"k":"v'); DROP TABLE conversations; --", "b" :"$1"}`)
		upd, err := s.UpdateConversation(ctx, tenant, id, meta2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(upd.Metadata, meta2) || !upd.CreatedAt.Equal(t0) || !upd.ExpiresAt.Equal(t0.Add(time.Hour)) || upd.ID != id {
			t.Errorf("update returned %+v (metadata %q)", upd, upd.Metadata)
		}
		if got, err := s.GetConversation(ctx, tenant, id); err != nil || !bytes.Equal(got.Metadata, meta2) || !got.ExpiresAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("get after update: %+v %v", got, err)
		}

		if err := s.DeleteConversation(ctx, tenant, id); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetConversation(ctx, tenant, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("get deleted: %v", err)
		}
		if _, err := s.Item(ctx, tenant, items[0].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("item of deleted: %v", err)
		}
		if n := rowCount(t, s, `SELECT COUNT(*) FROM conversation_items`); n != 0 {
			t.Errorf("%d item rows left after delete", n)
		}
		if err := s.DeleteConversation(ctx, tenant, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		// The id is free again, and starts empty; no metadata reads back empty.
		if err := s.CreateConversation(ctx, tenant, Conversation{ID: id}); err != nil {
			t.Fatal(err)
		}
		if hist, err := s.ConversationHistory(ctx, tenant, id, 10); err != nil || len(hist) != 0 {
			t.Errorf("recreated: %s %v", ids(hist), err)
		}
		if got, err := s.GetConversation(ctx, tenant, id); err != nil || len(got.Metadata) != 0 || !got.CreatedAt.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("recreated get: %+v %v (created at the clock's now)", got, err)
		}
	})

	t.Run("ConversationCreateAllOrNothing", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		for _, c := range []struct {
			name  string
			items []Item
			want  error
		}{
			{"empty item id", []Item{{ID: "a", Body: []byte(`{}`)}, {ID: "", Body: []byte(`{}`)}}, ErrInvalid},
			{"duplicate item id", []Item{{ID: "a", Body: []byte(`{}`)}, {ID: "a", Body: []byte(`{}`)}}, ErrExists},
		} {
			if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_1", Items: c.items}); !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			}
			if _, err := s.GetConversation(ctx, "t", "conv_1"); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: the conversation was stored: %v", c.name, err)
			}
		}
		if n := rowCount(t, s, `SELECT COUNT(*) FROM conversation_items`); n != 0 {
			t.Errorf("%d item rows after refused creates", n)
		}
		if err := s.CreateConversation(ctx, "t", Conversation{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("empty id: %v", err)
		}
	})

	t.Run("ConversationItemsPagination", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_p", Items: convItems("c_", 0, 2)}); err != nil {
			t.Fatal(err)
		}
		for _, batch := range [][]Item{convItems("c_", 2, 4), nil, convItems("c_", 4, 5)} {
			if err := s.AppendConversationItems(ctx, "t", "conv_p", batch); err != nil {
				t.Fatal(err)
			}
		}
		// Another conversation's items are not paged with these.
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_other", Items: convItems("o_", 0, 3)}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			after   string
			limit   int
			desc    bool
			want    string
			hasMore bool
		}{
			{"", 2, false, "c_0,c_1", true},
			{"c_1", 2, false, "c_2,c_3", true},
			{"c_3", 2, false, "c_4", false},
			{"", 5, false, "c_0,c_1,c_2,c_3,c_4", false},
			{"", 20, false, "c_0,c_1,c_2,c_3,c_4", false},
			{"", 2, true, "c_4,c_3", true},
			{"c_3", 2, true, "c_2,c_1", true},
			{"c_1", 2, true, "c_0", false},
			{"c_0", 2, true, "", false},
			{"c_4", 2, false, "", false},
			{"", 1, true, "c_4", true},
		} {
			items, more, err := s.ConversationItems(ctx, "t", "conv_p", c.after, c.limit, c.desc)
			if err != nil {
				t.Errorf("%+v: %v", c, err)
				continue
			}
			if got := ids(items); got != c.want || more != c.hasMore {
				t.Errorf("after %q limit %d desc %v: got %s more=%v, want %s more=%v", c.after, c.limit, c.desc, got, more, c.want, c.hasMore)
			}
			for _, it := range items {
				if !bytes.Equal(it.Body, []byte(`{ "n":`+strings.TrimPrefix(it.ID, "c_")+`}`)) {
					t.Errorf("item %s: %q", it.ID, it.Body)
				}
			}
		}
		for _, after := range []string{"c_nope", "o_1"} {
			if _, _, err := s.ConversationItems(ctx, "t", "conv_p", after, 2, false); !errors.Is(err, ErrNotFound) {
				t.Errorf("after %q: got %v, want ErrNotFound", after, err)
			}
		}
		if _, _, err := s.ConversationItems(ctx, "t", "conv_p", "", 0, false); !errors.Is(err, ErrInvalid) {
			t.Errorf("limit 0: got %v, want ErrInvalid", err)
		}
		if _, _, err := s.ConversationItems(ctx, "t", "conv_nope", "", 2, false); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown conversation: got %v, want ErrNotFound", err)
		}
	})

	t.Run("ConversationItemGetDelete", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_d", Items: convItems("c_", 0, 4)}); err != nil {
			t.Fatal(err)
		}
		if it, err := s.ConversationItem(ctx, "t", "conv_d", "c_2"); err != nil || it.ID != "c_2" || string(it.Body) != `{ "n":2}` {
			t.Errorf("get item: %+v %v", it, err)
		}
		if err := s.DeleteConversationItem(ctx, "t", "conv_d", "c_1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ConversationItem(ctx, "t", "conv_d", "c_1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get deleted item: %v", err)
		}
		if err := s.DeleteConversationItem(ctx, "t", "conv_d", "c_1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete item twice: %v", err)
		}
		if _, err := s.Item(ctx, "t", "c_1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Item of a deleted conversation item: %v", err)
		}
		// Appending after a delete goes at the end; a deleted id may come back.
		if err := s.AppendConversationItems(ctx, "t", "conv_d", []Item{{ID: "c_9", Body: []byte(`{}`)}, {ID: "c_1", Body: []byte(`{"again":1}`)}}); err != nil {
			t.Fatal(err)
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_d", 10); err != nil || ids(hist) != "c_0,c_2,c_3,c_9,c_1" {
			t.Errorf("history: %s %v", ids(hist), err)
		}
		if it, err := s.ConversationItem(ctx, "t", "conv_d", "c_1"); err != nil || string(it.Body) != `{"again":1}` {
			t.Errorf("re-added item: %+v %v", it, err)
		}
		// An id already in the conversation: the whole batch is refused.
		if err := s.AppendConversationItems(ctx, "t", "conv_d", []Item{{ID: "c_new", Body: []byte(`{}`)}, {ID: "c_2", Body: []byte(`{}`)}}); !errors.Is(err, ErrExists) {
			t.Errorf("append a present id: got %v, want ErrExists", err)
		}
		if err := s.AppendConversationItems(ctx, "t", "conv_d", []Item{{ID: "c_new", Body: []byte(`{}`)}, {ID: "", Body: []byte(`{}`)}}); !errors.Is(err, ErrInvalid) {
			t.Errorf("append an empty id: got %v, want ErrInvalid", err)
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_d", 10); err != nil || ids(hist) != "c_0,c_2,c_3,c_9,c_1" {
			t.Errorf("history after refused appends: %s %v", ids(hist), err)
		}
		// The same item id in two conversations is two items.
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_e", Items: []Item{{ID: "c_2", Body: []byte(`{"e":1}`)}}}); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteConversationItem(ctx, "t", "conv_e", "c_2"); err != nil {
			t.Fatal(err)
		}
		if it, err := s.ConversationItem(ctx, "t", "conv_d", "c_2"); err != nil || string(it.Body) != `{ "n":2}` {
			t.Errorf("other conversation's copy: %+v %v", it, err)
		}
		if err := s.AppendConversationItems(ctx, "t", "conv_nope", convItems("x_", 0, 1)); !errors.Is(err, ErrNotFound) {
			t.Errorf("append to unknown: %v", err)
		}
		if err := s.DeleteConversationItem(ctx, "t", "conv_nope", "c_0"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete item of unknown conversation: %v", err)
		}
	})

	t.Run("ConversationHistoryLimit", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_h", Items: convItems("c_", 0, 5)}); err != nil {
			t.Fatal(err)
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_h", 5); err != nil || ids(hist) != "c_0,c_1,c_2,c_3,c_4" {
			t.Errorf("at the limit: %s %v", ids(hist), err)
		}
		var limit *ChainLimitError
		if _, err := s.ConversationHistory(ctx, "t", "conv_h", 4); !errors.As(err, &limit) || limit.Limit != 4 {
			t.Errorf("over the limit: got %v, want ChainLimitError{4}", err)
		}
		if _, err := s.ConversationHistory(ctx, "t", "conv_h", 0); !errors.Is(err, ErrInvalid) {
			t.Errorf("limit 0: %v", err)
		}
		if _, err := s.ConversationHistory(ctx, "t", "conv_nope", 5); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown: %v", err)
		}
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_empty"}); err != nil {
			t.Fatal(err)
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_empty", 5); err != nil || len(hist) != 0 {
			t.Errorf("empty: %s %v", ids(hist), err)
		}
	})

	t.Run("ResponseInConversation", func(t *testing.T) {
		clk := &clock{t: t0}
		s := mustOpen(t, be(t), clk)
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_r", Items: convItems("c_", 0, 1)}); err != nil {
			t.Fatal(err)
		}
		r1 := turn("resp_1", "", 1)
		r1.ConversationID = "conv_r"
		r1.Output = append(r1.Output, Item{ID: "fc_resp_1", Body: []byte(`{"type":"function_call"}`)})
		if err := s.PutResponse(ctx, "t", r1); err != nil {
			t.Fatal(err)
		}
		r2 := turn("resp_2", "", 2)
		r2.ConversationID = "conv_r"
		if err := s.PutResponse(ctx, "t", r2); err != nil {
			t.Fatal(err)
		}
		const want = "c_0,in_resp_1,out_resp_1,fc_resp_1,in_resp_2,out_resp_2"
		hist, err := s.ConversationHistory(ctx, "t", "conv_r", 100)
		if err != nil || ids(hist) != want {
			t.Fatalf("history: %s %v, want %s", ids(hist), err, want)
		}
		if !bytes.Equal(hist[1].Body, r1.Input[0].Body) || !bytes.Equal(hist[5].Body, r2.Output[0].Body) {
			t.Errorf("bodies: %q %q", hist[1].Body, hist[5].Body)
		}
		// Of the two copies, Item gives the response's (it has the role).
		if it, err := s.Item(ctx, "t", "out_resp_1"); err != nil || it.Role != RoleOutput {
			t.Errorf("item: %+v %v", it, err)
		}

		before := rowCount(t, s, `SELECT COUNT(*) FROM items`)
		for _, c := range []struct {
			name, tenant, conv string
			input              []Item
			want               error
		}{
			{"missing conversation", "t", "conv_missing", nil, ErrNotFound},
			{"other tenant's conversation", "u", "conv_r", nil, ErrNotFound},
			{"item already in the conversation", "t", "conv_r", []Item{{ID: "in_resp_1", Body: []byte(`{}`)}}, ErrExists},
		} {
			r := turn("resp_3", "", 3)
			r.ConversationID = c.conv
			if c.input != nil {
				r.Input = c.input
			}
			if err := s.PutResponse(ctx, c.tenant, r); !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			}
			if _, err := s.GetResponse(ctx, c.tenant, "resp_3"); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: the response was stored: %v", c.name, err)
			}
			if _, err := s.Item(ctx, c.tenant, "out_resp_3"); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: its output was stored: %v", c.name, err)
			}
		}
		if after := rowCount(t, s, `SELECT COUNT(*) FROM items`); after != before {
			t.Errorf("item rows: %d after refused puts, %d before", after, before)
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_r", 100); err != nil || ids(hist) != want {
			t.Errorf("history after refused puts: %s %v", ids(hist), err)
		}

		// Deleting a response leaves the conversation's copy of its items.
		if err := s.DeleteResponse(ctx, "t", "resp_1"); err != nil {
			t.Fatal(err)
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_r", 100); err != nil || ids(hist) != want {
			t.Errorf("history after deleting resp_1: %s %v", ids(hist), err)
		}
		if it, err := s.Item(ctx, "t", "out_resp_1"); err != nil || it.Role != "" || !bytes.Equal(it.Body, r1.Output[0].Body) {
			t.Errorf("item from the conversation: %+v %v", it, err)
		}
		// The newest copy wins: a later append of the same id elsewhere.
		clk.Set(t0.Add(time.Minute))
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_later", Items: []Item{{ID: "in_resp_2", Body: []byte(`{"later":true}`)}}}); err != nil {
			t.Fatal(err)
		}
		if it, err := s.Item(ctx, "t", "in_resp_2"); err != nil || string(it.Body) != `{"later":true}` {
			t.Errorf("newest copy: %+v %v", it, err)
		}
	})

	t.Run("ConversationTenantIsolation", func(t *testing.T) {
		s := mustOpen(t, be(t), &clock{t: t0})
		meta := []byte(`{"owner":"alice"}`)
		if err := s.CreateConversation(ctx, "alice", Conversation{ID: "conv_a", Metadata: meta, Items: convItems("a_", 0, 2)}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			err  error
		}{
			{"get", func() error { _, err := s.GetConversation(ctx, "bob", "conv_a"); return err }()},
			{"update", func() error {
				_, err := s.UpdateConversation(ctx, "bob", "conv_a", []byte(`{"owner":"bob"}`))
				return err
			}()},
			{"delete", s.DeleteConversation(ctx, "bob", "conv_a")},
			{"append", s.AppendConversationItems(ctx, "bob", "conv_a", convItems("b_", 0, 1))},
			{"items", func() error { _, _, err := s.ConversationItems(ctx, "bob", "conv_a", "", 10, false); return err }()},
			{"items after", func() error { _, _, err := s.ConversationItems(ctx, "bob", "conv_a", "a_0", 10, false); return err }()},
			{"item", func() error { _, err := s.ConversationItem(ctx, "bob", "conv_a", "a_0"); return err }()},
			{"delete item", s.DeleteConversationItem(ctx, "bob", "conv_a", "a_1")},
			{"history", func() error { _, err := s.ConversationHistory(ctx, "bob", "conv_a", 10); return err }()},
			{"Item", func() error { _, err := s.Item(ctx, "bob", "a_0"); return err }()},
			{"put response", func() error {
				r := turn("resp_b", "", 1)
				r.ConversationID = "conv_a"
				return s.PutResponse(ctx, "bob", r)
			}()},
		} {
			if !errors.Is(c.err, ErrNotFound) {
				t.Errorf("bob's %s: got %v, want ErrNotFound", c.name, c.err)
			}
		}
		// Alice's conversation is as she left it.
		if got, err := s.GetConversation(ctx, "alice", "conv_a"); err != nil || !bytes.Equal(got.Metadata, meta) {
			t.Errorf("alice's get: %+v %v", got, err)
		}
		if hist, err := s.ConversationHistory(ctx, "alice", "conv_a", 10); err != nil || ids(hist) != "a_0,a_1" {
			t.Errorf("alice's history: %s %v", ids(hist), err)
		}
		// The same ids in Bob's tenant are his own.
		if err := s.CreateConversation(ctx, "bob", Conversation{ID: "conv_a", Items: []Item{{ID: "a_0", Body: []byte(`{"bob":1}`)}}}); err != nil {
			t.Fatalf("same id, other tenant: %v", err)
		}
		if it, err := s.Item(ctx, "alice", "a_0"); err != nil || string(it.Body) != `{ "n":0}` {
			t.Errorf("alice's item: %+v %v", it, err)
		}
		if err := s.DeleteConversation(ctx, "bob", "conv_a"); err != nil {
			t.Fatal(err)
		}
		if hist, err := s.ConversationHistory(ctx, "alice", "conv_a", 10); err != nil || ids(hist) != "a_0,a_1" {
			t.Errorf("alice's history after bob's delete: %s %v", ids(hist), err)
		}
	})

	t.Run("ConversationExpiry", func(t *testing.T) {
		clk := &clock{t: t0}
		s := mustOpen(t, be(t), clk) // TTL one hour
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_old", Items: convItems("o_", 0, 2)}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_new", CreatedAt: t0.Add(30 * time.Minute), Items: convItems("n_", 0, 1)}); err != nil {
			t.Fatal(err)
		}
		// Neither appending nor updating extends the life.
		clk.Set(t0.Add(59 * time.Minute))
		if err := s.AppendConversationItems(ctx, "t", "conv_old", convItems("o_", 2, 3)); err != nil {
			t.Fatal(err)
		}
		if c, err := s.UpdateConversation(ctx, "t", "conv_old", []byte(`{"a":"b"}`)); err != nil || !c.ExpiresAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("update: %+v %v", c, err)
		}
		clk.Set(t0.Add(time.Hour)) // conv_old expires now, conv_new in 30 min
		for _, c := range []struct {
			name string
			err  error
		}{
			{"get", func() error { _, err := s.GetConversation(ctx, "t", "conv_old"); return err }()},
			{"update", func() error { _, err := s.UpdateConversation(ctx, "t", "conv_old", []byte(`{}`)); return err }()},
			{"append", s.AppendConversationItems(ctx, "t", "conv_old", convItems("x_", 0, 1))},
			{"items", func() error { _, _, err := s.ConversationItems(ctx, "t", "conv_old", "", 10, false); return err }()},
			{"item", func() error { _, err := s.ConversationItem(ctx, "t", "conv_old", "o_0"); return err }()},
			{"delete item", s.DeleteConversationItem(ctx, "t", "conv_old", "o_1")},
			{"history", func() error { _, err := s.ConversationHistory(ctx, "t", "conv_old", 10); return err }()},
			{"Item", func() error { _, err := s.Item(ctx, "t", "o_2"); return err }()},
			{"put response", func() error {
				r := turn("resp_x", "", 1)
				r.ConversationID = "conv_old"
				return s.PutResponse(ctx, "t", r)
			}()},
			{"delete", s.DeleteConversation(ctx, "t", "conv_old")},
		} {
			if !errors.Is(c.err, ErrNotFound) {
				t.Errorf("expired %s: got %v, want ErrNotFound", c.name, c.err)
			}
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_new", 10); err != nil || ids(hist) != "n_0" {
			t.Errorf("live history: %s %v", ids(hist), err)
		}
		// The expired rows are still there until Expire runs.
		if n := rowCount(t, s, `SELECT COUNT(*) FROM conversation_items WHERE conversation_id = ?`, "conv_old"); n != 3 {
			t.Errorf("conv_old has %d item rows before Expire, want 3", n)
		}
		n, err := s.Expire(ctx, clk.Now())
		if err != nil || n != 1 {
			t.Fatalf("expire: %d %v, want 1", n, err)
		}
		if n := rowCount(t, s, `SELECT COUNT(*) FROM conversation_items WHERE conversation_id = ?`, "conv_old"); n != 0 {
			t.Errorf("conv_old has %d item rows after Expire", n)
		}
		clk.Set(t0) // the rows are gone: a clock set back cannot see them
		if _, err := s.GetConversation(ctx, "t", "conv_old"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get after expire: %v", err)
		}
		if _, err := s.Item(ctx, "t", "o_0"); !errors.Is(err, ErrNotFound) {
			t.Errorf("item after expire: %v", err)
		}
		if hist, err := s.ConversationHistory(ctx, "t", "conv_new", 10); err != nil || ids(hist) != "n_0" {
			t.Errorf("live history after expire: %s %v", ids(hist), err)
		}
		// Responses and conversations are counted together.
		if err := s.PutResponse(ctx, "t", turn("resp_1", "", 0)); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Expire(ctx, t0.Add(2*time.Hour)); err != nil || n != 2 {
			t.Errorf("second expire: %d %v, want 2", n, err)
		}
		if n := rowCount(t, s, `SELECT COUNT(*) FROM conversation_items`); n != 0 {
			t.Errorf("%d item rows after expiring everything", n)
		}
	})

	t.Run("ConcurrentAppends", func(t *testing.T) {
		open := be(t)
		clk := &clock{t: t0}
		// Two stores (two pools, like two gateway instances) on one database.
		s1, s2 := mustOpen(t, open, clk), mustOpen(t, open, clk)
		if err := s1.CreateConversation(ctx, "t", Conversation{ID: "conv_c"}); err != nil {
			t.Fatal(err)
		}
		const writers, batches = 6, 8
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for w := range writers {
			s := []Store{s1, s2}[w%2]
			wg.Go(func() {
				for b := range batches {
					pair := []Item{
						{ID: fmt.Sprintf("w%d_%d_a", w, b), Body: []byte(`{}`)},
						{ID: fmt.Sprintf("w%d_%d_b", w, b), Body: []byte(`{}`)},
					}
					var err error
					if w < 2 { // some writers append through PutResponse
						err = s.PutResponse(ctx, "t", Response{ID: fmt.Sprintf("resp_w%d_%d", w, b), ConversationID: "conv_c", Input: pair[:1], Output: pair[1:]})
					} else {
						err = s.AppendConversationItems(ctx, "t", "conv_c", pair)
					}
					if err != nil {
						errs[w] = fmt.Errorf("batch %d: %w", b, err)
						return
					}
				}
			})
		}
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Errorf("writer %d: %v", w, err)
			}
		}
		hist, err := s2.ConversationHistory(ctx, "t", "conv_c", 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != writers*batches*2 {
			t.Fatalf("history has %d items, want %d", len(hist), writers*batches*2)
		}
		// Each batch is contiguous (a then b) and each writer's batches are
		// in its order.
		next := make([]int, writers)
		for i := 0; i < len(hist); i += 2 {
			var w, b int
			if _, err := fmt.Sscanf(hist[i].ID, "w%d_%d_a", &w, &b); err != nil {
				t.Fatalf("item %d is %s, want a batch's first item", i, hist[i].ID)
			}
			if want := fmt.Sprintf("w%d_%d_b", w, b); hist[i+1].ID != want {
				t.Errorf("item %d is %s, want %s: batches interleaved", i+1, hist[i+1].ID, want)
			}
			if b != next[w] {
				t.Errorf("writer %d: batch %d where %d was due", w, b, next[w])
			}
			next[w] = b + 1
		}
		// Paging sees the same order.
		page, more, err := s1.ConversationItems(ctx, "t", "conv_c", hist[9].ID, 3, false)
		if err != nil || more != true || ids(page) != ids(hist[10:13]) {
			t.Errorf("page: %s %v %v, want %s", ids(page), more, err, ids(hist[10:13]))
		}
	})

	t.Run("MigrationFrom1", func(t *testing.T) {
		open := be(t)
		clk := &clock{t: t0}
		all := migrations
		migrations = migrations[:2]
		s, err := open(Config{TTL: time.Hour, Now: clk.Now})
		migrations = all
		if err != nil {
			t.Fatal(err)
		}
		if err := s.PutResponse(ctx, "t", turn("resp_1", "", 1)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = mustOpen(t, open, clk)
		if n := rowCount(t, s, `SELECT COUNT(*) FROM schema_migrations`); n != len(migrations)-1 {
			t.Errorf("schema_migrations: %d rows, want %d", n, len(migrations)-1)
		}
		if _, err := s.GetResponse(ctx, "t", "resp_1"); err != nil {
			t.Errorf("response stored before the upgrade: %v", err)
		}
		if err := s.CreateConversation(ctx, "t", Conversation{ID: "conv_1", Items: convItems("c_", 0, 1)}); err != nil {
			t.Fatal(err)
		}
		if it, err := s.Item(ctx, "t", "in_resp_1"); err != nil || it.Role != RoleInput {
			t.Errorf("item: %+v %v", it, err)
		}
	})
}
