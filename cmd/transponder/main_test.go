package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/runtime/conformance"
)

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := checkStream(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCheckStream(t *testing.T) {
	// testdata/conformant.sse: a message streamed by the rules (SSE with
	// event: lines).
	code, out, _ := run(t, "", filepath.Join("testdata", "conformant.sse"))
	if code != 0 || !strings.HasSuffix(out, "conformant.sse: 10 events, conformant\n") {
		t.Errorf("conformant SSE: exit %d, %q", code, out)
	}
	// The same as JSON lines on stdin, one event cut: exit 1, JSON report.
	src, err := os.ReadFile(filepath.Join("testdata", "conformant.sse"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(src), "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok && !strings.Contains(d, `"response.output_text.done"`) {
			lines = append(lines, d)
		}
	}
	code, out, _ = run(t, strings.Join(lines, "\n")+"\n", "--format", "json", "-")
	var rep conformance.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if code != 1 || rep.Conformant || rep.Events != 9 || len(rep.Findings) == 0 || rep.Findings[0].Rule != "sequence-gap" {
		t.Errorf("exit %d, %+v", code, rep)
	}
	if !strings.Contains(out, `"class": "violation"`) {
		t.Errorf("classes not by name: %s", out)
	}
	// Unreadable: no such file, an event over the size limit, bad flags.
	if code, _, errOut := run(t, "", filepath.Join("testdata", "nope.sse")); code != 2 || errOut == "" {
		t.Errorf("missing file: exit %d %q", code, errOut)
	}
	huge := "data: " + strings.Repeat("x", sse.MaxEventSize+1) + "\n\n"
	if code, _, errOut := run(t, huge, "-"); code != 2 || !strings.Contains(errOut, "stdin") {
		t.Errorf("oversized event: exit %d %q", code, errOut)
	}
	if code, _, _ := run(t, "", "--format", "yaml"); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
	// A byte order mark, and flags after the file.
	code, out, _ = run(t, "\ufeff"+strings.Join(lines, "\n"), filepath.Join("testdata", "conformant.sse"), "--format", "json")
	if code != 0 || !strings.Contains(out, `"conformant": true`) {
		t.Errorf("flags after the file: exit %d %q", code, out)
	}
	if code, _, _ := run(t, "\ufeff"+strings.Join(lines, "\n"), "-"); code != 1 {
		t.Errorf("JSON lines after a BOM: exit %d", code)
	}
	// Neither SSE nor JSON lines.
	if code, _, errOut := run(t, "hello\n", "-"); code != 2 || !strings.Contains(errOut, "neither SSE") {
		t.Errorf("garbage: exit %d %q", code, errOut)
	}
	// An empty stream breaks the lifecycle rule.
	if code, out, _ := run(t, "\n\n", "-"); code != 1 || !strings.Contains(out, "no events") {
		t.Errorf("empty: exit %d %q", code, out)
	}
}

// check-stream --api chat checks Chat Completions streams; a Responses
// stream is not one, and --api responses stays the default.
func TestCheckStreamChat(t *testing.T) {
	chat := filepath.Join("testdata", "chat.sse")
	code, out, _ := run(t, "", "--api", "chat", chat)
	if code != 0 || !strings.HasSuffix(out, "chat.sse: 5 chunks, conformant\n") {
		t.Errorf("conformant chat SSE: exit %d, %q", code, out)
	}
	// Read as a Responses stream, it is not one.
	if code, _, _ := run(t, "", chat); code != 1 {
		t.Errorf("chat stream checked as Responses: exit %d", code)
	}
	// Nor is a Responses stream a chat stream.
	if code, _, _ := run(t, "", filepath.Join("testdata", "conformant.sse"), "--api", "chat"); code != 1 {
		t.Errorf("Responses stream checked as chat: exit %d", code)
	}
	// Cut before the finish, on stdin, as JSON: the finish_reason and
	// [DONE] are missing.
	src, err := os.ReadFile(chat)
	if err != nil {
		t.Fatal(err)
	}
	cut := string(src[:strings.Index(string(src), `"finish_reason":"stop"`)])
	cut = cut[:strings.LastIndex(cut, "data: ")]
	code, out, _ = run(t, cut, "--api", "chat", "--format", "json", "-")
	var rep conformance.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rules := map[string]bool{}
	for _, f := range rep.Findings {
		rules[f.Rule] = true
	}
	if code != 1 || rep.Conformant || rep.Events != 2 || !rules["done"] || !rules["finish-reason"] {
		t.Errorf("cut chat stream: exit %d, %+v", code, rep)
	}
	if code, _, errOut := run(t, "", "--api", "completions", chat); code != 2 || !strings.Contains(errOut, "--api responses|chat") {
		t.Errorf("bad api: exit %d %q", code, errOut)
	}
}
