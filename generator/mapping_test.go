package generator

import (
	"fmt"
	"slices"
	"strconv"
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

// The rule forms that say what transforms used to: value tables, constants
// (also, set, when), a sibling's absence (unless), omit and refuse. Each
// problem is an error naming the line.
func TestRuleForms(t *testing.T) {
	for _, c := range []struct{ name, entries, want string }{
		{"fine", `  - path: service_tier
    map: service_tier
    values: target
  - path: stream
    map: stream
    also: {stream_options.include_usage: true}
    when: true
  - path: text.format{text}
    omit: response_format{text}
  - path: background
    refuse: "no background {value}"
    unless: false
  - path: truncation
    set: {stop: "x"}
  - path: user
    map: user
    unless: background
  - path: prompt_cache_key
    openai: {also: {logprobs: true}, map: prompt_cache_key}
    openrouter: {map: prompt_cache_key}
`, ""},
		{"a table value the target lacks", "  - path: service_tier\n    map: service_tier\n    values: {auto: warp}\n", `m.yaml:8: service_tier → openrouter service_tier (…): values: "warp" is not a value the spec lists`},
		{"a table key the source lacks", "  - path: service_tier\n    map: service_tier\n    values:\n      auto: auto\n      warp: auto\n", `m.yaml:10: service_tier (…): values: "warp" is not a value the spec lists`},
		{"a table key twice", "  - path: service_tier\n    map: service_tier\n    values:\n      auto: auto\n      auto: flex\n", `m.yaml:10: service_tier: values: "auto" at line 9 already`},
		{"values target without a target enum", "  - path: user\n    map: user\n    values: target\n", "m.yaml:8: user → openrouter user (…): values: target, but the target lists no values"},
		{"values neither table nor target", "  - path: user\n    map: user\n    values: source\n", `m.yaml:8: values: a table {source value: target value} or the word target, not "source"`},
		{"values on a drop", "  - path: service_tier\n    drop: x\n    values: target\n", "m.yaml:8: values on a drop rule"},
		{"values and a transform", "  - path: top_p\n    map: top_p\n    transform: logprobsOn\n    values: {1: 1}\n", "m.yaml:9: values and transform"},
		{"otherwise without values", "  - path: user\n    map: user\n    otherwise: x\n", "m.yaml:6: otherwise without values"},
		{"a constant at no path", "  - path: stream\n    map: stream\n    also: {stream_optionz.include_usage: true}\n", "m.yaml:8: stream: constant → openrouter stream_optionz.include_usage"},
		{"a constant that does not fit", "  - path: stream\n    map: stream\n    also: {stream_options.include_usage: \"yes\"}\n", `m.yaml:8: stream: constant "yes" → openrouter stream_options.include_usage (…): does not fit`},
		{"also on a drop", "  - path: stream\n    drop: x\n    also: {stream: true}\n", "m.yaml:6: also on a drop rule"},
		{"when that does not fit", "  - path: stream\n    map: stream\n    also: {stream_options.include_usage: true}\n    when: 3\n", "m.yaml:9: stream (…): when 3: does not fit"},
		{"when without constants", "  - path: stream\n    map: stream\n    when: true\n", "m.yaml:6: when without also or set"},
		{"unless naming no entry", "  - path: user\n    map: user\n    unless: tool_choice\n", "m.yaml:8: user: unless tool_choice: no entry reads that top-level key for openrouter"},
		{"unless naming a key only the gateway reads", "  - path: user\n    map: user\n    unless: store\n  - path: store\n    gateway: x\n", "m.yaml:8: user: unless store: no entry reads that top-level key for openrouter"},
		{"unless naming a path", "  - path: user\n    map: user\n    unless: tool_choice.type\n", "m.yaml:8: unless: \"tool_choice.type\" is not a top-level key of the source"},
		{"unless on a drop", "  - path: user\n    drop: x\n    unless: model\n", "m.yaml:8: unless on a drop rule"},
		{"a refusal's unless that does not fit", "  - path: background\n    refuse: no\n    unless: 1\n", "m.yaml:8: background (…): unless 1: does not fit"},
		{"omit at a malformed path", "  - path: text.format{text}\n    omit: messages[]]\n", `m.yaml:7: text.format{text} → openrouter messages[]]: messages[]]: bad selector "]"`},
		{"omit with a transform", "  - path: user\n    omit: user\n    transform: logprobsOn\n", "m.yaml:6: a transform on a omit rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := header + "entries:\n" + c.entries + "  - path: top_logprobs\n    map: top_logprobs\n    transform: logprobsOn\n"
			f, errs := Load("m.yaml", []byte(src))
			if errs == nil {
				_, errs = Validate(f, transforms, false)
			}
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			got := strings.Join(msgs, "\n")
			if c.want == "" && got != "" || !containsInOrder(got, c.want) {
				t.Errorf("errors:\n%s\nwant %q", got, c.want)
			}
		})
	}
}

// What the rule forms emit: a switch on the value's bytes (no allocation
// but on the warning's path), constants set from string constants, the
// sibling's presence, a refusal naming the tag of a refused variant.
func TestRuleFormsEmitted(t *testing.T) {
	src := `from: {dialect: openai, payload: chat request}
to:
  - {dialect: openai, payload: responses request}
entries:
  - path: service_tier
    map: service_tier
    values: target
  - path: verbosity
    map: text.verbosity
    values: {low: medium, high: high}
    otherwise: medium
  - path: stream
    map: stream
    also: {"include[]": message.output_text.logprobs}
    when: true
  - path: logprobs
    also: {top_logprobs: 0}
    map: parallel_tool_calls
    unless: stream
  - path: n
    refuse: "n {value}: one choice"
    unless: 1
  - path: messages[]{function}
    refuse: no function messages
  - path: response_format{text}
    omit: text.format{text}
  - path: audio
    refuse: no audio
  - path: user
    map: safety_identifier
    unless: audio
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
	out, err := Emit("mapping", "m", "m.yaml", "rev", []*Converter{cv})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	// the values the compiled Responses request's service_tier lists
	req, _ := codec.OpenAI.Payload(codec.ResponsesRequest)
	st, err := req.Schema().Lookup("service_tier")
	if err != nil || len(st.Values()) == 0 {
		t.Fatalf("service_tier: %v %v", st.Values(), err)
	}
	var quoted []string
	for _, v := range st.Values() {
		quoted = append(quoted, strconv.Quote(strconv.Quote(v)))
	}
	tiers := strings.Join(quoted, ", ")
	for _, want := range []string{
		"switch string(srcServiceTier.Raw()) {\n\t\t\tcase " + tiers + ":\n\t\t\t\tc.put(codec.Top, \"service_tier\", srcServiceTier.Raw())\n\t\t\tdefault:\n\t\t\t\tc.warn(\"service_tier\", string(srcServiceTier.Raw())+\" is not a value the mapping carries to service_tier; left out\")",
		"case \"\\\"high\\\"\":\n\t\t\t\tc.put(c.b.ObjectLit(codec.Top, \"text\"), \"verbosity\", srcVerbosity.Raw())\n\t\t\tcase \"\\\"low\\\"\":\n\t\t\t\tc.b.SetJSONLit(c.b.ObjectLit(codec.Top, \"text\"), \"verbosity\", \"\\\"medium\\\"\")\n\t\t\tdefault:\n\t\t\t\tc.b.SetJSONLit(c.b.ObjectLit(codec.Top, \"text\"), \"verbosity\", \"\\\"medium\\\"\")",
		"c.put(codec.Top, \"stream\", srcStream.Raw())\n\t\t\tif string(srcStream.Raw()) == \"true\" {\n\t\t\t\tc.b.AppendConst(c.b.ArrayLit(codec.Top, \"include\"), \"\\\"message.output_text.logprobs\\\"\")",
		"if !present(srcStream) {\n\t\t\t\tc.b.SetJSONLit(codec.Top, \"top_logprobs\", \"0\")\n\t\t\t\tc.put(codec.Top, \"parallel_tool_calls\", srcLogprobs.Raw())",
		"if string(srcN.Raw()) != \"1\" {\n\t\t\t\tc.refuse(\"n\", \"n \"+string(srcN.Raw())+\": one choice\")",
		"c.refuse(atElem(\"messages\", i, \"role\", \"messages[0].role\"), \"no function messages\")",
		"// m.yaml:25: omit → text.format{text}: the target's default, left out",
		// audio's rule reads nothing of it, but user's unless does: it is
		// read into its variable, not only marked
		"case \"audio\":\n\t\t\tsrcAudio = m",
		"if !present(srcAudio) {\n\t\t\t\tc.put(codec.Top, \"safety_identifier\", srcUser.Raw())",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("emitted code lacks\n%s\n---\n%s", want, got)
		}
	}
}

// containsInOrder reports whether s has the parts of want split at "…"
// (what depends on the spec at hand: a schema's kinds), in order, on one
// line.
func containsInOrder(s, want string) bool {
	parts := strings.Split(want, "…")
	for _, line := range strings.Split(s, "\n") {
		rest, ok := line, true
		for _, p := range parts {
			k := strings.Index(rest, p)
			if k < 0 {
				ok = false
				break
			}
			rest = rest[k+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

// An omit whose target the spec at hand lacks is stale, as a map's is:
// reported, and the converter drops the value with a warning.
func TestOmitStale(t *testing.T) {
	f, errs := Load("m.yaml", []byte(header+"entries:\n  - path: text.format{text}\n    omit: response_formatt\n"))
	if errs != nil {
		t.Fatal(errs)
	}
	c, errs := Validate(f, nil, false)
	if errs != nil || len(c.Stale) != 2 || c.Stale[0].Kind != StaleOfRule || c.Stale[0].Target != "response_formatt" {
		t.Fatalf("%v %+v", errs, c.Stale)
	}
	cv, errs := Build(c, "openai")
	if errs != nil {
		t.Fatal(errs)
	}
	var find func(n *Node) *Node
	find = func(n *Node) *Node {
		if n.Leaf != nil {
			return n
		}
		for _, c := range append(append([]*Node(nil), n.Fields...), n.Cases...) {
			if l := find(c); l != nil {
				return l
			}
		}
		return nil
	}
	if l := find(cv.Root); l == nil || l.Leaf.Rule.Kind != Drop || l.Path != "text.format{text}" {
		t.Errorf("%+v", l)
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

// An extra under the top level is a field the spec lacks that the
// transform of the field above it reads: a gateway rule under a parent the
// spec has, emitted as the function that recognises its findings (no
// code reads it), a row of the matrix like any extra, and stale once the
// spec has it.
func TestExtrasBelow(t *testing.T) {
	for _, c := range []struct{ extras, want string }{
		{"  - key: reasoning.zz\n    gateway: the transform of reasoning reads it\n", ""},
		{"  - key: reasoninx.zz\n    gateway: x\n", "m.yaml:7: reasoninx.zz: an extra under reasoninx, which the spec lacks"},
		{"  - key: reasoning.zz\n    drop: x\n", "reasoning.zz: an extra under the top level is read by the transform above it: a gateway rule says which"},
		{"  - key: reasoning.zz[]\n    gateway: x\n", "m.yaml:7: reasoning.zz[]: an extra under the top level is a member's key: parent.key"},
	} {
		f, errs := Load("m.yaml", []byte(header+"entries: []\nextras:\n"+c.extras))
		if errs != nil {
			t.Fatal(errs)
		}
		cv, errs := Validate(f, nil, false)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		if got := strings.Join(msgs, "\n"); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: errors %q, want %q", c.extras, got, c.want)
		}
		if c.want != "" {
			continue
		}
		b, errs := Build(cv, "openai")
		if errs != nil {
			t.Fatal(errs)
		}
		if len(b.Root.Extras) != 0 || !slices.Equal(b.Below, []string{"reasoning.zz"}) {
			t.Errorf("extras %v, below %q", b.Root.Extras, b.Below)
		}
		out, err := Emit("mapping", "m", "m.yaml", "conv", []*Converter{b})
		if err != nil {
			t.Fatal(err)
		}
		if want := "func isMExtraBelow(f codec.Finding) bool {\n\treturn f.At(\"reasoning.zz\")\n}"; !strings.Contains(string(out), want) {
			t.Errorf("emitted code lacks\n%s\n---\n%s", want, out)
		}
	}
	// once the spec has it, it is stale, as a top-level extra is
	f, _ := Load("m.yaml", []byte(header+"entries: []\nextras:\n  - key: reasoning.effort\n    gateway: x\n"))
	if c, errs := Validate(f, nil, false); len(errs) != 0 || len(c.Stale) != 1 || !strings.Contains(c.Stale[0].String(), "stale: extra reasoning.effort") {
		t.Errorf("%v %v", errs, c.Stale)
	}
}

// An object of more than 64 fields: the first 64 are marked in the word
// whose bits run their rules, each one past them runs on its own check.
func TestEmitWide(t *testing.T) {
	root := &Node{Kind: Object}
	for i := range 66 {
		k := fmt.Sprintf("k%d", i)
		root.Fields = append(root.Fields, &Node{Kind: Leaf, Key: k, Path: k, Rel: k, Leaf: &Target{Rule: Rule{Kind: Drop, Reason: "no " + k}}})
	}
	root.Fields = append(root.Fields, &Node{Kind: Leaf, Key: "id", Path: "id", Rel: "id", Leaf: &Target{Rule: Rule{Kind: Gateway, Reason: "the gateway's"}}})
	out, err := Emit("mapping", "w", "w.yaml", "conv", []*Converter{{Dialect: "openai", Root: root}})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"case \"k63\":\n\t\t\tsrcK63 = m\n\t\t\tsrcSet |= uint64(0x8000000000000000)\n\t\tcase \"k64\":\n\t\t\tsrcK64 = m\n\t\tcase \"k65\":\n\t\t\tsrcK65 = m\n",
		"case \"id\": // w.yaml:0: gateway: the gateway's\n",
		"case 63:\n\t\t\t// w.yaml:0: drop\n\t\t\tc.drop(srcK63, \"k63\", \"no k63\")\n\t\t}",
		"if srcK64.Exists() {\n\t\t// w.yaml:0: drop\n\t\tc.drop(srcK64, \"k64\", \"no k64\")\n\t}\n\tif srcK65.Exists() {",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("emitted code lacks\n%s\n---\n%s", want, got)
		}
	}
	if strings.Contains(got, "case 64:") {
		t.Error("a case past the 64th bit")
	}
}

// TestElementObjectsKept: the object under an element that several rules
// write to is made once and kept (ObjectOnce), unless a transform writes
// in the element too (what it writes is its own: each rule looks the
// object up again).
func TestElementObjectsKept(t *testing.T) {
	emit := func(extra string, ts []Transform) string {
		src := `from: {dialect: openai, payload: responses request}
to:
  - {dialect: openai, payload: chat request}
entries:
  - path: tools[]{function}.type
    map: tools[]{function}.type
  - path: tools[]{function}.name
    map: tools[]{function}.function.name
  - path: tools[]{function}.description
    map: tools[]{function}.function.description
` + extra
		f, errs := Load("m.yaml", []byte(src))
		if errs != nil {
			t.Fatal(errs)
		}
		c, errs := Validate(f, ts, false)
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
		return string(out)
	}
	got := emit("", nil)
	for _, want := range []string{
		"var srcToolsFunctionOutFunction codec.Ref",
		`c.put(c.b.ObjectOnce(srcToolsFunctionOut, "function", &srcToolsFunctionOutFunction), "name", srcToolsFunctionName.Raw())`,
		`c.put(c.b.ObjectOnce(srcToolsFunctionOut, "function", &srcToolsFunctionOutFunction), "description", srcToolsFunctionDescription.Raw())`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("emitted code lacks\n%s\n---\n%s", want, got)
		}
	}
	got = emit(`  - path: tools[]{function}.parameters
    map: tools[]{function}.function.parameters
    transform: toolParameters
`, []Transform{{Name: "toolParameters", From: []codec.Kind{codec.Object, codec.Array, codec.String, codec.Number, codec.Bool, codec.Null}, To: []codec.Kind{codec.Object}}})
	if strings.Contains(got, "ObjectOnce") {
		t.Errorf("an object kept where a transform writes in the element:\n%s", got)
	}
	if want := `c.put(c.b.ObjectLit(srcToolsFunctionOut, "function"), "name", srcToolsFunctionName.Raw())`; !strings.Contains(got, want) {
		t.Errorf("emitted code lacks\n%s\n---\n%s", want, got)
	}
}

// TestPlainKey: the target keys the converters write as they are
// (codec.Builder's …Lit methods) are those JSON writes as they are.
func TestPlainKey(t *testing.T) {
	for key, want := range map[string]bool{
		"": true, "max_completion_tokens": true, "openrouter:web_search": true, "a b-c.d/e": true,
		`a"b`: false, `a\b`: false, "a\nb": false, "\x00": false, "\x7f": false, "é": false,
	} {
		if got := plainKey(key); got != want {
			t.Errorf("plainKey(%q) = %v, want %v", key, got, want)
		}
		if got := string(codec.AppendString(nil, key)) == `"`+key+`"`; want && !got {
			t.Errorf("%q is plain but AppendString escapes it", key)
		}
	}
}
