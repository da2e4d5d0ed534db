package specupdate_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transponder-dev/transponder/internal/golden"
	"github.com/transponder-dev/transponder/internal/specvariant"
	"github.com/transponder-dev/transponder/openapi"
	"github.com/transponder-dev/transponder/runtime/matrix"
)

// writtenFor are the releases the variants' edits are written against
// (shared/specs/SOURCES.md).
var writtenFor = map[string]string{
	"openai.openapi.yaml":     "db5d7478feae10b4d331834c60d9765a8aa042e38419f9b1694288c11aa8ebc8",
	"openrouter.openapi.yaml": "469fa24635e2e05617cfb064ded5f561a177859d054705f4c744644fd68068eb",
}

var update = flag.Bool("update", false, "rewrite testdata/<variant>.golden")

// variant is a spec update: what it does to each pinned spec (nil: the
// pinned file as it is). What `go generate` must report stale and what
// the alignment matrix diff must name, exactly, are in
// testdata/<name>.golden (reviewed: each line is one of the edits' doing;
// -update rewrites it).
type variant struct {
	name       string
	openai     func(pinned []byte) ([]byte, error)
	openrouter func(pinned []byte) ([]byte, error)
	// renames: ogen names a type of this release otherwise (OpenRouter's
	// inline chunk), so the test packages that use ogen's names (gen,
	// mapping/typed, codec's tests of decoding into them) do not compile.
	renames bool
}

func edits(es ...specvariant.Edit) func([]byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) { return specvariant.Apply(b, es) }
}

const schemas = "/components/schemas/"

func rm(p string) specvariant.Edit {
	return specvariant.Edit{Op: specvariant.Remove, Pointer: schemas + p}
}
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
	// OpenAPI 3.0.3, as OpenAI published until mid-2025: the same
	// information, so no stale entry and no difference in the matrix.
	{name: "openai-3.0", openai: specvariant.OpenAPI30WithoutMappings},
	// OpenRouter's late-2025 constructs (non-object allOf parts, an inline
	// stream event and chunk, chat messages without a discriminator,
	// same-named content variants) with fields and enum values removed and
	// added.
	{name: "openrouter-2025-older-and-newer", openrouter: func(b []byte) ([]byte, error) {
		b, err := openrouterOlderAndNewer(b)
		if err != nil {
			return nil, err
		}
		return specvariant.OpenRouter2025(b)
	}, renames: true},
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
	// The variants' edits name places of one release of each spec; on
	// another (after a spec update), they are to be written anew for it.
	for file, sum := range writtenFor {
		data, err := os.ReadFile(filepath.Join(specs, file))
		if err != nil {
			t.Fatal(err)
		}
		if got := openapi.Sum(data); got != sum {
			t.Skipf("the variants are written for %s sha256 %s; the spec at hand is %s: write their edits for it", file, sum, got)
		}
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
	shared := filepath.Join(root, "..", "shared")
	if d := os.Getenv("SHARED_DIR"); d != "" {
		shared = d
	}
	// What the pinned build makes of them: a variant's converter must
	// carry as many messages and tools.
	pinnedBin := filepath.Join(t.TempDir(), "transponder")
	run(t, root, os.Environ(), "go", "build", "-o", pinnedBin, "./cmd/transponder")
	want := map[string]chatShape{}
	for _, r := range requests {
		out, _ := run(t, root, os.Environ(), pinnedBin, "convert", r)
		want[r] = shapeOf(t, r, out)
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			work := t.TempDir()
			mod, dir := filepath.Join(work, "module"), filepath.Join(work, "specs")
			copyModule(t, root, mod)
			copied := snapshot(t, mod)
			// The official Node SDK the gateway's tests run (make node-deps),
			// shared rather than copied.
			if nm := filepath.Join(root, "e2e", "node", "node_modules"); dirExists(nm) {
				if err := os.Symlink(nm, filepath.Join(mod, "e2e", "node", "node_modules")); err != nil {
					t.Fatal(err)
				}
			}
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
			env := append(os.Environ(), "SPECS_DIR="+dir, "GOFLAGS=-trimpath") // -trimpath: the variants share the build cache for what they do not change
			start := time.Now()
			_, stderr := run(t, mod, env, "go", "generate", "./...")
			genTime := time.Since(start)
			start = time.Now()
			bin := filepath.Join(work, "transponder")
			run(t, mod, env, "go", "build", "-o", bin, "./cmd/transponder")
			run(t, mod, env, "go", "build", "./...")
			buildTime := time.Since(start)
			// Hand edits: files of the module that differ from the checkout
			// but are not what go generate (or pin) writes. The update
			// needs none.
			generated, edited := changedFiles(t, copied, mod)
			if len(edited) > 0 {
				t.Errorf("files changed that are not generated: %v", edited)
			}
			t.Logf("%s: go generate %.1fs (%d generated files changed), go build %.1fs, hand edits %d", v.name, genTime.Seconds(), generated, buildTime.Seconds(), len(edited))

			var stale []string
			for _, l := range strings.Split(stderr, "\n") {
				if !strings.Contains(l, ": stale: ") {
					continue
				}
				m := staleLine.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("a stale report not of the form file:line: stale: what (why): %s", l)
					continue
				}
				stale = append(stale, m[1]+": "+m[2]) // the line number left out: it moves with every edit of the YAML
			}

			for _, r := range requests {
				out, _ := run(t, mod, env, bin, "convert", r)
				if got := shapeOf(t, r, out); got != want[r] {
					t.Errorf("convert %s: %+v, the pinned build's %+v", filepath.Base(r), got, want[r])
				}
			}

			// The tests that do not depend on the pinned specs' content pass
			// on this release too.
			pkgs, _ := run(t, mod, env, "go", "list", "./...")
			var independent []string
			for _, p := range strings.Fields(pkgs) {
				switch {
				case strings.HasSuffix(p, "/e2e"), strings.HasSuffix(p, "/internal/specupdate"):
				case v.renames && (strings.HasSuffix(p, "/codec") || strings.HasSuffix(p, "/gen") || strings.HasSuffix(p, "/mapping/typed")):
				default:
					independent = append(independent, p)
				}
			}
			start = time.Now()
			run(t, mod, append(env, "SHARED_DIR="+shared), "go", append([]string{"test", "-short", "-count=1", "-skip", "TestPinnedSpec"}, independent...)...)
			t.Logf("%s: the spec-independent tests of %d packages pass (%.1fs)", v.name, len(independent), time.Since(start).Seconds())

			data, err := os.ReadFile(filepath.Join(mod, matrix.JSONFile))
			if err != nil {
				t.Fatal(err)
			}
			after, err := matrix.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			delta := matrix.Diff(before, after)
			golden.Check(t, filepath.Join("testdata", v.name+".golden"),
				"# go generate: stale mapping entries (file: what)\n"+lines(stale)+
					"# transponder matrix diff against the pinned alignment.json\n"+lines(diffLines(delta)), *update)
			// The command prints the same delta, and exits 1 when a path
			// became unmapped or a status got worse.
			text, err := runStatus(mod, env, bin, "matrix", "diff", filepath.Join(root, matrix.JSONFile), filepath.Join(mod, matrix.JSONFile))
			if want := delta.Worse(); (err != nil) != want || !bytes.Equal([]byte(text), delta.Text()) {
				t.Errorf("transponder matrix diff: %v (worse: %v):\n%s", err, want, text)
			}
			t.Logf("transponder matrix diff:\n%s", text)
		})
	}
}

var staleLine = regexp.MustCompile(`^(mapping/[a-z_]+\.yaml):[1-9][0-9]*: stale: (.+) \(.+\)$`)

func lines(ls []string) string {
	if len(ls) == 0 {
		return "(none)\n"
	}
	return strings.Join(ls, "\n") + "\n"
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
		for _, st := range s.Stale {
			out = append(out, fmt.Sprintf("%s: stale %s", s.ID, staleLabel(st)))
		}
		for _, st := range s.Unstale {
			out = append(out, fmt.Sprintf("%s: unstale %s", s.ID, staleLabel(st)))
		}
		for _, v := range s.Values {
			out = append(out, fmt.Sprintf("%s: values %s +%v -%v", s.ID, v.Path, v.Added, v.Removed))
		}
	}
	slices.Sort(out)
	return out
}

func staleLabel(st matrix.Stale) string {
	if st.Target != "" {
		return st.Path + " → " + st.Target
	}
	return st.Path
}

// chatShape is what a converted request must keep across spec updates.
type chatShape struct {
	Model           string
	Messages, Tools int
}

func shapeOf(t *testing.T, name, out string) chatShape {
	t.Helper()
	var chat struct {
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &chat); err != nil || chat.Model == "" || len(chat.Messages) == 0 {
		t.Errorf("convert %s: not a chat request (%v):\n%.300s", filepath.Base(name), err, out)
	}
	return chatShape{chat.Model, len(chat.Messages), len(chat.Tools)}
}

// generatedFile reports whether go generate (or transponder pin) writes
// the file at rel.
func generatedFile(rel string) bool {
	rel = filepath.ToSlash(rel)
	switch {
	case rel == "openapi/manifest.yaml", rel == matrix.JSONFile, rel == matrix.MarkdownFile:
		return true
	case strings.HasPrefix(rel, "gen/") && (strings.HasSuffix(rel, "_gen.go") || strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".txt")):
		return true
	case (strings.HasPrefix(rel, "codec/") || strings.HasPrefix(rel, "mapping/")) && strings.HasSuffix(rel, "_gen.go"):
		return true
	}
	return false
}

// snapshot is the sha256 of every file under dir, by path.
func snapshot(t *testing.T, dir string) map[string][sha256.Size]byte {
	t.Helper()
	out := map[string][sha256.Size]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changedFiles compares the module with its snapshot from before the
// update: how many generated files changed, and which other files were
// added, removed or changed.
func changedFiles(t *testing.T, before map[string][sha256.Size]byte, mod string) (generated int, edited []string) {
	t.Helper()
	after := snapshot(t, mod)
	var changed []string
	for rel, sum := range after {
		if b, ok := before[rel]; !ok || b != sum {
			changed = append(changed, rel)
		}
	}
	for rel := range before {
		if _, ok := after[rel]; !ok {
			changed = append(changed, rel)
		}
	}
	slices.Sort(changed)
	for _, rel := range changed {
		if generatedFile(rel) {
			generated++
		} else {
			edited = append(edited, rel)
		}
	}
	return generated, edited
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

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// runStatus runs a command in dir: its stdout, and its error (with its
// stderr).
func runStatus(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%w: %s", err, errs.String())
	}
	return out.String(), nil
}

// run runs a command in dir and fails the test unless it succeeds.
func run(t *testing.T, dir string, env []string, name string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		out := o.String()
		if len(out) > 20000 {
			out = "…" + out[len(out)-20000:]
		}
		t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, e.String(), out)
	}
	return o.String(), e.String()
}
