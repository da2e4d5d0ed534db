package mapping

// Model-aware guards of the reverse direction: what a careful client
// leaves out of a Responses request for the model it names (sampling
// parameters a reasoning model refuses, reasoning options for a model
// without reasoning, a service tier the model is not offered in), from a
// table of rules: ReverseOptions.Guards, then the default table
// mapping/guards/defaults.yaml. And ReverseOptions.Models, the renames the
// guards see the result of.

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-faster/yaml"

	"github.com/transponder-dev/transponder/codec"
)

// GuardRule is one row of the guard table: for the models it matches,
// the chat fields left out of the Responses request and the service tiers
// filtered, each with a warning naming the client's JSON path and the rule.
type GuardRule struct {
	// Model is the model's name, or with Prefix the start of its name. A
	// Model without "/" or ":" matches the name without its provider
	// ("openai/o3" → "o3") and OpenRouter variant (":online"); one with
	// either matches the whole name.
	Model  string `yaml:"model" json:"model"`
	Prefix bool   `yaml:"prefix" json:"prefix,omitempty"`
	// Drop are the chat fields left out: temperature, top_p,
	// logprobs, top_logprobs, reasoning (reasoning_effort and OpenRouter's
	// reasoning, the request's reasoning).
	Drop []string `yaml:"drop" json:"drop,omitempty"`
	// UnlessEffort: Drop does not apply when the request's reasoning
	// effort is one of these (gpt-5.1 takes temperature with effort none);
	// DefaultEffort is the model's effort when the request sets none.
	UnlessEffort  []string `yaml:"unless_effort" json:"unless_effort,omitempty"`
	DefaultEffort string   `yaml:"default_effort" json:"default_effort,omitempty"`
	// DropServiceTiers are the service_tier values left out.
	DropServiceTiers []string `yaml:"drop_service_tiers" json:"drop_service_tiers,omitempty"`
	// Why is the rule's reason, in each of its warnings.
	Why string `yaml:"why" json:"why,omitempty"`
}

// guardFields are the chat fields a guard can leave out, in the order
// their warnings come.
var guardFields = [...]string{"temperature", "top_p", "logprobs", "top_logprobs", "reasoning"}

// Label is the rule's model as its warnings name it: a prefix ends in *.
func (r *GuardRule) Label() string {
	if r.Prefix {
		return r.Model + "*"
	}
	return r.Model
}

// GuardError is a guard table's error: the rule's line (0 when it did not
// come from YAML), its index and the field at fault.
type GuardError struct {
	Line  int
	Index int
	Field string // "drop[1]", "model", … ("" for the rule)
	Msg   string
}

func (e *GuardError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		b.WriteString("line " + strconv.Itoa(e.Line) + ": ")
	}
	b.WriteString("guards[" + strconv.Itoa(e.Index) + "]")
	if e.Field != "" {
		b.WriteString("." + e.Field)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

//go:embed guards/defaults.yaml
var defaultGuardsYAML []byte

var defaultGuards = sync.OnceValue(func() []GuardRule {
	rules, err := ParseGuards(defaultGuardsYAML)
	if err != nil {
		panic("mapping/guards/defaults.yaml: " + err.Error()) // tested: TestDefaultGuardsLoad
	}
	return rules
})

// DefaultGuards returns (a copy of) the default guard table,
// mapping/guards/defaults.yaml: see the README's "Model-aware guards" for
// its rules and their sources.
func DefaultGuards() []GuardRule {
	return slices.Clone(defaultGuards())
}

// ParseGuards reads a guard table: a YAML list of rules (GuardRule's
// fields, by their yaml names). An unknown key, a value of the wrong
// kind, a field a guard cannot drop, a rule without a model or two rules
// for one model are a *GuardError naming the line and the field.
func ParseGuards(data []byte) ([]GuardRule, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("guards: %w", err)
	}
	rules := []GuardRule{}
	if len(root.Content) == 0 {
		return rules, nil
	}
	list := root.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, &GuardError{Line: list.Line, Index: 0, Msg: "want a list of rules"}
	}
	for i, it := range list.Content {
		if it.Kind != yaml.MappingNode {
			return nil, &GuardError{Line: it.Line, Index: i, Msg: "want a rule (a mapping)"}
		}
		var r GuardRule
		for j := 0; j+1 < len(it.Content); j += 2 {
			k, v := it.Content[j], it.Content[j+1]
			var dst any
			switch k.Value {
			case "model":
				dst = &r.Model
			case "prefix":
				dst = &r.Prefix
			case "drop":
				dst = &r.Drop
			case "unless_effort":
				dst = &r.UnlessEffort
			case "default_effort":
				dst = &r.DefaultEffort
			case "drop_service_tiers":
				dst = &r.DropServiceTiers
			case "why":
				dst = &r.Why
			default:
				return nil, &GuardError{Line: k.Line, Index: i, Field: k.Value, Msg: "unknown key (model, prefix, drop, unless_effort, default_effort, drop_service_tiers, why)"}
			}
			if err := v.Decode(dst); err != nil {
				return nil, &GuardError{Line: v.Line, Index: i, Field: k.Value, Msg: "want " + wantOf(k.Value)}
			}
		}
		if err := checkGuard(&r, i, rules); err != nil {
			err.Line = it.Line
			if n := fieldNode(it, err.Field); n != nil {
				err.Line = n.Line
			}
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func wantOf(key string) string {
	switch key {
	case "prefix":
		return "a boolean"
	case "drop", "unless_effort", "drop_service_tiers":
		return "a list of strings"
	}
	return "a string"
}

// fieldNode is the node of a rule's field ("drop[1]" → the list's second
// element), for the line of an error.
func fieldNode(rule *yaml.Node, field string) *yaml.Node {
	key, idx, hasIdx := strings.Cut(field, "[")
	for j := 0; j+1 < len(rule.Content); j += 2 {
		if rule.Content[j].Value != key {
			continue
		}
		v := rule.Content[j+1]
		if hasIdx {
			if n, err := strconv.Atoi(strings.TrimSuffix(idx, "]")); err == nil && n < len(v.Content) {
				return v.Content[n]
			}
		}
		return v
	}
	return nil
}

// CheckGuards checks a guard table (a config's, decoded): the errors of
// ParseGuards, without a line.
func CheckGuards(rules []GuardRule) error {
	for i := range rules {
		if err := checkGuard(&rules[i], i, rules[:i]); err != nil {
			return err
		}
	}
	return nil
}

func checkGuard(r *GuardRule, i int, before []GuardRule) *GuardError {
	if r.Model == "" {
		return &GuardError{Index: i, Field: "model", Msg: "a model name (or prefix) is required"}
	}
	for j, f := range r.Drop {
		if !slices.Contains(guardFields[:], f) {
			return &GuardError{Index: i, Field: "drop[" + strconv.Itoa(j) + "]", Msg: strconv.Quote(f) + " is not a field a guard drops (" + strings.Join(guardFields[:], ", ") + "; presence_penalty, frequency_penalty and the other fields the Responses API lacks are always left out)"}
		}
	}
	for j, s := range r.DropServiceTiers {
		if s == "" {
			return &GuardError{Index: i, Field: "drop_service_tiers[" + strconv.Itoa(j) + "]", Msg: "an empty service tier"}
		}
	}
	for j, s := range r.UnlessEffort {
		if s == "" {
			return &GuardError{Index: i, Field: "unless_effort[" + strconv.Itoa(j) + "]", Msg: "an empty reasoning effort"}
		}
	}
	if r.DefaultEffort != "" && len(r.UnlessEffort) == 0 {
		return &GuardError{Index: i, Field: "default_effort", Msg: "only with unless_effort"}
	}
	if len(r.Drop) == 0 && len(r.DropServiceTiers) == 0 {
		return &GuardError{Index: i, Msg: "a rule drops nothing: give drop or drop_service_tiers"}
	}
	for j := range before {
		if before[j].Model == r.Model && before[j].Prefix == r.Prefix {
			return &GuardError{Index: i, Field: "model", Msg: "guards[" + strconv.Itoa(j) + "] is a rule for " + r.Label() + " already"}
		}
	}
	return nil
}

// renameModel is the model a name becomes by rules: the exact rule for
// the name if there is one, else the prefix rule with the longest prefix;
// a name no rule matches is kept.
func renameModel(rules []ModelRule, name string) string {
	best := -1
	for i, r := range rules {
		if !r.Prefix && r.From == name {
			return r.To
		}
		if r.Prefix && strings.HasPrefix(name, r.From) && (best < 0 || len(r.From) > len(rules[best].From)) {
			best = i
		}
	}
	if best >= 0 {
		r := rules[best]
		return r.To + name[len(r.From):]
	}
	return name
}

// guard renames the Responses request's model (ReverseOptions.Models) and
// applies the guard rule of the model it names. It allocates only to
// rename and to warn.
func (c *rev) guard() {
	raw := c.b.Raw(codec.Top, "model")
	if len(c.opts.Models) > 0 {
		if name, ok := codec.Unquote(raw); ok {
			if m := renameModel(c.opts.Models, name); m != name {
				c.b.SetStringLit(codec.Top, "model", m)
				raw = c.b.Raw(codec.Top, "model")
			}
		}
	}
	name := rawName(raw)
	r := c.guardRule(name)
	if r == nil {
		return
	}
	if !c.exempt(r) {
		for _, f := range guardFields {
			if slices.Contains(r.Drop, f) {
				c.guardDrop(r, f, name)
			}
		}
	}
	if len(r.DropServiceTiers) > 0 {
		tier := rawName(c.b.Raw(codec.Top, "service_tier"))
		for _, t := range r.DropServiceTiers {
			if tier != nil && string(tier) == t {
				c.b.Delete(codec.Top, "service_tier")
				c.warn("service_tier", "service tier "+strconv.Quote(t)+" is not offered for this model ("+guardFor(r, name)+"); left out")
				break
			}
		}
	}
}

// rawName is the text of a JSON string without escapes, in place (nil
// for another value: a name with escapes matches no rule).
func rawName(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return nil
	}
	return raw[1 : len(raw)-1]
}

// guardRule is the rule for a model name: the exact rule, else the prefix
// rule with the longest prefix; the options' rules before the default
// table's among equals.
func (c *rev) guardRule(name []byte) *GuardRule {
	if len(name) == 0 {
		return nil
	}
	// base: the name without its provider and variant.
	base := name
	if i := bytes.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if i := bytes.IndexByte(base, ':'); i >= 0 {
		base = base[:i]
	}
	var defaults []GuardRule
	if !c.opts.NoDefaultGuards {
		defaults = defaultGuards()
	}
	var best *GuardRule
	for _, rules := range [2][]GuardRule{c.opts.Guards, defaults} {
		for i := range rules {
			r := &rules[i]
			n := base
			if strings.ContainsAny(r.Model, "/:") {
				n = name
			}
			switch {
			case !r.Prefix:
				if string(n) == r.Model {
					return r
				}
			case len(n) >= len(r.Model) && string(n[:len(r.Model)]) == r.Model && (best == nil || len(r.Model) > len(best.Model)):
				best = r
			}
		}
	}
	return best
}

// exempt reports whether the request's reasoning effort exempts it from
// the rule's drops.
func (c *rev) exempt(r *GuardRule) bool {
	if len(r.UnlessEffort) == 0 {
		return false
	}
	effort := []byte(nil)
	if rs, ok := c.b.Child(codec.Top, "reasoning"); ok {
		effort = rawName(c.b.Raw(rs, "effort"))
	}
	if effort == nil {
		return r.DefaultEffort != "" && slices.Contains(r.UnlessEffort, r.DefaultEffort)
	}
	for _, e := range r.UnlessEffort {
		if string(effort) == e {
			return true
		}
	}
	return false
}

// guardDrop leaves a chat field out of the Responses request, warning at
// each path of the client's request it came from.
func (c *rev) guardDrop(r *GuardRule, field string, name []byte) {
	switch field {
	case "logprobs":
		// include holds message.output_text.logprobs when logprobs asked
		// for it (revLogprobs); a client's own include is a raw value,
		// left alone.
		inc, ok := c.b.Child(codec.Top, "include")
		if !ok {
			return
		}
		n := c.b.Len(inc)
		c.b.Filter(inc, func(e codec.Ref) bool { return string(c.b.RawOf(e)) != `"`+IncludeLogprobs+`"` })
		if c.b.Len(inc) == n {
			return
		}
		if c.b.Len(inc) == 0 {
			c.b.Delete(codec.Top, "include")
		}
		c.warn("logprobs", r.Why+" ("+guardFor(r, name)+"); left out")
	case "reasoning":
		if !c.b.Has(codec.Top, "reasoning") {
			return
		}
		c.b.Delete(codec.Top, "reasoning")
		src := c.doc.Value()
		for _, p := range [...]string{"reasoning_effort", "reasoning"} {
			if present(src.Get(p)) {
				c.warn(p, r.Why+" ("+guardFor(r, name)+"); left out")
			}
		}
	default:
		if !c.b.Has(codec.Top, field) {
			return
		}
		c.b.Delete(codec.Top, field)
		c.warn(field, r.Why+" ("+guardFor(r, name)+"); left out")
	}
}

// guardFor names the rule and the model in a warning.
func guardFor(r *GuardRule, name []byte) string {
	return "guard " + r.Label() + " for model " + string(name)
}
