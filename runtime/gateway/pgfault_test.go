package gateway_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
)

// pgServer is a PostgreSQL server of the test's own (initdb in a
// temporary directory, its own port), so that the test can stop and
// start it without disturbing the shared one.
type pgServer struct {
	t        *testing.T
	bin, dir string
	port     int
	asUser   []string // runuser -u postgres -- when the test runs as root
}

func newPGServer(t *testing.T) *pgServer {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but PostgreSQL's binaries are not installed (.ci/run installs them)")
		}
		t.Skip("no PostgreSQL binaries (/usr/lib/postgresql/*/bin)")
	}
	p := &pgServer{t: t, bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "transponder-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p.dir = dir
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		p.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	p.run("initdb", "-D", filepath.Join(dir, "data"), "--auth=trust", "-U", "postgres", "--no-sync")
	p.start()
	t.Cleanup(func() { p.ctl("stop", "-m", "immediate") })
	return p
}

func (p *pgServer) run(name string, args ...string) {
	p.t.Helper()
	argv := append(append(append([]string(nil), p.asUser...), filepath.Join(p.bin, name)), args...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

func (p *pgServer) ctl(args ...string) {
	p.t.Helper()
	p.run("pg_ctl", append([]string{"-D", filepath.Join(p.dir, "data"), "-w"}, args...)...)
}

func (p *pgServer) start() {
	p.t.Helper()
	p.ctl("start", "-l", filepath.Join(p.dir, "log"), "-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", p.port, p.dir))
}

func (p *pgServer) dsn() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

// PostgreSQL stopped under load: requests that need the store fail with
// a clear 503 server_error (never a 500 or a hang), the others go on; when
// it is back, the same gateway serves again, and what was stored before
// the outage is there.
func TestPostgresRestartUnderLoad(t *testing.T) {
	pg := newPGServer(t)
	st := openStore(t, store.Config{Driver: "postgres", DSN: pg.dsn()})
	g := newStored(t, st, gateway.Config{}, answer{text: "ok"})
	first := g.a.ok("POST", "/v1/responses", `{"model":"m","input":"before"}`)["id"].(string)

	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				body := `{"model":"m","input":"load","previous_response_id":"` + first + `"}`
				if w%2 == 1 {
					body = `{"model":"m","input":"load"}`
				}
				code, b := g.a.do("POST", "/v1/responses", body)
				key := strconv.Itoa(code)
				if code != 200 {
					key += " " + errorType(b)
				}
				mu.Lock()
				seen[key]++
				mu.Unlock()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	pg.ctl("stop", "-m", "immediate")
	// During the outage: 503 server_error, retryable.
	code, b := g.a.do("POST", "/v1/responses", `{"model":"m","input":"x","previous_response_id":"`+first+`"}`)
	if code != 503 || errorType(b) != "server_error" {
		t.Fatalf("during the outage: %d %s", code, b)
	}
	if code, b := g.a.do("GET", "/v1/responses/"+first, ""); code != 503 {
		t.Fatalf("GET during the outage: %d %s", code, b)
	}
	g.a.ok("POST", "/v1/responses", `{"model":"m","input":"x","store":false}`) // needs no store
	time.Sleep(300 * time.Millisecond)
	pg.start()
	// Back: the same gateway serves again (a pooled connection the restart
	// broke may fail one request; within seconds all succeed).
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, b := g.a.do("POST", "/v1/responses", `{"model":"m","input":"after","previous_response_id":"`+first+`"}`)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not recovered: %d %s", code, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	for i := range 20 {
		if code, b := g.a.do("GET", "/v1/responses/"+first, ""); code != 200 {
			t.Fatalf("GET %d after recovery: %d %s", i, code, b)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for k := range seen {
		if k != "200" && k != "503 server_error" {
			t.Errorf("under load: %d × %s (want only 200 or 503 server_error)", seen[k], k)
		}
	}
	if seen["200"] == 0 || seen["503 server_error"] == 0 {
		t.Errorf("the load saw %v: want successes and 503s", seen)
	}
	t.Logf("under load across the restart: %v", seen)
}

func errorType(b []byte) string {
	_, after, ok := strings.Cut(string(b), `"type":"`)
	if !ok {
		return "(no error type) " + string(b)
	}
	typ, _, _ := strings.Cut(after, `"`)
	return typ
}
