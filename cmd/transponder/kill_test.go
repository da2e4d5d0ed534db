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

	_ "modernc.org/sqlite" // to check the store's file after the kill

	"github.com/transponder-dev/transponder/codec/sse"
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

// kill -9 of the gateway while streams are in flight: after a restart on
// the same data, every response whose terminal event a client had is
// readable as it was streamed; a response cut off is not there (or, if
// its terminal event was made but not delivered, whole); the store opens
// cleanly and chains go on.
func TestKill9(t *testing.T) {
	up := httptest.NewServer(slowUpstream(12, 15*time.Millisecond))
	defer up.Close()
	data := t.TempDir()
	args := []string{"-listen", "127.0.0.1:0", "-upstream", up.URL, "-dialect", "openrouter", "-data", data}
	cmd, url := startServe(t, args...)

	type result struct {
		id       string
		terminal []byte
	}
	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	var finished, streaming atomic.Int32
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 20 * time.Millisecond) // staggered: some done, some in flight at the kill
			resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"go","stream":true}`))
			if err != nil {
				return // started after the kill
			}
			defer resp.Body.Close()
			var r result
			for rd := sse.NewReader(resp.Body); rd.Next(); {
				var e struct {
					Type     string
					Response json.RawMessage
				}
				_ = json.Unmarshal(rd.Event().Data, &e)
				switch e.Type {
				case "response.created":
					var c struct{ ID string }
					_ = json.Unmarshal(e.Response, &c)
					r.id = c.ID
					streaming.Add(1)
				case "response.completed", "response.failed", "response.incomplete":
					r.terminal = append([]byte(nil), e.Response...)
					streaming.Add(-1)
					finished.Add(1)
				}
			}
			if r.id != "" {
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}
		}()
	}
	// The kill comes when streams are done and others in flight.
	for deadline := time.Now().Add(20 * time.Second); finished.Load() < 3 || streaming.Load() < 3; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no moment with 3 streams done and 3 in flight (%d, %d)", finished.Load(), streaming.Load())
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	wg.Wait()

	_, url = startServe(t, args...)
	var done, cut int
	var last string
	for _, r := range results {
		resp, err := http.Get(url + "/responses/" + r.id)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case r.terminal != nil:
			done++
			last = r.id
			if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != string(r.terminal) {
				t.Errorf("%s had its terminal event, but after the restart: %d %s", r.id, resp.StatusCode, body)
			}
		case resp.StatusCode == 404:
			cut++
		case resp.StatusCode == 200:
			if fs := conformance.CheckResponse(body); conformance.Violations(fs) > 0 || !strings.Contains(string(body), `"status":"completed"`) {
				t.Errorf("%s was cut off, yet stored as %s (%v)", r.id, body, fs)
			}
		default:
			t.Errorf("%s: %d %s", r.id, resp.StatusCode, body)
		}
	}
	if done == 0 || cut == 0 {
		t.Fatalf("the kill should come with streams done (%d) and in flight (%d): retime the test", done, cut)
	}
	t.Logf("%d streams: %d done before the kill, %d cut off", len(results), done, cut)
	resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"after","stream":true,"previous_response_id":"`+last+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || !strings.Contains(string(b), "event: response.completed") {
		t.Fatalf("chaining after the restart: %d %s", resp.StatusCode, b)
	}
	resp.Body.Close()
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
