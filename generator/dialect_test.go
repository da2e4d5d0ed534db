package generator

import (
	"strings"
	"testing"
)

const dialectHeader = "dialect: acme\nbase: openai\n"

// A dialect file's problems are errors naming its line.
func TestDialectErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"no base", "dialect: acme\n", "d/acme.yaml:1: a dialect needs dialect (its name) and base"},
		{"unknown base", "dialect: acme\nbase: anthropic\n", "d/acme.yaml:1: base anthropic: want one of"},
		{"a base's name", "dialect: openai\nbase: openrouter\n", "dialect openai: the name of a base dialect"},
		{"file not named after it", "dialect: other\nbase: openai\n", "dialect other in acme.yaml: the file is named after the dialect"},
		{"unknown key", dialectHeader + "temperature: 1\n", `d/acme.yaml:3: unknown key "temperature"`},
		{"carrier without on", dialectHeader + "reasoning: {carrier: reasoning_content}\n", "d/acme.yaml:3: reasoning: {carrier: FIELD, on: tool_calls|every}"},
		{"system", dialectHeader + "system: first\n", `d/acme.yaml:3: system: "first" (want system, developer or merge)`},
		{"id shape", dialectHeader + "tool_call_ids: {charset: hex, length: 9}\n", "d/acme.yaml:3: tool_call_ids: {charset: alnum, length: N}"},
		{"id length", dialectHeader + "tool_call_ids: {charset: alnum, length: 900}\n", "d/acme.yaml:3: tool_call_ids: length: a number from 6 to 64"},
		{"unknown_fields", dialectHeader + "unknown_fields: forbidden\n", "d/acme.yaml:3: unknown_fields: refused or ignored (the default)"},
		{"per-dialect keys", dialectHeader + "entries:\n  - path: user\n    openai: {map: user}\n", "d/acme.yaml:4: user: a dialect's entry has one rule, no per-dialect keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs := LoadDialect("d/acme.yaml", []byte(c.src))
			for _, e := range errs {
				if strings.Contains(e.Error(), c.want) {
					return
				}
			}
			t.Errorf("errors %v, want one containing %q", errs, c.want)
		})
	}
}

// A dialect adds a target to the files writing its base's chat request:
// its own rules where it has them (their notes, their lines in the
// dialect file), the base's everywhere else; a path no entry has is an
// error at the dialect's line, and so is a rule the dialect's shape table
// refuses.
func TestApplyDialects(t *testing.T) {
	src := header + `entries:
  - path: max_output_tokens
    map: max_completion_tokens
  - path: temperature
    map: temperature
  - path: user
    openai: {map: user}
    openrouter: {drop: OpenRouter's ChatRequest has no user}
`
	d, errs := LoadDialect("mapping/dialects/deepseek.yaml", []byte(`dialect: deepseek
base: openai
entries:
  - path: max_output_tokens
    map: max_tokens
  - path: temperature
    lossy: temperature
    note: ignored when thinking
`))
	if errs != nil {
		t.Fatal(errs)
	}
	f, errs := Load("m.yaml", []byte(src))
	if errs != nil {
		t.Fatal(errs)
	}
	if errs := ApplyDialects([]*File{f}, []*Dialect{d}); errs != nil {
		t.Fatal(errs)
	}
	if n := len(f.To); n != 3 || f.To[2].Dialect != "deepseek" {
		t.Fatalf("targets %+v", f.To)
	}
	got := func(path string) Rule {
		for _, e := range f.Entries {
			if e.Path == path {
				r, _ := e.RuleFor("deepseek")
				return r
			}
		}
		t.Fatalf("no entry %s", path)
		return Rule{}
	}
	if r := got("max_output_tokens"); r.Target != "max_tokens" {
		t.Errorf("override: %+v", r)
	}
	if r := got("temperature"); r.Kind != Lossy || r.Note != "ignored when thinking" {
		t.Errorf("lossy override with its note: %+v", r)
	}
	if r := got("user"); r.Kind != Map || r.Target != "user" {
		t.Errorf("inherited from openai: %+v", r)
	}
	if file, line := f.At(got("max_output_tokens").Line); file != "mapping/dialects/deepseek.yaml" || line != 5 {
		t.Errorf("the override is at %s:%d, want the dialect file's line 5", file, line)
	}
	if c, errs := Validate(f, nil, false); errs != nil || c.To["deepseek"].Name() == "" {
		t.Errorf("validate: %v", errs)
	}

	// A path no entry has; a target the dialect's table lacks.
	bad, _ := LoadDialect("mapping/dialects/deepseek.yaml", []byte("dialect: deepseek\nbase: openai\nentries:\n  - path: top_k\n    drop: no\n  - path: temperature\n    map: thinking.level\n"))
	f, _ = Load("m.yaml", []byte(src))
	errs = ApplyDialects([]*File{f}, []*Dialect{bad})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "mapping/dialects/deepseek.yaml:4: top_k: no entry") {
		t.Errorf("unknown path: %v", errs)
	}
	found := false
	for _, s := range FindStale(f, dialects) { // a target the table lacks: stale, as in the mapping files
		found = found || strings.HasPrefix(s.String(), "mapping/dialects/deepseek.yaml:7: stale: entry temperature → deepseek thinking.level")
	}
	if !found {
		t.Errorf("a dialect's bad target is not reported at its line: %v", FindStale(f, dialects))
	}
}

// A value table's row may set constants at other paths, and write no
// value; the constants are checked against the target and generated.
func TestValueRowsSet(t *testing.T) {
	src := header + `entries:
  - path: reasoning.effort
    openrouter: {drop: a stand-in}
    openai:
      map: reasoning_effort
      values:
        "none": {set: {verbosity: low}}
        "low": {to: "minimal", set: {verbosity: medium}}
        "high": "high"
`
	f, errs := Load("m.yaml", []byte(src))
	if errs != nil {
		t.Fatal(errs)
	}
	c, errs := Validate(f, nil, false)
	if errs != nil {
		t.Fatal(errs)
	}
	cv, errs := Build(c, "openai")
	if errs != nil {
		t.Fatal(errs)
	}
	out, err := Emit("mapping", "m", "m.yaml", "conv", []*Converter{cv})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"case \"\\\"none\\\"\":\n\t\t\t\t\t\tc.b.SetJSONLit(codec.Top, \"verbosity\", \"\\\"low\\\"\")",
		"c.b.SetJSONLit(codec.Top, \"reasoning_effort\", \"\\\"minimal\\\"\")\n\t\t\t\t\t\tc.b.SetJSONLit(codec.Top, \"verbosity\", \"\\\"medium\\\"\")",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("generated code lacks\n%s\n%s", want, out)
		}
	}
	bad := strings.Replace(src, "{verbosity: low}", "{verbosity: loud}", 1)
	f, _ = Load("m.yaml", []byte(bad))
	if _, errs := Validate(f, nil, false); len(errs) == 0 || !strings.Contains(errs[0].Error(), `constant "loud" → openai verbosity`) {
		t.Errorf("a row's constant the target refuses: %v", errs)
	}
	_, errs = Load("m.yaml", []byte(strings.Replace(src, `{set: {verbosity: low}}`, `{}`, 1)))
	if len(errs) == 0 {
		t.Error("an empty row loads")
	}
}

// An entry whose path is a list is one entry per path, with its rule and
// note.
func TestDialectPathList(t *testing.T) {
	d, errs := LoadDialect("mapping/dialects/acme.yaml", []byte(dialectHeader+`entries:
  - path: ["temperature", "top_p"]
    drop: acme samples as it likes
  - path: user
    drop: acme has no users
`))
	if errs != nil {
		t.Fatal(errs)
	}
	var got []string
	for _, e := range d.Entries {
		got = append(got, e.Path+": "+e.Rules[""].Reason)
	}
	if want := "temperature: acme samples as it likes|top_p: acme samples as it likes|user: acme has no users"; strings.Join(got, "|") != want {
		t.Errorf("%q, want %q", strings.Join(got, "|"), want)
	}
}

// Names that would clash as Go constants, duplicate paths and empty path
// lists are errors at their lines.
func TestDialectNamesAndDuplicates(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a name with _", "dialect: a_b\nbase: openai\n", "dialect a_b: a name is lower-case letters and digits"},
		{"a name from a digit", "dialect: 9x\nbase: openai\n", "dialect 9x: a name is"},
		{"a duplicate path", dialectHeader + "entries:\n  - path: user\n    drop: a\n  - path: user\n    drop: b\n", "d/acme.yaml:6: user: an entry at line 4 already"},
		{"an empty path list", dialectHeader + "entries:\n  - path: []\n    drop: a\n", "d/acme.yaml:4: path: want a non-empty string"},
		{"required", dialectHeader + "reasoning: {carrier: reasoning, on: every, required: maybe}\n", "reasoning: required: true or false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs := LoadDialect("d/acme.yaml", []byte(c.src))
			for _, e := range errs {
				if strings.Contains(e.Error(), c.want) {
					return
				}
			}
			t.Errorf("errors %v, want one containing %q", errs, c.want)
		})
	}
}
