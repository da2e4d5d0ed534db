package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // to make a PostgreSQL schema per test
	_ "modernc.org/sqlite"             // to check the store's file after the kill

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/pgtest"
	"github.com/transponder-dev/transponder/runtime/conformance"
)

// TestMain lets a test run `transponder serve` as a process of its own:
// the test binary itself, with TRANSPONDER_TEST_SERVE set to the
// arguments (one per line).
func TestMain(m *testing.M) {
	if args := os.Getenv("TRANSPONDER_TEST_SERVE"); args != "" {
		os.Exit(serve(strings.Split(args, "\n"), os.Stderr))
	}
	os.Exit(m.Run())
}

// slowUpstream streams a chat answer of n words, one every d.
func slowUpstream(n int, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := range n {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"},\"finish_reason\":null}]}\n\n", i)
			_ = rc.Flush()
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\ndata: [DONE]\n\n")
	})
}

// startServe runs `transponder serve` as a process and returns its URL.
func startServe(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TRANSPONDER_TEST_SERVE="+strings.Join(args, "\n"), "OPENROUTER_API_KEY=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, after, ok := strings.Cut(sc.Text(), `"listen":"`); ok {
				u, _, _ := strings.Cut(after, `"`)
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return cmd, u
	case <-time.After(30 * time.Second):
		t.Fatal("transponder serve did not start")
	}
	return nil, ""
}

// pgSchema is a DSN of the test PostgreSQL (TRANSPONDER_TEST_PG) with a
// fresh schema, dropped after the test; without TRANSPONDER_TEST_PG the
// test is skipped, and failed under CI (.ci/run starts PostgreSQL and
// exports it). The convention of runtime/gateway's tests.
func pgSchema(t *testing.T) string {
	t.Helper()
	return pgtest.Schema(t, "kill")
}

// The load of TestKill9: streams of killWords words, one every
// killEvery, started killStagger apart; the kill comes once killDone
// are done with killDone more in flight.
const (
	killStreams = 200
	killWords   = 40
	killEvery   = 25 * time.Millisecond
	killStagger = 10 * time.Millisecond
	killDone    = 40
)

// kill -9 of the gateway under load, on each store: after a restart on
// the same data, every response whose terminal event a client had is
// readable as it was streamed, with its input items; a response cut off
// is not there (or, if its terminal event was made but not delivered,
// whole); every stream a client had whole passes the conformance
// checker; the store opens cleanly and chains go on.
func TestKill9(t *testing.T) {
	for _, st := range []struct {
		name  string
		args  func(t *testing.T) []string
		check func(t *testing.T, data string)
	}{
		{"sqlite", func(*testing.T) []string { return nil }, sqliteIntegrity},
		{"postgres", func(t *testing.T) []string { return []string{"-store", "postgres", "-store-dsn", pgSchema(t)} }, nil},
	} {
		t.Run(st.name, func(t *testing.T) {
			extra := st.args(t)
			data := t.TempDir()
			kill9(t, append([]string{"-data", data}, extra...))
			if st.check != nil {
				st.check(t, data)
			}
		})
	}
}

// killResult is what a client had of its stream.
type killResult struct {
	id, input string
	terminal  []byte // the terminal event's response; nil if cut off
	findings  []conformance.Finding
}

func kill9(t *testing.T, storeArgs []string) {
	up := httptest.NewServer(slowUpstream(killWords, killEvery))
	defer up.Close()
	args := append([]string{"-listen", "127.0.0.1:0", "-upstream", up.URL, "-dialect", "openrouter"}, storeArgs...)
	cmd, url := startServe(t, args...)

	var mu sync.Mutex
	var results []killResult
	var wg sync.WaitGroup
	var finished, streaming atomic.Int32
	for i := range killStreams {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * killStagger) // staggered: some done, many in flight at the kill
			r := killResult{input: fmt.Sprintf("go %d", i)}
			resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"`+r.input+`","stream":true}`))
			if err != nil {
				return // started after the kill
			}
			defer resp.Body.Close()
			c := conformance.NewChecker()
			for rd := sse.NewReader(resp.Body); rd.Next(); {
				data := rd.Event().Data
				c.Event(data)
				var e struct {
					Type     string
					Response json.RawMessage
				}
				_ = json.Unmarshal(data, &e)
				switch e.Type {
				case "response.created":
					var cr struct{ ID string }
					_ = json.Unmarshal(e.Response, &cr)
					r.id = cr.ID
					streaming.Add(1)
				case "response.completed", "response.failed", "response.incomplete":
					r.terminal = append([]byte(nil), e.Response...)
					streaming.Add(-1)
					finished.Add(1)
				}
			}
			if r.terminal != nil {
				r.findings = c.Finish()
			}
			if r.id != "" {
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}
		})
	}
	// The kill comes when streams are done and many others in flight.
	for deadline := time.Now().Add(60 * time.Second); finished.Load() < killDone || streaming.Load() < killDone; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no moment with %d streams done and %d in flight (%d, %d)", killDone, killDone, finished.Load(), streaming.Load())
		}
	}
	atKill := streaming.Load()
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	wg.Wait()

	_, url = startServe(t, args...)
	var done, cut, whole int
	var last string
	for _, r := range results {
		code, body := get(t, url+"/responses/"+r.id)
		switch {
		case r.terminal != nil:
			done++
			last = r.id
			if conformance.Violations(r.findings) > 0 {
				t.Errorf("%s: the stream a client had whole breaks the checker: %v", r.id, r.findings)
			}
			if code != 200 || strings.TrimSpace(string(body)) != string(r.terminal) {
				t.Errorf("%s had its terminal event, but after the restart: %d %s", r.id, code, body)
				continue
			}
			checkInput(t, url, r)
		case code == 404:
			cut++
		case code == 200:
			whole++
			if fs := conformance.CheckResponse(body); conformance.Violations(fs) > 0 || !strings.Contains(string(body), `"status":"completed"`) {
				t.Errorf("%s was cut off, yet stored as %s (%v)", r.id, body, fs)
			}
			checkInput(t, url, r)
		default:
			t.Errorf("%s: %d %s", r.id, code, body)
		}
	}
	t.Logf("%d streams started, %d in flight at the kill: %d done before it, %d cut off, %d cut off but stored whole", len(results), atKill, done, cut, whole)
	if done < killDone || cut+whole < killDone/2 {
		t.Fatalf("the kill should come with %d streams done (%d) and in flight (%d): retime the test", killDone, done, cut+whole)
	}
	resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"after","stream":true,"previous_response_id":"`+last+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events [][]byte
	for rd := sse.NewReader(resp.Body); rd.Next(); {
		events = append(events, append([]byte(nil), rd.Event().Data...))
	}
	if fs := conformance.Check(events); resp.StatusCode != 200 || conformance.Violations(fs) > 0 {
		t.Fatalf("chaining after the restart: %d %v", resp.StatusCode, fs)
	}
}

// checkInput checks the stored response r has its input item.
func checkInput(t *testing.T, url string, r killResult) {
	t.Helper()
	code, body := get(t, url+"/responses/"+r.id+"/input_items")
	var l struct {
		Data []struct {
			Type, Role string
			Content    []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(body, &l); err != nil || code != 200 || len(l.Data) != 1 || l.Data[0].Role != "user" ||
		len(l.Data[0].Content) != 1 || l.Data[0].Content[0].Text != r.input {
		t.Errorf("%s: input_items after the restart: %d %s, want the one message %q", r.id, code, body, r.input)
	}
}

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// sqliteIntegrity checks the SQLite store's file after the kill.
func sqliteIntegrity(t *testing.T, data string) {
	db, err := sql.Open("sqlite", filepath.Join(data, "transponder.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
}
