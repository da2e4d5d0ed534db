package codec

import (
	"slices"
	"strings"
	"testing"
)

// Every payload has a name of its own, which PayloadByName reads back.
func TestPayloadNames(t *testing.T) {
	seen := map[string]bool{}
	for p := range numPayloads {
		name := p.String()
		if q, ok := PayloadByName(name); !ok || q != p || seen[name] || name == "" {
			t.Errorf("payload %d: name %q reads back as %d, %v (seen %v)", p, name, q, ok, seen[name])
		}
		seen[name] = true
	}
	if _, ok := PayloadByName("conversation"); ok {
		t.Error("a name that is no payload's")
	}
}

// The generated tables hold what the decoder relies on; a spec update that
// breaks it fails here, naming the schema, rather than misdecoding.
func TestTables(t *testing.T) {
	for _, d := range []*Dialect{OpenAI, OpenRouter} {
		in := func(i int32) bool { return i >= 0 && int(i) < len(d.schemas) }
		// Every ref inside the text or its list (a table is refs, not
		// strings and slices: a bad one would panic in a Decode).
		inside := func(r ref, n int) bool { return r.off >= 0 && r.n >= 0 && int(r.off)+int(r.n) <= n }
		text := func(what string, r ref) string {
			if !inside(r, len(d.text)) {
				t.Fatalf("%s: %s: %v outside the text (%d bytes)", d.name, what, r, len(d.text))
			}
			return d.str(r)
		}
		for _, c := range d.components {
			text("component", c.name)
		}
		if !slices.IsSortedFunc(d.components, func(a, b component) int { return strings.Compare(d.str(a.name), d.str(b.name)) }) {
			t.Errorf("%s: components not sorted", d.name)
		}
		// "": the spec has no such operation (OpenRouter's, no conversations).
		roots := map[string][numPayloads]string{
			"openai": {"CreateResponse", "Response", "ResponseStreamEvent", "CreateChatCompletionRequest", "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse",
				"CreateConversationBody", "UpdateConversationBody", "CreateConversationItemsRequest",
				"ConversationResource", "DeletedConversationResource", "ConversationItemList", "ConversationItem"},
			"openrouter": {"ResponsesRequest", "OpenResponsesResult", "StreamEvents", "ChatRequest", "ChatResult", "ChatStreamChunk"},
		}[d.name]
		for p := range numPayloads {
			r, ok := d.Payload(p)
			if roots[p] == "" {
				if ok || r != (Root{}) {
					t.Errorf("%s: %s is %q, want none", d.name, p, r.Name())
				}
				continue
			}
			if !ok || r.Name() != roots[p] {
				t.Errorf("%s: %s is %q, want %s", d.name, p, r.Name(), roots[p])
			}
			if c, ok := d.Component(roots[p]); !ok || c != r {
				t.Errorf("%s: component %s is not the %s root", d.name, roots[p], p)
			}
		}
		if _, ok := d.Component("NoSuchSchema"); ok {
			t.Errorf("%s: a component that is not there", d.name)
		}
		for i := range d.schemas {
			s := &d.schemas[i]
			name := text("schema name", s.name)
			for what, l := range map[string]struct {
				r ref
				n int
			}{"props": {s.props, len(d.props)}, "cases": {s.cases, len(d.cases)}, "values": {s.values, len(d.values)}, "alts": {s.alts, len(d.ints)}, "untagged": {s.untagged, len(d.ints)}} {
				if !inside(l.r, l.n) {
					t.Fatalf("%s: %s: %s %v outside its list (%d)", d.name, name, what, l.r, l.n)
				}
			}
			if s.mask == 0 {
				t.Errorf("%s: %s accepts nothing", d.name, name)
			}
			var keys []string
			req := int32(0)
			for _, p := range d.propsOf(s) {
				key := text(name+" key", p.key)
				keys = append(keys, key)
				if !in(p.schema) {
					t.Errorf("%s: %s.%s: schema %d out of range", d.name, name, key, p.schema)
				}
				if p.required {
					req++
				}
			}
			if !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
				t.Errorf("%s: %s: properties not sorted and unique", d.name, name)
			}
			if req != s.nreq {
				t.Errorf("%s: %s: nreq %d, %d required", d.name, name, s.nreq, req)
			}
			var values []string
			for _, v := range d.valuesOf(s) {
				values = append(values, text(name+" value", v))
			}
			if !slices.IsSorted(values) || !s.enum && len(values) > 0 {
				t.Errorf("%s: %s: values not sorted, or not an enum's", d.name, name)
			}
			switch s.kind {
			case kindArray:
				if !in(s.items) {
					t.Errorf("%s: %s: items %d", d.name, name, s.items)
				}
			case kindTagged:
				text(name+" tag", s.tag)
				var values []string
				for _, c := range d.casesOf(s) {
					values = append(values, text(name+" case", c.value))
				}
				if !slices.IsSorted(values) {
					t.Errorf("%s: %s: cases not sorted", d.name, name)
				}
				cases := append(slices.Clone(d.casesOf(s)), tagCase{ref{-1, 0}, s.dflt})
				for _, c := range cases {
					if c.value.off < 0 && c.schema < 0 {
						continue
					}
					// A variant is an object: the decoder records one node
					// per value, and a union as variant would be a second.
					if !in(c.schema) || d.schemas[c.schema].kind != kindObject && d.schemas[c.schema].kind != kindAny {
						t.Errorf("%s: %s: variant %v is not an object schema", d.name, name, c.value)
					}
				}
				for _, v := range d.untaggedOf(s) {
					if !in(v) {
						t.Errorf("%s: %s: untagged variant %d", d.name, name, v)
					}
				}
			case kindAlts:
				// The JSON kind of a value picks one alternative: two that
				// take objects (or arrays) would be a guess.
				var objects, arrays int
				for _, a := range d.altsOf(s) {
					if !in(a) {
						t.Errorf("%s: %s: alternative %d", d.name, name, a)
						continue
					}
					if a == int32(i) {
						t.Errorf("%s: %s is an alternative of itself", d.name, name)
					}
					if m := d.schemas[a].mask; m != mAll {
						if m&mObject != 0 {
							objects++
						}
						if m&mArray != 0 {
							arrays++
						}
					}
				}
				if objects > 1 || arrays > 1 {
					t.Errorf("%s: %s: %d alternatives take objects, %d arrays", d.name, name, objects, arrays)
				}
			}
		}
	}
}

func TestMaskString(t *testing.T) {
	for m, want := range map[mask]string{
		mString:                    "a string",
		mString | mNull:            "a string or null",
		mNumber | mInteger | mNull: "a number or null",
		mInteger:                   "an integer",
		mObject | mArray | mString: "an object, an array or a string",
	} {
		if got := m.String(); got != want {
			t.Errorf("%08b: %q, want %q", m, got, want)
		}
	}
}

// findProp finds every property of every schema of every table by its
// key, and no key that is not one (a key's prefixes and extensions, its
// first byte changed, the empty key), as a scan of the properties would.
func TestFindProp(t *testing.T) {
	for _, d := range Dialects {
		tab := &d.tables
		for si := range tab.schemas {
			props := tab.propsOf(&tab.schemas[si])
			scan := func(key string) (int, bool) {
				for i := range props {
					if tab.str(props[i].key) == key {
						return i, true
					}
				}
				return 0, false
			}
			try := func(key string) {
				gi, gok := tab.findProp(props, []byte(key))
				wi, wok := scan(key)
				if gok != wok || gok && gi != wi {
					t.Fatalf("%s: schema %d: findProp(%q) = %d, %v; want %d, %v", d.name, si, key, gi, gok, wi, wok)
				}
			}
			try("")
			for i := range props {
				k := tab.str(props[i].key)
				try(k)
				try(k + "x")
				try(k + "\\u0000")
				if len(k) > 0 {
					try(k[:len(k)-1])
					try(string(k[0]+1) + k[1:])
					try(string(k[0]-1) + k[1:])
				}
			}
		}
	}
}

// findCase finds every case of every union of every table by its value,
// and no value that is not one, as a scan of the cases would.
func TestFindCase(t *testing.T) {
	for _, d := range Dialects {
		tab := &d.tables
		for si := range tab.schemas {
			cases := tab.casesOf(&tab.schemas[si])
			scan := func(v string) int32 {
				for i := range cases {
					if tab.str(cases[i].value) == v {
						return int32(i)
					}
				}
				return -1
			}
			try := func(v string) {
				if got, want := tab.findCase(cases, []byte(v)), scan(v); got != want {
					t.Fatalf("%s: schema %d: findCase(%q) = %d, want %d", d.name, si, v, got, want)
				}
			}
			try("")
			for i := range cases {
				v := tab.str(cases[i].value)
				try(v)
				try(v + "x")
				if len(v) > 0 {
					try(v[:len(v)-1])
					try(v[:len(v)-1] + string(v[len(v)-1]+1))
				}
			}
		}
	}
}
