package codec_test

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/internal/golden"
	"github.com/transponder-dev/transponder/internal/jsontest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func shared(t testing.TB) string {
	t.Helper()
	d := fixtures.SharedDir(filepath.Join(".."))
	if _, err := os.Stat(filepath.Join(d, "corpus")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("no shared corpus at %s (set SHARED_DIR)", d)
	}
	return d
}

var dialects = []*codec.Dialect{codec.OpenAI, codec.OpenRouter}

// forward reads the synthetic forward-compatibility cases of testdata/forward
// (../testdata/forward/README.md), as corpus payloads.
func forward(t testing.TB) []fixtures.Payload {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "forward", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no forward cases: %v", err)
	}
	kinds := map[string]codec.Payload{"request": codec.ResponsesRequest, "event": codec.ResponsesEvent, "chunk": codec.ChatChunk, "response": codec.ResponsesBody}
	var out []fixtures.Payload
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prefix, _, _ := strings.Cut(filepath.Base(f), "-")
		kind, ok := kinds[prefix]
		if !ok {
			t.Fatalf("%s: no payload kind %q", f, prefix)
		}
		out = append(out, fixtures.Payload{Name: "forward/" + filepath.Base(f), Kind: kind, Data: bytes.TrimSpace(data)})
	}
	return out
}

var index = regexp.MustCompile(`\[\d+\]`)

// findingLines lists what decoding a payload found, one line per kind of finding
// and path (array indexes folded to []), with counts: what the golden file
// pins.
func findingLines(dialect string, ps []fixtures.Payload, findings func(fixtures.Payload) []codec.Finding) []string {
	counts := map[string]int{}
	var order []string
	for _, p := range ps {
		file, _, _ := strings.Cut(p.Name, "#")
		for _, f := range findings(p) {
			what := f.Kind.String() + " " + index.ReplaceAllString(cmp.Or(f.Path(), "(top level)"), "[]")
			switch f.Kind {
			case codec.UnknownType, codec.UnknownValue:
				what += fmt.Sprintf(" %q", f.Name())
			case codec.WrongKind:
				what += " (want " + f.Want() + ")"
			}
			line := fmt.Sprintf("%s %s %s: %s", dialect, file, p.Kind, what)
			if counts[line] == 0 {
				order = append(order, line)
			}
			counts[line]++
		}
	}
	out := make([]string, 0, len(order))
	for _, l := range order {
		out = append(out, fmt.Sprintf("%s ×%d", l, counts[l]))
	}
	return out
}

// Every recorded payload, every synthetic forward case and every benchmark
// payload decodes, against
// both specs, and re-encodes byte for byte; what the specs do not know is
// pinned in testdata/findings.golden (go test ./codec -run TestPinnedSpecFindings -update
// rewrites it; review the diff).
func TestPinnedSpecFindings(t *testing.T) {
	payloads := append(must(fixtures.Corpus(shared(t))), forward(t)...)
	payloads = append(payloads, must(fixtures.Bench(shared(t)))...)
	var lines []string
	for _, d := range dialects {
		var doc codec.Doc
		lines = append(lines, findingLines(d.Name(), payloads, func(p fixtures.Payload) []codec.Finding {
			r, ok := d.Payload(p.Kind)
			if !ok {
				t.Fatalf("%s has no %s", d.Name(), p.Kind)
			}
			if err := doc.Decode(r, p.Data); err != nil {
				t.Errorf("%s as %s %s: %v", p.Name, d.Name(), p.Kind, err)
				return nil
			}
			out := doc.AppendJSON(nil)
			if !bytes.Equal(out, p.Data) {
				t.Errorf("%s: re-encoded bytes differ", p.Name)
			}
			if diff, err := jsontest.Diff(p.Data, out); diff != "" || err != nil {
				t.Errorf("%s: not JSON-equal: %s %v", p.Name, diff, err)
			}
			return doc.Findings()
		})...)
	}
	golden.Check(t, filepath.Join("testdata", "findings.golden"), "# What the pinned specs do not know of the recorded corpus, the forward cases and the benchmark fixtures:\n"+
		"# dialect, file, payload: finding path (indexes folded) ×count. Rewrite with -update.\n"+strings.Join(lines, "\n")+"\n", *update)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// HasTag says what asking every node's Tag says, for every tag a node of
// the recorded corpus, the forward cases and the benchmark fixtures has,
// the same one a byte shorter or longer, and "": and for tags written
// with escapes, absent (a default variant's) or not strings.
func TestHasTag(t *testing.T) {
	payloads := append(must(fixtures.Corpus(shared(t))), forward(t)...)
	payloads = append(payloads, must(fixtures.Bench(shared(t)))...)
	for _, body := range []string{
		`{"model":"m","input":[{"type":"item_reference","id":"x"},{"role":"user","content":"hi"}]}`,
		`{"model":"m","input":[{"type":"item_refer\u0065nce","id":"x"},{"type":"mess\u0061ge","role":"user","content":"hi"}]}`,
		`{"model":"m","input":[{"type":"item_referencf","id":"x"},{"type":"","role":"user"}]}`,
		`{"model":"m","input":[{"type":5,"role":"user","content":"hi"}]}`,
	} {
		payloads = append(payloads, fixtures.Payload{Name: body, Kind: codec.ResponsesRequest, Data: []byte(body)})
	}
	var doc codec.Doc
	checked := 0
	for _, p := range payloads {
		r, _ := codec.OpenAI.Payload(p.Kind)
		if doc.Decode(r, p.Data) != nil {
			continue // (the corpus's refused payloads are other tests')
		}
		// (and tags holding a backslash: a raw tag of their bytes holds
		// an escape, and is not them)
		tags := []string{"", "item_reference", "message", "item_referenc", "item_referencee", `item_refer\u0065nce`, `mess\u0061ge`, `\`}
		for n := range doc.Nodes() {
			tag := n.Tag()
			tags = append(tags, tag, tag+"x")
			if tag != "" {
				tags = append(tags, tag[:len(tag)-1])
			}
		}
		for _, tag := range tags {
			want := false
			for n := range doc.Nodes() {
				want = want || n.Tag() == tag
			}
			if got := doc.HasTag(tag); got != want {
				t.Errorf("%s: HasTag(%q) = %v, want %v", p.Name, tag, got, want)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d tags checked", checked)
	}
}
