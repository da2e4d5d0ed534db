package gateway

import "github.com/prometheus/client_golang/prometheus"

// metrics are the gateway's Prometheus collectors.
type metrics struct {
	requests     *prometheus.CounterVec   // by mode (stream, json) and outcome
	errors       *prometheus.CounterVec   // by kind
	upstream     prometheus.Histogram     // seconds to the upstream's response headers
	firstEvent   prometheus.Histogram     // seconds from the request to the first event flushed
	chunk        prometheus.Histogram     // seconds from an upstream chunk's arrival to its events' flush
	active       prometheus.Gauge         // streams in flight
	tokens       *prometheus.CounterVec   // by model, tenant and kind (input, output)
	cost         *prometheus.CounterVec   // OpenRouter's cost, by model and tenant
	warnings     *prometheus.CounterVec   // by JSON path
	responseTime *prometheus.HistogramVec // seconds per request, by mode
	store        *prometheus.HistogramVec // seconds per store operation, by op
	retries      *prometheus.CounterVec   // upstream retries, by reason
}

func newMetrics(r *prometheus.Registry) *metrics {
	m := &metrics{
		requests:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "transponder_requests_total", Help: "Responses requests, by mode (stream, json) and outcome (completed, incomplete, failed, error)."}, []string{"mode", "outcome"}),
		errors:       prometheus.NewCounterVec(prometheus.CounterOpts{Name: "transponder_errors_total", Help: "Errors, by kind (auth, bad_request, too_large, upstream_<status>, upstream_unreachable, upstream_timeout, upstream_broken, upstream_invalid, stream_failed, client_gone, overloaded, rate_limited, not_stored, store_failed)."}, []string{"kind"}),
		upstream:     prometheus.NewHistogram(prometheus.HistogramOpts{Name: "transponder_upstream_latency_seconds", Help: "Time from sending the chat request to the upstream's response headers.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)}),
		firstEvent:   prometheus.NewHistogram(prometheus.HistogramOpts{Name: "transponder_time_to_first_event_seconds", Help: "Time from the request's arrival to the flush of the first events made of the upstream's answer (response.created goes out before it, as soon as the upstream answers).", Buckets: prometheus.ExponentialBuckets(0.005, 2, 15)}),
		chunk:        prometheus.NewHistogram(prometheus.HistogramOpts{Name: "transponder_chunk_latency_seconds", Help: "Time from an upstream chunk's arrival to the flush of its events: the latency the gateway adds.", Buckets: prometheus.ExponentialBuckets(1e-6, 2, 20)}),
		active:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "transponder_active_streams", Help: "Streams in flight."}),
		tokens:       prometheus.NewCounterVec(prometheus.CounterOpts{Name: "transponder_tokens_total", Help: "Tokens the upstream reported, by model, tenant and kind (input, output)."}, []string{"model", "tenant", "kind"}),
		cost:         prometheus.NewCounterVec(prometheus.CounterOpts{Name: "transponder_cost_total", Help: "OpenRouter's reported cost (credits), by model and tenant."}, []string{"model", "tenant"}),
		warnings:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "transponder_warnings_total", Help: "Warnings (fields not carried), by JSON path."}, []string{"path"}),
		responseTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "transponder_response_seconds", Help: "Time to serve a request, by mode.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 16)}, []string{"mode"}),
		store:        prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "transponder_store_seconds", Help: "Time per store operation, by op (chain: reading what a request continues; put: storing a response after its terminal event was made, before it goes out).", Buckets: prometheus.ExponentialBuckets(1e-5, 2, 20)}, []string{"op"}),
	}
	m.retries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "transponder_upstream_retries_total", Help: "Upstream calls tried again before the first byte (retries in the config), by reason (429, 500, 502, 503, 504, refused, reset, transport)."}, []string{"reason"})
	r.MustRegister(m.retries)
	r.MustRegister(m.requests, m.errors, m.upstream, m.firstEvent, m.chunk, m.active, m.tokens, m.cost, m.warnings, m.responseTime, m.store)
	return m
}
