package codec

import (
	"errors"
	"fmt"
	"iter"
	"strings"
)

// Schema is a schema of a dialect's shape table, read-only: what the
// mapping generator and the alignment matrix navigate by wire path, so
// that nothing at run time (or generate time) needs the spec itself.
type Schema struct {
	d *Dialect
	i int32
}

// Schema is the root's schema.
func (r Root) Schema() Schema { return Schema(r) }

func (s Schema) sc() *schema { return &s.d.schemas[s.i] }

// Valid reports whether s is a schema (the zero Schema is not).
func (s Schema) Valid() bool { return s.d != nil }

// Name is the schema's component name, or its JSON pointer in the spec.
func (s Schema) Name() string { return s.d.str(s.sc().name) }

// Shape says how a schema's values are told apart and walked.
type Shape uint8

const (
	ShapeAny    Shape = iota // free-form: any JSON value, kept as it is
	ShapeObject              // properties by key
	ShapeArray               // elements of one schema
	ShapeScalar              // a string, number, boolean or null (maybe an enum)
	ShapeUnion               // alternatives by JSON kind
	ShapeTagged              // objects told apart by a discriminator property
)

// Shape is the schema's shape.
func (s Schema) Shape() Shape { return Shape(s.sc().kind) }

// Kinds says which JSON kinds a value may have ("a string or null").
func (s Schema) Kinds() string { return s.sc().mask.String() }

// Allows reports whether values of JSON kind k are allowed.
func (s Schema) Allows(k Kind) bool {
	m := s.sc().mask
	switch k {
	case Null:
		return m&mNull != 0
	case Bool:
		return m&mBool != 0
	case Number:
		return m&(mNumber|mInteger) != 0
	case String:
		return m&mString != 0
	case Array:
		return m&mArray != 0
	case Object:
		return m&mObject != 0
	}
	return false
}

// Values lists a closed enum's values (nil if any string goes).
func (s Schema) Values() []string {
	sc := s.sc()
	if !sc.enum {
		return nil
	}
	vals := []string{}
	for _, v := range s.d.valuesOf(sc) {
		vals = append(vals, s.d.str(v))
	}
	return vals
}

// Property is a property of an object schema.
type Property struct {
	Key      string
	Schema   Schema
	Required bool // by the pinned spec
}

// Properties iterates over an object schema's properties, by key.
func (s Schema) Properties() iter.Seq[Property] {
	return func(yield func(Property) bool) {
		for _, p := range s.d.propsOf(s.sc()) {
			if !yield(Property{s.d.str(p.key), Schema{s.d, p.schema}, p.required}) {
				return
			}
		}
	}
}

// Required iterates over the properties of an object schema the spec
// requires, by key (it stops at the last: a converter asks on every
// conversion, and an object has few of them among many).
func (s Schema) Required() iter.Seq[Property] {
	return func(yield func(Property) bool) {
		props := s.d.propsOf(s.sc())
		left := s.sc().nreq
		for i := 0; left > 0 && i < len(props); i++ {
			if p := &props[i]; p.required {
				left--
				if !yield(Property{s.d.str(p.key), Schema{s.d, p.schema}, true}) {
					return
				}
			}
		}
	}
}

// Property returns an object schema's property.
func (s Schema) Property(key string) (Property, bool) {
	props := s.d.propsOf(s.sc())
	if i, ok := s.d.findProp(props, []byte(key)); ok {
		return Property{key, Schema{s.d, props[i].schema}, props[i].required}, true
	}
	return Property{}, false
}

// Open reports whether an object schema allows keys it does not declare.
func (s Schema) Open() bool { return s.sc().open }

// Items is an array schema's element schema.
func (s Schema) Items() Schema {
	if s.sc().kind != kindArray {
		return Schema{}
	}
	return Schema{s.d, s.sc().items}
}

// Tag is a tagged union's discriminator property ("type", "role").
func (s Schema) Tag() string { return s.d.str(s.sc().tag) }

// Variant is a case of a tagged union.
type Variant struct {
	Value  string // the tag's value
	Schema Schema
}

// Variants iterates over a tagged union's cases, by tag value.
func (s Schema) Variants() iter.Seq[Variant] {
	return func(yield func(Variant) bool) {
		for _, c := range s.d.casesOf(s.sc()) {
			if !yield(Variant{s.d.str(c.value), Schema{s.d, c.schema}}) {
				return
			}
		}
	}
}

// Alternatives iterates over a union's alternatives (told apart by their
// JSON kinds).
func (s Schema) Alternatives() iter.Seq[Schema] {
	return func(yield func(Schema) bool) {
		for _, a := range s.d.altsOf(s.sc()) {
			if !yield(Schema{s.d, a}) {
				return
			}
		}
	}
}

// Lookup resolves a wire path from s. A path is dot-separated keys, each
// followed by selectors:
//
//	[]        the elements of an array (through a union, its array alternative)
//	{value}   the variant of a tagged union whose tag is value
//	{kind}    a union's alternative of a JSON kind: string, number, boolean,
//	          array, object (for a tagged union, object selects it whole)
//
// e.g. "text.format{json_schema}.schema", "tools[]{function}.parameters",
// "input{string}", "input[]{message}.content[]{input_text}.text".
// Nullable wrappers (X or null) are looked through.
func (s Schema) Lookup(path string) (Schema, error) {
	cur := s
	for i, step := range SplitPath(path) {
		key, sel := step, ""
		if j := strings.IndexAny(step, "[{"); j >= 0 {
			key, sel = step[:j], step[j:]
		}
		if key != "" || i > 0 {
			obj := cur.through(Object)
			if obj.Shape() != ShapeObject {
				return Schema{}, fmt.Errorf("%s: %s is not an object", strings.Join(SplitPath(path)[:i+1], "."), cur.Name())
			}
			p, ok := obj.Property(key)
			if !ok {
				return Schema{}, absent(fmt.Sprintf("%s: %s has no property %q", strings.Join(SplitPath(path)[:i+1], "."), cur.Name(), key))
			}
			cur = p.Schema
		}
		for sel != "" {
			var err error
			switch {
			case strings.HasPrefix(sel, "[]"):
				arr := cur.through(Array)
				if arr.Shape() != ShapeArray {
					return Schema{}, fmt.Errorf("%s: %s is not an array", path, cur.Name())
				}
				cur, sel = arr.Items(), sel[2:]
			case strings.HasPrefix(sel, "{"):
				end := strings.IndexByte(sel, '}')
				if end < 0 {
					return Schema{}, fmt.Errorf("%s: unclosed {", path)
				}
				if cur, err = cur.selectVariant(sel[1:end]); err != nil {
					if errors.Is(err, ErrAbsent) {
						return Schema{}, absent(path + ": " + err.Error())
					}
					return Schema{}, fmt.Errorf("%s: %w", path, err)
				}
				sel = sel[end+1:]
			default:
				return Schema{}, fmt.Errorf("%s: bad selector %q", path, sel)
			}
		}
	}
	return cur.nonNull(), nil
}

// ErrAbsent is what Lookup's error is (errors.Is) when the path's shape
// fits the schema but a property or a variant it names is not there: a
// field or variant of another release of the spec. Other errors say the
// path does not fit the schema's shape (an array where it has an object)
// or is malformed.
var ErrAbsent = errors.New("not in the spec")

type absentError string

func absent(msg string) error              { return absentError(msg) }
func (e absentError) Error() string        { return string(e) }
func (e absentError) Is(target error) bool { return target == ErrAbsent }

// nonNull looks through a nullable wrapper (a union of X and null) to X.
func (s Schema) nonNull() Schema {
	for range maxHops {
		if s.Shape() != ShapeUnion {
			return s
		}
		var other []Schema
		for a := range s.Alternatives() {
			if a.sc().mask != mNull {
				other = append(other, a)
			}
		}
		if len(other) != 1 {
			return s
		}
		s = other[0]
	}
	return s
}

// SplitPath splits a wire path (Lookup's) at the dots outside {…}: one
// step per key, each with its selectors ("tools[]{function}", "name").
func SplitPath(path string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, path[start:i])
				start = i + 1
			}
		}
	}
	return append(out, path[start:])
}

// KindByName returns the JSON kind a selector or a kind list names
// ("string", "number", "boolean", "array", "object", "null").
func KindByName(name string) (Kind, bool) {
	k, ok := kindsByName[name]
	return k, ok
}

var kindsByName = map[string]Kind{"string": String, "number": Number, "boolean": Bool, "array": Array, "object": Object, "null": Null}

func (s Schema) selectVariant(v string) (Schema, error) {
	k, isKind := kindsByName[v]
	u := s
	if t := s.through(Object); s.Shape() != ShapeTagged && !isKind && t.Shape() == ShapeTagged {
		u = t // a tag value, through a union by kind
	}
	if u.Shape() == ShapeTagged && (!isKind || s.Shape() == ShapeTagged && v != "object") {
		for c := range u.Variants() {
			if c.Value == v {
				return c.Schema, nil
			}
		}
		return Schema{}, absent(fmt.Sprintf("%s has no variant %q", u.Name(), v))
	}
	if !isKind {
		return Schema{}, fmt.Errorf("%s has no variant %q (a union by JSON kind: string, number, boolean, array, object)", s.Name(), v)
	}
	if t := s.through(k); t.Allows(k) {
		return t, nil
	}
	return Schema{}, fmt.Errorf("%s takes no %s", s.Name(), k)
}

// through looks through unions by JSON kind (nullable wrappers, string |
// array) to the alternative that takes values of kind k, if one does.
func (s Schema) through(k Kind) Schema {
	for range maxHops {
		if s.Shape() != ShapeUnion {
			return s
		}
		next := Schema{}
		for a := range s.Alternatives() {
			if a.Allows(k) {
				next = a
				break
			}
		}
		if !next.Valid() {
			return s
		}
		s = next
	}
	return s
}
