package mapping_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
)

// The default table loads, every rule is valid, and DefaultGuards is the
// file's rules.
func TestDefaultGuardsLoad(t *testing.T) {
	data, err := os.ReadFile("guards/defaults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := mapping.ParseGuards(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatal("no default rules")
	}
	if def := mapping.DefaultGuards(); !reflect.DeepEqual(def, rules) {
		t.Errorf("DefaultGuards() differs from guards/defaults.yaml")
	}
	if err := mapping.CheckGuards(rules); err != nil {
		t.Error(err)
	}
	for i, r := range rules {
		if r.Why == "" {
			t.Errorf("guards[%d] (%s) has no why", i, r.Label())
		}
	}
	// DefaultGuards is a copy: changing it changes no conversion.
	def := mapping.DefaultGuards()
	def[0].Drop = nil
	if again := mapping.DefaultGuards(); !reflect.DeepEqual(again, rules) {
		t.Error("DefaultGuards() shares its memory with its caller")
	}
}

// A bad table is an error naming the line and the field.
func TestParseGuardsErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown key", "- model: o3\n  prefix: true\n  dorp: [temperature]\n", "line 3: guards[0].dorp: unknown key"},
		{"unknown field", "- model: o3\n  drop: [temperature]\n- model: o1\n  drop:\n    - top_p\n    - temprature\n", `line 6: guards[1].drop[1]: "temprature" is not a field a guard drops`},
		{"penalty", "- model: o3\n  drop: [presence_penalty]\n", `line 2: guards[0].drop[0]: "presence_penalty" is not a field a guard drops`},
		{"wrong kind", "- model: o3\n  drop: temperature\n", "line 2: guards[0].drop: want a list of strings"},
		{"prefix kind", "- model: o3\n  prefix: yes please\n  drop: [top_p]\n", "line 2: guards[0].prefix: want a boolean"},
		{"no model", "- prefix: true\n  drop: [top_p]\n", "line 1: guards[0].model: a model name (or prefix) is required"},
		{"drops nothing", "- model: o3\n  why: nothing\n", "line 1: guards[0]: a rule drops nothing"},
		{"duplicate", "- model: o3\n  prefix: true\n  drop: [top_p]\n- model: o3\n  prefix: true\n  drop: [temperature]\n", "line 4: guards[1].model: guards[0] is a rule for o3* already"},
		{"default effort alone", "- model: o3\n  drop: [top_p]\n  default_effort: none\n", "line 3: guards[0].default_effort: only with unless_effort"},
		{"not a list", "model: o3\n", "line 1: guards[0]: want a list of rules"},
		{"not a rule", "- o3\n", "line 1: guards[0]: want a rule (a mapping)"},
		{"syntax", "- model: [o3\n", "guards: yaml: line 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := mapping.ParseGuards([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			var ge *mapping.GuardError
			if c.name != "syntax" && !errors.As(err, &ge) {
				t.Errorf("%T is not a *mapping.GuardError", err)
			}
		})
	}
	if rules, err := mapping.ParseGuards(nil); err != nil || len(rules) != 0 {
		t.Errorf("an empty table: %v, %v", rules, err)
	}
}

// CheckGuards (a config's rules, decoded) names the index and field.
func TestCheckGuards(t *testing.T) {
	err := mapping.CheckGuards([]mapping.GuardRule{{Model: "a", Drop: []string{"top_p"}}, {Model: "b", Drop: []string{"seed"}}})
	if err == nil || err.Error() != `guards[1].drop[0]: "seed" is not a field a guard drops (temperature, top_p, logprobs, top_logprobs, reasoning; presence_penalty, frequency_penalty and the other fields the Responses API lacks are always left out)` {
		t.Fatalf("error %v", err)
	}
}

// Which rule applies: exact before prefix, the longest prefix, the
// options' rules before the default table's, the renamed name, a provider
// prefix and variant ignored unless the rule names them.
func TestGuardRuleChoice(t *testing.T) {
	body := func(model, effort string) []byte {
		if effort != "" {
			effort = `,"reasoning_effort":"` + effort + `"`
		}
		return []byte(`{"model":"` + model + `","messages":[{"role":"user","content":"x"}],"temperature":0.5` + effort + `}`)
	}
	drop := func(why string, fields ...string) mapping.GuardRule {
		return mapping.GuardRule{Drop: fields, Why: why}
	}
	rule := func(model string, prefix bool, r mapping.GuardRule) mapping.GuardRule {
		r.Model, r.Prefix = model, prefix
		return r
	}
	for _, c := range []struct {
		name, model string
		effort      string // "" for none sent; low when unset below
		opts        mapping.ReverseOptions
		want        string // the warnings, joined by "|"
	}{
		{"no rule", "llama-3", "", mapping.ReverseOptions{}, ""},
		{"default prefix", "o3-2025-04-16", "", mapping.ReverseOptions{}, "temperature: a reasoning model takes no sampling parameters or log probabilities (guard o3* for model o3-2025-04-16); left out"},
		{"longest prefix", "gpt-5-chat-latest", "", mapping.ReverseOptions{}, "reasoning_effort: gpt-5-chat is not a reasoning model; it takes no reasoning effort (guard gpt-5-chat* for model gpt-5-chat-latest); left out"},
		{"no defaults", "o3", "", mapping.ReverseOptions{NoDefaultGuards: true}, ""},
		{"config wins a tie", "o3", "", mapping.ReverseOptions{Guards: []mapping.GuardRule{rule("o3", true, drop("mine", "reasoning"))}},
			"reasoning_effort: mine (guard o3* for model o3); left out"},
		{"exact beats a longer prefix", "o3-pro", "", mapping.ReverseOptions{Guards: []mapping.GuardRule{rule("o3-pro", false, drop("exact", "reasoning"))}},
			"reasoning_effort: exact (guard o3-pro for model o3-pro); left out"},
		{"a longer default prefix beats a config one", "o3-pro", "", mapping.ReverseOptions{Guards: []mapping.GuardRule{rule("o", true, drop("short", "reasoning"))}},
			"temperature: a reasoning model takes no sampling parameters or log probabilities (guard o3-pro* for model o3-pro); left out"},
		{"provider prefix", "openai/gpt-4o", "", mapping.ReverseOptions{},
			"reasoning_effort: not a reasoning model; it takes no reasoning effort (guard gpt-4o* for model openai/gpt-4o); left out"},
		{"a rule naming the provider", "azure/o3", "", mapping.ReverseOptions{Guards: []mapping.GuardRule{rule("openai/o3", false, drop("openai only", "reasoning"))}},
			"temperature: a reasoning model takes no sampling parameters or log probabilities (guard o3* for model azure/o3); left out"},
		{"renamed", "thinker", "", mapping.ReverseOptions{Models: []mapping.ModelRule{{From: "thinker", To: "openai/o4-mini"}}},
			"temperature: a reasoning model takes no sampling parameters or log probabilities (guard o4-mini* for model openai/o4-mini); left out"},
		{"renamed away", "o3", "", mapping.ReverseOptions{Models: []mapping.ModelRule{{From: "o", To: "my-o", Prefix: true}}}, ""},
		{"effort none is the default", "gpt-5.1", "-", mapping.ReverseOptions{}, ""},
		{"effort none", "gpt-5.2-2025-12-11", "none", mapping.ReverseOptions{}, ""},
		{"another effort", "gpt-5.1", "medium", mapping.ReverseOptions{},
			"temperature: gpt-5.1 takes sampling parameters and log probabilities with reasoning effort none only (guard gpt-5.1* for model gpt-5.1); left out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			effort := c.effort
			switch effort {
			case "":
				effort = "low"
			case "-":
				effort = ""
			}
			out, warns, err := mapping.ChatToResponses(body(c.model, effort), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warns {
				got = append(got, w.String())
			}
			if strings.Join(got, "|") != c.want {
				t.Errorf("warnings\n%s\nwant\n%s\n(%s)", strings.Join(got, "|"), c.want, out)
			}
		})
	}
}
