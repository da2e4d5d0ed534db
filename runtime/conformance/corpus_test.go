package conformance

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus.golden")

// Why each recording breaks the rules it breaks. Every recording that
// breaks one is explained here, and only those.
var explained = map[string]string{
	"vercel-azure-text.1.jsonl": "Azure's usage lacks input_tokens_details.cache_write_tokens, which the pinned spec requires.",
	"vercel-azure-tool-call.1.jsonl": "Azure sends function_call_arguments.done without the name the pinned spec requires on it, " +
		"and usage without cache_write_tokens.",
	"vercel-lmstudio-tool-call.1.jsonl": "LM Studio sends a function call's arguments only in its done event, with no deltas " +
		"(so done ≠ the deltas joined), without name; usage without cache_write_tokens.",
	"vercel-openai-apply-patch-tool.1.jsonl": "apply_patch_call_operation_diff.delta/done are newer than the pinned spec (warnings); " +
		"usage without cache_write_tokens.",
	"vercel-openai-custom-tool.1.jsonl": "Hand-written upstream: no sequence_number anywhere; custom_tool_call_input has no done event; " +
		"usage without cache_write_tokens.",
	"vercel-openai-error.1.jsonl": "OpenAI's error event nests code, message and param in an error object; the pinned spec has " +
		"them at the top level. response.failed's error code insufficient_quota is not a value the spec lists.",
	"vercel-openai-file-search-tool.1.jsonl": "usage without cache_write_tokens.",
	"vercel-openai-local-shell-tool.1.jsonl": "usage without cache_write_tokens.",
	"vercel-openai-phase.1.jsonl": "Trimmed upstream: most deltas and an output item were cut out, leaving sequence gaps, done texts " +
		"longer than their deltas, an output index skipped; older response objects lack fields the spec requires.",
	"vercel-openai-reasoning-encrypted-content.1.jsonl": "Four responses of an agent loop concatenated (the .partN files split them): " +
		"response.created after a terminal event, sequence numbers restarting, ids changing, output indexes reused.",
	"vercel-openai-reasoning-encrypted-content.1.part0.jsonl": "function_call_arguments.done without name; usage without cache_write_tokens.",
	"vercel-openai-reasoning-encrypted-content.1.part1.jsonl": "function_call_arguments.done without name; usage without cache_write_tokens.",
	"vercel-openai-reasoning-encrypted-content.1.part2.jsonl": "function_call_arguments.done without name; usage without cache_write_tokens.",
	"vercel-openai-reasoning-encrypted-content.1.part3.jsonl": "usage without cache_write_tokens.",
	"vercel-openai-shell-tool.1.jsonl": "Two responses concatenated (the .partN files split them); the shell_call item lacks " +
		"environment, which the pinned spec requires.",
	"vercel-openai-shell-tool.1.part0.jsonl": "The shell_call item lacks environment, which the pinned spec requires; usage without cache_write_tokens.",
	"vercel-openai-shell-tool.1.part1.jsonl": "usage without cache_write_tokens.",
	"vercel-openai-web-search-tool.1.jsonl":  "web_search_call items added without action, which the pinned spec requires; usage without cache_write_tokens.",
	"vercel-xai-text-with-reasoning-streaming.1.jsonl": "xAI's response objects lack error and instructions, its output_text.done " +
		"lacks logprobs, its usage cache_write_tokens: all required by the pinned spec.",
}

// Every recorded Responses stream is checked; what each breaks is pinned
// in testdata/corpus.golden (go test -run TestPinnedSpecCorpus -update rewrites it).
func TestPinnedSpecCorpus(t *testing.T) {
	shared := fixtures.SharedDir(filepath.Join("..", ".."))
	payloads, err := fixtures.Corpus(shared)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	streams := map[string][][]byte{}
	var files []string
	for _, fl := range fixtures.ByFile(payloads) {
		if name, ok := strings.CutPrefix(fl.Name, "responses-sse/"); ok {
			files = append(files, name)
			streams[name] = fl.Payloads
		}
	}
	var b strings.Builder
	b.WriteString("# What each recorded Responses stream breaks: rule (class) ×count, at events …\n")
	for _, f := range files {
		fs := Check(streams[f])
		if len(fs) == 0 {
			if explained[f] != "" {
				t.Errorf("%s breaks no rule now: drop its explanation", f)
			}
			fmt.Fprintf(&b, "\n%s: %d events, conformant\n", f, len(streams[f]))
			continue
		}
		if explained[f] == "" {
			t.Errorf("%s breaks rules, unexplained: %v", f, fs[:min(len(fs), 5)])
		}
		fmt.Fprintf(&b, "\n%s: %d events\n# %s\n", f, len(streams[f]), explained[f])
		type tally struct {
			n       int
			events  []int
			reasons []string // distinct by their first 24 bytes, up to 3
		}
		byRule := map[string]*tally{}
		var order []string
		for _, x := range fs {
			k := x.Rule
			if x.Class == Warning {
				k += " (warning)"
			}
			if byRule[k] == nil {
				byRule[k] = &tally{}
				order = append(order, k)
			}
			tl := byRule[k]
			tl.n++
			if len(tl.events) < 5 && !slices.Contains(tl.events, x.Event) {
				tl.events = append(tl.events, x.Event)
			}
			if len(tl.reasons) < 3 && !slices.ContainsFunc(tl.reasons, func(r string) bool { return prefix(r) == prefix(x.Reason) }) {
				tl.reasons = append(tl.reasons, x.Reason)
			}
		}
		for _, k := range order {
			tl := byRule[k]
			fmt.Fprintf(&b, "  %s ×%d at %v:\n", k, tl.n, tl.events)
			for _, r := range tl.reasons {
				fmt.Fprintf(&b, "    %s\n", r)
			}
		}
	}
	for f := range explained {
		if _, ok := streams[f]; !ok {
			t.Errorf("explained %s is not in the corpus", f)
		}
	}
	golden.Check(t, filepath.Join("testdata", "corpus.golden"), b.String(), *update)
}

func prefix(s string) string { return s[:min(len(s), 24)] }

// Mutations of conformant streams and recordings never panic the checker,
// and every finding names an event of the stream (or -1).
func FuzzChecker(f *testing.F) {
	for _, c := range conformant() {
		f.Add(joinLines(c.events))
	}
	if payloads, err := fixtures.Corpus(fixtures.SharedDir(filepath.Join("..", ".."))); err == nil {
		for _, fl := range fixtures.ByFile(payloads) {
			if strings.HasPrefix(fl.Name, "responses-sse/") {
				f.Add(joinLines(fl.Payloads))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Split(string(data), "\n")
		c := NewChecker()
		for _, l := range lines {
			c.Event([]byte(l))
		}
		for _, x := range c.Finish() {
			if x.Event < -1 || x.Event >= len(lines) || x.Rule == "" || x.Reason == "" {
				t.Fatalf("finding %+v of a %d-event stream", x, len(lines))
			}
		}
	})
}

func joinLines(evs [][]byte) []byte {
	var out []byte
	for i, e := range evs {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, e...)
	}
	return out
}

// CheckStream never panics on any input, SSE or JSON lines or neither,
// and a report's findings name events of the stream.
func FuzzCheckStream(f *testing.F) {
	for _, c := range conformant() {
		f.Add(joinLines(c.events))
		var sse []byte
		for _, e := range c.events {
			sse = append(append(append(sse, "event: x\ndata: "...), e...), "\n\n"...)
		}
		f.Add(sse)
	}
	f.Add([]byte("\ufeff: comment\n\ndata: {}\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := CheckStream(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, x := range rep.Findings {
			if x.Event < -1 || x.Event >= max(rep.Events, 1) {
				t.Fatalf("finding %+v of a %d-event stream", x, rep.Events)
			}
		}
		if rep.Conformant != (Violations(rep.Findings) == 0) {
			t.Fatalf("conformant %v with %d violations", rep.Conformant, Violations(rep.Findings))
		}
	})
}

// BenchmarkChecker checks the 509-event bench stream (../shared/bench).
func BenchmarkChecker(b *testing.B) {
	payloads, err := fixtures.Bench(fixtures.SharedDir(filepath.Join("..", "..")))
	if err != nil {
		b.Skip(err)
	}
	var evs [][]byte
	size := 0
	for _, p := range payloads {
		if strings.HasPrefix(p.Name, "bench/f_responses_stream.sse#") {
			evs = append(evs, p.Data)
			size += len(p.Data)
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		Check(evs)
	}
}
