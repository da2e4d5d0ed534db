package openapi

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/normalize"
	"github.com/transponder-dev/transponder/openapi/internal/oasgen"
	"github.com/transponder-dev/transponder/openapi/internal/overlay"
	"github.com/transponder-dev/transponder/openapi/internal/postgen"
	"github.com/transponder-dev/transponder/openapi/internal/prune"
	"github.com/transponder-dev/transponder/openapi/internal/tables"
	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// ReportFile is the name of the normalizer report written beside the
// generated code.
const ReportFile = "normalize_report.md"

// Prepared is a spec after prune, overlay and normalize: what ogen reads.
type Prepared struct {
	Spec     Spec
	Doc      *openapi3.T // the normalized document
	Pruned   prune.Result
	Overlays []overlay.Applied
	Rules    normalize.Report
}

// Prepare loads the spec from data (already checked against its pin) and
// runs prune → overlay → normalize. It reads nothing else.
func Prepare(s Spec, data []byte) (*Prepared, error) {
	doc, err := load(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: %s: load: %w", s.Name, err)
	}
	pr, err := prune.Prune(doc, s.Operations)
	if err != nil {
		return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
	}
	p := &Prepared{Spec: s, Pruned: pr}
	ovs, err := s.overlays()
	if err != nil {
		return nil, err
	}
	for _, data := range ovs {
		ov, err := overlay.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
		}
		applied, err := ov.Apply(doc)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
		}
		p.Overlays = append(p.Overlays, applied...)
	}
	// Reload: resolves the references the overlay wrote and proves the pruned
	// document is self-contained (a dangling $ref fails here).
	raw, err := doc.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
	}
	if doc, err = load(raw); err != nil {
		return nil, fmt.Errorf("openapi: %s: pruned spec: %w", s.Name, err)
	}
	if p.Rules, err = normalize.Normalize(doc, normalize.Rules()); err != nil {
		return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
	}
	p.Doc = doc
	return p, nil
}

// load parses an OpenAPI document. External references are refused: the
// pinned specs are self-contained, and a generator must not fetch anything.
func load(data []byte) (*openapi3.T, error) {
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = false
	return l.LoadFromData(data)
}

// Generated is the output for one spec: files relative to Spec.Output.
type Generated struct {
	*Prepared
	Files map[string][]byte
	// Tables is the codec's shape table (Go source for package codec), to
	// be written to Spec.Tables; nil if the manifest names no table file.
	Tables []byte
	Types  map[string]string // component schema → Go type
	// Holder lists the schemas ogen typed only through the holder schema
	// (HolderSchema): nothing the kept operations reach names them directly.
	Holder []string
	// DefaultsUnapplied lists unions with a default variant that ogen did not
	// generate as a discriminated union of their own (listed in the report).
	DefaultsUnapplied []string
	// Steps are the post-generation steps applied to ogen's output.
	Steps []postgen.Step
	names map[string]bool
}

// HolderSchema and HolderPath name the synthetic schema and operation that
// make ogen generate a type for every schema of the normalized spec.
const (
	HolderSchema = "TransponderSchemaHolder"
	HolderPath   = "/x-transponder/schema-holder"
)

func addHolder(doc *openapi3.T, names []string) {
	holder := &openapi3.Schema{
		Type:        &openapi3.Types{openapi3.TypeObject},
		Description: "Not an API object: references the schemas no kept operation names directly, so each has a Go type.",
		Properties:  openapi3.Schemas{},
	}
	for _, n := range names {
		holder.Properties[n] = &openapi3.SchemaRef{Ref: walk.SchemaPrefix + n, Value: doc.Components.Schemas[n].Value}
	}
	doc.Components.Schemas[HolderSchema] = &openapi3.SchemaRef{Value: holder}
	resp := openapi3.NewResponse().WithDescription("the holder").
		WithContent(openapi3.NewContentWithJSONSchemaRef(&openapi3.SchemaRef{Ref: walk.SchemaPrefix + HolderSchema, Value: holder}))
	op := &openapi3.Operation{OperationID: "transponderSchemaHolder", Responses: openapi3.NewResponses(openapi3.WithStatus(200, &openapi3.ResponseRef{Value: resp}))}
	item := &openapi3.PathItem{}
	item.SetOperation("GET", op)
	doc.Paths.Set(HolderPath, item)
}

// Generate runs the whole pipeline for one spec on its bytes.
func Generate(s Spec, data []byte) (*Generated, error) {
	p, err := Prepare(s, data)
	if err != nil {
		return nil, err
	}
	spec, err := p.Doc.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
	}
	out, err := oasgen.Generate(spec, s.Package, defaultVariants(p.Doc))
	if err != nil {
		return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
	}
	g := &Generated{Prepared: p, Files: out.Files, Types: out.Types, Steps: out.Steps, names: out.Names}
	// ogen makes types only for what operations reach, and merges allOf parts
	// and flattened unions into their users. The schemas it left without a
	// type of their own are referenced from one holder schema, served by one
	// synthetic operation, and ogen runs again: then every schema is a type.
	if g.Holder = g.Missing(); len(g.Holder) > 0 {
		addHolder(p.Doc, g.Holder)
		if spec, err = p.Doc.MarshalJSON(); err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", s.Name, err)
		}
		if out, err = oasgen.Generate(spec, s.Package, defaultVariants(p.Doc)); err != nil {
			return nil, fmt.Errorf("openapi: %s: with the schema holder: %w", s.Name, err)
		}
		g.Files, g.Types, g.Steps, g.names = out.Files, out.Types, out.Steps, out.Names
	}
	for _, comp := range walk.SortedKeys(defaultVariants(p.Doc)) {
		if !out.Defaults[comp] {
			g.DefaultsUnapplied = append(g.DefaultsUnapplied, comp)
		}
	}
	if missing := g.Missing(); len(missing) > 0 {
		return nil, fmt.Errorf("openapi: %s: %d schema(s) have no Go type: %s", s.Name, len(missing), strings.Join(missing, ", "))
	}
	g.Files[ReportFile] = g.report()
	if s.Tables != "" {
		if g.Tables, err = tables.Generate(p.Doc, tables.Options{Var: s.Dialect, Name: s.Name, Source: s.File, Skip: HolderSchema}); err != nil {
			return nil, fmt.Errorf("openapi: %w", err)
		}
	}
	return g, nil
}

// GoType returns the Go type a component schema became: a named type of the
// generated package, or, for a schema that is a bare primitive (an open
// string enum, say), the primitive ogen uses in its place.
func (g *Generated) GoType(name string) (string, bool) { return g.goType(name, 0) }

func (g *Generated) goType(name string, depth int) (string, bool) {
	if t, ok := g.Types[name]; ok {
		return t, true
	}
	if t := walk.GoName(name); g.names[t] {
		return t, true
	}
	ref := g.Doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return "", false
	}
	// An alias (a $ref, or a union of one $ref) is the type it names.
	target := ref.Ref
	if u := append(append(openapi3.SchemaRefs{}, ref.Value.OneOf...), ref.Value.AnyOf...); target == "" && len(u) == 1 && len(ref.Value.Properties) == 0 {
		target = u[0].Ref
	}
	if t := walk.ComponentName(target); t != "" && t != name && depth < 8 {
		return g.goType(t, depth+1)
	}
	return primitive(ref.Value)
}

// Missing lists the component schemas of the normalized spec that have no Go
// type. It is empty after a successful Generate.
func (g *Generated) Missing() []string {
	var out []string
	for _, name := range walk.SortedKeys(g.Doc.Components.Schemas) {
		if _, ok := g.GoType(name); !ok {
			out = append(out, name)
		}
	}
	return out
}

func primitive(s *openapi3.Schema) (string, bool) {
	if len(s.Properties)+len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || len(s.Enum) > 0 {
		return "", false
	}
	if s.Type == nil {
		return "jx.Raw", true
	}
	types := slices.DeleteFunc(slices.Clone(s.Type.Slice()), func(t string) bool { return t == openapi3.TypeNull })
	if len(types) != 1 {
		return "", false
	}
	switch types[0] {
	case openapi3.TypeString:
		return "string", true
	case openapi3.TypeBoolean:
		return "bool", true
	case openapi3.TypeInteger:
		return "int", true
	case openapi3.TypeNumber:
		return "float64", true
	case openapi3.TypeArray:
		if s.Items != nil && s.Items.Ref != "" {
			return "[]" + walk.GoName(walk.ComponentName(s.Items.Ref)), true
		}
		if s.Items != nil && s.Items.Value != nil {
			if t, ok := primitive(s.Items.Value); ok {
				return "[]" + t, true
			}
		}
		return "[]jx.Raw", true
	}
	return "", false
}

// OutputPath is where a generated file goes, relative to the module root.
func (g *Generated) OutputPath(file string) string { return path.Join(g.Spec.Output, file) }

// defaultVariants lists the unions that the normalizer gave a default variant.
func defaultVariants(doc *openapi3.T) map[string]string {
	out := map[string]string{}
	for name, ref := range doc.Components.Schemas {
		if ref.Value == nil {
			continue
		}
		if v, ok := ref.Value.Extensions[normalize.DefaultVariantExt].(string); ok {
			out[name] = v
		}
	}
	return out
}

// Tables runs prune → overlay → normalize on the spec's bytes and returns
// the codec's shape table (Go source): what a derived dialect generates.
func Tables(s Spec, data []byte) ([]byte, error) {
	p, err := Prepare(s, data)
	if err != nil {
		return nil, err
	}
	out, err := tables.Generate(p.Doc, tables.Options{Var: s.Dialect, Name: s.Name, Source: s.File, Skip: HolderSchema})
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return out, nil
}

// TablesJSON runs prune → overlay → normalize on the spec's bytes (not
// checked against its pin: a spec update is what it is for) and returns
// the codec's shape table as JSON, for codec.LoadDialect: the alignment
// matrix of a new spec, before anything is generated from it.
func TablesJSON(s Spec, data []byte) ([]byte, error) {
	p, err := Prepare(s, data)
	if err != nil {
		return nil, err
	}
	out, err := tables.GenerateJSON(p.Doc, tables.Options{Var: s.Dialect, Name: s.Name, Source: s.File, Skip: HolderSchema})
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return out, nil
}
