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
		if !slices.IsSortedFunc(d.components, func(a, b component) int { return strings.Compare(a.name, b.name) }) {
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
		for i, s := range d.schemas {
			if s.mask == 0 {
				t.Errorf("%s: %s accepts nothing", d.name, s.name)
			}
			if !slices.IsSortedFunc(s.props, func(a, b prop) int { return strings.Compare(a.key, b.key) }) ||
				len(slices.CompactFunc(slices.Clone(s.props), func(a, b prop) bool { return a.key == b.key })) != len(s.props) {
				t.Errorf("%s: %s: properties not sorted and unique", d.name, s.name)
			}
			req := 0
			for _, p := range s.props {
				if !in(p.schema) {
					t.Errorf("%s: %s.%s: schema %d out of range", d.name, s.name, p.key, p.schema)
				}
				if p.required {
					req++
				}
			}
			if req != s.nreq {
				t.Errorf("%s: %s: nreq %d, %d required", d.name, s.name, s.nreq, req)
			}
			if !slices.IsSorted(s.values) {
				t.Errorf("%s: %s: values not sorted", d.name, s.name)
			}
			switch s.kind {
			case kindArray:
				if !in(s.items) {
					t.Errorf("%s: %s: items %d", d.name, s.name, s.items)
				}
			case kindTagged:
				if !slices.IsSortedFunc(s.cases, func(a, b tagCase) int { return strings.Compare(a.value, b.value) }) {
					t.Errorf("%s: %s: cases not sorted", d.name, s.name)
				}
				for _, c := range append(slices.Clone(s.cases), tagCase{"(default)", s.dflt}) {
					if c.value == "(default)" && c.schema < 0 {
						continue
					}
					// A variant is an object: the decoder records one node
					// per value, and a union as variant would be a second.
					if !in(c.schema) || d.schemas[c.schema].kind != kindObject && d.schemas[c.schema].kind != kindAny {
						t.Errorf("%s: %s: variant %q is not an object schema", d.name, s.name, c.value)
					}
				}
			case kindAlts:
				// The JSON kind of a value picks one alternative: two that
				// take objects (or arrays) would be a guess.
				var objects, arrays int
				for _, a := range s.alts {
					if !in(a) {
						t.Errorf("%s: %s: alternative %d", d.name, s.name, a)
						continue
					}
					if a == int32(i) {
						t.Errorf("%s: %s is an alternative of itself", d.name, s.name)
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
					t.Errorf("%s: %s: %d alternatives take objects, %d arrays", d.name, s.name, objects, arrays)
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
