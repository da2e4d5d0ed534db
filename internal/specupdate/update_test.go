package specupdate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/internal/specvariant"
	"github.com/transponder-dev/transponder/openapi"
	"github.com/transponder-dev/transponder/runtime/matrix"
)

// variant is a spec update: what it does to each pinned spec (nil: the
// pinned file as it is), the stale reports `go generate` must print and
// the alignment matrix diff it must produce, exactly.
type variant struct {
	name       string
	openai     func(pinned []byte) ([]byte, error)
	openrouter func(pinned []byte) ([]byte, error)
	stale      []string // each the tail of one stale line: "file:line: stale: " is checked apart
	diff       []string // "section: added|removed|changed|stale|unstale path[ (from → to)]"
}

func edits(es ...specvariant.Edit) func([]byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) { return specvariant.Apply(b, es) }
}

const schemas = "/components/schemas/"

func rm(p string) specvariant.Edit { return specvariant.Edit{Op: specvariant.Remove, Pointer: schemas + p} }
func drop(p, v string) specvariant.Edit {
	return specvariant.Edit{Op: specvariant.Drop, Pointer: schemas + p, Value: v}
}
func set(p, v string) specvariant.Edit {
	return specvariant.Edit{Op: specvariant.Set, Pointer: schemas + p, Value: v}
}
func add(p, v string) specvariant.Edit {
	return specvariant.Edit{Op: specvariant.Append, Pointer: schemas + p, Value: v}
}
func ref(name string) string { return "#/components/schemas/" + name }

// openaiOlderAndNewer is what releases of the OpenAI spec around the pinned
// one removed and added: a request field (reasoning.context), a tool's field
// (output_schema), a usage field the answer maps to (cache_write_tokens), a
// field of request and Response (prompt_cache_options), input and output
// item variants (program items), three event types, an enum value; and a
// Response field, an output item variant, an event type, an enum value and a
// field inside a tool the mapping maps whole.
var openaiOlderAndNewer = edits(
	rm("Reasoning/properties/context"),
	rm("FunctionTool/properties/output_schema"),
	rm("ResponseUsage/properties/input_tokens_details/properties/cache_write_tokens"),
	drop("ResponseUsage/properties/input_tokens_details/required", "cache_write_tokens"),
	rm("CreateModelResponseProperties/allOf/1/properties/prompt_cache_options"),
	rm("Response/allOf/2/properties/prompt_cache_options"),
	drop("InputItem/oneOf", ref("ProgramItemParam")),
	drop("InputItem/oneOf", ref("ProgramOutputItemParam")),
	drop("OutputItem/oneOf", ref("Program")),
	drop("OutputItem/oneOf", ref("ProgramOutput")),
	drop("ResponseStreamEvent/anyOf", ref("ResponseQueuedEvent")),
	drop("ResponseStreamEvent/anyOf", ref("ResponseCustomToolCallInputDeltaEvent")),
	drop("ResponseStreamEvent/anyOf", ref("ResponseCustomToolCallInputDoneEvent")),
	drop("ReasoningEffort/anyOf/0/enum", "max"),

	set("Response/allOf/2/properties/safety_report", `{type: object, description: a newer field, properties: {level: {type: string}}}`),
	set("FutureOutputItem", `{type: object, title: FutureOutputItem, required: [type, id], properties: {type: {type: string, enum: [future_item]}, id: {type: string}}}`),
	add("OutputItem/oneOf", `{$ref: "#/components/schemas/FutureOutputItem"}`),
	set("ResponseFutureEvent", `{type: object, title: ResponseFutureEvent, required: [type, sequence_number], properties: {type: {type: string, enum: [response.future_event]}, sequence_number: {type: integer}}}`),
	add("ResponseStreamEvent/anyOf", `{$ref: "#/components/schemas/ResponseFutureEvent"}`),
	add("ReasoningEffort/anyOf/0/enum", "ultra"),
	set("CustomToolParam/properties/priority", `{type: integer, description: a newer field of a tool mapped whole}`),
)

// openrouterOlderAndNewer: a field of the chat completion and chunk the
// answer's mapping reads (openrouter_metadata), a request field the
// mapping writes (prompt_cache_options), a finish reason removed; a finish
// reason and a field inside usage.cost_details (mapped whole) added.
var openrouterOlderAndNewer = edits(
	rm("ChatResult/properties/openrouter_metadata"),
	rm("ChatStreamChunk/properties/openrouter_metadata"),
	rm("ChatRequest/properties/prompt_cache_options"),
	drop("ChatFinishReasonEnum/enum", "content_filter"),
	add("ChatFinishReasonEnum/enum", "pause_turn"),
	set("CostDetails/properties/upstream_inference_cache_cost", `{type: number, format: double}`),
)

var variants = []variant{
	{name: "openai-older-and-newer", openai: openaiOlderAndNewer},
}

func TestPinnedSpecUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("a generation and a build per variant")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := openapi.SpecsDir(root)
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := os.ReadFile(filepath.Join(root, matrix.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	before, err := matrix.Load(pinned)
	if err != nil {
		t.Fatal(err)
	}
	requests := codexRequests(t, root)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			work := t.TempDir()
			mod, dir := filepath.Join(work, "module"), filepath.Join(work, "specs")
			copyModule(t, root, mod)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, s := range []struct {
				file string
				make func([]byte) ([]byte, error)
			}{{"openai.openapi.yaml", v.openai}, {"openrouter.openapi.yaml", v.openrouter}} {
				data, err := os.ReadFile(filepath.Join(specs, s.file))
				if err != nil {
					t.Fatal(err)
				}
				if s.make != nil {
					if data, err = s.make(data); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, s.file), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// The update, as the README says: pin, generate, build.
			if _, err := openapi.PinDir(mod, dir, nil, nil); err != nil {
				t.Fatal(err)
			}
			env := append(os.Environ(), "SPECS_DIR="+dir, "GOFLAGS=-trimpath", "CI=")
			start := time.Now()
			_, stderr := run(t, mod, env, "go", "generate", "./...")
			genTime := time.Since(start)
			start = time.Now()
			bin := filepath.Join(work, "transponder")
			run(t, mod, env, "go", "build", "-o", bin, "./cmd/transponder")
			run(t, mod, env, "go", "build", "./...")
			buildTime := time.Since(start)
			t.Logf("%s: go generate %.1fs, go build %.1fs, hand edits 0", v.name, genTime.Seconds(), buildTime.Seconds())

			var stale []string
			for _, l := range strings.Split(stderr, "\n") {
				if _, tail, ok := strings.Cut(l, ": stale: "); ok {
					stale = append(stale, tail)
				}
			}
			if !slices.Equal(stale, v.stale) {
				t.Errorf("go generate's stale reports:\n%s\nwant:\n%s\n(all of stderr:\n%s)", strings.Join(stale, "\n"), strings.Join(v.stale, "\n"), stderr)
			}

			for _, r := range requests {
				out, _ := run(t, mod, env, bin, "convert", r)
				var chat struct {
					Model    string            `json:"model"`
					Messages []json.RawMessage `json:"messages"`
				}
				if err := json.Unmarshal([]byte(out), &chat); err != nil || chat.Model == "" || len(chat.Messages) == 0 {
					t.Errorf("convert %s: not a chat request (%v):\n%.300s", filepath.Base(r), err, out)
				}
			}

			data, err := os.ReadFile(filepath.Join(mod, matrix.JSONFile))
			if err != nil {
				t.Fatal(err)
			}
			after, err := matrix.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			got := diffLines(matrix.Diff(before, after))
			if !slices.Equal(got, v.diff) {
				t.Errorf("matrix diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(v.diff, "\n"))
			}
			text, _ := runStatus(mod, env, bin, "matrix", "diff", filepath.Join(root, matrix.JSONFile), filepath.Join(mod, matrix.JSONFile))
			t.Logf("transponder matrix diff:\n%s", text)
		})
	}
}

// diffLines are a Delta's changes, one per line, sorted.
func diffLines(d *matrix.Delta) []string {
	var out []string
	for _, s := range d.Sections {
		for _, r := range s.Added {
			out = append(out, fmt.Sprintf("%s: added %s %s (%s)", s.ID, r.Kind, r.Path, r.Status))
		}
		for _, r := range s.Removed {
			out = append(out, fmt.Sprintf("%s: removed %s %s", s.ID, r.Kind, r.Path))
		}
		for _, c := range s.Changed {
			out = append(out, fmt.Sprintf("%s: changed %s (%s → %s)", s.ID, c.Path, c.From.Status, c.To.Status))
		}
	}
	slices.Sort(out)
	return out
}

// codexRequests are the recorded Codex request bodies (the corpus's, with
// their headers taken off, and the mapping's goldens), as files.
func codexRequests(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	goldens, _ := filepath.Glob(filepath.Join(root, "mapping", "testdata", "codex_*", "request.json"))
	out = append(out, goldens...)
	recorded, _ := filepath.Glob(filepath.Join(root, "..", "shared", "corpus", "requests", "codex-*.json"))
	if d := os.Getenv("SHARED_DIR"); d != "" {
		recorded, _ = filepath.Glob(filepath.Join(d, "corpus", "requests", "codex-*.json"))
	}
	dir := t.TempDir()
	for _, r := range recorded {
		data, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(data, &rec); err != nil || len(rec.Body) == 0 {
			t.Fatalf("%s: no body (%v)", r, err)
		}
		p := filepath.Join(dir, filepath.Base(r))
		if err := os.WriteFile(p, rec.Body, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if len(recorded) == 0 || len(goldens) == 0 {
		t.Fatalf("recorded Codex requests: %d in the corpus, %d goldens", len(recorded), len(goldens))
	}
	return out
}

// copyModule copies the module's files (not .git, node_modules, build
// output or downloaded specs) into dst.
func copyModule(t *testing.T, root, dst string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", ".specs", "bin":
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".test") || rel == "transponder" || rel == "bench.txt" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func runStatus(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// run runs a command in dir and fails the test unless it succeeds.
func run(t *testing.T, dir string, env []string, name string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, e.String())
	}
	return o.String(), e.String()
}
