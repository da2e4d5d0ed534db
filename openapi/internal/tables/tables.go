// Package tables renders the shape table of a normalized spec: what package
// codec needs of the spec at run time to decode forward-compatibly (which
// keys each object knows, which values each enum knows, how each union tells
// its variants apart, which schemas the API's bodies and events are), as Go
// source for package codec. The codec never reads a spec.
package tables

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/normalize"
	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// Options names what is generated.
type Options struct {
	Var    string // the exported *codec.Dialect, e.g. "OpenAI"
	Name   string // the dialect's short name (the manifest's spec name)
	Source string // the spec file, for the header
	Skip   string // a component not to tabulate (the pipeline's holder schema)
}

// payloadKinds are the constants of codec.Payload, in their order: the schema
// of what of which operation each names — the request body ("request"),
// the JSON 200 response ("json") or one event of its stream ("event"). A
// spec without the operation has none (-1: Dialect.Payload says ok false).
// A payload added here is a constant added there, with its name; the
// generated tables do not build until both agree.
var payloadKinds = []struct{ name, op, what string }{
	{"ResponsesRequest", "POST /responses", "request"},
	{"ResponsesBody", "POST /responses", "json"},
	{"ResponsesEvent", "POST /responses", "event"},
	{"ChatRequest", "POST /chat/completions", "request"},
	{"ChatBody", "POST /chat/completions", "json"},
	{"ChatChunk", "POST /chat/completions", "event"},
	{"ConversationCreateRequest", "POST /conversations", "request"},
	{"ConversationUpdateRequest", "POST /conversations/{conversation_id}", "request"},
	{"ConversationItemsCreateRequest", "POST /conversations/{conversation_id}/items", "request"},
	{"ConversationBody", "POST /conversations", "json"},
	{"ConversationDeletedBody", "DELETE /conversations/{conversation_id}", "json"},
	{"ConversationItemsBody", "GET /conversations/{conversation_id}/items", "json"},
	{"ConversationItemBody", "GET /conversations/{conversation_id}/items/{item_id}", "json"},
}

type entry struct {
	name   string
	kind   string
	mask   []string
	props  []prop
	open   bool
	items  int32
	values []string
	alts   []int32
	tag    string
	cases  []tagCase
	dflt   int32
	nonull bool // null is allowed only because the normalizer added it
	// untagged: the variants an object without the tag may be, the default
	// first (set only if there are several): those whose tag is optional.
	untagged []int32
}

type prop struct {
	key      string
	schema   int32
	required bool
}

type tagCase struct {
	value  string
	schema int32
}

type builder struct {
	doc     *openapi3.T
	entries []*entry
	comp    map[string]int32
	byValue map[*openapi3.Schema]int32
	errs    []string
}

// Generate renders the shape table of doc, a spec after the normalizer.
func Generate(doc *openapi3.T, o Options) ([]byte, error) {
	b, names, payloads, err := build(doc, o)
	if err != nil {
		return nil, err
	}
	return b.render(o, names, payloads)
}

// GenerateJSON renders the same table as JSON, for codec.LoadDialect: a
// table of a spec just normalized, used without generating and compiling
// Go (the alignment matrix after a spec update).
func GenerateJSON(doc *openapi3.T, o Options) ([]byte, error) {
	b, names, payloads, err := build(doc, o)
	if err != nil {
		return nil, err
	}
	return b.renderJSON(o, names, payloads)
}

func build(doc *openapi3.T, o Options) (*builder, []string, []string, error) {
	b := &builder{doc: doc, comp: map[string]int32{}, byValue: map[*openapi3.Schema]int32{}}
	names := slices.DeleteFunc(walk.SortedKeys(doc.Components.Schemas), func(n string) bool { return n == o.Skip })
	// Components first, in name order, so their indexes do not depend on
	// where they are used; aliases take their target's index afterwards.
	for _, n := range names {
		if ref := doc.Components.Schemas[n]; ref.Ref == "" && ref.Value != nil {
			b.comp[n] = b.add(n)
			b.byValue[ref.Value] = b.comp[n]
		}
	}
	for _, n := range names {
		if ref := doc.Components.Schemas[n]; ref.Ref != "" {
			target := walk.ComponentName(ref.Ref)
			for i := 0; i < 8 && doc.Components.Schemas[target] != nil && doc.Components.Schemas[target].Ref != ""; i++ {
				target = walk.ComponentName(doc.Components.Schemas[target].Ref)
			}
			i, ok := b.comp[target]
			if !ok {
				b.errs = append(b.errs, fmt.Sprintf("%s: alias of unknown %s", n, ref.Ref))
				continue
			}
			b.comp[n] = i
		}
	}
	for _, n := range names {
		if ref := doc.Components.Schemas[n]; ref.Ref == "" && ref.Value != nil {
			b.fill(b.comp[n], ref.Value, n)
		}
	}
	b.masks()
	b.untagged()
	payloads := make([]string, len(payloadKinds))
	for i, p := range payloadKinds {
		payloads[i] = b.payload(p.op, p.what)
	}
	if len(b.errs) > 0 {
		return nil, nil, payloads, fmt.Errorf("tables: %s: %s", o.Name, strings.Join(b.errs, "; "))
	}
	return b, names, payloads, nil
}

func (b *builder) add(name string) int32 {
	b.entries = append(b.entries, &entry{name: name, items: -1, dflt: -1})
	return int32(len(b.entries) - 1)
}

// index returns the entry of a schema reference, tabulating inline schemas
// (named by their JSON pointer) the first time they are seen.
func (b *builder) index(ref *openapi3.SchemaRef, ptr string) int32 {
	if ref.Ref != "" {
		if i, ok := b.comp[walk.ComponentName(ref.Ref)]; ok {
			return i
		}
		b.errs = append(b.errs, fmt.Sprintf("%s: reference to unknown %s", ptr, ref.Ref))
		return -1
	}
	if i, ok := b.byValue[ref.Value]; ok {
		return i
	}
	i := b.add(ptr)
	b.byValue[ref.Value] = i
	b.fill(i, ref.Value, ptr)
	return i
}

var jsonKinds = map[string][]string{
	openapi3.TypeNull:    {"mNull"},
	openapi3.TypeBoolean: {"mBool"},
	openapi3.TypeNumber:  {"mNumber", "mInteger"},
	openapi3.TypeInteger: {"mInteger"},
	openapi3.TypeString:  {"mString"},
	openapi3.TypeArray:   {"mArray"},
	openapi3.TypeObject:  {"mObject"},
}

func (b *builder) fill(i int32, s *openapi3.Schema, ptr string) {
	e := b.entries[i]
	var types []string
	if s.Type != nil {
		types = s.Type.Slice()
	}
	for _, t := range types {
		e.mask = append(e.mask, jsonKinds[t]...)
	}
	union := append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...)
	_, e.nonull = s.Extensions[normalize.NullAddedExt]
	if s.Extensions[normalize.RequiredArrayExt] == true {
		// A required array the generated types keep a slice (rule
		// required-arrays): the JSON layer still takes null, as for any
		// optional field, and notes it is not the spec's.
		e.mask, e.nonull = append(e.mask, "mNull"), true
	}
	switch {
	case s.Extensions[normalize.FreeFormExt] != nil:
		e.kind, e.mask = "kindAny", []string{"mAll"}
	case len(s.AllOf) > 0 && len(s.Properties) == 0 && s.Type == nil && len(union) == 0 && len(substantial(s.AllOf)) == 1:
		// {"allOf": [{"$ref": …}, {"description": …}]}: the one part that
		// says something, described. An alias, as a union of one.
		k := substantial(s.AllOf)[0]
		e.kind = "kindAlts"
		e.alts = []int32{b.index(s.AllOf[k], fmt.Sprintf("%s/allOf/%d", ptr, k))}
	case len(s.AllOf) > 0:
		e.mask = append(e.mask, "mObject")
		b.object(e, s, ptr)
	case len(union) > 0 && s.Discriminator != nil:
		e.kind, e.tag = "kindTagged", s.Discriminator.PropertyName
		e.mask = append(e.mask, "mObject")
		mapped := map[string]bool{}
		for _, v := range walk.SortedKeys(s.Discriminator.Mapping) {
			ref := walk.MappingRef(s.Discriminator.Mapping[v].Ref)
			mapped[ref] = true
			e.cases = append(e.cases, tagCase{v, b.index(&openapi3.SchemaRef{Ref: ref}, ptr)})
		}
		for k, v := range union {
			if v.Ref == "" || !mapped[v.Ref] {
				b.errs = append(b.errs, fmt.Sprintf("%s: variant %d is not in the discriminator mapping", ptr, k))
			}
		}
		if d, ok := s.Extensions[normalize.DefaultVariantExt].(string); ok {
			if !mapped[walk.SchemaPrefix+d] {
				b.errs = append(b.errs, fmt.Sprintf("%s: default variant %s is not a variant", ptr, d))
			}
			e.dflt = b.index(&openapi3.SchemaRef{Ref: walk.SchemaPrefix + d}, ptr)
		}
		if len(s.Properties) > 0 {
			b.errs = append(b.errs, ptr+": a discriminated union with properties of its own")
		}
	case len(union) > 0:
		e.kind = "kindAlts"
		kw := "oneOf"
		if len(s.AnyOf) > 0 {
			kw = "anyOf"
		}
		for k, v := range union {
			e.alts = append(e.alts, b.index(v, fmt.Sprintf("%s/%s/%d", ptr, kw, k)))
		}
		if len(s.Properties) > 0 {
			b.errs = append(b.errs, ptr+": a union with properties of its own")
		}
	case s.Items != nil:
		e.kind = "kindArray"
		e.items = b.index(s.Items, ptr+"/items")
		if len(types) == 0 {
			e.mask = append(e.mask, "mArray")
		}
	case len(s.Properties) > 0 || slices.Contains(types, openapi3.TypeObject):
		if len(types) == 0 {
			e.mask = append(e.mask, "mObject")
		}
		b.object(e, s, ptr)
	case len(types) > 0 || len(s.Enum) > 0 || s.Const != nil:
		e.kind = "kindScalar"
		enum := s.Enum
		if s.Const != nil {
			enum = []any{s.Const}
		}
		if _, open := s.Extensions[normalize.KnownValuesExt]; len(enum) > 0 && !open {
			values, closed := []string{}, true
			for _, v := range enum {
				switch v := v.(type) {
				case string:
					values = append(values, v)
					if len(types) == 0 {
						e.mask = append(e.mask, "mString")
					}
				case nil:
					e.mask = append(e.mask, "mNull")
				default:
					closed = false // a non-string enum: the JSON kind is checked, not the value
				}
			}
			if !closed && len(types) == 0 {
				e.mask = []string{"mAll"}
			}
			if closed {
				e.values = values
			}
			slices.Sort(e.values)
			e.values = slices.Compact(e.values)
		}
	default:
		e.kind, e.mask = "kindAny", []string{"mAll"}
	}
}

// merge collects the properties of an object schema and of its allOf
// parts, and the keys any of them requires (a part may require a key that
// another declares). Only an explicit x-open-object or additionalProperties
// opens the object: an empty part ({"type":"object"}, made free-form by
// the normalizer) adds nothing.
func (b *builder) merge(e *entry, s *openapi3.Schema, ptr string, props map[string]prop, required map[string]bool, depth int) {
	if depth > 16 {
		b.errs = append(b.errs, ptr+": allOf nested too deep")
		return
	}
	if _, open := s.Extensions[normalize.OpenObjectExt]; open || isMap(s) {
		e.open = true
	}
	if len(s.OneOf)+len(s.AnyOf) > 0 {
		b.errs = append(b.errs, ptr+": an allOf part that is a union")
	}
	if s.Items != nil || len(s.Enum) > 0 || s.Const != nil || s.Type != nil && !s.Type.Is(openapi3.TypeObject) && !s.Type.Includes(openapi3.TypeObject) {
		b.errs = append(b.errs, ptr+": an allOf part that is not an object")
	}
	for _, r := range s.Required {
		required[r] = true
	}
	switch list := s.Extensions[normalize.SpecRequiredExt].(type) {
	case []string: // set by the normalizer
		for _, r := range list {
			required[r] = true
		}
	case []any: // read back from JSON
		for _, r := range list {
			if r, ok := r.(string); ok {
				required[r] = true
			}
		}
	}
	for _, k := range walk.SortedKeys(s.Properties) {
		props[k] = prop{key: k, schema: b.index(s.Properties[k], ptr+"/properties/"+walk.Escape(k))}
	}
	for k, part := range s.AllOf {
		p := part.Value
		if p == nil {
			continue
		}
		name := fmt.Sprintf("%s/allOf/%d", ptr, k)
		if part.Ref != "" {
			name = walk.ComponentName(part.Ref)
		}
		b.merge(e, p, name, props, required, depth+1)
	}
}

// object fills e as the object schema s (with its allOf parts).
func (b *builder) object(e *entry, s *openapi3.Schema, ptr string) {
	e.kind = "kindObject"
	props, required := map[string]prop{}, map[string]bool{}
	b.merge(e, s, ptr, props, required, 0)
	for _, k := range walk.SortedKeys(props) {
		p := props[k]
		p.required = required[k]
		e.props = append(e.props, p)
	}
}

// substantial lists the parts that are more than annotations (a
// description, an example).
func substantial(parts openapi3.SchemaRefs) []int {
	var out []int
	for i, p := range parts {
		s := p.Value
		if p.Ref != "" || s == nil || s.Type != nil || len(s.Properties) > 0 || s.Items != nil || len(s.Enum) > 0 || s.Const != nil ||
			len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0 || isMap(s) || s.Extensions[normalize.FreeFormExt] != nil || s.Extensions[normalize.OpenObjectExt] != nil {
			out = append(out, i)
		}
	}
	return out
}

// isMap reports whether s allows keys it does not declare, as the spec says
// (not the unknown-fields rule, which lets every object carry them).
func isMap(s *openapi3.Schema) bool {
	if s.Extensions[normalize.UnknownFieldsExt] != nil {
		return false
	}
	ap := s.AdditionalProperties
	return (ap.Has != nil && *ap.Has) || ap.Schema != nil
}

// untagged lists, for each union with a default variant, the variants
// whose tag is optional: an object without the tag is the first of them
// whose required keys it has.
func (b *builder) untagged() {
	for _, e := range b.entries {
		if e.kind != "kindTagged" || e.dflt < 0 {
			continue
		}
		list := []int32{e.dflt}
		for _, c := range e.cases {
			if slices.Contains(list, c.schema) {
				continue
			}
			v := b.entries[c.schema]
			i := slices.IndexFunc(v.props, func(p prop) bool { return p.key == e.tag })
			if i < 0 || !v.props[i].required {
				list = append(list, c.schema)
			}
		}
		if len(list) > 1 {
			e.untagged = list
		}
	}
}

// masks gives unions the JSON kinds of their alternatives, to a fixed point
// (unions may nest).
func (b *builder) masks() {
	for changed := true; changed; {
		changed = false
		for _, e := range b.entries {
			if e.kind != "kindAlts" {
				continue
			}
			for _, a := range e.alts {
				if a < 0 {
					continue
				}
				for _, m := range b.entries[a].mask {
					if !slices.Contains(e.mask, m) {
						e.mask = append(e.mask, m)
						changed = true
					}
				}
			}
		}
	}
	for _, e := range b.entries {
		slices.Sort(e.mask)
		e.mask = slices.Compact(e.mask)
		if slices.Contains(e.mask, "mAll") {
			e.mask = []string{"mAll"}
		}
		if len(e.mask) == 0 {
			b.errs = append(b.errs, e.name+": no JSON kind")
		}
	}
}

// payload finds the schema of an operation's request body ("request"), JSON
// response ("json") or stream event ("event"). An event schema that wraps
// the event as {"data": …} (OpenRouter's) is unwrapped: the data line is the
// event.
func (b *builder) payload(op, what string) string {
	method, path, _ := strings.Cut(op, " ")
	item := b.doc.Paths.Find(path)
	if item == nil || item.GetOperation(method) == nil {
		return "-1"
	}
	o := item.GetOperation(method)
	var ref *openapi3.SchemaRef
	switch what {
	case "request":
		if o.RequestBody != nil && o.RequestBody.Value != nil {
			if mt := o.RequestBody.Value.Content.Get("application/json"); mt != nil {
				ref = mt.Schema
			}
		}
	default:
		ct := map[string]string{"json": "application/json", "event": normalize.StreamMediaType}[what]
		if r := o.Responses.Status(200); r != nil && r.Value != nil {
			if mt := r.Value.Content.Get(ct); mt != nil {
				ref = mt.Schema
			}
		}
	}
	if ref == nil {
		return "-1"
	}
	if what == "event" && ref.Value != nil && len(ref.Value.Properties) == 1 && ref.Value.Properties["data"] != nil {
		ref = ref.Value.Properties["data"]
		if v := ref.Value; ref.Ref == "" && v != nil && len(v.AnyOf) == 2 && v.AnyOf[1].Value != nil && v.AnyOf[1].Value.Type.Is(openapi3.TypeNull) {
			ref = v.AnyOf[0]
		}
	}
	if ref.Ref == "" {
		b.errs = append(b.errs, fmt.Sprintf("%s %s: an inline schema, not a component", op, what))
		return "-1"
	}
	return strconv.Itoa(int(b.index(ref, op)))
}
