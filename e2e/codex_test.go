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

	"github.com/transponder-dev/transponder/internal/fakeupstream"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
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
			work := t.TempDir()
			stdout, stderr := runCodex(t, codex, gw.URL, c.model, work, &logs)
			completed, failed := codexTurns(stdout.Bytes())
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
			_, _ = io.Copy(io.Discard, stderr)
		})
	}
}

// runCodex runs `codex exec` in work against the gateway at gwURL, with
// model, and fails the test if it does not exit 0 within 2 minutes (logs:
// the gateway's, shown then).
func runCodex(t *testing.T, codex, gwURL, model, work string, logs *bytes.Buffer) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	config := "model_provider = \"gw\"\nmodel = \"" + model + "\"\n[model_providers.gw]\nname = \"transponder\"\nbase_url = \"" + gwURL + "/v1\"\nenv_key = \"GW_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(codex, "exec", "--json", "-s", "workspace-write", "--skip-git-repo-check", "do the task")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "GW_KEY=gw-test")
	cmd.Stdin = strings.NewReader("")
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("codex did not finish in 2 minutes\n%s\n%s", stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("codex: %v\n%s\n%s\ngateway:\n%s", err, stdout.String(), stderr.String(), logs.String())
	}
	return stdout, stderr
}

// codexTurns counts the turns `codex exec --json` reports completed and
// failed (errors among them).
func codexTurns(stdout []byte) (completed, failed int) {
	sc := bufio.NewScanner(bytes.NewReader(stdout))
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
	return completed, failed
}

// TestCodexDeepSeek: Codex through the gateway's deepseek dialect to the
// fake DeepSeek (internal/fakeupstream), which refuses a thinking-mode
// tool turn without its reasoning_content as DeepSeek does. The fake
// answers from DeepSeek's recorded streams (../shared/corpus/chat-sse):
// first the recorded reasoning and tool call, with the call made one of
// Codex's tools (the recorded weather call's name and arguments replaced
// by exec_command's, as Codex's tool call takes them:
// runtime/gateway/replay/testdata/exec_command.sse; the reasoning and
// every other chunk byte for byte), then the recorded reasoning and text
// answer. Codex runs the command, sends the turn back, and the fake takes
// it: the second request's assistant tool-call message carries the
// recorded reasoning, byte for byte.
func TestCodexDeepSeek(t *testing.T) {
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
	shared := fixtures.SharedDir("..")
	dir := filepath.Join(shared, "corpus", "chat-sse")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("no shared corpus at %s (set SHARED_DIR)", shared)
	}
	call, err := fakeupstream.ReadChunks(filepath.Join(dir, "vercel-deepseek-tool-call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	execCall, err := call.WithToolCall("", "exec_command", `{"cmd":"echo deepseek-ok > deepseek.txt && cat deepseek.txt"}`)
	if err != nil {
		t.Fatal(err)
	}
	text, err := fakeupstream.ReadChunks(filepath.Join(dir, "vercel-deepseek-reasoning.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	up := fakeupstream.DeepSeek(execCall, text)
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	var logs bytes.Buffer
	gw := httptest.NewServer(gateway.New(gateway.Config{Upstream: gateway.Upstream{BaseURL: upSrv.URL, Dialect: mapping.Deepseek}, Log: slog.New(slog.NewJSONHandler(&logs, nil))}))
	defer gw.Close()
	work := t.TempDir()
	stdout, stderr := runCodex(t, codex, gw.URL, "deepseek-reasoner", work, &logs)
	if completed, failed := codexTurns(stdout.Bytes()); completed != 1 || failed != 0 {
		t.Errorf("turns completed %d, failed %d\n%s\n%s", completed, failed, stdout, stderr)
	}
	if got, err := os.ReadFile(filepath.Join(work, "deepseek.txt")); err != nil || string(got) != "deepseek-ok\n" {
		t.Errorf("deepseek.txt: %q, %v\n%s", got, err, stdout)
	}
	reqs := up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the fake got %d requests, want 2 (the tool turn, then the answer)\n%s", len(reqs), logs.String())
	}
	var second struct {
		Messages []struct {
			Role             string            `json:"role"`
			ReasoningContent *string           `json:"reasoning_content"`
			ToolCalls        []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1], &second); err != nil {
		t.Fatal(err)
	}
	tools := 0
	for _, m := range second.Messages {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		tools++
		if m.ReasoningContent == nil || *m.ReasoningContent != call.ReasoningContent() {
			t.Errorf("the tool turn went back with reasoning_content %v, want the recorded %q", m.ReasoningContent, call.ReasoningContent())
		}
	}
	if tools != 1 {
		t.Errorf("%d assistant tool-call messages in the second request, want 1: %s", tools, reqs[1])
	}
}
