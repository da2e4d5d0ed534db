package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/go-faster/yaml"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/gateway/replay"
)

// serveConfig is the config file of `transponder serve` (YAML or JSON);
// flags and the environment override it.
type serveConfig struct {
	Listen   string `yaml:"listen"`
	Upstream struct {
		BaseURL   string `yaml:"base_url"`
		Dialect   string `yaml:"dialect"`     // openrouter (default), openai, or a dialect of mapping/dialects (deepseek, mistral, …)
		APIKeyEnv string `yaml:"api_key_env"` // default OPENROUTER_API_KEY
		Referer   string `yaml:"referer"`     // OpenRouter's HTTP-Referer
		Title     string `yaml:"title"`       // OpenRouter's X-Title
	} `yaml:"upstream"`
	// ResponsesUpstream serves POST /v1/chat/completions (the reverse
	// direction). Default: OpenRouter's Responses API with the chat
	// upstream's key when that is OpenRouter's and set, else the gateway's
	// own /v1/responses over the replay upstream.
	ResponsesUpstream struct {
		BaseURL   string `yaml:"base_url"`
		Dialect   string `yaml:"dialect"`     // openai (OpenAI's /v1/responses) or openrouter
		APIKeyEnv string `yaml:"api_key_env"` // default: the chat upstream's
		// Models rename the model of the Responses requests, as models:
		// does for the chat upstream's (the names this upstream knows).
		Models []modelRule `yaml:"models"`
		// Guards are model-aware guards (what the upstream's models refuse
		// is left out, with a warning), consulted before the default table
		// (mapping/guards/defaults.yaml), which default_guards: false
		// leaves out. They match the model after Models renamed it.
		Guards        []mapping.GuardRule `yaml:"guards"`
		DefaultGuards *bool               `yaml:"default_guards"`
	} `yaml:"responses_upstream"`
	Keys         []gateway.Key `yaml:"keys"`
	PassThrough  bool          `yaml:"pass_through"`
	Limits       []limitRule   `yaml:"limits"` // per tenant; tenant "*": every tenant not listed
	Models       []modelRule   `yaml:"models"`
	System       string        `yaml:"system"`        // system (default), developer, merge
	UnknownTypes string        `yaml:"unknown_types"` // drop (default) or reject
	UnknownItems string        `yaml:"unknown_items"` // reject (default) or drop
	Provider     any           `yaml:"provider"`      // OpenRouter's provider preferences, injected
	MaxBody      int64         `yaml:"max_body"`
	MaxConc      int           `yaml:"max_concurrent"`
	UpTimeout    string        `yaml:"upstream_timeout"`
	StreamIdle   string        `yaml:"stream_idle"`
	BodyTimeout  string        `yaml:"body_timeout"`
	Retries      retryConfig   `yaml:"retries"`
	Replay       string        `yaml:"replay"` // the replay script, when no key is set
	DataDir      string        `yaml:"data_dir"`
	Store        storeConfig   `yaml:"store"`
}

// retryConfig is the config file's retries of the upstream call before
// the first byte (gateway.RetryPolicy): off unless attempts is over 1;
// the durations are Go's (250ms, 8s).
type retryConfig struct {
	Attempts      int    `yaml:"attempts"`
	Base          string `yaml:"base"`
	Max           string `yaml:"max"`
	MaxRetryAfter string `yaml:"max_retry_after"`
}

// limitRule is a tenant's limits (gateway.TenantLimits); 0 is unlimited.
type limitRule struct {
	Tenant     string `yaml:"tenant"`
	RPM        int    `yaml:"rpm"`
	TPM        int    `yaml:"tpm"`
	MaxStreams int    `yaml:"max_streams"`
}

type modelRule struct {
	From   string `yaml:"from"`
	To     string `yaml:"to"`
	Prefix bool   `yaml:"prefix"`
}

// storeConfig is the config file's store: where responses and
// conversations are kept.
type storeConfig struct {
	// Driver is sqlite (the default: a file under the data dir), postgres
	// (several gateway instances on one database) or none (stateless).
	Driver string `yaml:"driver"`
	// DSN is the SQLite file (default <data_dir>/transponder.db) or the
	// PostgreSQL URL (postgres://user:pass@host:5432/db).
	DSN string `yaml:"dsn"`
	// TTL is how long stored objects live (default 30 days): a Go
	// duration, or a number of days ("30d").
	TTL string `yaml:"ttl"`
	// MaxChainItems bounds the stored items one request may continue
	// (default 10000).
	MaxChainItems int `yaml:"max_chain_items"`
	// CacheBytes bounds the cache of stored items that chains are read
	// from (default 64 MiB; negative: no cache).
	CacheBytes int64 `yaml:"cache_bytes"`
}

// serve is `transponder serve`: the gateway. It returns when a signal
// stops it (in-flight streams get ShutdownGrace to finish).
func serve(args []string, stderr io.Writer) int {
	return serveUntil(context.Background(), args, stderr)
}

// serveUntil is serve, stopping (as on a signal) when ctx ends.
func serveUntil(parent context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", os.Getenv("TRANSPONDER_CONFIG"), "config file (YAML or JSON; $TRANSPONDER_CONFIG)")
	listen := fs.String("listen", "", "address to listen on (default 127.0.0.1:8080; $TRANSPONDER_LISTEN)")
	upstream := fs.String("upstream", "", "upstream API root (default OpenRouter's)")
	dialect := fs.String("dialect", "", "the upstream's chat dialect: "+strings.Join(mapping.Dialects(), ", "))
	data := fs.String("data", "", "the data directory: the SQLite store's file is there (default $TRANSPONDER_DATA, else $XDG_DATA_HOME/transponder, else ~/.local/share/transponder)")
	storeDriver := fs.String("store", "", "where responses and conversations are kept: sqlite (default), postgres or none")
	storeDSN := fs.String("store-dsn", "", "the store's SQLite file or PostgreSQL URL ($TRANSPONDER_STORE_DSN)")
	debugListen := fs.String("debug-listen", os.Getenv("TRANSPONDER_DEBUG_LISTEN"), "serve the Go runtime's profiles (/debug/pprof/) on this address, apart from the API (off by default; $TRANSPONDER_DEBUG_LISTEN)")
	script := fs.String("replay", os.Getenv("TRANSPONDER_REPLAY"), "the replay upstream's script when no upstream key is set: recordings by turn, comma-separated ($TRANSPONDER_REPLAY; "+strings.Join(replay.Names(), ", ")+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var c serveConfig
	if *configFile != "" {
		data, err := os.ReadFile(*configFile)
		if err == nil {
			err = parseConfig(data, &c)
		}
		if err != nil {
			fmt.Fprintln(stderr, "transponder serve: config:", err)
			return 2
		}
	}
	for _, o := range []struct {
		dst       *string
		flag, env string
	}{
		{&c.Listen, *listen, os.Getenv("TRANSPONDER_LISTEN")},
		{&c.Upstream.BaseURL, *upstream, ""},
		{&c.Upstream.Dialect, *dialect, ""},
		{&c.Replay, *script, ""},
		{&c.DataDir, *data, ""},
		{&c.Store.Driver, *storeDriver, ""},
		{&c.Store.DSN, *storeDSN, os.Getenv("TRANSPONDER_STORE_DSN")},
	} {
		if o.flag != "" {
			*o.dst = o.flag
		} else if *o.dst == "" && o.env != "" {
			*o.dst = o.env
		}
	}
	if c.Listen == "" {
		c.Listen = "127.0.0.1:8080"
	}
	if c.DataDir == "" {
		c.DataDir = defaultDataDir()
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	cfg, err := c.gateway(log)
	if err != nil {
		fmt.Fprintln(stderr, "transponder serve:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	keyEnv := c.Upstream.APIKeyEnv
	if keyEnv == "" {
		keyEnv = "OPENROUTER_API_KEY"
	}
	if cfg.Upstream.APIKey = os.Getenv(keyEnv); cfg.Upstream.APIKey == "" && !c.PassThrough && c.Upstream.BaseURL == "" {
		if len(c.Keys) > 0 {
			fmt.Fprintf(stderr, "transponder serve: gateway keys are set but %s is not: clients would get recorded answers (the replay upstream); set it, or remove the keys to replay\n", keyEnv)
			return 2
		}
		var names []string
		if c.Replay != "" {
			names = strings.Split(c.Replay, ",")
		}
		up, err := replay.New(names)
		if err != nil {
			fmt.Fprintln(stderr, "transponder serve:", err)
			return 2
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(stderr, "transponder serve: replay upstream:", err)
			return 2
		}
		rs := &http.Server{Handler: up, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = rs.Serve(ln) }()
		defer rs.Close()
		cfg.Upstream.BaseURL, cfg.Upstream.Dialect, cfg.Mapping.Dialect = "http://"+ln.Addr().String(), mapping.OpenRouter, mapping.OpenRouter
		log.Warn("REPLAY UPSTREAM: no "+keyEnv+" is set; answers come from recorded chat streams, not a model", "script", up.Script(), "recordings", replay.Names(), "choose", "a user message containing #replay:NAME, else the script's N-th name for the N-th turn")
	}
	st, ttl, err := c.openStore(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "transponder serve: store:", err)
		return 2
	}
	if st != nil {
		defer st.Close()
		cfg.Store, cfg.MaxChainItems = st, c.Store.MaxChainItems
		ectx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go gateway.ExpireLoop(ectx, st, ExpireEvery, time.Now, log)
		where := c.Store.DSN
		if c.Store.Driver == "postgres" {
			where = redactDSN(where)
		}
		log.Info("store", "driver", c.Store.Driver, "dsn", where, "ttl", ttl.String())
	} else {
		log.Warn("no store: previous_response_id, conversations and stored responses are refused")
	}
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		fmt.Fprintln(stderr, "transponder serve:", err)
		return 2
	}
	if err := c.responsesUpstream(&cfg, keyEnv, "http://"+ln.Addr().String()+"/v1"); err != nil {
		fmt.Fprintln(stderr, "transponder serve:", err)
		return 2
	}
	tp, flushTraces, err := tracing(ctx, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "transponder serve: tracing:", err)
		return 2
	}
	if tp != nil {
		defer flushTraces() // after the streams ended: their spans too
		cfg.Tracer = tp
		log.Info("tracing: OTLP/HTTP export of a span per request (the OTEL_* environment)")
	}
	_, stopDebug, err := debugServer(*debugListen, log)
	if err != nil {
		fmt.Fprintln(stderr, "transponder serve: debug-listen:", err)
		return 2
	}
	defer stopDebug()
	gw := gateway.New(cfg)
	srv := &http.Server{Addr: c.Listen, Handler: gw, ReadHeaderTimeout: 30 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("serving the Responses API and Chat Completions", "listen", "http://"+ln.Addr().String()+"/v1", "upstream", cfg.Upstream.BaseURL, "dialect", cfg.Upstream.Dialect.String(),
		"responses_upstream", cfg.ResponsesUpstream.BaseURL, "responses_dialect", cfg.ResponsesUpstream.Dialect.String(), "gateway_keys", len(cfg.Keys), "pass_through", cfg.PassThrough)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "transponder serve:", err)
		return 1
	case <-ctx.Done():
	}
	stop() // a second signal ends the process at once
	log.Info("shutting down: in-flight streams may finish", "grace", ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown: streams cut", "error", err.Error())
		_ = srv.Close()
	}
	_ = gw.Wait(sctx)
	return 0
}

// responsesUpstream sets the Responses upstream of POST
// /v1/chat/completions: the configured one; else OpenRouter's Responses
// API when the chat upstream is OpenRouter's with a key; else the
// gateway itself (self, its /v1 root), whose /v1/responses runs over the
// chat upstream (the replay when no key is set).
func (c *serveConfig) responsesUpstream(cfg *gateway.Config, chatKeyEnv, self string) error {
	ru := &c.ResponsesUpstream
	d, err := parseResponsesDialect(ru.Dialect)
	if err != nil {
		return fmt.Errorf("responses_upstream %w", err)
	}
	cfg.ResponsesUpstream.Dialect = d
	keyEnv := ru.APIKeyEnv
	if keyEnv == "" {
		keyEnv = chatKeyEnv
	}
	switch {
	case ru.BaseURL != "":
		cfg.ResponsesUpstream.BaseURL, cfg.ResponsesUpstream.APIKey = ru.BaseURL, os.Getenv(keyEnv)
	case cfg.Upstream.APIKey != "" && c.Upstream.BaseURL == "":
		cfg.ResponsesUpstream.BaseURL, cfg.ResponsesUpstream.APIKey = gateway.DefaultBaseURL, cfg.Upstream.APIKey
		cfg.ResponsesUpstream.Dialect = mapping.OpenRouter
	default:
		// Itself: its keys, if any, are its clients'; pass-through hands the
		// client's bearer on.
		cfg.ResponsesUpstream.BaseURL = self
		cfg.ResponsesUpstream.Dialect = mapping.OpenAI
	}
	cfg.ResponsesUpstream.Referer, cfg.ResponsesUpstream.Title = cfg.Upstream.Referer, cfg.Upstream.Title
	return nil
}

// parseConfig reads a config file; a key it does not know is an error
// (a typo must not pass for a default).
func parseConfig(data []byte, c *serveConfig) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// ShutdownGrace is how long in-flight streams get to finish on a signal.
const ShutdownGrace = 30 * time.Second

// gateway turns the file's settings into the gateway's.
func (c *serveConfig) gateway(log *slog.Logger) (gateway.Config, error) {
	cfg := gateway.Config{Log: log, Keys: c.Keys, PassThrough: c.PassThrough, MaxBody: c.MaxBody, MaxConcurrent: c.MaxConc}
	// /metrics also has the Go runtime's and the process's figures (heap,
	// the heap live at the last GC, goroutines, RSS, open files): what an
	// operator watches, and what make soak reads.
	cfg.Registry = prometheus.NewRegistry()
	cfg.Registry.MustRegister(
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)})),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if len(c.Keys) > 0 && c.PassThrough {
		return cfg, errors.New("keys and pass_through exclude each other")
	}
	seen := map[string]bool{}
	for i, k := range c.Keys {
		if k.Key == "" || k.Tenant == "" {
			return cfg, fmt.Errorf("keys[%d]: a key and its tenant, both non-empty", i)
		}
		if seen[k.Key] {
			return cfg, fmt.Errorf("keys[%d]: the key of tenant %s is another tenant's too", i, k.Tenant)
		}
		seen[k.Key] = true
	}
	for _, l := range c.Limits {
		cfg.Limits = append(cfg.Limits, gateway.TenantLimits{Tenant: l.Tenant, RPM: l.RPM, TPM: l.TPM, MaxStreams: l.MaxStreams})
	}
	if err := gateway.CheckLimits(cfg); err != nil {
		return cfg, err
	}
	cfg.Upstream.BaseURL, cfg.Upstream.Referer, cfg.Upstream.Title = c.Upstream.BaseURL, c.Upstream.Referer, c.Upstream.Title
	var err error
	if cfg.Upstream.Dialect, err = parseDialect(c.Upstream.Dialect); err != nil {
		return cfg, fmt.Errorf("upstream %w", err)
	}
	if _, err := parseResponsesDialect(c.ResponsesUpstream.Dialect); err != nil {
		return cfg, fmt.Errorf("responses_upstream %w", err) // before listening, as the others
	}
	for _, m := range c.Models {
		cfg.Mapping.Models = append(cfg.Mapping.Models, mapping.ModelRule{From: m.From, To: m.To, Prefix: m.Prefix})
	}
	ru := &c.ResponsesUpstream
	for _, m := range ru.Models {
		cfg.Reverse.Models = append(cfg.Reverse.Models, mapping.ModelRule{From: m.From, To: m.To, Prefix: m.Prefix})
	}
	if err := mapping.CheckGuards(ru.Guards); err != nil {
		return cfg, fmt.Errorf("responses_upstream.%w", err)
	}
	cfg.Reverse.Guards = ru.Guards
	cfg.Reverse.NoDefaultGuards = ru.DefaultGuards != nil && !*ru.DefaultGuards
	if cfg.Mapping.System, err = parseSystem(c.System); err != nil {
		return cfg, err
	}
	if cfg.Mapping.UnknownTypes, err = parseUnknownTypes(c.UnknownTypes); err != nil {
		return cfg, err
	}
	if cfg.Mapping.UnknownItems, err = parseUnknownItems(c.UnknownItems); err != nil {
		return cfg, err
	}
	if c.Provider != nil && cfg.Upstream.Dialect != mapping.OpenRouter {
		return cfg, errors.New("provider: OpenRouter's provider preferences, for the openrouter dialect only")
	}
	if c.Provider != nil {
		p, err := json.Marshal(c.Provider)
		if err != nil {
			return cfg, fmt.Errorf("provider: %w", err)
		}
		cfg.Provider = p
	}
	for _, d := range []struct {
		s   string
		dst *time.Duration
		key string
	}{{c.UpTimeout, &cfg.UpstreamTimeout, "upstream_timeout"}, {c.StreamIdle, &cfg.StreamIdle, "stream_idle"}, {c.BodyTimeout, &cfg.BodyTimeout, "body_timeout"},
		{c.Retries.Base, &cfg.Retry.Base, "retries.base"}, {c.Retries.Max, &cfg.Retry.Max, "retries.max"}, {c.Retries.MaxRetryAfter, &cfg.Retry.MaxRetryAfter, "retries.max_retry_after"}} {
		if d.s == "" {
			continue
		}
		v, err := time.ParseDuration(d.s)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", d.key, err)
		}
		*d.dst = v
	}
	if cfg.Retry.Attempts = c.Retries.Attempts; cfg.Retry.Attempts < 0 {
		return cfg, fmt.Errorf("retries.attempts %d: the number of tries in all (0 or 1: no retry)", cfg.Retry.Attempts)
	}
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"retries.base", cfg.Retry.Base}, {"retries.max", cfg.Retry.Max}, {"retries.max_retry_after", cfg.Retry.MaxRetryAfter}} {
		if d.v < 0 {
			return cfg, fmt.Errorf("%s %s: a duration of zero (the default) or more", d.key, d.v)
		}
	}
	return cfg, nil
}
