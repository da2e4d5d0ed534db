package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP trace collector on loopback: it decodes what
// POST /v1/traces brings (protobuf) and keeps the spans' names by trace.
type collector struct {
	mu       sync.Mutex
	requests int
	spans    map[string][]string // trace id (hex) → span names
	services []string
	errs     []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	var req coltracepb.ExportTraceServiceRequest
	if r.Method != "POST" || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		c.errs = append(c.errs, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
	} else if err := proto.Unmarshal(body, &req); err != nil {
		c.errs = append(c.errs, err.Error())
	}
	for _, rs := range req.ResourceSpans {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				c.services = append(c.services, a.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				id := hex.EncodeToString(s.TraceId)
				c.spans[id] = append(c.spans[id], s.Name)
			}
		}
	}
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// serveOnce runs `transponder serve` (over the replay upstream) with env,
// makes one request with a traceparent of trace tid, and stops it with
// SIGTERM, waiting for its exit: what it had to export is flushed then.
func serveOnce(t *testing.T, tid string, env ...string) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	cmd, url := startServe(t, "-listen", "127.0.0.1:0", "-store", "none")
	req, _ := http.NewRequest("POST", url+"/responses", strings.NewReader(`{"model":"m","input":"hi"}`))
	req.Header.Set("Traceparent", "00-"+tid+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit on SIGTERM")
	}
}

// With an OTLP endpoint set, `serve` exports the request's spans to it
// (the batch processor's delay is an hour: they arrive by the flush on
// SIGTERM), under service.name "transponder", in the client's trace.
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, the endpoint set,
// send nothing.
func TestServeExportsTraces(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want bool
	}{
		{"on", nil, true},
		{"sdk-disabled", []string{"OTEL_SDK_DISABLED=true"}, false},
		{"exporter-none", []string{"OTEL_TRACES_EXPORTER=none"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &collector{spans: map[string][]string{}}
			srv := httptest.NewServer(c)
			defer srv.Close()
			const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
			env := append([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL, "OTEL_BSP_SCHEDULE_DELAY=3600000", "OTEL_SERVICE_NAME=", "OTEL_RESOURCE_ATTRIBUTES="}, tc.env...)
			serveOnce(t, tid, env...)
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(c.errs) > 0 {
				t.Errorf("the collector got: %v", c.errs)
			}
			if !tc.want {
				if c.requests != 0 {
					t.Errorf("tracing off, yet %d export requests: %v", c.requests, c.spans)
				}
				return
			}
			names := strings.Join(c.spans[tid], ",")
			for _, want := range []string{"POST /v1/responses", "POST /chat/completions"} {
				if !strings.Contains(names, want) {
					t.Errorf("trace %s: spans %q, want %q among them (all traces: %v)", tid, names, want, c.spans)
				}
			}
			if len(c.services) == 0 || c.services[0] != "transponder" {
				t.Errorf("service.name %v", c.services)
			}
		})
	}
}

// tracingWanted reads the standard variables: off unless an endpoint is
// set; an exporter or protocol not built in is an error, not a silent off.
func TestTracingWanted(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		on, err bool
	}{
		{map[string]string{}, false, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_HEADERS": "a=b"}, false, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "TRUE"}, false, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, true, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, false, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, true, false}, // the traces' own wins
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "zipkin"}, false, true},
	} {
		on, err := tracingWanted(func(k string) string { return tc.env[k] })
		if on != tc.on || (err != nil) != tc.err {
			t.Errorf("%v: on %v err %v, want on %v err %v", tc.env, on, err, tc.on, tc.err)
		}
	}
	tp, shutdown, err := tracing(t.Context(), func(string) string { return "" })
	if tp != nil || err != nil {
		t.Errorf("no environment: provider %v, err %v", tp, err)
	}
	shutdown()
}
