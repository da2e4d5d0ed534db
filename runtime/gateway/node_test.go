package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
)

// The official openai Node SDK (7.55.0, e2e/node: `make node-deps`
// installs it) against the gateway on loopback over the replay upstream
// (script get_weather,text), with a store (SQLite):
//   - sdk.test.mjs: responses.create, streamed and not, and the strict
//     responses.stream() + finalResponse() over recorded streams with
//     text, reasoning, parallel tool calls and a custom tool;
//   - stored.test.mjs: a previous_response_id chain whose second turn is
//     only a function_call_output (streamed and not), retrieve/delete/
//     inputItems with pagination, a conversation over three turns with
//     its items, update and delete. It reads the chat requests the
//     upstream received from UPSTREAM_LOG.
func TestNodeSDK(t *testing.T) {
	dir := filepath.Join("..", "..", "e2e", "node")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or the openai package is missing (make node-deps): %v %v", err, serr)
		}
		t.Skip("node or e2e/node/node_modules missing: run make node-deps")
	}
	up := &recording{next: replayed(t, "get_weather", "text")}
	st := openStore(t, store.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "store.db")})
	s := newStack(t, up, gateway.Config{Store: st})
	cmd := exec.Command(node, "--test", "sdk.test.mjs", "stored.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+s.gw.URL+"/v1", "UPSTREAM_LOG="+s.up.URL+"/recorded")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	// stored.test.mjs ran: its two chains reached the upstream whole.
	chains := 0
	for _, b := range up.bodies() {
		var c chatRequest
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		if got := c.String(); strings.HasPrefix(got, "user:What is the weather in Paris?") && strings.Contains(got, "\nassistant:call call_replay_weather get_weather") && strings.Contains(got, "\ntool:") {
			chains++
		}
	}
	if chains != 2 {
		t.Fatalf("%d chat requests carried a whole chain, want 2 (stored.test.mjs did not run?)", chains)
	}
}

// recording is an upstream that records the chat requests it passes to
// next, and answers GET /recorded with them (a JSON array).
type recording struct {
	next http.Handler
	mu   sync.Mutex
	reqs [][]byte
}

func (u *recording) bodies() [][]byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([][]byte(nil), u.reqs...)
}

func (u *recording) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/recorded" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[" + string(joinBytes(u.bodies())) + "]"))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	u.mu.Lock()
	u.reqs = append(u.reqs, body)
	u.mu.Unlock()
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	u.next.ServeHTTP(w, r)
}

func joinBytes(bs [][]byte) []byte {
	var out []byte
	for i, b := range bs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return out
}
