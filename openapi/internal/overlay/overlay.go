// Package overlay applies project-owned patches to a pruned spec: properties
// that real traffic carries but the spec omits, and the schemas they need.
package overlay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-faster/yaml"
)

// Overlay is one file of patches.
type Overlay struct {
	Patches []Patch  `yaml:"patches"`
	Schemas []Schema `yaml:"schemas"`
}

// Patch adds properties to one component schema, or declares properties
// of it that must not be sent together.
type Patch struct {
	Schema     string    `yaml:"schema"`
	Reason     string    `yaml:"reason"`
	Properties yaml.Node `yaml:"properties"` // a mapping, applied in file order
	// Exclusive lists groups of declared properties of which an object may
	// carry at most one; kept as ExclusiveExt, for the generated validators.
	Exclusive [][]string `yaml:"exclusive"`
	// Remove lists properties the provider refuses (a dialect's overlay):
	// taken out of the schema (or the allOf part that declares them) and
	// its required list.
	Remove []string `yaml:"remove"`
	// RemoveVariants lists the component schemas that are no longer a
	// variant of the schema's oneOf or anyOf (a role the provider lacks).
	RemoveVariants []string `yaml:"remove_variants"`
	props          []namedSchema
}

// ExclusiveExt holds a schema's groups of mutually exclusive properties
// ([][]string), from the overlays' exclusive patches.
const ExclusiveExt = "x-exclusive"

// Schema adds one component schema.
type Schema struct {
	Name   string    `yaml:"name"`
	Reason string    `yaml:"reason"`
	Schema yaml.Node `yaml:"schema"`
}

type namedSchema struct {
	name   string
	schema *openapi3.Schema
}

// Applied is one change an overlay made, or could not make.
type Applied struct {
	Target string // "Schema.property" or "Schema"
	Reason string
	Stale  string // non-empty: why the change was not needed or not possible
}

// Parse reads an overlay file.
func Parse(data []byte) (*Overlay, error) {
	var o Overlay
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("overlay: %w", err)
	}
	for i := range o.Patches {
		p := &o.Patches[i]
		if p.Schema == "" || p.Reason == "" {
			return nil, fmt.Errorf("overlay: patch %d: schema and reason are required", i)
		}
		for _, g := range p.Exclusive {
			if len(g) < 2 {
				return nil, fmt.Errorf("overlay: patch %s: an exclusive group needs two properties or more", p.Schema)
			}
		}
		if (len(p.Exclusive) > 0 || len(p.Remove) > 0 || len(p.RemoveVariants) > 0) && p.Properties.Kind == 0 {
			continue
		}
		if p.Properties.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("overlay: patch %s: properties must be a mapping", p.Schema)
		}
		for j := 0; j+1 < len(p.Properties.Content); j += 2 {
			name := p.Properties.Content[j].Value
			s, err := toSchema(*p.Properties.Content[j+1])
			if err != nil {
				return nil, fmt.Errorf("overlay: patch %s.%s: %w", p.Schema, name, err)
			}
			p.props = append(p.props, namedSchema{name, s})
		}
	}
	for _, s := range o.Schemas {
		if s.Name == "" || s.Reason == "" {
			return nil, fmt.Errorf("overlay: schema entries need name and reason")
		}
	}
	return &o, nil
}

// Apply adds the overlay's schemas and properties to doc. A schema or
// property the spec already has is left as the spec says and reported stale:
// the spec caught up, and the overlay entry can go. A patch whose target
// schema the pruned spec lacks is reported stale too.
func (o *Overlay) Apply(doc *openapi3.T) ([]Applied, error) {
	var out []Applied
	schemas := doc.Components.Schemas
	for _, s := range o.Schemas {
		a := Applied{Target: s.Name, Reason: s.Reason}
		if _, ok := schemas[s.Name]; ok {
			a.Stale = "the spec declares this schema"
		} else {
			v, err := toSchema(s.Schema)
			if err != nil {
				return nil, fmt.Errorf("overlay: schema %s: %w", s.Name, err)
			}
			schemas[s.Name] = &openapi3.SchemaRef{Value: v}
		}
		out = append(out, a)
	}
	for _, p := range o.Patches {
		target, ok := schemas[p.Schema]
		for _, ns := range p.props {
			a := Applied{Target: p.Schema + "." + ns.name, Reason: p.Reason}
			switch {
			case !ok || target.Value == nil || target.Ref != "":
				a.Stale = "the pruned spec has no component schema " + p.Schema
			case target.Value.Properties[ns.name] != nil:
				a.Stale = "the spec declares this property"
			default:
				if target.Value.Properties == nil {
					target.Value.Properties = openapi3.Schemas{}
				}
				target.Value.Properties[ns.name] = &openapi3.SchemaRef{Value: ns.schema}
			}
			out = append(out, a)
		}
		for _, name := range p.Remove {
			a := Applied{Target: p.Schema + "." + name + " (removed)", Reason: p.Reason}
			switch {
			case !ok || target.Value == nil || target.Ref != "":
				a.Stale = "the pruned spec has no component schema " + p.Schema
			case !removeProperty(target.Value, name):
				a.Stale = "the schema has no such property"
			}
			out = append(out, a)
		}
		for _, name := range p.RemoveVariants {
			a := Applied{Target: p.Schema + " variant " + name + " (removed)", Reason: p.Reason}
			ref := "#/components/schemas/" + name
			isIt := func(r *openapi3.SchemaRef) bool { return r.Ref == ref }
			switch {
			case !ok || target.Value == nil || target.Ref != "":
				a.Stale = "the pruned spec has no component schema " + p.Schema
			case slices.ContainsFunc(target.Value.OneOf, isIt):
				target.Value.OneOf = slices.DeleteFunc(target.Value.OneOf, isIt)
			case slices.ContainsFunc(target.Value.AnyOf, isIt):
				target.Value.AnyOf = slices.DeleteFunc(target.Value.AnyOf, isIt)
			default:
				a.Stale = "the schema has no such variant"
			}
			out = append(out, a)
		}
		for _, g := range p.Exclusive {
			a := Applied{Target: fmt.Sprintf("%s exclusive %v", p.Schema, g), Reason: p.Reason}
			switch {
			case !ok || target.Value == nil || target.Ref != "":
				a.Stale = "the pruned spec has no component schema " + p.Schema
			case slices.ContainsFunc(g, func(name string) bool { return target.Value.Properties[name] == nil }):
				a.Stale = "the schema does not declare all of them"
			default:
				groups, _ := target.Value.Extensions[ExclusiveExt].([][]string)
				if target.Value.Extensions == nil {
					target.Value.Extensions = map[string]any{}
				}
				target.Value.Extensions[ExclusiveExt] = append(groups, slices.Clone(g))
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// removeProperty takes a property out of a schema, or out of the allOf
// part that declares it; ok false if none does.
func removeProperty(s *openapi3.Schema, name string) bool {
	if s.Properties[name] != nil {
		delete(s.Properties, name)
		s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		return true
	}
	for _, part := range s.AllOf {
		if part.Value != nil && removeProperty(part.Value, name) {
			return true
		}
	}
	return false
}

func toSchema(n yaml.Node) (*openapi3.Schema, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var s openapi3.Schema
	if err := s.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return &s, nil
}
