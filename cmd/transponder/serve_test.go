package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/gateway"
)

// The config file's settings reach the gateway's: the upstream and its
// dialect, keys, the model map, the system mode, the unknown-type and
// unknown-item policies, the provider preferences (as JSON), the limits;
// a bad value is an error naming it.
func TestServeConfig(t *testing.T) {
	const file = `
listen: 127.0.0.1:9999
upstream: {base_url: "http://127.0.0.1:1/v1", dialect: openai, referer: "https://example.com", title: App}
keys: [{tenant: team-a, key: k1}]
models: [{from: gpt-5.5, to: openai/gpt-5.5}, {from: "claude-", to: "anthropic/claude-", prefix: true}]
responses_upstream:
  models: [{from: thinker, to: openai/o3}, {from: "fast-", to: "openai/gpt-5-nano-", prefix: true}]
  guards:
    - {model: my-tune-, prefix: true, drop: [temperature, top_p], drop_service_tiers: [flex], why: our fine-tune refuses sampling}
system: merge
unknown_types: reject
unknown_items: drop
max_body: 1000
max_concurrent: 7
upstream_timeout: 30s
stream_idle: 1m
body_timeout: 10s
`
	var c serveConfig
	if err := parseConfig([]byte(file), &c); err != nil {
		t.Fatal(err)
	}
	cfg, err := c.gateway(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Upstream.BaseURL != "http://127.0.0.1:1/v1" || cfg.Upstream.Dialect != mapping.OpenAI || cfg.Upstream.Referer != "https://example.com" || cfg.Upstream.Title != "App" {
		t.Errorf("upstream %+v", cfg.Upstream)
	}
	if len(cfg.Keys) != 1 || cfg.Keys[0].Tenant != "team-a" || cfg.Keys[0].Key != "k1" {
		t.Errorf("keys %+v", cfg.Keys)
	}
	if len(cfg.Mapping.Models) != 2 || !cfg.Mapping.Models[1].Prefix || cfg.Mapping.System != mapping.Merge || cfg.Mapping.UnknownTypes != mapping.RejectUnknown || cfg.Mapping.UnknownItems != mapping.DropUnknownItems {
		t.Errorf("mapping %+v", cfg.Mapping)
	}
	if r := cfg.Reverse; len(r.Models) != 2 || r.Models[0] != (mapping.ModelRule{From: "thinker", To: "openai/o3"}) || !r.Models[1].Prefix ||
		len(r.Guards) != 1 || r.Guards[0].Model != "my-tune-" || !r.Guards[0].Prefix || strings.Join(r.Guards[0].Drop, ",") != "temperature,top_p" ||
		strings.Join(r.Guards[0].DropServiceTiers, ",") != "flex" || r.Guards[0].Why != "our fine-tune refuses sampling" || r.NoDefaultGuards {
		t.Errorf("reverse %+v", r)
	}
	// The reverse options do what the file says: the renamed model, the
	// guard of the renamed name (a default one), the config's guard.
	for _, c := range []struct{ model, want string }{
		{"thinker", `{"model":"openai/o3",`},
		{"my-tune-1", `{"model":"my-tune-1",`},
	} {
		out, warns, err := mapping.ChatToResponses([]byte(`{"model":"`+c.model+`","messages":[{"role":"user","content":"x"}],"temperature":0.5}`), cfg.Reverse)
		if err != nil || !strings.HasPrefix(string(out), c.want) || strings.Contains(string(out), "temperature") || len(warns) != 1 || warns[0].Path != "temperature" {
			t.Errorf("%s: %s %v %v", c.model, out, warns, err)
		}
	}
	var nd serveConfig
	if err := parseConfig([]byte("responses_upstream: {default_guards: false}"), &nd); err != nil {
		t.Fatal(err)
	}
	if ndCfg, err := nd.gateway(nil); err != nil || !ndCfg.Reverse.NoDefaultGuards || ndCfg.Reverse.Guards != nil {
		t.Errorf("default_guards false: %+v, %v", ndCfg.Reverse, err)
	}
	var or serveConfig
	if err := parseConfig([]byte("provider: {data_collection: deny, zdr: true}"), &or); err != nil {
		t.Fatal(err)
	}
	if orCfg, err := or.gateway(nil); err != nil || string(orCfg.Provider) != `{"data_collection":"deny","zdr":true}` {
		t.Errorf("provider %s, %v", orCfg.Provider, err)
	}
	if cfg.MaxBody != 1000 || cfg.MaxConcurrent != 7 || cfg.UpstreamTimeout != 30*time.Second || cfg.StreamIdle != time.Minute || cfg.BodyTimeout != 10*time.Second {
		t.Errorf("limits %+v", cfg)
	}
	configErrors(t, []badConfig{
		{"system: loud", `system "loud"`},
		{"unknown_types: maybe", `unknown_types "maybe"`},
		{"unknown_items: sometimes", `unknown_items "sometimes"`},
		{"upstream: {dialect: anthropic}", `upstream dialect: unknown dialect "anthropic" (known: openrouter, openai, compatible-reasoning, deepseek, kimi, mistral, qwen)`},
		{"responses_upstream: {dialect: deepseek}", `responses_upstream dialect "deepseek": a Responses upstream speaks openai or openrouter`},
		{"stream_idle: soon", `"soon"`},
		{"keys: [{tenant: a, key: b}]\npass_through: true", "keys and pass_through"},
		{"keys: [{tenant: a, key: ''}]", "keys[0]"},
		{"keys: [{tenant: a, key: k}, {tenant: b, key: k}]", "keys[1]"},
		{"upstream: {dialect: openai}\nprovider: {zdr: true}", "provider"},
		{"max_concurent: 3", "max_concurent"},
		{"responses_upstream: {guards: [{model: o3, drop: [temprature]}]}", `responses_upstream.guards[0].drop[0]: "temprature" is not a field a guard drops`},
		{"responses_upstream: {guards: [{model: o3, drop: [top_p], dorp: [x]}]}", "dorp"},
		{"responses_upstream: {guards: [{drop: [top_p]}]}", "responses_upstream.guards[0].model"},
	})
}

// badConfig is a config file that must be refused, and what the error
// must name.
type badConfig struct{ bad, want string }

// configErrors checks that each config is refused (by parseConfig or by
// gateway) with an error naming what it must.
func configErrors(t *testing.T, cs []badConfig) {
	t.Helper()
	for _, c := range cs {
		var sc serveConfig
		err := parseConfig([]byte(c.bad), &sc)
		if err == nil {
			_, err = sc.gateway(nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %s", c.bad, err, c.want)
		}
	}
}

// serveInProcess runs `serve` with args in this process, logging into
// log, and returns its /v1 URL once it listens, and stop: it ends serve
// as a signal does and checks that it exits cleanly.
func serveInProcess(t *testing.T, log *syncBuffer, args ...string) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan int, 1)
	go func() { done <- serveUntil(ctx, args, log) }()
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, after, ok := strings.Cut(log.String(), `"listen":"`); ok {
			url, _, _ = strings.Cut(after, `"`)
		}
	}
	if url == "" {
		t.Fatalf("no listening line: %s", log.String())
	}
	return url, func() {
		t.Helper()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("exit %d: %s", code, log.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
		}
	}
}

// syncBuffer is a bytes.Buffer safe to write from the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// transponder serve with no key: the replay upstream, said so in the log;
// it answers a Responses request; stopping it (as a signal does) ends it
// cleanly.
func TestServeReplay(t *testing.T) {
	t.Setenv("OPENROUTER_API_KEY", "")
	t.Setenv("TRANSPONDER_DATA", t.TempDir())
	var log syncBuffer
	url, stop := serveInProcess(t, &log, "-listen", "127.0.0.1:0", "-replay", "reasoning")
	if !strings.Contains(log.String(), "REPLAY UPSTREAM") {
		t.Errorf("the replay is not said: %s", log.String())
	}
	resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"why?"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"text":"The answer is 42."`)) || !bytes.Contains(body, []byte(`"type":"reasoning"`)) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	// Chat Completions too: over the gateway's own /v1/responses (no key:
	// the replay behind it).
	resp, err = http.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"why?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"content":"The answer is 42."`)) || !bytes.Contains(body, []byte(`"object":"chat.completion"`)) {
		t.Errorf("chat completions: %d %s", resp.StatusCode, body)
	}
	stop()
	if !strings.Contains(log.String(), "shutting down") {
		t.Errorf("no shutdown line: %s", log.String())
	}
}

// The config file's retries reach the gateway's RetryPolicy; without
// them retries are off; a bad value is an error naming its key.
func TestServeRetriesConfig(t *testing.T) {
	var c serveConfig
	if err := parseConfig([]byte("retries: {attempts: 3, base: 250ms, max: 4s, max_retry_after: 30s}"), &c); err != nil {
		t.Fatal(err)
	}
	cfg, err := c.gateway(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (gateway.RetryPolicy{Attempts: 3, Base: 250 * time.Millisecond, Max: 4 * time.Second, MaxRetryAfter: 30 * time.Second}); cfg.Retry != want {
		t.Errorf("retries %+v, want %+v", cfg.Retry, want)
	}
	var off serveConfig
	if err := parseConfig([]byte("listen: 127.0.0.1:1"), &off); err != nil {
		t.Fatal(err)
	}
	if cfg, err := off.gateway(nil); err != nil || cfg.Retry.Attempts > 1 {
		t.Errorf("retries without the key: %+v, %v", cfg.Retry, err)
	}
	configErrors(t, []badConfig{
		{"retries: {attempts: -1}", "retries.attempts -1"},
		{"retries: {attempts: 2, base: soon}", `retries.base: time: invalid duration "soon"`},
		{"retries: {attempts: 2, max: -1s}", "retries.max -1s"},
		{"retries: {attempts: 2, max_retry_after: -5s}", "retries.max_retry_after -5s"},
		{"retries: {atempts: 2}", "atempts"},
	})
}

// -debug-listen serves the runtime's profiles on an address of its own;
// the API's address does not serve them.
func TestServeDebugListen(t *testing.T) {
	t.Setenv("OPENROUTER_API_KEY", "")
	t.Setenv("TRANSPONDER_DATA", t.TempDir())
	var log syncBuffer
	url, stop := serveInProcess(t, &log, "-listen", "127.0.0.1:0", "-debug-listen", "127.0.0.1:0")
	defer stop()
	_, after, ok := strings.Cut(log.String(), `"pprof":"`)
	if !ok {
		t.Fatalf("no pprof line: %s", log.String())
	}
	pprofURL, _, _ := strings.Cut(after, `"`)
	resp, err := http.Get(pprofURL + "heap?gc=1&debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("heap profile:")) {
		t.Errorf("heap profile: %d %.200s", resp.StatusCode, body)
	}
	resp, err = http.Get(strings.TrimSuffix(url, "/v1") + "/debug/pprof/heap")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the API's address serves profiles: %d", resp.StatusCode)
	}
}
