// Package e2e runs real clients against the gateway: the Codex CLI here
// (make e2e), the Node SDK in e2e/node (runtime/gateway's TestNodeSDK).
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/gateway/replay"
	"github.com/transponder-dev/transponder/runtime/store"

	_ "modernc.org/sqlite" // to count the store's rows
)

// TestCodex: `codex exec` (Codex CLI 0.169.0, e2e/codex, offline) against
// the gateway over the replay upstream, scripted to (a) call exec_command
// then answer, (b) make two parallel calls then answer, (c) for a catalog
// model (gpt-5.5) call the freeform apply_patch custom tool creating a
// file, then answer. Each turn completes and its effect is on disk.
// It runs with TRANSPONDER_E2E=1 (make e2e installs Codex and sets it).
func TestCodex(t *testing.T) {
	if os.Getenv("TRANSPONDER_E2E") == "" {
		t.Skip("set TRANSPONDER_E2E=1 (make e2e)")
	}
	codex, err := filepath.Abs(filepath.Join("codex", "node_modules", ".bin", "codex"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(codex); err != nil {
		t.Fatalf("no Codex: run make e2e (npm ci in e2e/codex): %v", err)
	}
	for _, c := range []struct {
		name, model string
		script      []string
		files       map[string]string
	}{
		{"exec_command", "openai/gpt-5.1", []string{"exec_command", "text"}, map[string]string{"replay.txt": "replay-ok\n"}},
		{"parallel calls", "openai/gpt-5.1", []string{"parallel", "text"}, map[string]string{"one.txt": "one\n", "two.txt": "two\n"}},
		{"apply_patch", "gpt-5.5", []string{"apply_patch", "text"}, map[string]string{"hello.txt": "hello from apply_patch\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			up, err := replay.New(c.script)
			if err != nil {
				t.Fatal(err)
			}
			upSrv := httptest.NewServer(up)
			defer upSrv.Close()
			var logs bytes.Buffer
			// A store, as serve opens by default: Codex sends store:false and
			// its whole history, so nothing may be written.
			dbFile := filepath.Join(t.TempDir(), "store.db")
			st, err := store.Open(context.Background(), store.Config{Driver: "sqlite", DSN: dbFile})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			gw := httptest.NewServer(gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: upSrv.URL}, Store: st, Log: slog.New(slog.NewJSONHandler(&logs, nil))}))
			defer gw.Close()
			home, work := t.TempDir(), t.TempDir()
			config := "model_provider = \"gw\"\nmodel = \"" + c.model + "\"\n[model_providers.gw]\nname = \"transponder\"\nbase_url = \"" + gw.URL + "/v1\"\nenv_key = \"GW_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n"
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(codex, "exec", "--json", "-s", "workspace-write", "--skip-git-repo-check", "do the task")
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "GW_KEY=gw-test")
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(2 * time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("codex did not finish in 2 minutes\n%s\n%s", stdout.String(), stderr.String())
			}
			if err != nil {
				t.Fatalf("codex: %v\n%s\n%s\ngateway:\n%s", err, stdout.String(), stderr.String(), logs.String())
			}
			completed, failed := 0, 0
			sc := bufio.NewScanner(&stdout)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var ev struct{ Type string }
				if json.Unmarshal(sc.Bytes(), &ev) == nil {
					switch ev.Type {
					case "turn.completed":
						completed++
					case "turn.failed", "error":
						failed++
					}
				}
			}
			if completed != 1 || failed != 0 {
				t.Errorf("turns completed %d, failed %d\n%s\n%s", completed, failed, stdout.String(), stderr.String())
			}
			for name, want := range c.files {
				got, err := os.ReadFile(filepath.Join(work, name))
				if err != nil || string(got) != want {
					t.Errorf("%s: %q, %v; want %q\n%s", name, got, err, want, stdout.String())
				}
			}
			if n := strings.Count(logs.String(), `"msg":"response"`); n != len(c.script) {
				t.Errorf("%d requests reached the gateway, want %d (one per scripted turn)\n%s", n, len(c.script), logs.String())
			}
			db, err := sql.Open("sqlite", dbFile)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, table := range []string{"responses", "items", "conversations", "conversation_items"} {
				var n int
				if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil || n != 0 {
					t.Errorf("%s: %d rows written for Codex (store:false), %v", table, n, err)
				}
			}
			_, _ = io.Copy(io.Discard, &stderr)
		})
	}
}
