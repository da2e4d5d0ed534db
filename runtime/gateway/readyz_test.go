package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
)

// readyz GETs /readyz: its status and body.
func readyz(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// notReady checks /readyz answers 503 with an OpenAI-shaped error, and
// /healthz (liveness) still 200.
func notReady(t *testing.T, url string) {
	t.Helper()
	code, b := readyz(t, url)
	var e struct {
		Error struct{ Type, Code, Message string }
	}
	if code != http.StatusServiceUnavailable || json.Unmarshal(b, &e) != nil || e.Error.Type != "server_error" || e.Error.Code != "store_unavailable" || e.Error.Message == "" {
		t.Fatalf("readyz with the store down: %d %s", code, b)
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("healthz with the store down: %d", resp.StatusCode)
	}
}

func TestReadyzNoStore(t *testing.T) {
	s := newStack(t, &chatUpstream{script: []answer{{text: "ok"}}}, gateway.Config{})
	if code, b := readyz(t, s.gw.URL); code != 200 || string(b) != "ok\n" {
		t.Errorf("readyz without a store: %d %q", code, b)
	}
}

// SQLite: ready while the file reads; a closed store is not.
func TestReadyzSQLite(t *testing.T) {
	st, err := store.Open(t.Context(), store.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	s := newStack(t, &chatUpstream{script: []answer{{text: "ok"}}}, gateway.Config{Store: st})
	if code, b := readyz(t, s.gw.URL); code != 200 || string(b) != "ok\n" {
		t.Fatalf("readyz: %d %q", code, b)
	}
	st.Close()
	notReady(t, s.gw.URL)
}

// PostgreSQL stopped: /readyz fails at once (within its timeout); started
// again: it recovers, on the same pool.
func TestReadyzPostgresOutage(t *testing.T) {
	pg := newPGServer(t)
	st := openStore(t, store.Config{Driver: "postgres", DSN: pg.dsn()})
	s := newStack(t, &chatUpstream{script: []answer{{text: "ok"}}}, gateway.Config{Store: st})
	if code, b := readyz(t, s.gw.URL); code != 200 {
		t.Fatalf("readyz: %d %s", code, b)
	}
	pg.ctl("stop", "-m", "immediate")
	notReady(t, s.gw.URL)
	pg.start()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, b := readyz(t, s.gw.URL)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready after PostgreSQL came back: %d %s", code, b)
		}
	}
}
