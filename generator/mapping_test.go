package generator

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/transponder-dev/transponder/codec"
)

const header = `from: {dialect: openai, payload: responses request}
to:
  - {dialect: openrouter, payload: chat request}
  - {dialect: openai, payload: chat request}
`

var transforms = []Transform{
	{Name: "logprobsOn", From: []codec.Kind{codec.Number}, To: []codec.Kind{codec.Number}},
}

func TestValidMapping(t *testing.T) {
	src := header + `entries:
  - path: max_output_tokens
    map: max_completion_tokens
  - path: temperature
    map: temperature
  - path: top_logprobs
    map: top_logprobs
    transform: logprobsOn
    note: chat also needs logprobs true
  - path: user
    openai: {map: user}
    openrouter: {drop: OpenRouter's ChatRequest has no user}
  - path: text.format{json_schema}.schema
    map: response_format{json_schema}.json_schema.schema
  - path: prompt_cache_key
    lossy: prompt_cache_key
    openrouter: {drop: a stand-in for the test}
    note: a stand-in for the test
  - path: store
    gateway: the gateway stores responses
extras:
  - key: client_metadata
    drop: Codex telemetry
`
	f, errs := Load("m.yaml", []byte(src))
	if errs != nil {
		t.Fatal(errs)
	}
	c, errs := Validate(f, transforms, false)
	if errs != nil {
		t.Fatal(errs)
	}
	if len(c.To) != 2 || len(c.Entries) != 7 || c.Entries[3].Rules["openrouter"].Kind != Drop || c.Entries[3].Rules["openai"].Target != "user" {
		t.Errorf("%+v", c.File)
	}
}

// Every problem is an error naming the file and line.
func TestMappingErrors(t *testing.T) {
	for _, c := range []struct{ name, entries, want string }{
		{"unknown key", "  - path: model\n    mapp: model\n", `m.yaml:7: unknown key "mapp"`},
		{"two kinds", "  - path: model\n    map: model\n    drop: no\n", "m.yaml:8: map and drop: a rule is exactly one of"},
		{"no rule", "  - path: model\n    note: nothing\n", "m.yaml:6: model: no rule"},
		{"malformed path", "  - path: model}\n    map: model\n", `m.yaml:6: unknown path: model}: CreateResponse has no property "model}"`},
		{"malformed target", "  - path: model\n    map: messages[]]\n", `m.yaml:7: model → openrouter messages[]]: messages[]]: bad selector "]"`},
		{"a dialect without rule", "  - path: user\n    openai: {map: user}\n", "m.yaml:6: user: no rule for openrouter"},
		{"a rule for a dialect that is not a target", "  - path: model\n    map: model\n", ""},
		{"kinds that do not fit", "  - path: temperature\n    map: model\n", ") → openrouter model (a string): number does not fit; name a transform"},
		{"unknown transform", "  - path: temperature\n    map: temperature\n    transform: nope\n", `m.yaml:7: temperature: no transform "nope"`},
		{"a transform on a drop", "  - path: store\n    drop: x\n    transform: logprobsOn\n", "m.yaml:6: a transform on a drop rule"},
		{"lossy without note", "  - path: temperature\n    lossy: temperature\n", "m.yaml:7: temperature: lossy: state the loss in a note"},
		{"a duplicate entry", "  - path: store\n    drop: x\n  - path: store\n    drop: y\n", "m.yaml:8: store: an entry at line 6 already"},
		{"an unused transform", "  - path: store\n    drop: x\n", "m.yaml:0: transform logprobsOn is never used"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := header + "entries:\n" + c.entries + "  - path: top_logprobs\n    map: top_logprobs\n    transform: logprobsOn\n"
			if c.name == "an unused transform" {
				src = header + "entries:\n" + c.entries
			}
			f, errs := Load("m.yaml", []byte(src))
			if errs == nil {
				_, errs = Validate(f, transforms, false)
			}
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			got := strings.Join(msgs, "\n")
			if c.want == "" {
				if got != "" {
					t.Errorf("errors: %s", got)
				}
				return
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("errors:\n%s\nwant %s", got, c.want)
			}
		})
	}
	if _, errs := Load("m.yaml", []byte(header+"entries:\n  - path: model\n    map: model\n    anthropic: {map: model}\n")); len(errs) != 1 || !strings.Contains(errs[0].Error(), `m.yaml:8: unknown key "anthropic"`) {
		t.Errorf("an unknown dialect: %v", errs)
	}
	// an extra that is now a field of the spec is stale (TestStaleEntries), not an error
	f, _ := Load("m.yaml", []byte(header+"entries: []\nextras:\n  - key: model\n    drop: x\n"))
	if c, errs := Validate(f, nil, false); len(errs) != 0 || len(c.Stale) != 1 || c.Stale[0].String() != "m.yaml:7: stale: extra model (an extra that is now a field of the spec: make it an entry)" {
		t.Errorf("%v", errs)
	}
}

// Completeness: every field of the source has an entry at or above it;
// Leaves lists them by wire path.
func TestLeavesAndCompleteness(t *testing.T) {
	req, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	leaves := Leaves(req.Schema())
	for _, want := range []string{"model", "max_output_tokens", "text.format{json_schema}.schema", "tools[]{function}.parameters",
		"input{string}", "input{array}[]{message}.role", "reasoning.effort", "tool_choice{string}", "tool_choice{object}{allowed_tools}.mode"} {
		if !slices.Contains(leaves, want) {
			t.Errorf("no leaf %s", want)
		}
	}
	for _, l := range leaves {
		if _, err := req.Schema().Lookup(l); err != nil {
			t.Errorf("leaf %s does not resolve: %v", l, err)
		}
	}
	f, _ := Load("m.yaml", []byte(header+"entries:\n  - path: input\n    gateway: the next issue\n  - path: tools\n    gateway: x\n"))
	_, errs := Validate(f, nil, true)
	var missing []string
	for _, e := range errs {
		missing = append(missing, e.Error())
	}
	all := strings.Join(missing, "\n")
	if !strings.Contains(all, "m.yaml:0: model: a field of the spec with no entry") || strings.Contains(all, "m.yaml:0: input") || strings.Contains(all, "m.yaml:0: tools") {
		t.Errorf("completeness:\n%.2000s", all)
	}
}

// Targets (fields of the target no entry maps to) and events (the stream
// event types the runtime emits or never does): errors at their lines.
func TestTargetsAndEvents(t *testing.T) {
	base := header + "entries:\n  - path: top_logprobs\n    map: top_logprobs\n    transform: logprobsOn\n"
	for _, c := range []struct{ name, extra, want string }{
		{"fine", "targets:\n  - path: stop\n    drop: never sent\n  - path: user\n    gateway: the gateway's\nevents:\n  - type: response.completed\n    never: not in this test\n  - type: response.created\n    emit: first\n", ""},
		{"a target that is not a path", "targets:\n  - path: stop{\n    drop: x\n", `m.yaml:10: target stop{: stop{: unclosed {`},
		{"a target mapped", "targets:\n  - path: stop\n    map: stop\n", "m.yaml:11: target stop: a target is filled by the gateway (gateway) or never set (drop), not map"},
		{"a target twice", "targets:\n  - path: stop\n    drop: x\n  - path: stop\n    drop: y\n", "m.yaml:12: target stop: an entry at line 10 already"},
		{"an event twice", "events:\n  - type: error\n    never: x\n  - type: error\n    never: y\n", "m.yaml:12: event error: an entry at line 10 already"},
		{"emit and never", "events:\n  - type: error\n    never: x\n    emit: y\n", "m.yaml:10: error: exactly one of emit (when), never (why), read (into what) and ignore (why)"},
		{"read and ignore", "events:\n  - type: error\n    read: x\n  - type: response.audio.delta\n    ignore: y\n", ""},
		{"emit beside read", "events:\n  - type: error\n    read: x\n  - type: response.created\n    emit: y\n", "m.yaml:12: event response.created: a file's events are all emit/never"},
		{"a target of one dialect", "targets:\n  - path: models\n    openrouter: {drop: x}\n", ""},
		{"converter other than none", "converter: some\n", `m.yaml:9: converter: "some" (want none, or leave it out)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, errs := Load("m.yaml", []byte(base+c.extra))
			if errs == nil {
				_, errs = Validate(f, transforms, false)
			}
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			got := strings.Join(msgs, "\n")
			if c.want == "" && got != "" || !strings.Contains(got, c.want) {
				t.Errorf("errors:\n%s\nwant %q", got, c.want)
			}
		})
	}
}

// A declared file (converter: none): validated like the others, but a map
// rule need not fit its target (the hand-written runtime converts it), a
// transform is an error (nothing would call it), and nothing is generated.
func TestDeclared(t *testing.T) {
	src := header + "converter: none\nentries:\n  - path: tools\n    map: user\n  - path: top_logprobs\n    map: top_logprobs\n    transform: logprobsOn\n"
	f, errs := Load("m.yaml", []byte(src))
	if errs != nil || !f.Declared() {
		t.Fatalf("load: %v, declared %v", errs, f.Declared())
	}
	_, errs = Validate(f, transforms, false)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "\n")
	if !strings.Contains(got, "m.yaml:10: top_logprobs: a transform in a file with converter: none") || strings.Contains(got, "tools") {
		t.Errorf("errors:\n%s", got)
	}
	f, _ = Load("m.yaml", []byte(header+"entries:\n  - path: tools\n    map: user\n"))
	if _, errs := Validate(f, nil, false); len(errs) == 0 {
		t.Error("a map whose value does not fit its target, in a generated file: no error")
	}
	// a targets: entry with one dialect's rule declares that dialect's
	// path only: not an error nor stale for the other
	f, _ = Load("m.yaml", []byte(header+"entries: []\ntargets:\n  - path: models\n    openrouter: {drop: x}\n"))
	if c, errs := Validate(f, nil, false); len(errs) != 0 || len(c.Stale) != 0 {
		t.Errorf("a target of one dialect: %v, stale %v", errs, c.Stale)
	}
}

// Generate of a declared file: validated, nothing generated, and a field
// without an entry (what a spec update adds to the source) is not an
// error of go generate (the runtime's tests and the matrix say it).
func TestGenerateDeclared(t *testing.T) {
	fsys := fstest.MapFS{"mapping/d.yaml": {Data: []byte(header + "converter: none\nentries:\n  - path: model\n    map: model\n")}}
	files, stale, errs := Generate(fsys, "mapping/d.yaml")
	if files != nil || stale != nil || errs != nil {
		t.Errorf("files %v, stale %v, errors %v", files, stale, errs)
	}
	fsys["mapping/d.yaml"] = &fstest.MapFile{Data: []byte(header + "converter: none\nentries:\n  - path: model\n    map: nowhere.at.all\n")}
	if _, _, errs := Generate(fsys, "mapping/d.yaml"); errs != nil {
		t.Errorf("a rule whose target the spec lacks is stale, not an error: %v", errs)
	}
	fsys["mapping/d.yaml"] = &fstest.MapFile{Data: []byte(header + "converter: none\nentries:\n  - path: modell\n    map: model\n")}
	if _, stale, _ := Generate(fsys, "mapping/d.yaml"); len(stale) != 1 {
		t.Errorf("an entry the spec lacks: stale %v", stale)
	}
}
