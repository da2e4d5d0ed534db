package generator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// A mapping written for another release of the specs: an entry for a field
// the source lacks (and one for a variant it lacks), a rule whose target
// one dialect lacks, a targets: path, an event type and an extra that is
// now a field of the spec. Each is stale — reported at its line, never an
// error — and left out of the converters and the typed references; the
// transform only the stale entry names is not "never used".
func TestStaleEntries(t *testing.T) {
	src := header + `entries:
  - path: future_knob
    map: top_logprobs
    transform: futureOn
    note: only the stale entry names this transform
  - path: input{array}[]{future_item}.payload
    drop: a variant of another release
  - path: max_output_tokens
    openrouter: {map: max_tokens_total}
    openai: {map: max_completion_tokens}
  - path: top_logprobs
    map: top_logprobs
    transform: logprobsOn
extras:
  - key: temperature
    drop: a field now
  - key: client_metadata
    drop: Codex telemetry
targets:
  - path: stop_sequences_v2
    drop: gone
  - path: stop
    drop: never sent
events:
  - type: response.teleported
    never: not in this release
  - type: response.completed
    never: not in this test
`
	f, errs := Load("mapping/m.yaml", []byte(src))
	if errs != nil {
		t.Fatal(errs)
	}
	trs := append(slices.Clone(transforms), Transform{Name: "futureOn", From: nil, To: nil})
	c, errs := Validate(f, trs, false)
	if errs != nil {
		t.Fatalf("stale entries are not errors: %v", errs)
	}
	var got []string
	for _, s := range c.Stale {
		got = append(got, s.String())
	}
	want := []string{
		`mapping/m.yaml:6: stale: entry future_knob (future_knob: CreateResponse has no property "future_knob")`,
		`mapping/m.yaml:10: stale: entry input{array}[]{future_item}.payload (input{array}[]{future_item}.payload: `,
		`mapping/m.yaml:13: stale: entry max_output_tokens → openrouter max_tokens_total (max_tokens_total: ChatRequest has no property "max_tokens_total")`,
		`mapping/m.yaml:19: stale: extra temperature (an extra that is now a field of the spec: make it an entry)`,
		`mapping/m.yaml:24: stale: target openrouter stop_sequences_v2 (stop_sequences_v2: ChatRequest has no property "stop_sequences_v2")`,
		`mapping/m.yaml:24: stale: target openai stop_sequences_v2 (stop_sequences_v2: `,
		`mapping/m.yaml:29: stale: event response.teleported (not a stream event type of the spec)`,
	}
	if len(got) != len(want) {
		t.Fatalf("stale:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("stale %d:\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
	if !slices.Equal(FindStale(f, dialects), c.Stale) {
		t.Error("FindStale and Validate disagree")
	}

	// the converters: no trace of the stale entries; the rule stale for
	// openrouter is a drop there (not carried, with a warning) and a map
	// for openai
	var convs []*Converter
	for _, to := range f.To {
		cv, errs := Build(c, to.Dialect)
		if errs != nil {
			t.Fatal(errs)
		}
		convs = append(convs, cv)
	}
	out, err := Emit("mapping", "m", "mapping/m.yaml", "conv", convs)
	if err != nil {
		t.Fatal(err)
	}
	code := string(out)
	for _, gone := range []string{"future_knob", "futureOn", "future_item", `"temperature"`, "teleported"} {
		if strings.Contains(code, gone) {
			t.Errorf("the converter names %s", gone)
		}
	}
	for _, want := range []string{
		`c.drop(srcMaxOutputTokens, "max_output_tokens", "not carried: the pinned openrouter spec has no max_tokens_total")`,
		`c.put(codec.Top, "max_completion_tokens", srcMaxOutputTokens.Raw())`,
		`case "client_metadata":`,
	} {
		if !strings.Contains(code, want) {
			t.Errorf("the converter lacks %s", want)
		}
	}

	// the typed references: the same
	names := map[string]*GoNames{}
	for _, d := range []string{"openai", "openrouter"} {
		b, err := os.ReadFile(filepath.Join("..", "gen", d, "go_names.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if names[d], err = ParseGoNames(b); err != nil {
			t.Fatal(err)
		}
	}
	fields, errs := EmitFields("typed", "mapping/m.yaml", c, names)
	if errs != nil {
		t.Fatal(errs)
	}
	refs := string(fields)
	for _, gone := range []string{"future", "max_tokens_total", "MaxTokensTotal"} {
		if strings.Contains(refs, gone) {
			t.Errorf("the typed references name %s", gone)
		}
	}
	for _, want := range []string{"mapping/m.yaml:12: max_output_tokens", "mapping/m.yaml:14: max_completion_tokens", "mapping/m.yaml:16: top_logprobs"} {
		if !strings.Contains(refs, want) {
			t.Errorf("the typed references lack %s", want)
		}
	}
}

// What is truly inconsistent stays an error, stale or not: a malformed
// path, a target of the wrong kind, a transform that does not exist or
// takes another receiver (even on a stale entry), a duplicate.
func TestStaleStillErrors(t *testing.T) {
	for _, c := range []struct{ name, entries, want string }{
		{"malformed path", "  - path: tools[]{function\n    drop: x\n", "m.yaml:6: unknown path: "},
		{"malformed target", "  - path: model\n    map: model..name\n", `m.yaml:7: model → openrouter model..name: `},
		{"wrong kind", "  - path: temperature\n    map: model\n", ") → openrouter model (a string): number does not fit"},
		{"no transform on a stale entry", "  - path: future_knob\n    map: x\n    transform: nope\n", `m.yaml:7: future_knob: no transform "nope"`},
		{"wrong receiver on a stale entry", "  - path: future_knob\n    map: x\n    transform: onReply\n", "m.yaml:7: future_knob: transform onReply takes *reply, not this mapping's *conv"},
		// Paths that do not fit the spec's shape are errors, not stale: an
		// array where it has a string, a field inside a string, a variant of
		// something that is no union.
		{"target of the wrong shape", "  - path: temperature\n    map: model[]\n", "m.yaml:7: temperature → openrouter model[]: model[]: "},
		{"source of the wrong shape", "  - path: model.name\n    drop: x\n", "m.yaml:6: unknown path: model.name: ResponseProperties/properties/model is not an object"},
		{"variant of no union", "  - path: temperature{string}\n    drop: x\n", "m.yaml:6: unknown path: temperature{string}: "},
		{"stale twice", "  - path: future_knob\n    drop: x\n  - path: future_knob\n    drop: y\n", "m.yaml:8: future_knob: an entry at line 6 already"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := header + "entries:\n" + c.entries + "  - path: top_logprobs\n    map: top_logprobs\n    transform: logprobsOn\n"
			f, errs := Load("m.yaml", []byte(src))
			if errs != nil {
				t.Fatal(errs)
			}
			trs := append(slices.Clone(transforms), Transform{Name: "onReply", From: []codec.Kind{codec.Number}, Receiver: "reply"})
			_, errs = Validate(f, trs, false)
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			if got := strings.Join(msgs, "\n"); !strings.Contains(got, c.want) {
				t.Errorf("errors:\n%s\nwant %s", got, c.want)
			}
		})
	}
}
