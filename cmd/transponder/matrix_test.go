package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/generator"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/openapi"
	"github.com/transponder-dev/transponder/runtime/matrix"
)

const moduleRoot = "../.."

func specsDir(t *testing.T) string {
	t.Helper()
	dir, err := openapi.SpecsDir(moduleRoot)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return dir
}

// edit applies a text edit to the spec: insert after the first line equal
// to anchor that follows the line start, or delete the lines from del up
// to (not including) the next line indented as little as it.
func edit(t *testing.T, spec, start, anchor, insert string) string {
	t.Helper()
	i := strings.Index(spec, start)
	if i < 0 {
		t.Fatalf("no %q in the spec", start)
	}
	j := strings.Index(spec[i:], anchor)
	if j < 0 {
		t.Fatalf("no %q after %q", anchor, start)
	}
	at := i + j + len(anchor)
	return spec[:at] + insert + spec[at:]
}

func cut(t *testing.T, spec, start, from, to string) string {
	t.Helper()
	i := strings.Index(spec, start)
	if i < 0 {
		t.Fatalf("no %q in the spec", start)
	}
	j := strings.Index(spec[i:], from)
	k := strings.Index(spec[i+j:], to)
	if j < 0 || k < 0 {
		t.Fatalf("no %q…%q after %q", from, to, start)
	}
	return spec[:i+j] + spec[i+j+k:]
}

func prefixed(p string, paths []string) []string {
	out := make([]string, len(paths))
	for i, q := range paths {
		out[i] = p + q
	}
	return out
}

// A spec update, end to end, on a copy of the pinned OpenAI spec (its
// edits name places of that release) with a
// field added to CreateResponse, a variant added to the input item union
// and a field removed (the local shell action's env): the matrix is
// computed from the new spec with no hand edit; its diff against the
// committed one names exactly those three changes and exits 1; the
// converter generator stops with errors naming exactly the new paths.
func TestPinnedSpecMatrixUpdate(t *testing.T) {
	dir := specsDir(t)
	orig, err := os.ReadFile(filepath.Join(dir, "openai.openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec := string(orig)
	spec = edit(t, spec, "\n    CreateResponse:\n", "          properties:\n",
		"            future_knob:\n              type: boolean\n              description: A knob from the future.\n")
	spec = edit(t, spec, "\n    InputItem:\n", "        - $ref: \"#/components/schemas/ProgramOutputItemParam\"\n",
		"        - $ref: \"#/components/schemas/FutureItemParam\"\n")
	spec = edit(t, spec, "\ncomponents:\n", "\n  schemas:\n",
		"    FutureItemParam:\n      type: object\n      title: Future item\n      properties:\n        type:\n          type: string\n          enum:\n            - future_item\n        payload:\n          type: string\n      required:\n        - type\n")
	spec = cut(t, spec, "\n    LocalShellExecAction:\n", "        env:\n", "        user:\n")
	spec = cut(t, spec, "\n    LocalShellExecAction:\n", "        - env\n", "      title: Local shell exec action\n")
	tmp := t.TempDir()
	specs, out := filepath.Join(tmp, "specs"), filepath.Join(tmp, "out")
	for _, d := range []string{specs, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(specs, "openai.openapi.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(filepath.Join(dir, "openrouter.openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(specs, "openrouter.openapi.yaml"), other, 0o644); err != nil {
		t.Fatal(err)
	}

	// normalize → matrix, no hand edit
	var stdout, stderr bytes.Buffer
	if code := runMatrix([]string{"-root", moduleRoot, "-specs", specs, "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("transponder matrix -specs: exit %d: %s", code, stderr.String())
	}
	oldJSON, newJSON := filepath.Join(moduleRoot, matrix.JSONFile), filepath.Join(out, matrix.JSONFile)

	// the diff: exactly the three changes, exit 1
	stdout.Reset()
	if code := matrixDiff([]string{oldJSON, newJSON}, &stdout, &stderr); code != 1 {
		t.Errorf("matrix diff: exit %d, want 1\n%s", code, stdout.String())
	}
	load := func(p string) *matrix.Matrix {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := matrix.Load(data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	d := matrix.Diff(load(oldJSON), load(newJSON))
	// exactly: per section, the paths added and removed
	newVariant := []string{"{future_item}", "{future_item}.payload", "{future_item}.type"}
	want := map[string][2][]string{ // section → added, removed
		"responses_chat/openrouter":    {append([]string{"future_knob"}, prefixed("input{array}[]", newVariant)...), {"input{array}[]{local_shell_call}.action.env"}},
		"responses_chat/openai":        {append([]string{"future_knob"}, prefixed("input{array}[]", newVariant)...), {"input{array}[]{local_shell_call}.action.env"}},
		"chat_responses/openai-target": {prefixed("instructions{array}[]", newVariant), {"instructions{array}[]{local_shell_call}.action.env", "output[]{local_shell_call}.action.env"}},
		// the reverse answer reads the Response the forward answer writes
		"responses_chat_answer/openrouter": {prefixed("instructions{array}[]", newVariant), {"instructions{array}[]{local_shell_call}.action.env", "output[]{local_shell_call}.action.env"}},
		"responses_chat_answer/openai":     {prefixed("instructions{array}[]", newVariant), {"instructions{array}[]{local_shell_call}.action.env", "output[]{local_shell_call}.action.env"}},
	}
	for _, name := range mapping.Dialects() { // every dialect's section, as its base's
		if name != "openai" && name != "openrouter" {
			want["responses_chat/"+name] = want["responses_chat/openai"]
		}
	}
	for _, s := range d.Sections {
		for _, c := range s.Changed {
			t.Errorf("%s: %s changed %s → %s: not one of the three changes", s.ID, c.Path, c.From.Status, c.To.Status)
		}
		var added, removed []string
		for _, r := range s.Added {
			added = append(added, r.Path)
			if strings.HasPrefix(s.ID, "responses_chat/") && r.Status != matrix.Unmapped {
				t.Errorf("%s: %s is %s, want unmapped", s.ID, r.Path, r.Status)
			}
		}
		for _, r := range s.Removed {
			removed = append(removed, r.Path)
		}
		w, ok := want[s.ID]
		if !ok {
			t.Errorf("%s changed: +%v -%v", s.ID, added, removed)
			continue
		}
		delete(want, s.ID)
		if !slices.Equal(added, w[0]) || !slices.Equal(removed, w[1]) {
			t.Errorf("%s: +%v -%v, want +%v -%v", s.ID, added, removed, w[0], w[1])
		}
	}
	for id := range want {
		t.Errorf("%s: no change", id)
	}
	for _, want := range []string{"+ future_knob  unmapped", "+ input{array}[]{future_item}  unmapped", "- input{array}[]{local_shell_call}.action.env  (was aligned)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the diff does not say %q", want)
		}
	}

	// the generator: errors naming exactly the new paths
	dialects, err := normalizedDialects(specs)
	if err != nil {
		t.Fatal(err)
	}
	const file = "mapping/responses_chat.yaml"
	data, err := os.ReadFile(filepath.Join(moduleRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	f, errs := generator.Load(file, data)
	if errs != nil {
		t.Fatal(errs)
	}
	ds, errs := generator.LoadDialects(os.DirFS(moduleRoot))
	if errs = append(errs, generator.ApplyDialects([]*generator.File{f}, ds)...); errs != nil {
		t.Fatal(errs)
	}
	sources := map[string][]byte{}
	gos, _ := filepath.Glob(filepath.Join(moduleRoot, "mapping", "*.go"))
	for _, g := range gos {
		if sources[g], err = os.ReadFile(g); err != nil {
			t.Fatal(err)
		}
	}
	transforms, errs := generator.ParseTransforms(sources)
	if errs != nil {
		t.Fatal(errs)
	}
	_, errs = generator.ValidateWith(f, transforms, true, dialects)
	var named []string
	for _, e := range errs {
		msg := e.Error()
		path, _, ok := strings.Cut(strings.TrimPrefix(msg, file+":0: "), ": a field of the spec with no entry")
		if !ok {
			t.Errorf("generator: %s: not about a new path", msg)
			continue
		}
		named = append(named, path)
	}
	slices.Sort(named)
	if want := []string{"future_knob", "input{array}[]{future_item}.payload", "input{array}[]{future_item}.type"}; !slices.Equal(named, want) {
		t.Errorf("the generator names %v, want %v", named, want)
	}
	// and the pinned specs, normalized now the same way, give the compiled
	// shape tables, and so the committed matrix byte for byte
	pinned, err := normalizedDialects(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, compiled := range matrix.Compiled() {
		if !reflect.DeepEqual(pinned[name], compiled) {
			t.Errorf("%s: the JSON table of the pinned spec differs from the compiled one", name)
		}
	}
	pinnedOut := filepath.Join(tmp, "pinned")
	if err := os.Mkdir(pinnedOut, 0o755); err != nil {
		t.Fatal(err)
	}
	if code := runMatrix([]string{"-root", moduleRoot, "-specs", dir, "-o", pinnedOut}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{matrix.JSONFile, matrix.MarkdownFile} {
		a, _ := os.ReadFile(filepath.Join(moduleRoot, name))
		b, _ := os.ReadFile(filepath.Join(pinnedOut, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s from the pinned specs normalized now differs from the committed one", name)
		}
	}
}

// transponder matrix -check: 0 when the committed files are fresh, 1 when
// they are stale (here: absent from -o); matrix diff: 0 for no change, 2
// for bad arguments or files.
func TestMatrixCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMatrix([]string{"-root", moduleRoot, "-check"}, &out, &errb); code != 0 {
		t.Errorf("-check on the committed files: exit %d: %s", code, errb.String())
	}
	empty := t.TempDir()
	if code := runMatrix([]string{"-root", moduleRoot, "-check", "-o", empty}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "ALIGNMENT.md is stale") {
		t.Errorf("-check with no files: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(empty, matrix.JSONFile)); err == nil {
		t.Error("-check wrote a file")
	}
	// -o a directory that does not exist yet: made, with the files in it.
	fresh := filepath.Join(empty, "new", "dir")
	if code := runMatrix([]string{"-root", moduleRoot, "-o", fresh}, &out, &errb); code != 0 {
		t.Errorf("-o a new directory: exit %d: %s", code, errb.String())
	}
	for _, name := range []string{matrix.MarkdownFile, matrix.JSONFile} {
		got, err := os.ReadFile(filepath.Join(fresh, name))
		want, _ := os.ReadFile(filepath.Join(moduleRoot, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("-o a new directory: %s is not the committed one (%v)", name, err)
		}
	}
	committed := filepath.Join(moduleRoot, matrix.JSONFile)
	out.Reset()
	if code := matrixDiff([]string{"-format", "markdown", committed, committed}, &out, &errb); code != 0 || !strings.Contains(out.String(), "No change") {
		t.Errorf("a matrix against itself: exit %d: %s", code, out.String())
	}
	for _, args := range [][]string{{committed}, {"-format", "html", committed, committed}, {committed, filepath.Join(empty, "none.json")}, {filepath.Join(moduleRoot, "go.mod"), committed}} {
		if code := matrixDiff(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
