package mapping_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/transponder-dev/transponder/generator"
)

// The committed converters are what the generator makes of the mapping
// and the transforms now (go generate ./mapping rewrites them).
func TestGeneratedUpToDate(t *testing.T) {
	files, _, errs := generator.Generate(os.DirFS(".."), "mapping/responses_chat.yaml")
	for _, e := range errs {
		t.Error(e)
	}
	if len(files) != 3 {
		t.Errorf("%d files, want the converters, the typed form's references and the dialect table", len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./mapping", name)
		}
	}
}

// A spec field the mapping does not cover, a transform with the wrong
// signature and a transform the mapping does not name each stop the
// generator with the file and line.
func TestGenerateRefuses(t *testing.T) {
	yaml, err := os.ReadFile("responses_chat.yaml")
	if err != nil {
		t.Fatal(err)
	}
	transforms, err := os.ReadFile("transforms.go")
	if err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadFile("../gen/openai/go_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name               string
		yaml, trans, names string
		want               string
	}{{
		name:  "field ogen no longer generates",
		names: strings.Replace(string(names), "F CreateResponse top_p TopP OptNilFloat64\n", "", 1),
		want:  "mapping/responses_chat.yaml:" + lineOf(yaml, "  - path: top_p\n") + `: top_p: ogen's CreateResponse: no field for "top_p"`,
	}, {
		name: "field without entry",
		yaml: strings.Replace(string(yaml), "  - path: top_p\n    map: top_p\n", "", 1),
		want: "mapping/responses_chat.yaml:0: top_p: a field of the spec with no entry",
	}, {
		name:  "wrong signature",
		trans: strings.Replace(string(transforms), "func allowedTools(c *conv, v codec.Value, path string, dst codec.Ref, key string) {", "func allowedTools(c *conv, v codec.Value) {", 1),
		want:  "allowedTools: a transform is func(*conv, codec.Value, string, codec.Ref, string), not func(*conv, codec.Value)",
	}, {
		name:  "missing transform",
		trans: strings.Replace(string(transforms), "//transponder:transform object -> object\nfunc allowedTools(", "func allowedTools(", 1),
		want:  `tool_choice{object}{allowed_tools}: no transform "allowedTools"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := moduleFS(t, yaml, transforms, names)
			if tc.yaml != "" {
				fsys["mapping/responses_chat.yaml"] = &fstest.MapFile{Data: []byte(tc.yaml)}
			}
			if tc.trans != "" {
				fsys["mapping/transforms.go"] = &fstest.MapFile{Data: []byte(tc.trans)}
			}
			if tc.names != "" {
				fsys["gen/openai/go_names.txt"] = &fstest.MapFile{Data: []byte(tc.names)}
			}
			files, _, errs := generator.Generate(fsys, "mapping/responses_chat.yaml")
			if files != nil {
				t.Fatal("generated despite the error")
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
				if strings.Contains(e.Error(), tc.want) {
					return
				}
			}
			t.Errorf("errors %q\nwant one containing %q", got, tc.want)
		})
	}
}

// moduleFS is the part of the module Generate reads, with responses_chat.yaml,
// transforms.go and gen/openai/go_names.txt as given.
func moduleFS(t *testing.T, yaml, transforms, names []byte) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{
		"mapping/responses_chat.yaml": {Data: yaml},
		"mapping/transforms.go":       {Data: transforms},
		"gen/openai/go_names.txt":     {Data: names},
	}
	others, _ := filepath.Glob("*.go")
	others = slices.DeleteFunc(others, func(n string) bool { return n == "transforms.go" || strings.HasSuffix(n, "_test.go") })
	for i, n := range others {
		others[i] = "mapping/" + n
	}
	dialects, _ := filepath.Glob("dialects/*.yaml")
	for i, n := range dialects {
		dialects[i] = "mapping/" + n
	}
	for _, name := range append(append(others, dialects...), "gen/openrouter/go_names.txt") {
		b, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	return fsys
}

// The mapping of another spec release: an entry for a field the pinned
// spec lacks, and a target one dialect lacks. Generation succeeds and
// reports both, at their lines; the converters and the typed references
// leave the stale field out and drop (with a warning) the field whose
// target openrouter lacks, for openrouter only.
func TestGenerateStale(t *testing.T) {
	var data [3][]byte
	for i, p := range []string{"responses_chat.yaml", "transforms.go", "../gen/openai/go_names.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data[i] = b
	}
	yaml := strings.Replace(string(data[0]), "    map: max_completion_tokens\n", "    openrouter: {map: max_tokens_total}\n    openai: {map: max_completion_tokens}\n", 1)
	yaml = strings.Replace(yaml, "  - path: top_p\n", "  - path: future_knob\n    map: future_knob\n    transform: model\n  - path: top_p\n", 1)
	files, stale, errs := generator.Generate(moduleFS(t, []byte(yaml), data[1], data[2]), "mapping/responses_chat.yaml")
	if errs != nil {
		t.Fatal(errs)
	}
	var got []string
	for _, s := range stale {
		got = append(got, s.String())
	}
	want := []string{
		"mapping/responses_chat.yaml:" + lineOf(data[0], "    map: max_completion_tokens\n") + `: stale: entry max_output_tokens → openrouter max_tokens_total (max_tokens_total: ChatRequest has no property "max_tokens_total")`,
		"mapping/responses_chat.yaml:" + lineOf([]byte(yaml), "  - path: future_knob\n") + `: stale: entry future_knob (future_knob: CreateResponse has no property "future_knob")`,
	}
	for _, w := range want { // and those of the spec at hand, if it is not the pinned one
		if !slices.Contains(got, w) {
			t.Errorf("stale:\n%s\nwant among them\n%s", strings.Join(got, "\n"), w)
		}
	}
	conv, refs := string(files["mapping/responses_chat_gen.go"]), string(files["mapping/typed/responses_chat_fields_gen.go"])
	if conv == "" || refs == "" {
		t.Fatalf("files: %d", len(files))
	}
	if strings.Contains(conv+refs, "future_knob") || strings.Contains(conv+refs, "FutureKnob") || strings.Contains(refs, "max_tokens_total") {
		t.Error("a stale entry in the generated files")
	}
	openrouter, openai, _ := strings.Cut(conv, "func (c *conv) responsesChatOpenAI(")
	if !strings.Contains(openrouter, `c.drop(srcMaxOutputTokens, "max_output_tokens", "not carried: the pinned openrouter spec has no max_tokens_total")`) {
		t.Error("openrouter: max_output_tokens is not dropped with a warning")
	}
	if !strings.Contains(openai, `c.put(codec.Top, "max_completion_tokens", srcMaxOutputTokens.Raw())`) {
		t.Error("openai: max_output_tokens is not mapped")
	}
}

// lineOf is the line (1-based, as a string) where s starts in data.
func lineOf(data []byte, s string) string {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return "?"
	}
	return strconv.Itoa(bytes.Count(data[:i], []byte("\n")) + 1)
}

// A sixth dialect is a YAML file: added to mapping/dialects, it becomes a
// converter of its own and a row of the dialect table, with no Go (and,
// adding no field to its base, no overlay or shape table either).
func TestGenerateSixthDialect(t *testing.T) {
	var data [3][]byte
	for i, p := range []string{"responses_chat.yaml", "transforms.go", "../gen/openai/go_names.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data[i] = b
	}
	fsys := moduleFS(t, data[0], data[1], data[2])
	fsys["mapping/dialects/acme.yaml"] = &fstest.MapFile{Data: []byte(`dialect: acme
base: openai
doc: Acme's API
system: merge
tool_call_ids: {charset: alnum, length: 12}
entries:
  - path: max_output_tokens
    map: max_tokens
  - path: ["tools[]{custom}"]
    map: tools[]{function}
    transform: virtualTool
  - path: safety_identifier
    drop: Acme has no safety_identifier
`)}
	files, _, errs := generator.Generate(fsys, "mapping/responses_chat.yaml")
	if errs != nil {
		t.Fatal(errs)
	}
	conv, table := string(files["mapping/responses_chat_gen.go"]), string(files["mapping/dialects_gen.go"])
	_, acme, ok := strings.Cut(conv, "func (c *conv) responsesChatAcme(")
	if !ok {
		t.Fatal("no converter for acme")
	}
	for _, want := range []string{`"max_tokens"`, `virtualTool(c`, `"Acme has no safety_identifier"`, "mapping/dialects/acme.yaml:8: → max_tokens"} {
		if !strings.Contains(acme, want) {
			t.Errorf("acme's converter lacks %s", want)
		}
	}
	for _, want := range []string{"Acme: {", `name:        "acme"`, "idLength:    12", "system:      Merge"} {
		if !strings.Contains(table, want) {
			t.Errorf("the dialect table lacks %s\n%s", want, table)
		}
	}
}
