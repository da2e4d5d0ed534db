package gateway_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/runtime/gateway"
)

// The official openai Node SDK (7.55.0, e2e/node: `make node-deps`
// installs it) against the gateway on loopback over the replay upstream:
// responses.create, streamed and not, and the strict responses.stream() +
// finalResponse() over recorded streams with text, reasoning, parallel
// tool calls and a custom tool (e2e/node/sdk.test.mjs).
func TestNodeSDK(t *testing.T) {
	dir := filepath.Join("..", "..", "e2e", "node")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or the openai package is missing (make node-deps): %v %v", err, serr)
		}
		t.Skip("node or e2e/node/node_modules missing: run make node-deps")
	}
	s := newStack(t, replayed(t), gateway.Config{})
	cmd := exec.Command(node, "--test", "sdk.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+s.gw.URL+"/v1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test sdk.test.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
