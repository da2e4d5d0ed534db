package conformance

import (
	"os"
	"path/filepath"
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
