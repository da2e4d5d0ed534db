package matrix

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/generator"
	"github.com/transponder-dev/transponder/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const root = "../.."

func pinned(t *testing.T) *Matrix {
	t.Helper()
	files, err := Mappings(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(Input{Dialects: Compiled(), Mappings: files})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The committed ALIGNMENT.md and alignment.json are a fresh render (CI's
// check-generated regenerates and diffs them too).
func TestCommitted(t *testing.T) {
	m := pinned(t)
	for name, want := range map[string][]byte{MarkdownFile: m.Markdown(), JSONFile: m.JSON()} {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./... (or go run ./cmd/transponder matrix)", name)
		}
	}
}

// Rendering twice gives the same bytes, and the JSON reads back as the
// matrix it came from.
func TestDeterministicAndLoads(t *testing.T) {
	a, b := pinned(t), pinned(t)
	if !bytes.Equal(a.JSON(), b.JSON()) || !bytes.Equal(a.Markdown(), b.Markdown()) {
		t.Fatal("two renders differ")
	}
	back, err := Load(a.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, a) {
		t.Error("the JSON does not read back as the matrix")
	}
	if !bytes.Equal(back.Markdown(), a.Markdown()) {
		t.Error("the matrix read back renders another Markdown")
	}
}

// Every leaf and union variant of each section's spec side appears
// exactly once; every mapping entry, extra, target and event appears; the
// unmapped paths and stale entries are those of testdata/open.golden
// (none, for the pinned specs: so it depends on their content).
func TestPinnedSpecEveryPathOnce(t *testing.T) {
	m := pinned(t)
	files, _ := Mappings(os.DirFS(root))
	in := Input{Dialects: Compiled(), Mappings: files}
	byID := map[string]*Section{}
	for i := range m.Sections {
		byID[m.Sections[i].ID] = &m.Sections[i]
	}
	for _, f := range files {
		src, err := in.schema(f.From)
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range f.To {
			s := byID[stem(f.Name)+"/"+to.Dialect]
			if s == nil {
				t.Fatalf("no section for %s → %s", f.Name, to.Dialect)
			}
			count := map[string]int{}
			for _, r := range s.Rows {
				count[r.Path]++
			}
			for p, n := range count {
				if n != 1 {
					t.Errorf("%s: %s appears %d times", s.ID, p, n)
				}
			}
			for _, leaf := range generator.Leaves(src) {
				if count[leaf] != 1 {
					t.Errorf("%s: leaf %s missing", s.ID, leaf)
				}
				for i := range len(leaf) {
					if leaf[i] == '}' && count[leaf[:i+1]] != 1 {
						t.Errorf("%s: variant %s missing", s.ID, leaf[:i+1])
					}
				}
			}
			used := map[string]bool{}
			for _, r := range s.Rows {
				used[r.Entry] = true
			}
			for _, e := range append(slices.Clone(f.Entries), f.Extras...) {
				if !used[e.Path] {
					t.Errorf("%s: entry %s (line %d) covers no row", s.ID, e.Path, e.Line)
				}
			}
		}
		if len(f.Targets) > 0 {
			s := byID[stem(f.Name)+"/"+f.To[0].Dialect+"-target"]
			dst, err := in.schema(f.To[0])
			if err != nil {
				t.Fatal(err)
			}
			count := map[string]int{}
			for _, r := range s.Rows {
				count[r.Path]++
			}
			for p, n := range count {
				if n != 1 {
					t.Errorf("%s: %s appears %d times", s.ID, p, n)
				}
			}
			for _, leaf := range generator.Leaves(dst) {
				if count[leaf] != 1 {
					t.Errorf("%s: leaf %s appears %d times", s.ID, leaf, count[leaf])
				}
				for i := range len(leaf) {
					if leaf[i] == '}' && count[leaf[:i+1]] != 1 {
						t.Errorf("%s: variant %s missing", s.ID, leaf[:i+1])
					}
				}
			}
			// known leaves, pinned (Leaves is what the matrix walks with: these
			// are checked against the spec by hand)
			known := map[string][]string{
				"responses body": {"usage.input_tokens", "output[]{message}.content[]{output_text}.text", "output[]{function_call}.arguments", "output[]{reasoning}.encrypted_content"},
				"chat body":      {"usage.prompt_tokens", "choices[].message.content{string}", "choices[].message.tool_calls[].function.arguments"},
			}
			if known[f.To[0].Payload] == nil {
				t.Errorf("%s: no known leaves of a %s", s.ID, f.To[0].Payload)
			}
			for _, p := range known[f.To[0].Payload] {
				if count[p] != 1 {
					t.Errorf("%s: %s missing", s.ID, p)
				}
			}
			used := map[string]bool{}
			for _, r := range s.Rows {
				used[r.Entry] = true
			}
			for _, e := range f.Targets {
				if !used["targets: "+e.Path] {
					t.Errorf("%s: target %s (line %d) covers no row", s.ID, e.Path, e.Line)
				}
			}
		}
		if len(f.Events) > 0 {
			s := byID[stem(f.Name)+"/events"]
			for _, e := range f.Events {
				if !slices.ContainsFunc(s.Rows, func(r Row) bool { return r.Path == e.Type }) {
					t.Errorf("%s: event %s has no row", s.ID, e.Type)
				}
			}
		}
	}
	// What the mapping leaves open against the specs at hand — unmapped
	// paths, stale entries — is reviewed in testdata/open.golden: nothing
	// for the pinned specs; after a spec update, -update writes what it
	// opened, for review (and the entries to add or keep).
	var open []string
	for _, s := range m.Sections {
		for _, r := range s.Rows {
			if r.Status == Unmapped {
				open = append(open, s.ID+": unmapped "+r.Path)
			}
		}
		for _, st := range s.Stale {
			open = append(open, s.ID+": stale "+st.Path+" ("+st.Reason+")")
		}
	}
	golden.Check(t, "testdata/open.golden", "# unmapped paths and stale entries of the committed matrix (rewrite with -update)\n"+strings.Join(open, "\n")+"\n", *update)
	for _, s := range m.Sections {
		if s.Side == "placeholder" || len(s.Rows) == 0 {
			t.Errorf("section %s (%s): no rows", s.ID, s.Side)
		}
	}
}

// A small mapping, rendered against the pinned specs (every row of their
// chunk, so it depends on their content): the Markdown, and the diff (text and
// Markdown) after an edit that adds, removes and changes rows.
func TestPinnedSpecGoldenRenderings(t *testing.T) {
	const head = "from: {dialect: openrouter, payload: chat chunk}\nto:\n  - {dialect: openai, payload: responses body}\nentries:\n"
	before := head + "  - path: id\n    gateway: the gateway's\n  - path: model\n    map: model\n  - path: choices[].delta.content\n    map: output[]{message}\n  - path: usage.prompt_tokens\n    lossy: usage.input_tokens\n    note: rounded\n  - path: usage.completion_tokens\n    map: usage.output_tokens\n  - path: choices[].logprobs\n    drop: not yet\n  - path: usage\n    drop: the rest of it\nextras:\n  - key: router\n    drop: logged\n"
	after := head + "  - path: model\n    map: model\n  - path: choices[].delta.content\n    drop: not any more\n  - path: usage.prompt_tokens\n    map: usage.input_tokens\n  - path: choices[].logprobs\n    drop: not yet\n  - path: usage\n    drop: the rest of it\nextras:\n  - key: x_trace\n    gateway: logged\n"
	build := func(src string) *Matrix {
		f, errs := generator.Load("mapping/small.yaml", []byte(src))
		if errs != nil {
			t.Fatal(errs)
		}
		m, err := Build(Input{Dialects: Compiled(), Mappings: []*generator.File{f}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := build(before), build(after)
	golden.Check(t, "testdata/small.md", string(a.Markdown()), *update)
	d := Diff(a, b)
	golden.Check(t, "testdata/small_diff.txt", string(d.Text()), *update)
	golden.Check(t, "testdata/small_diff.md", string(d.Markdown()), *update)
	if !d.Worse() {
		t.Error("choices[].delta.content went from aligned to dropped and id became unmapped: worse")
	}
	if d := Diff(a, a); !d.Empty() || d.Worse() {
		t.Errorf("a matrix against itself: %s", d.Text())
	}
	if d := Diff(b, a); !d.Worse() { // id is back, content better, prompt_tokens worse
		t.Errorf("usage.prompt_tokens went from aligned to lossy: worse\n%s", d.Text())
	}
	if !strings.Contains(string(a.Markdown()), "| `router` (a key clients send that the spec lacks) | ❌ |") {
		t.Error("the extra has no row")
	}
}

// Stale entries — an entry whose path the spec lacks, a rule whose target
// the target lacks, a targets declaration, an event type, an extra that
// is now a field — are listed in their sections as the generator
// classifies them (generator.FindStale), the rows of a stale rule are
// dropped as the converter drops them, and the diff names the entries
// newly stale and no longer stale. Stale alone is not worse; a field
// no longer carried is.
func TestStale(t *testing.T) {
	const head = "from: {dialect: openrouter, payload: chat chunk}\nto:\n  - {dialect: openai, payload: responses body}\n"
	live := head + "entries:\n  - path: model\n    map: model\n  - path: usage.prompt_tokens\n    map: usage.input_tokens\n  - path: choices[].delta.content\n    drop: x\nextras:\n  - key: router\n    drop: logged\ntargets:\n  - path: output[]{message}\n    drop: y\nevents:\n  - type: response.completed\n    never: not in this test\n"
	stale := head + "entries:\n  - path: model\n    map: model\n  - path: usage.prompt_tokens\n    map: usage.input_tokenz\n  - path: choices[].delta.content\n    drop: x\n  - path: future_field\n    drop: gone\nextras:\n  - key: router\n    drop: logged\n  - key: id\n    drop: a field now\ntargets:\n  - path: output[]{message}\n    drop: y\n  - path: output[]{teleport}\n    drop: gone\nevents:\n  - type: response.completed\n    never: not in this test\n  - type: response.teleported\n    never: gone\n"
	build := func(src string) (*Matrix, *generator.File) {
		f, errs := generator.Load("mapping/small.yaml", []byte(src))
		if errs != nil {
			t.Fatal(errs)
		}
		m, err := Build(Input{Dialects: Compiled(), Mappings: []*generator.File{f}})
		if err != nil {
			t.Fatal(err)
		}
		return m, f
	}
	a, _ := build(live)
	b, f := build(stale)
	byID := map[string]Section{}
	for _, s := range b.Sections {
		byID[s.ID] = s
	}
	want := map[string][]Stale{
		"small/openai": {
			{Path: "usage.prompt_tokens", Target: "usage.input_tokenz", Line: 8, Reason: `usage.input_tokenz: ResponseUsage has no property "input_tokenz"`},
			{Path: "future_field", Line: 11, Reason: `future_field: ChatStreamChunk has no property "future_field"`},
			{Path: "id", Line: 16, Reason: "an extra that is now a field of the spec: make it an entry"},
		},
		"small/openai-target": {{Path: "output[]{teleport}", Line: 21, Reason: `output[]{teleport}: OutputItem has no variant "teleport"`}},
		"small/events":        {{Path: "response.teleported", Line: 26, Reason: "not a stream event type of the spec"}},
	}
	var all int
	for id, w := range want {
		got := byID[id].Stale
		all += len(got)
		if len(got) != len(w) {
			t.Errorf("%s: stale %+v, want %+v", id, got, w)
			continue
		}
		for i := range w {
			// the reasons name the spec's schemas: compare their form
			if got[i].Path != w[i].Path || got[i].Target != w[i].Target || got[i].Line != w[i].Line || !strings.HasPrefix(got[i].Reason, strings.SplitN(w[i].Reason, ":", 2)[0]) {
				t.Errorf("%s: stale %d: %+v, want %+v", id, i, got[i], w[i])
			}
		}
	}
	if n := len(generator.FindStale(f, Compiled())); n != all {
		t.Errorf("the generator finds %d stale entries, the matrix lists %d", n, all)
	}
	for _, r := range byID["small/openai"].Rows {
		if r.Path == "usage.prompt_tokens" && (r.Status != Dropped || r.Note != "not carried: the pinned openai spec has no usage.input_tokenz") {
			t.Errorf("the row of a stale rule: %+v", r)
		}
		if r.Entry == "future_field" || r.Entry == "id" {
			t.Errorf("a stale entry covers %s", r.Path)
		}
	}
	if !strings.Contains(string(b.Markdown()), "- `usage.prompt_tokens` → `usage.input_tokenz` (mapping/small.yaml:8): ") {
		t.Error("the Markdown does not list the stale rule")
	}
	back, err := Load(b.JSON())
	if err != nil || !reflect.DeepEqual(back, b) {
		t.Errorf("the stale lists do not read back (%v)", err)
	}

	d := Diff(a, b)
	text, md := string(d.Text()), string(d.Markdown())
	for _, w := range []string{"  ! stale usage.prompt_tokens → usage.input_tokenz: ", "  ! stale future_field: ", "  ! stale id: an extra", "  ! stale output[]{teleport}: ", "  ! stale response.teleported: not a stream event type of the spec", "  ~ usage.prompt_tokens  aligned → dropped: not carried: the pinned openai spec has no usage.input_tokenz  WORSE"} {
		if !strings.Contains(text, w) {
			t.Errorf("the diff does not say %q:\n%s", w, text)
		}
	}
	if !strings.Contains(md, "| newly stale | `usage.prompt_tokens` → `usage.input_tokenz` | stale entry | ") || !strings.Contains(md, "| newly stale | `response.teleported` | stale entry | ") {
		t.Errorf("the Markdown diff:\n%s", md)
	}
	if !d.Worse() {
		t.Error("usage.prompt_tokens is no longer carried: worse")
	}
	back2 := Diff(b, a)
	if text := string(back2.Text()); !strings.Contains(text, "  = no longer stale usage.prompt_tokens → usage.input_tokenz\n") || !strings.Contains(text, "  = no longer stale response.teleported\n") {
		t.Errorf("the diff back:\n%s", text)
	}
	// stale alone (the event, the entry of a path the spec lacks) is not worse
	only := strings.Replace(stale, "map: usage.input_tokenz", "map: usage.input_tokens", 1)
	c, _ := build(only)
	if d := Diff(a, c); d.Worse() || len(d.Sections) == 0 {
		t.Errorf("only stale entries: worse %v\n%s", d.Worse(), d.Text())
	}
}

// A field closed to an enum carries its values (through the JSON), and
// the diff names values added and removed though the path and its status
// stay.
func TestEnumValues(t *testing.T) {
	f, errs := generator.Load("mapping/small.yaml", []byte("from: {dialect: openai, payload: responses request}\nto:\n  - {dialect: openrouter, payload: chat request}\nentries:\n  - path: reasoning.effort\n    map: reasoning.effort\n  - path: model\n    map: model\n"))
	if errs != nil {
		t.Fatal(errs)
	}
	m, err := Build(Input{Dialects: Compiled(), Mappings: []*generator.File{f}})
	if err != nil {
		t.Fatal(err)
	}
	var effort *Row
	for i, r := range m.Sections[0].Rows {
		if r.Path == "reasoning.effort" {
			effort = &m.Sections[0].Rows[i]
		}
		if r.Path == "model" && len(r.Values) > 0 {
			t.Errorf("model is any string, values %v", r.Values)
		}
	}
	if effort == nil || !slices.Contains(effort.Values, "low") || !slices.Contains(effort.Values, "high") {
		t.Fatalf("reasoning.effort: %+v, want the spec's values", effort)
	}
	loaded, err := Load(m.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(m, loaded); !d.Empty() {
		t.Errorf("through the JSON: %s", d.Text())
	}
	effort.Values = append(slices.DeleteFunc(slices.Clone(effort.Values), func(v string) bool { return v == "low" }), "ludicrous")
	d := Diff(loaded, m)
	if len(d.Sections) != 1 || len(d.Sections[0].Values) != 1 || d.Worse() {
		t.Fatalf("diff: %s", d.Text())
	}
	for _, want := range []string{"~ reasoning.effort  values +ludicrous -low", "| values | `reasoning.effort` | | +ludicrous -low |"} {
		if !strings.Contains(string(d.Text())+string(d.Markdown()), want) {
			t.Errorf("the diff lacks %q:\n%s\n%s", want, d.Text(), d.Markdown())
		}
	}
}

// The reverse request (a chat request → a Responses request) is a source
// section computed from its mapping file like the forward ones: every
// path has an entry, the refusals are drops that say so, and the messages
// go through their transforms.
func TestReverseRequestSection(t *testing.T) {
	m := pinned(t)
	i := slices.IndexFunc(m.Sections, func(s Section) bool { return s.ID == "chat_responses_request/openai" })
	if i < 0 {
		t.Fatal("no section chat_responses_request/openai")
	}
	s := m.Sections[i]
	if s.Side != "source" || s.From != "openai chat request" || s.To != "openai responses request" {
		t.Errorf("section %s: %s, %s → %s", s.ID, s.Side, s.From, s.To)
	}
	if s.Coverage.Unmapped != 0 || s.Coverage.Total == 0 {
		t.Errorf("coverage %+v", s.Coverage)
	}
	row := func(p string) Row {
		j := slices.IndexFunc(s.Rows, func(r Row) bool { return r.Path == p })
		if j < 0 {
			t.Fatalf("no row %s", p)
		}
		return s.Rows[j]
	}
	// a refuse rule: dropped, the note saying it is refused and what passes
	if r := row("n"); r.Status != Dropped || r.Note != "refused (a 400 naming the path): a Responses upstream gives one choice; n must be 1 (1 passes)" {
		t.Errorf("n: %+v", r)
	}
	// a set rule: aligned, its constants' targets listed
	if r := row("logprobs"); r.Status != Aligned || !slices.Equal(r.Targets, []string{"include[]"}) {
		t.Errorf("logprobs: %+v", r)
	}
	// a map with also: the value's target and the constants'
	if r := row("function_call{object}.name"); r.Status != Aligned || !slices.Equal(r.Targets, []string{"tool_choice{object}{function}.name", "tool_choice{object}{function}.type"}) {
		t.Errorf("function_call: %+v", r)
	}
	// omit: aligned, saying it is left out
	j := slices.IndexFunc(m.Sections, func(s Section) bool { return s.ID == "responses_chat/openai" })
	if j < 0 {
		t.Fatal("no section responses_chat/openai")
	}
	k := slices.IndexFunc(m.Sections[j].Rows, func(r Row) bool { return r.Path == "text.format{text}" })
	if r := m.Sections[j].Rows[k]; r.Status != Aligned || !strings.HasPrefix(r.Note, "left out: the target's default") {
		t.Errorf("text.format{text}: %+v", r)
	}
	if r := row("messages[]{tool}.tool_call_id"); r.Status != Aligned || r.Entry != "messages[]{tool}" {
		t.Errorf("tool message: %+v", r)
	}
	if r := row("tools[]{function}.function.name"); r.Status != Aligned || r.Entry != "tools[]{function}.function.name" {
		t.Errorf("tool name: %+v", r)
	}
}

// The reverse answer (a Responses Response and stream → a chat client) is
// computed from mapping/responses_chat_answer.yaml like the others: its
// source side per chat dialect, its target side (OpenRouter's chat
// completion), its events (which the parser reads, which it skips); last,
// after the forward answer; no placeholder is left. (Pinned: the rows and
// full coverage are the pinned specs'.)
func TestPinnedSpecReverseAnswerSections(t *testing.T) {
	m := pinned(t)
	byID := map[string]Section{}
	var ids []string
	for _, s := range m.Sections {
		byID[s.ID] = s
		ids = append(ids, s.ID)
	}
	want := []string{"responses_chat_answer/openrouter", "responses_chat_answer/openai", "responses_chat_answer/openrouter-target", "responses_chat_answer/events"}
	if got := ids[len(ids)-len(want):]; !slices.Equal(got, want) {
		t.Fatalf("last sections %v, want %v", got, want)
	}
	row := func(id, p string) Row {
		s := byID[id]
		j := slices.IndexFunc(s.Rows, func(r Row) bool { return r.Path == p })
		if j < 0 {
			t.Fatalf("%s: no row %s", id, p)
		}
		return s.Rows[j]
	}
	for _, id := range want {
		s := byID[id]
		if s.Coverage.Total == 0 || s.Coverage.Unmapped != 0 || s.Mapping != "mapping/responses_chat_answer.yaml" {
			t.Errorf("%s: %s, coverage %+v", id, s.Mapping, s.Coverage)
		}
	}
	src := byID["responses_chat_answer/openrouter"]
	if src.Side != "source" || src.From != "openai responses body" || src.To != "openrouter chat body" {
		t.Errorf("source side: %s, %s → %s", src.Side, src.From, src.To)
	}
	for _, c := range []struct {
		id, path string
		status   Status
		target   string
	}{
		{"responses_chat_answer/openrouter", "usage.input_tokens", Aligned, "usage.prompt_tokens"},
		{"responses_chat_answer/openrouter", "output[]{function_call}.arguments", Aligned, "choices[].message.tool_calls[].function.arguments"},
		{"responses_chat_answer/openai", "output[]{function_call}.arguments", Aligned, "choices[].message.tool_calls[]{function}.function.arguments"},
		{"responses_chat_answer/openrouter", "output[]{reasoning}.encrypted_content", Aligned, "choices[].message.reasoning_details[]{reasoning.encrypted}.data"},
		{"responses_chat_answer/openai", "output[]{reasoning}.encrypted_content", Lossy, "choices[].message"},
		{"responses_chat_answer/openrouter", "output[]{web_search_call}.action{search}.query", Dropped, ""},
		{"responses_chat_answer/openrouter", "output[]{message}.content[]{output_text}.annotations[]{file_citation}", Dropped, ""},
		{"responses_chat_answer/openrouter", "tools[]{function}.name", Gateway, ""},
		{"responses_chat_answer/openrouter-target", "choices[].message.refusal", Aligned, ""},
		{"responses_chat_answer/openrouter-target", "openrouter_metadata.region", Dropped, ""},
	} {
		r := row(c.id, c.path)
		if r.Status != c.status || c.target != "" && !slices.Equal(r.Targets, []string{c.target}) {
			t.Errorf("%s %s: %s → %v, want %s → %s", c.id, c.path, r.Status, r.Targets, c.status, c.target)
		}
	}
	ev := byID["responses_chat_answer/events"]
	if ev.Side != "events" || ev.From != "openai responses event" || ev.To != "openrouter chat chunk" {
		t.Errorf("events side: %s, %s → %s", ev.Side, ev.From, ev.To)
	}
	if r := row("responses_chat_answer/events", "response.output_text.delta"); r.Status != Aligned || !strings.Contains(r.Note, "content chunk") {
		t.Errorf("output_text.delta: %+v", r)
	}
	if r := row("responses_chat_answer/events", "response.audio.delta"); r.Status != Dropped || r.Note == "" {
		t.Errorf("audio.delta: %+v", r)
	}
	md := string(m.Markdown())
	for _, w := range []string{"## openai responses event types: which the parser reads (into openrouter chat chunks)", "What the parser makes of it, or why it skips it"} {
		if !strings.Contains(md, w) {
			t.Errorf("the Markdown lacks %q", w)
		}
	}
}
