package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/runtime/gateway"
)

// The config file's limits reach the gateway (a tenant it does not have,
// one listed twice or a negative limit is an error naming it), and
// transponder serve honours them: with rpm 1, the second request in a
// minute is refused as OpenAI refuses it.
func TestServeLimits(t *testing.T) {
	var c serveConfig
	if err := parseConfig([]byte("keys: [{tenant: team-a, key: ka}]\nlimits: [{tenant: team-a, rpm: 60, tpm: 10000, max_streams: 2}, {tenant: '*', rpm: 5}]"), &c); err != nil {
		t.Fatal(err)
	}
	cfg, err := c.gateway(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []gateway.TenantLimits{{Tenant: "team-a", RPM: 60, TPM: 10000, MaxStreams: 2}, {Tenant: "*", RPM: 5}}; len(cfg.Limits) != 2 || cfg.Limits[0] != want[0] || cfg.Limits[1] != want[1] {
		t.Errorf("limits %+v", cfg.Limits)
	}
	configErrors(t, []badConfig{
		{"keys: [{tenant: team-a, key: ka}]\nlimits: [{tenant: team-b, rpm: 1}]", `limits[0]: tenant "team-b" is not one of the gateway's`},
		{"limits: [{tenant: anonymous, rpm: 1}, {tenant: anonymous, tpm: 1}]", `limits[1]: tenant "anonymous" is listed twice`},
		{"pass_through: true\nlimits: [{tenant: passthrough, max_streams: -1}]", "limits[0]: a limit is negative"},
		{"limits: [{tenant: anonymous, rpn: 1}]", "rpn"},
	})

	t.Setenv("OPENROUTER_API_KEY", "")
	t.Setenv("TRANSPONDER_DATA", t.TempDir())
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("store: {driver: none}\nlimits: [{tenant: anonymous, rpm: 1}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	url, stop := serveInProcess(t, &log, "-config", file, "-listen", "127.0.0.1:0", "-replay", "reasoning")
	for i, want := range []int{200, 429} {
		resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"why?"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("x-ratelimit-limit-requests") != "1" || resp.Header.Get("x-ratelimit-remaining-requests") != "0" {
			t.Errorf("request %d: %d %v %s", i+1, resp.StatusCode, resp.Header, body)
		}
		if want == 429 && (!strings.Contains(string(body), `"code":"rate_limit_exceeded"`) || resp.Header.Get("Retry-After") == "") {
			t.Errorf("the refusal: %v %s", resp.Header, body)
		}
	}
	stop()
}
