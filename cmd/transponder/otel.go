package main

// Tracing for `transponder serve`: the OpenTelemetry SDK and its OTLP
// exporter (HTTP/protobuf), configured by the standard OTEL_* variables;
// the gateway itself only knows the API (gateway.Config.Tracer).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// defaultServiceName is service.name when neither OTEL_SERVICE_NAME nor
// OTEL_RESOURCE_ATTRIBUTES names the service.
const defaultServiceName = "transponder"

// tracingShutdownGrace bounds the flush of the last spans on exit.
const tracingShutdownGrace = 5 * time.Second

// tracingWanted says whether the environment asks for traces: an OTLP
// endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), the SDK is not disabled
// (OTEL_SDK_DISABLED=true) and the traces exporter is not "none"
// (OTEL_TRACES_EXPORTER). Another exporter or protocol than OTLP over
// HTTP/protobuf is an error: it is not built in, and must not pass for
// tracing that is on.
func tracingWanted(getenv func(string) string) (bool, error) {
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return false, nil
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch e := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); e {
	case "none":
		return false, nil
	case "", "otlp":
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: this build exports traces by OTLP only (otlp or none)", e)
	}
	// The traces' own protocol overrides the general one.
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		p := strings.TrimSpace(getenv(k))
		if p == "" {
			continue
		}
		if p != "http/protobuf" {
			return false, fmt.Errorf("%s=%s: this build speaks OTLP over http/protobuf only", k, p)
		}
		break
	}
	return true, nil
}

// tracing builds the TracerProvider the environment asks for (see
// tracingWanted): a batch span processor (OTEL_BSP_*) into the OTLP/HTTP
// exporter (OTEL_EXPORTER_OTLP_*: endpoint, headers, timeout,
// compression, certificates), sampling by OTEL_TRACES_SAMPLER, with the
// resource of OTEL_RESOURCE_ATTRIBUTES and service.name from
// OTEL_SERVICE_NAME (default "transponder"). Nil when tracing is off:
// then nothing is started. shutdown flushes the spans not yet sent.
func tracing(ctx context.Context, getenv func(string) string) (tp *sdktrace.TracerProvider, shutdown func(), err error) {
	on, err := tracingWanted(getenv)
	if err != nil || !on {
		return nil, func() {}, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("otlp exporter: %w", err)
	}
	res, err := tracingResource(getenv)
	if err != nil {
		return nil, nil, err
	}
	tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, func() {
		ctx, cancel := context.WithTimeout(context.Background(), tracingShutdownGrace)
		defer cancel()
		_ = tp.Shutdown(ctx) // the exporter reports its own failures (the SDK's error handler)
	}, nil
}

// tracingResource is the SDK's default resource (the environment's
// attributes, the SDK's own) with service.name "transponder" unless the
// environment names the service.
func tracingResource(getenv func(string) string) (*resource.Resource, error) {
	res := resource.Default()
	if getenv("OTEL_SERVICE_NAME") != "" || strings.Contains(getenv("OTEL_RESOURCE_ATTRIBUTES"), "service.name=") {
		return res, nil
	}
	res, err := resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", defaultServiceName)))
	if err != nil && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	return res, nil
}
