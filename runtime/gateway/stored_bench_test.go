package gateway_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// codexTurns are the responses of a Codex tool loop, from the benchmark
// fixture b_large_request.json (../shared/bench): its input items cut
// into runs, each response's input (user messages, call outputs) then
// output (assistant messages, calls) — about 12 KB a response.
func codexTurns(b *testing.B) (turns [][2][]json.RawMessage) {
	wd, _ := os.Getwd()
	data, err := os.ReadFile(filepath.Join(fixtures.SharedDir(filepath.Join(wd, "..", "..")), "bench", "b_large_request.json"))
	if err != nil {
		b.Fatal(err)
	}
	var req struct{ Input []json.RawMessage }
	if err := json.Unmarshal(data, &req); err != nil {
		b.Fatal(err)
	}
	var cur [2][]json.RawMessage
	for _, it := range req.Input {
		var h struct{ Type, Role string }
		_ = json.Unmarshal(it, &h)
		out := h.Type == "function_call" || h.Role == "assistant"
		if !out && len(cur[1]) > 0 {
			turns, cur = append(turns, cur), [2][]json.RawMessage{}
		}
		side := 0
		if out {
			side = 1
		}
		cur[side] = append(cur[side], it)
	}
	if len(cur[1]) > 0 {
		turns = append(turns, cur)
	}
	return turns
}

// withItemID gives an item an id (a stored item has one).
func withItemID(it json.RawMessage, id string) []byte {
	return append([]byte(`{"id":"`+id+`",`), it[1:]...)
}

// renameCall makes a call's or output's call_id unique to the cycle c of
// the fixture's turns.
func renameCall(b *testing.B, it json.RawMessage, c int) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(it, &m); err != nil {
		b.Fatal(err)
	}
	id, ok := m["call_id"]
	if !ok || c == 0 {
		return it
	}
	m["call_id"] = json.RawMessage(fmt.Sprintf(`%s_%d"`, id[:len(id)-1], c))
	out, _ := json.Marshal(m)
	return out
}

// seedChain stores n Codex-sized responses chained by
// previous_response_id, among 5,000 small responses of other tenants (a
// store in use: a planner that sees a table of a hundred rows scans it);
// it returns the last id, the chain's items, and their bytes.
func seedChain(b *testing.B, st store.Store, n int) (head string, items []json.RawMessage, size int) {
	turns := codexTurns(b)
	ctx := context.Background()
	for i := range 5000 {
		r := store.Response{ID: fmt.Sprintf("resp_bg%05d", i), CreatedAt: time.Now(), Body: []byte(`{}`),
			Input: []store.Item{{ID: "msg_bg", Body: []byte(`{"type":"message","role":"user","content":"x"}`)}}}
		if err := st.PutResponse(ctx, fmt.Sprintf("tenant%d", i%50), r); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		t := turns[i%len(turns)]
		r := store.Response{ID: fmt.Sprintf("resp_%04d", i), PreviousID: head, CreatedAt: time.Now(), Body: []byte(`{"id":"resp"}`)}
		for side, list := range t {
			for j, it := range list {
				body := withItemID(renameCall(b, it, i/len(turns)), fmt.Sprintf("it_%04d_%d_%d", i, side, j))
				item := store.Item{ID: fmt.Sprintf("it_%04d_%d_%d", i, side, j), Role: store.RoleInput, Body: body}
				if side == 1 {
					item.Role = store.RoleOutput
					r.Output = append(r.Output, item)
				} else {
					r.Input = append(r.Input, item)
				}
				items = append(items, body)
				size += len(body)
			}
		}
		if err := st.PutResponse(ctx, "a", r); err != nil {
			b.Fatal(err)
		}
		head = r.ID
	}
	return head, items, size
}

// benchStore opens a store of impl (sqlite or postgres) for a benchmark.
// PostgreSQL gets the statistics a store in use has (autovacuum's
// ANALYZE) once seed has filled it; SQLite plans by its indexes without.
func benchStore(b *testing.B, impl string, seed func(store.Store)) store.Store {
	if impl != "postgres" {
		st := openStore(b, store.Config{Driver: "sqlite", DSN: filepath.Join(b.TempDir(), "store.db")})
		seed(st)
		return st
	}
	dsn := pgSchema(b)
	st := openStore(b, store.Config{Driver: "postgres", DSN: dsn})
	seed(st)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return st
}

// arrivals is an upstream that answers at once and says when each
// request arrived.
type arrivals chan time.Time

func (a arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a <- time.Now()
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
}

func percentiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	at := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))]) / 1e6 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op") // the percentiles are the figures; the loop's mean includes the answer
}

// BenchmarkChainResolution: the time from sending a request to its
// upstream request starting (the upstream's arrival), p50 and p99, for
// a request continuing a 100-response Codex-sized chain by
// previous_response_id, on SQLite and PostgreSQL; beside it, the same
// for a request with no history (impl=none: the gateway's floor) and
// one sending the same history inline (impl=inline: what a client
// without a store sends, and the upstream gets the same chat request).
func BenchmarkChainResolution(b *testing.B) {
	const turns = 100
	for _, impl := range []string{"none", "inline", "sqlite", "postgres"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var head string
			var items []json.RawMessage
			var size int
			st := benchStore(b, impl, func(st store.Store) { head, items, size = seedChain(b, st, turns) })
			// The chain ends in a call: the next request answers it.
			var last struct {
				Type   string
				CallID string `json:"call_id"`
			}
			_ = json.Unmarshal(items[len(items)-1], &last)
			next := `"next"`
			if last.Type == "function_call" {
				next = `[{"type":"function_call_output","call_id":"` + last.CallID + `","output":"ok"}]`
			}
			up := make(arrivals, 1)
			srv := httptest.NewServer(up)
			defer srv.Close()
			gw := httptest.NewServer(gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: srv.URL}, Store: st, IDs: &translate.SeqIDs{}, Keys: []gateway.Key{{Tenant: "a", Key: "ka"}}, Log: discard()}))
			defer gw.Close()
			body := `{"model":"m","store":false,"input":` + next + `,"previous_response_id":"` + head + `"}`
			switch impl {
			case "none":
				body = `{"model":"m","store":false,"input":"next"}`
			case "inline":
				var sb strings.Builder
				sb.WriteString(`{"model":"m","store":false,"input":[`)
				for _, it := range items {
					sb.Write(it)
					sb.WriteByte(',')
				}
				if next == `"next"` {
					sb.WriteString(`{"role":"user","content":"next"}`)
				} else {
					sb.WriteString(next[1 : len(next)-1])
				}
				sb.WriteString(`]}`)
				body = sb.String()
			}
			b.Logf("%d responses, %d items, %.1f MB of items", turns, len(items), float64(size)/1e6)
			var ds []time.Duration
			client := gw.Client()
			for b.Loop() {
				req, _ := http.NewRequest("POST", gw.URL+"/v1/responses", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer ka")
				sent := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				select {
				case at := <-up:
					ds = append(ds, at.Sub(sent))
				default:
					msg, _ := io.ReadAll(resp.Body)
					b.Fatalf("the upstream was not asked: %d %s", resp.StatusCode, msg)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			percentiles(b, ds)
		})
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// BenchmarkChainRead: the store's part of resolving previous_response_id
// — reading the 100-response Codex-sized chain (BenchmarkChainResolution's)
// — p50 and p99 per read, on SQLite and PostgreSQL.
func BenchmarkChainRead(b *testing.B) {
	for _, impl := range []string{"sqlite", "postgres"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var head string
			var items []json.RawMessage
			st := benchStore(b, impl, func(st store.Store) { head, items, _ = seedChain(b, st, 100) })
			ctx := context.Background()
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				got, err := st.Chain(ctx, "a", head, gateway.DefaultMaxChainItems)
				ds = append(ds, time.Since(start))
				if err != nil || len(got) != len(items) {
					b.Fatalf("%d items, %v", len(got), err)
				}
			}
			percentiles(b, ds)
		})
	}
}

// BenchmarkChainPrepare: the time previous_response_id adds before the
// request is converted — the chain read (100 Codex-sized responses, as
// BenchmarkChainResolution's) and the input assembled from it — p50 and
// p99, on SQLite and PostgreSQL. (Converting the longer input is the
// same work a client sending the history inline causes.)
func BenchmarkChainPrepare(b *testing.B) {
	for _, impl := range []string{"sqlite", "postgres"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var head string
			var items []json.RawMessage
			st := benchStore(b, impl, func(st store.Store) { head, items, _ = seedChain(b, st, 100) })
			s := gateway.New(gateway.Config{Store: st, IDs: &translate.SeqIDs{}, Log: discard()})
			r, _ := http.NewRequest("POST", "/v1/responses", nil)
			body := []byte(`{"model":"m","store":false,"input":"next","previous_response_id":"` + head + `"}`)
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				out, release, err := gateway.Prepare(s, r, "a", body)
				ds = append(ds, time.Since(start))
				if err != nil || len(out) < len(items) {
					b.Fatalf("%d bytes, %v", len(out), err)
				}
				release()
			}
			percentiles(b, ds)
		})
	}
}

// BenchmarkStoreOnStream: a streamed Codex-sized turn (its input a
// function_call_output of the fixture, its answer text), with no store,
// SQLite or PostgreSQL: the time to the first event (ttfb: the store is
// not on that path) and to the terminal event (the response is stored
// before it goes out: the difference to impl=none is the store's cost),
// p50 and p99.
func BenchmarkStoreOnStream(b *testing.B) {
	turns := codexTurns(b)
	var input []byte
	for _, it := range turns[1][0] { // a turn whose input is a large call output
		input = append(append(input, it...), ',')
	}
	call := turns[0][1][0] // its call
	body := `{"model":"m","stream":true,"input":[` + string(call) + `,` + string(input[:len(input)-1]) + `]}`
	for _, impl := range []string{"none", "sqlite-store-false", "sqlite", "postgres"} {
		b.Run("impl="+impl, func(b *testing.B) {
			cfg := gateway.Config{IDs: &translate.SeqIDs{}, Log: discard()}
			body := body
			switch impl {
			case "sqlite-store-false":
				cfg.Store = openStore(b, store.Config{Driver: "sqlite", DSN: filepath.Join(b.TempDir(), "store.db")})
				body = strings.Replace(body, `"stream":true`, `"stream":true,"store":false`, 1)
			case "sqlite":
				cfg.Store = openStore(b, store.Config{Driver: "sqlite", DSN: filepath.Join(b.TempDir(), "store.db")})
			case "postgres":
				cfg.Store = openStore(b, store.Config{Driver: "postgres", DSN: pgSchema(b)})
			}
			up := httptest.NewServer(&chatUpstream{script: []answer{{text: "The file has four functions and one of them is unused."}}})
			defer up.Close()
			cfg.Upstream.BaseURL = up.URL
			gw := httptest.NewServer(gateway.New(cfg))
			defer gw.Close()
			client := gw.Client()
			var ttfb, tail []time.Duration
			for b.Loop() {
				sent := time.Now()
				resp, err := client.Post(gw.URL+"/v1/responses", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				var first time.Time
				rd := sse.NewReader(resp.Body)
				for rd.Next() {
					now := time.Now()
					if first.IsZero() {
						first = now
					}
					switch rd.Event().Type {
					case "response.completed":
						tail = append(tail, now.Sub(sent))
					case "response.failed":
						b.Fatalf("failed: %s", rd.Event().Data)
					}
				}
				resp.Body.Close()
				ttfb = append(ttfb, first.Sub(sent))
			}
			slices.Sort(ttfb)
			slices.Sort(tail)
			at := func(ds []time.Duration, p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))]) / 1e6 }
			b.ReportMetric(at(ttfb, 0.5), "ttfb-p50-ms")
			b.ReportMetric(at(ttfb, 0.99), "ttfb-p99-ms")
			b.ReportMetric(at(tail, 0.5), "terminal-p50-ms")
			b.ReportMetric(at(tail, 0.99), "terminal-p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}
