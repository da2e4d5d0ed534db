package generator

// Whether a value fits where a rule writes it: value tables, constants,
// and a source schema against a target schema.

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// checkValues checks a value table against the source's enum (its keys)
// and the target's (its values); values: target needs a target enum.
func (c *Checked) checkValues(e Entry, r Rule, src codec.Schema, dialect string, dst codec.Schema, errf func(int, string, ...any)) {
	if !src.Allows(codec.String) && !src.Allows(codec.Number) && !src.Allows(codec.Bool) {
		errf(r.ValuesLine, "%s (%s): values: a value table maps scalars", e.Path, src.Kinds())
		return
	}
	if r.ValuesTarget {
		if len(dst.Values()) == 0 {
			errf(r.ValuesLine, "%s → %s %s (%s): values: target, but the target lists no values", e.Path, dialect, r.Target, dst.Kinds())
		}
		if k := misfitSchemas(src, dst); k != "" {
			errf(r.ValuesLine, "%s (%s) → %s %s (%s): %s does not fit", e.Path, src.Kinds(), dialect, r.Target, dst.Kinds(), k)
		}
	}
	seen := map[string]int{}
	for _, p := range r.Values {
		if prev, dup := seen[p.From]; dup {
			errf(p.Line, "%s: values: %s at line %d already", e.Path, p.From, prev)
		}
		seen[p.From] = p.Line
		if msg := misfitConst(p.From, src); msg != "" {
			errf(p.Line, "%s (%s): values: %s %s", e.Path, src.Kinds(), p.From, msg)
		}
		if p.To == "" {
			// sets constants only
		} else if msg := misfitConst(p.To, dst); msg != "" {
			errf(p.Line, "%s → %s %s (%s): values: %s %s", e.Path, dialect, r.Target, dst.Kinds(), p.To, msg)
		}
	}
	for _, p := range r.Values {
		c.checkConsts(e, p.Set, dialect, errf)
	}
	if r.Otherwise != "" {
		if msg := misfitConst(r.Otherwise, dst); msg != "" {
			errf(r.Line, "%s → %s %s (%s): otherwise %s %s", e.Path, dialect, r.Target, dst.Kinds(), r.Otherwise, msg)
		}
	}
}

// misfitConst says why a JSON constant does not fit a schema ("" if it
// does): its kind, or a string its enum does not list.
func misfitConst(js string, s codec.Schema) string {
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return "is not JSON"
	}
	var k codec.Kind
	switch x := v.(type) {
	case nil:
		k = codec.Null
	case bool:
		k = codec.Bool
	case float64:
		k = codec.Number
	case string:
		if vals := s.Values(); len(vals) > 0 && !slices.Contains(vals, x) {
			return "is not a value the spec lists (" + strings.Join(vals, ", ") + ")"
		}
		k = codec.String
	default:
		return "is not a scalar"
	}
	if !s.Allows(k) {
		return "does not fit"
	}
	return ""
}

var jsonKinds = []codec.Kind{codec.Object, codec.Array, codec.String, codec.Number, codec.Bool}

// misfit names a JSON kind (not null) src allows that kinds lacks.
func misfit(src codec.Schema, kinds []codec.Kind) string {
	if !src.Valid() {
		return ""
	}
	for _, k := range jsonKinds {
		if src.Allows(k) && !slices.Contains(kinds, k) {
			return k.String()
		}
	}
	return ""
}

func misfitTarget(kinds []codec.Kind, dst codec.Schema) string {
	for _, k := range kinds {
		if !dst.Allows(k) {
			return k.String()
		}
	}
	return ""
}

// misfitSchemas names a JSON kind (not null) src allows that dst does not
// ("" for a source of unknown shape: an extra).
func misfitSchemas(src, dst codec.Schema) string {
	if !src.Valid() {
		return ""
	}
	for _, k := range jsonKinds {
		if src.Allows(k) && !dst.Allows(k) {
			return k.String()
		}
	}
	return ""
}

// targetOf reports whether a targets: entry declares the path of a
// dialect's payload: it has a rule for it, or no rule of its own for any
// dialect (its default speaks for all).
