package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/internal/fixtures"
)

// Every recorded chat stream, and the gateway's replay recordings, pass
// the chat checker: a real stream that breaks a rule means the rule is
// wrong (warnings allowed).
func TestChatCorpus(t *testing.T) {
	shared := fixtures.SharedDir(filepath.Join("..", ".."))
	files, _ := filepath.Glob(filepath.Join(shared, "corpus", "chat-sse", "*"))
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("no recorded chat streams in", shared)
		}
		t.Skip("no recorded chat streams in", shared)
	}
	replay, _ := filepath.Glob(filepath.Join("..", "gateway", "replay", "testdata", "*.sse"))
	if len(replay) == 0 {
		t.Fatal("no replay recordings")
	}
	for _, f := range append(files, replay...) {
		fl, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := CheckChatStream(fl)
		fl.Close()
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if rep.Events < 3 {
			t.Errorf("%s: %d chunks", f, rep.Events)
		}
		for _, x := range rep.Findings {
			t.Logf("%s: %v", filepath.Base(f), x)
		}
		if !rep.Conformant {
			t.Errorf("%s: not conformant", filepath.Base(f))
		}
	}
}

// Mutations of conformant chat streams and recordings, read as SSE and as
// JSON lines, never panic the chat checker; findings name chunks of the
// stream (or -1) and a report is conformant exactly without violations.
func FuzzChatChecker(f *testing.F) {
	for _, s := range chatStreams() {
		f.Add([]byte(strings.Join(s, "\n")))
	}
	files, _ := filepath.Glob(filepath.Join(fixtures.SharedDir(filepath.Join("..", "..")), "corpus", "chat-sse", "*"))
	replay, _ := filepath.Glob(filepath.Join("..", "gateway", "replay", "testdata", "*.sse"))
	for _, fl := range append(files, replay...) {
		if b, err := os.ReadFile(fl); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Split(string(data), "\n")
		c := NewChatChecker()
		for _, l := range lines {
			c.Chunk([]byte(l))
		}
		for _, x := range c.Finish() {
			if x.Event < -1 || x.Event >= len(lines) || x.Rule == "" || x.Reason == "" {
				t.Fatalf("finding %+v of a %d-chunk stream", x, len(lines))
			}
		}
		rep, err := CheckChatStream(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, x := range rep.Findings {
			if x.Event < -1 || x.Event >= max(rep.Events, 1) {
				t.Fatalf("finding %+v of a %d-chunk stream", x, rep.Events)
			}
		}
		if rep.Conformant != (Violations(rep.Findings) == 0) {
			t.Fatalf("conformant %v with %d violations", rep.Conformant, Violations(rep.Findings))
		}
	})
}
