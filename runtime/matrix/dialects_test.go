package matrix

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// Each dialect of mapping/dialects is a section of its own, and adding one
// shows in the matrix diff as a new section, its rows the base's where it
// does not differ and its own where it does.
func TestDialectSections(t *testing.T) {
	with := pinned(t)
	// The same module without its dialect files: the matrix before them.
	without := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(root), "mapping", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || strings.HasPrefix(p, "mapping/dialects/") {
			return err
		}
		data, err := fs.ReadFile(os.DirFS(root), p)
		without[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Mappings(without)
	if err != nil {
		t.Fatal(err)
	}
	before, err := Build(Input{Dialects: Compiled(), Mappings: files})
	if err != nil {
		t.Fatal(err)
	}
	diff := string(Diff(before, with).Text())
	for _, d := range []string{"compatible-reasoning", "deepseek", "kimi", "mistral", "qwen"} {
		if !strings.Contains(diff, "openai responses request → "+d+" chat request (responses_chat/"+d+"): new section") {
			t.Errorf("the diff does not show %s's section", d)
		}
	}
	row := func(section, path string) Row {
		for _, s := range with.Sections {
			if s.ID == section {
				for _, r := range s.Rows {
					if r.Path == path {
						return r
					}
				}
			}
		}
		t.Fatalf("no row %s in %s", path, section)
		return Row{}
	}
	if r := row("responses_chat/deepseek", "max_output_tokens"); r.Status != Aligned || !slices.Contains(r.Targets, "max_tokens") {
		t.Errorf("deepseek's own rule: %+v", r)
	}
	if r := row("responses_chat/deepseek", "input{array}[]{reasoning}"); !strings.Contains(r.Note, "reasoning_content") {
		t.Errorf("deepseek's reasoning row says nothing of its carrier: %+v", r)
	}
	if a, b := row("responses_chat/deepseek", "parallel_tool_calls"), row("responses_chat/openai", "parallel_tool_calls"); a.Status != b.Status || !slices.Equal(a.Targets, b.Targets) {
		t.Errorf("an entry deepseek does not override is not openai's: %+v vs %+v", a, b)
	}
	if r := row("responses_chat/mistral", "user"); r.Status != Dropped {
		t.Errorf("mistral's user: %+v", r)
	}
}
