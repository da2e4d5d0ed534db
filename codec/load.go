package codec

import (
	"encoding/json"
	"fmt"
	"strings"
)

// LoadDialect reads a shape table from its JSON form (the openapi
// pipeline's tables.GenerateJSON): the table of a spec normalized just
// now, used without generating and compiling Go — the alignment matrix of
// a spec update reads it. The compiled tables (OpenAI, OpenRouter) are the
// same table as Go source.
func LoadDialect(data []byte) (*Dialect, error) {
	var t struct {
		Name          string               `json:"name"`
		Spec          string               `json:"spec"`
		Payloads      []int32              `json:"payloads"`
		RawComponents [][2]json.RawMessage `json:"components"`
		Schemas       []struct {
			Name     string               `json:"name"`
			Kind     string               `json:"kind"`
			Mask     []string             `json:"mask"`
			Props    [][3]json.RawMessage `json:"props"`
			Open     bool                 `json:"open"`
			Nonull   bool                 `json:"nonull"`
			Items    int32                `json:"items"`
			Values   []string             `json:"values"`
			Alts     []int32              `json:"alts"`
			Tag      string               `json:"tag"`
			Dflt     int32                `json:"dflt"`
			Cases    [][2]json.RawMessage `json:"cases"`
			Untagged []int32              `json:"untagged"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("codec: a dialect's table: %w", err)
	}
	n := int32(len(t.Schemas))
	bad := func(format string, args ...any) (*Dialect, error) {
		return nil, fmt.Errorf("codec: %s's table: "+format, append([]any{t.Name}, args...)...)
	}
	index := func(i int32) bool { return i >= 0 && i < n }
	if len(t.Payloads) != int(numPayloads) {
		return bad("%d payloads, want %d", len(t.Payloads), numPayloads)
	}
	// The text and the lists laid out as the generator writes them
	// (openapi/internal/tables: render), so that the table of a spec read
	// here is the compiled one, field for field: each schema's strings and
	// lists in its order, each string once where it first comes, the
	// components' names last; a field a schema lacks is the zero ref.
	d := &Dialect{name: t.Name, spec: t.Spec}
	d.schemas = make([]schema, n)
	d.props, d.cases, d.ints, d.values = []prop{}, []tagCase{}, []int32{}, []ref{}
	var text strings.Builder
	at := map[string]ref{}
	str := func(s string) ref {
		r, ok := at[s]
		if !ok {
			r = ref{int32(text.Len()), int32(len(s))}
			at[s] = r
			text.WriteString(s)
		}
		return r
	}
	ints := func(l []int32) ref {
		r := ref{int32(len(d.ints)), int32(len(l))}
		d.ints = append(d.ints, l...)
		return r
	}
	for p, i := range t.Payloads {
		if i != -1 && !index(i) {
			return bad("payload %d: schema %d of %d", p, i, n)
		}
		d.payloads[p] = i
	}
	var names []string
	for _, c := range t.RawComponents {
		var name string
		var comp component
		if json.Unmarshal(c[0], &name) != nil || json.Unmarshal(c[1], &comp.schema) != nil || !index(comp.schema) {
			return bad("component %s", c[0])
		}
		if k := len(names); k > 0 && names[k-1] >= name {
			return bad("components not sorted by name at %q", name)
		}
		names = append(names, name)
		d.components = append(d.components, comp)
	}
	for i, s := range t.Schemas {
		k, ok := shapeKinds[s.Kind]
		if !ok {
			return bad("schema %d: kind %q", i, s.Kind)
		}
		sc := schema{name: str(s.Name), kind: k, open: s.Open, nonull: s.Nonull, items: s.Items, dflt: s.Dflt}
		if len(s.Mask) == 0 {
			return bad("schema %d: no mask", i)
		}
		for _, m := range s.Mask {
			bit, ok := maskNames[m]
			if !ok {
				return bad("schema %d: mask %q", i, m)
			}
			sc.mask |= bit
		}
		if len(s.Props) > 0 {
			sc.props.off = int32(len(d.props))
		}
		last := ""
		for _, p := range s.Props {
			var key string
			var pr prop
			if json.Unmarshal(p[0], &key) != nil || json.Unmarshal(p[1], &pr.schema) != nil || json.Unmarshal(p[2], &pr.required) != nil || !index(pr.schema) {
				return bad("schema %d: property %s", i, p[0])
			}
			if pr.required {
				sc.nreq++
			}
			if sc.props.n > 0 && last >= key {
				return bad("schema %d: properties not sorted by key at %q", i, key)
			}
			last, pr.key = key, str(key)
			d.props = append(d.props, pr)
			sc.props.n++
		}
		if s.Values != nil {
			sc.enum, sc.values = true, ref{int32(len(d.values)), int32(len(s.Values))}
			for _, v := range s.Values {
				d.values = append(d.values, str(v))
			}
		}
		if len(s.Alts) > 0 {
			sc.alts = ints(s.Alts)
		}
		if s.Tag != "" {
			sc.cases.off = int32(len(d.cases))
			for _, c := range s.Cases {
				var value string
				var tc tagCase
				if json.Unmarshal(c[0], &value) != nil || json.Unmarshal(c[1], &tc.schema) != nil || !index(tc.schema) {
					return bad("schema %d: case %s", i, c[0])
				}
				tc.value = str(value)
				d.cases = append(d.cases, tc)
				sc.cases.n++
			}
			sc.tag = str(s.Tag)
			if len(s.Untagged) > 0 {
				sc.untagged = ints(s.Untagged)
			}
		}
		for _, a := range append(append(append([]int32(nil), s.Alts...), s.Untagged...), s.Items) {
			if !index(a) {
				return bad("schema %d: refers to schema %d of %d", i, a, n)
			}
		}
		if s.Tag != "" && s.Dflt != -1 && !index(s.Dflt) {
			return bad("schema %d: default variant %d of %d", i, s.Dflt, n)
		}
		d.schemas[i] = sc
	}
	for i, name := range names {
		d.components[i].name = str(name)
	}
	d.text = text.String()
	return d, nil
}

var shapeKinds = map[string]kind{"kindAny": kindAny, "kindObject": kindObject, "kindArray": kindArray, "kindScalar": kindScalar, "kindAlts": kindAlts, "kindTagged": kindTagged}

var maskNames = map[string]mask{"mNull": mNull, "mBool": mBool, "mNumber": mNumber, "mInteger": mInteger, "mString": mString, "mArray": mArray, "mObject": mObject, "mAll": mAll}
