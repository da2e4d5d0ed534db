package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// debugServer serves the Go runtime's profiles (net/http/pprof) on addr,
// a listener of its own: never the API's, whose clients must not read
// what the process holds. Off when addr is "". It returns the server's
// /debug/pprof/ URL and its stop.
func debugServer(addr string, log *slog.Logger) (string, func(), error) {
	if addr == "" {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // heap, goroutine, allocs, …; ?gc=1 collects first
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	url := "http://" + ln.Addr().String() + "/debug/pprof/"
	log.Warn("debug: the runtime's profiles are served; keep this address private", "pprof", url)
	return url, func() { _ = srv.Close() }, nil
}
