// Command soak is the load and soak test of `transponder serve` (make
// soak): it builds the real binary, runs it over a fast local upstream
// (in this process, on loopback), and drives it with streams for a while:
// 1,000 at once by default, 10% cancelled by their client at a random
// point, 5% of them faced with an upstream fault (a 503, a 429, a reset
// before the headers, a cut or a garbage chunk mid-stream), once per store
// (SQLite, then PostgreSQL when TRANSPONDER_TEST_PG is set). The load
// generator is the standard library's net/http client; every event it
// reads from the gateway goes through the conformance checker.
//
// It reports, per store: streams per second; the latency the gateway adds
// (each chunk carries the time the upstream wrote it; the client reads
// that chunk's delta through the gateway, and the chunk itself on streams
// it makes direct to the upstream, on the same client in the same run:
// p50/p99/p99.9 of both and their difference); time to the first event;
// the gateway's RSS over time; the gateway's heap per open stream (held:
// after the run, as many streams held open mid-stream on connections of
// their own, the gateway's heap collected with and without them, held.go;
// and under load: the heap its last GC marked live, from its /metrics,
// against the streams open); and every error that is not an injected
// fault's documented outcome (the goal is none). Markdown on stdout, JSON
// in -out.
//
//	go run ./internal/cmd/soak -duration 5m -streams 1000
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL run's schema
)

func main() {
	relayMain()
	duration := flag.Duration("duration", 5*time.Minute, "how long each store's run lasts")
	warmup := flag.Duration("warmup", 20*time.Second, "the warm-up before each run (10 streams): the heap's baseline")
	streams := flag.Int("streams", 1000, "streams through the gateway at once")
	direct := flag.Int("direct", 0, "streams direct to the upstream at once, the latency baseline (default streams/10)")
	relayed := flag.Int("relayed", 0, "streams through a bare TCP relay at once, the latency of a hop through another process (default: as many as direct)")
	chunks := flag.Int("chunks", 100, "chunks per stream")
	every := flag.Duration("every", 200*time.Millisecond, "the upstream's pause between two chunks")
	cancel := flag.Float64("cancel", 0.10, "the share of the gateway's streams the client cancels")
	fault := flag.Float64("fault", 0.05, "the share of the gateway's streams the upstream fails")
	stores := flag.String("stores", "", "the stores to run on, in order (default sqlite, then postgres when TRANSPONDER_TEST_PG is set)")
	bin := flag.String("bin", "", "the transponder binary (default: go build ./cmd/transponder)")
	out := flag.String("out", "soak.json", "where the figures go as JSON")
	profiles := flag.String("profiles", "", "a directory for the gateway's heap profile with the streams held open (soak-heap-STORE.pb.gz)")
	flag.Parse()
	if *stores == "" {
		*stores = "sqlite"
		if os.Getenv("TRANSPONDER_TEST_PG") != "" {
			*stores += ",postgres"
		}
	}
	if *direct == 0 {
		*direct = max(1, *streams/10)
	}
	if *relayed == 0 {
		*relayed = *direct
	}
	if *chunks < 2 {
		fmt.Fprintln(os.Stderr, "soak: -chunks must be 2 or more (a held stream pauses after half of them)")
		os.Exit(2)
	}
	if err := soak(config{*duration, *warmup, *streams, *direct, *relayed, *chunks, *every, *cancel, *fault, strings.Split(*stores, ","), *bin, *out, *profiles, ""}); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

type config struct {
	duration, warmup time.Duration
	streams, direct  int
	relayed          int
	chunks           int
	every            time.Duration
	cancel, fault    float64
	stores           []string
	bin, out         string
	profiles         string
	relay            string // the upstream through the relay (relay.go)
}

func soak(c config) error {
	tmp, err := os.MkdirTemp("", "soak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if c.bin == "" {
		c.bin = filepath.Join(tmp, "transponder")
		build := exec.Command("go", "build", "-o", c.bin, "github.com/transponder-dev/transponder/cmd/transponder")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building transponder: %w", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	u := &upstream{chunks: c.chunks, every: c.every}
	up := &http.Server{Handler: u}
	go func() { _ = up.Serve(ln) }()
	defer up.Close()
	upURL := "http://" + ln.Addr().String()
	relayAddr, stopRelay, err := startRelay(ln.Addr().String())
	if err != nil {
		return err
	}
	defer stopRelay()
	c.relay = "http://" + relayAddr

	var results []*result
	for _, st := range c.stores {
		fmt.Fprintf(os.Stderr, "soak: %s, %d streams for %s\n", st, c.streams, c.duration)
		r, err := c.run(st, up, u, upURL, tmp)
		if err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
		results = append(results, r)
		r.print(os.Stdout)
	}
	data, _ := json.MarshalIndent(results, "", "  ")
	if err := os.WriteFile(c.out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	for _, r := range results {
		if r.Unexpected > 0 {
			return fmt.Errorf("%s: %d unexpected errors", r.Store, r.Unexpected)
		}
	}
	return nil
}

// gateway is a running `transponder serve`.
type gateway struct {
	cmd   *exec.Cmd
	base  string // its /v1
	pprof string // its profiles (-debug-listen)
	done  chan struct{}
}

// start runs the binary on store st (its data in dir) over upstream.
func (c config) start(st, upURL, dir string) (*gateway, func(), error) {
	cleanup := func() {}
	cfgFile := filepath.Join(dir, "serve.yaml")
	// No items cache (a bounded 64 MiB by default, filled by the stored
	// responses): the heap per stream is then the streams'.
	if err := os.WriteFile(cfgFile, fmt.Appendf(nil, "max_concurrent: %d\nstore: {cache_bytes: -1}\n", 2*(c.streams+c.direct)), 0o644); err != nil {
		return nil, cleanup, err
	}
	args := []string{"serve", "-config", cfgFile, "-listen", "127.0.0.1:0", "-debug-listen", "127.0.0.1:0", "-upstream", upURL, "-dialect", "openrouter", "-data", dir, "-store", st}
	if st == "postgres" {
		dsn := os.Getenv("TRANSPONDER_TEST_PG")
		if dsn == "" {
			return nil, cleanup, fmt.Errorf("TRANSPONDER_TEST_PG is not set (a PostgreSQL URL)")
		}
		admin, err := sql.Open("pgx", dsn)
		if err != nil {
			return nil, cleanup, err
		}
		schema := fmt.Sprintf("soak_%d", time.Now().UnixNano())
		if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
			admin.Close()
			return nil, cleanup, err
		}
		cleanup = func() { _, _ = admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); admin.Close() }
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		args = append(args, "-store-dsn", dsn+sep+"search_path="+schema)
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "OPENROUTER_API_KEY=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, cleanup, err
	}
	logFile, err := os.Create(filepath.Join(dir, "serve-"+st+".log"))
	if err != nil {
		return nil, cleanup, err
	}
	if err := cmd.Start(); err != nil {
		return nil, cleanup, err
	}
	g := &gateway{cmd: cmd, done: make(chan struct{})}
	urls, pprofs := make(chan string, 1), make(chan string, 1)
	go func() {
		defer close(g.done)
		defer logFile.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			if _, after, ok := strings.Cut(sc.Text(), `"listen":"`); ok {
				u, _, _ := strings.Cut(after, `"`)
				urls <- u
			}
			if _, after, ok := strings.Cut(sc.Text(), `"pprof":"`); ok {
				u, _, _ := strings.Cut(after, `"`)
				pprofs <- u
			}
			_, _ = logFile.Write(append(sc.Bytes(), '\n'))
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case g.base = <-urls:
		select {
		case g.pprof = <-pprofs: // logged before
		default:
			_ = cmd.Process.Kill()
			return nil, cleanup, fmt.Errorf("transponder serve logged no pprof address (its log: %s)", logFile.Name())
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		return nil, cleanup, fmt.Errorf("transponder serve did not start (its log: %s)", logFile.Name())
	}
	return g, cleanup, nil
}

// stop stops the gateway with SIGTERM (streams in flight finish first).
func (g *gateway) stop() error {
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	<-g.done
	return g.cmd.Wait()
}

// sample is the gateway's state at a moment.
type sample struct {
	At         float64 `json:"at_s"`
	RSS        int64   `json:"rss_bytes"`
	HeapLive   int64   `json:"heap_live_bytes"`  // live at the last GC
	HeapInuse  int64   `json:"heap_inuse_bytes"` // with what the next GC frees
	Goroutines int64   `json:"goroutines"`
	Active     int64   `json:"active_streams"`
}

// take reads the gateway's /metrics and its RSS.
func (g *gateway) take(client *http.Client, since time.Time) (sample, error) {
	s := sample{At: time.Since(since).Seconds()}
	err := g.metrics(client, func(line string) {
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			return
		}
		f, _ := strconv.ParseFloat(val, 64)
		switch name {
		case "go_gc_heap_live_bytes":
			s.HeapLive = int64(f)
		case "go_memstats_heap_inuse_bytes":
			s.HeapInuse = int64(f)
		case "go_goroutines":
			s.Goroutines = int64(f)
		case "transponder_active_streams":
			s.Active = int64(f)
		case "process_resident_memory_bytes":
			s.RSS = int64(f)
		}
	})
	return s, err
}

// metrics reads the gateway's /metrics, a line at a time.
func (g *gateway) metrics(client *http.Client, line func(string)) error {
	resp, err := client.Get(strings.TrimSuffix(g.base, "/v1") + "/metrics")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line(sc.Text())
	}
	return sc.Err()
}

// chunkHist reads the gateway's own histogram of the time from an
// upstream chunk's arrival to the flush of its events: the cumulative
// count at each upper bound, in order.
func (g *gateway) chunkHist(client *http.Client) ([]bucket, error) {
	var bs []bucket
	err := g.metrics(client, func(line string) {
		rest, ok := strings.CutPrefix(line, `transponder_chunk_latency_seconds_bucket{le="`)
		if !ok {
			return
		}
		le, n, _ := strings.Cut(rest, `"} `)
		b := bucket{le: math.Inf(1)}
		if le != "+Inf" {
			b.le, _ = strconv.ParseFloat(le, 64)
		}
		b.n, _ = strconv.ParseFloat(n, 64)
		bs = append(bs, b)
	})
	return bs, err
}

type bucket struct{ le, n float64 }

// histQuantile is the q quantile (µs) of the counts end minus start,
// interpolated within its bucket as Prometheus does.
func histQuantile(start, end []bucket, q float64) float64 {
	if len(start) != len(end) || len(end) == 0 {
		return 0
	}
	total := end[len(end)-1].n - start[len(start)-1].n
	prevLe, prevN := 0.0, 0.0
	for i := range end {
		n := end[i].n - start[i].n
		if n >= q*total && total > 0 {
			if math.IsInf(end[i].le, 1) {
				return prevLe * 1e6
			}
			return (prevLe + (end[i].le-prevLe)*(q*total-prevN)/max(n-prevN, 1)) * 1e6
		}
		prevLe, prevN = end[i].le, n
	}
	return 0
}

// every samples the gateway every d until stop is closed.
func (g *gateway) every(client *http.Client, d time.Duration, since time.Time, stop chan struct{}) chan []sample {
	out := make(chan []sample, 1)
	go func() {
		var ss []sample
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-stop:
				out <- ss
				return
			case <-t.C:
				if s, err := g.take(client, since); err == nil {
					ss = append(ss, s)
				}
			}
		}
	}()
	return out
}

// run is one store's run: warm-up, the timed run, the figures.
func (c config) run(st string, up *http.Server, u *upstream, upURL, tmp string) (*result, error) {
	dir := filepath.Join(tmp, st)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	g, cleanup, err := c.start(st, upURL, dir)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConns: 4 * (c.streams + c.direct + c.relayed), MaxIdleConnsPerHost: 2 * (c.streams + c.direct + c.relayed), IdleConnTimeout: time.Minute}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	// Warm-up: 10 streams; the heap's baseline is what they leave live.
	const warm = 10
	wl := &load{client: client, gateway: g.base, direct: upURL, chunks: c.chunks, cancel: c.cancel, fault: c.fault}
	ctx, done := context.WithTimeout(context.Background(), c.warmup)
	go func() { <-ctx.Done(); wl.stop.Store(true) }()
	wl.measure.Store(true)
	wt := wl.run(1, warm, 0, 0)
	done()
	if wt.unexpected > 0 {
		return nil, fmt.Errorf("the warm-up had %d unexpected errors: %v", wt.unexpected, wt.samples)
	}
	base, err := g.take(client, time.Now())
	if err != nil {
		return nil, err
	}

	// The run: the streams start spread over a stream's length (the ramp),
	// then the figures are taken for the duration.
	ramp := time.Duration(c.chunks) * c.every
	l := &load{client: client, gateway: g.base, direct: upURL, relay: c.relay, chunks: c.chunks, cancel: c.cancel, fault: c.fault, ramp: ramp}
	var start time.Time
	var elapsed time.Duration
	var histStart, histEnd []bucket
	var histErr error
	stopSampling := make(chan struct{})
	var samples chan []sample
	began := make(chan struct{})
	go func() {
		time.Sleep(ramp)
		start = time.Now()
		l.measure.Store(true)
		histStart, histErr = g.chunkHist(client)
		samples = g.every(client, 5*time.Second, start, stopSampling)
		close(began)
		time.Sleep(c.duration)
		// The window ends here: the streams in flight finish after it,
		// out of the figures of time (streams/s, the histogram, RSS).
		elapsed = time.Since(start)
		var err error
		histEnd, err = g.chunkHist(client)
		histErr = errors.Join(histErr, err)
		close(stopSampling)
		l.stop.Store(true)
	}()
	t := l.run(2, c.streams, c.direct, c.relayed)
	<-began
	ss := <-samples
	if histErr != nil {
		return nil, fmt.Errorf("reading the gateway's chunk histogram: %w", histErr)
	}
	profile := ""
	if c.profiles != "" {
		profile = filepath.Join(c.profiles, "soak-heap-"+st+".pb.gz")
	}
	held, hbase, hduring, err := g.heldHeap(client, tr, up, u, c.streams, c.chunks, profile)
	if err != nil {
		return nil, fmt.Errorf("streams held open: %w", err)
	}
	if err := g.stop(); err != nil {
		return nil, fmt.Errorf("transponder serve: %w", err)
	}
	r := c.figures(st, t, elapsed, base, ss)
	r.HeldPerStream, r.HeldBase, r.HeldLive, r.HeldProfile = held, hbase.HeapLive, hduring.HeapLive, profile
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}, {"p99.9", 0.999}} {
		r.Chunk["in_gateway_"+q.name] = histQuantile(histStart, histEnd, q.q)
	}
	return r, nil
}
