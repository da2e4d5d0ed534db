// Package oasgen runs ogen in memory on a normalized spec.
package oasgen

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ogen-go/ogen"
	"github.com/ogen-go/ogen/gen"
	"github.com/ogen-go/ogen/gen/ir"

	"github.com/transponder-dev/transponder/openapi/internal/normalize"
	"github.com/transponder-dev/transponder/openapi/internal/postgen"
	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// Output is what ogen generated for one spec.
type Output struct {
	Files map[string][]byte // file name → Go source
	// Types maps each component schema name to the Go type ogen made for it.
	Types map[string]string
	// Names holds every Go type name ogen made. A component that is a
	// nullable wrapper (anyOf [X, null]) is generated under its own name
	// without a reference back to it, so callers match those by name.
	Names map[string]bool
	// Defaults holds the union components whose default variant was set.
	Defaults map[string]bool
	// Steps are the post-generation steps applied to ogen's output.
	Steps []postgen.Step
}

// NotImplementedError lists what ogen could not generate. The pipeline never
// ignores these: a spec that needs one is a normalizer rule to write.
type NotImplementedError struct {
	Messages []string
}

func (e *NotImplementedError) Error() string {
	return fmt.Sprintf("ogen: %d unsupported construct(s):\n  %s", len(e.Messages), strings.Join(e.Messages, "\n  "))
}

// Generate runs ogen on spec (JSON) with only the type and JSON codec
// features: no client, no server, no OpenTelemetry.
//
// defaults maps union components to the variant component an object without
// the discriminator property decodes as; ogen has no spec syntax for it, so it
// is set on ogen's IR before the code is written.
func Generate(spec []byte, pkg string, defaults map[string]string) (*Output, error) {
	parsed, err := ogen.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("ogen: parse: %w", err)
	}
	var ni []string
	opts := gen.Options{}
	opts.Generator.Features = &gen.FeatureOptions{DisableAll: true}
	// Collect every unsupported construct instead of stopping at the first,
	// then fail: nothing may be skipped silently.
	opts.Generator.IgnoreNotImplemented = []string{"all"}
	opts.Generator.NotImplementedHook = func(name string, err error) {
		ni = append(ni, name+": "+err.Error())
	}
	g, err := gen.NewGenerator(parsed, opts)
	if err != nil {
		return nil, fmt.Errorf("ogen: %w", err)
	}
	if len(ni) > 0 {
		slices.Sort(ni)
		return nil, &NotImplementedError{Messages: slices.Compact(ni)}
	}
	applied := map[string]bool{}
	if err := setDefaults(g, defaults, applied); err != nil {
		return nil, err
	}
	if err := checkVariantTags(g.Types()); err != nil {
		return nil, err
	}
	empty, err := encodeEmpty(g.Types())
	if err != nil {
		return nil, err
	}
	fs := memFS{}
	if err := g.WriteSource(fs, pkg); err != nil {
		return nil, fmt.Errorf("ogen: write: %w", err)
	}
	fs[NamesFile] = names(g.Types())
	out := &Output{Files: fs, Types: map[string]string{}, Names: map[string]bool{}, Defaults: applied}
	out.Steps = append(out.Steps, postgen.Step{Name: EncodeEmptyStep, Reason: EncodeEmptyReason, Count: len(empty), Detail: "array fields"})
	if err := out.postGenerate(pkg, g.Types(), empty); err != nil {
		return nil, err
	}
	for name, t := range g.Types() {
		out.Names[name] = true
		if t.Schema == nil {
			continue
		}
		comp := walk.ComponentName(t.Schema.Ref.Ptr)
		if comp == "" || t.Kind == ir.KindPointer {
			continue
		}
		if prev, ok := out.Types[comp]; !ok || name < prev {
			out.Types[comp] = name
		}
	}
	return out, nil
}

type memFS map[string][]byte

func (m memFS) WriteFile(name string, src []byte) error {
	if _, dup := m[name]; dup {
		return errors.New("ogen wrote " + name + " twice")
	}
	m[name] = src
	return nil
}

func setDefaults(g *gen.Generator, defaults map[string]string, done map[string]bool) error {
	types := g.Types()
	names := make([]string, 0, len(types))
	for name := range types {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t := types[name]
		if t.Kind != ir.KindSum || t.Schema == nil || t.SumSpec.Discriminator == "" {
			continue
		}
		comp := walk.ComponentName(t.Schema.Ref.Ptr)
		variant, ok := defaults[comp]
		if !ok {
			continue
		}
		// The template writes s.Type = <DefaultMapping><Sum>, the constant
		// of that variant; a build of the output proves the name.
		var variantType string
		for _, m := range t.SumSpec.Mapping {
			if m.Type == nil {
				continue
			}
			if (m.Type.Schema != nil && walk.ComponentName(m.Type.Schema.Ref.Ptr) == variant) || m.Type.Name == walk.GoName(variant) {
				variantType = m.Type.Name
				break
			}
		}
		if variantType == "" {
			return fmt.Errorf("ogen: default variant %s of %s: not among the mapped variants", variant, comp)
		}
		t.SumSpec.DefaultMapping = variantType
		done[comp] = true
	}
	return nil
}

// ogen's files of JSON encoders and decoders, and of validators.
const (
	jsonFile       = "oas_json_gen.go"
	validatorsFile = "oas_validators_gen.go"
)

// postGenerate applies the post-generation steps to the files ogen wrote.
func (o *Output) postGenerate(pkg string, types map[string]*ir.Type, empty []postgen.Field) error {
	src, ok := o.Files[jsonFile]
	if !ok {
		return fmt.Errorf("ogen: no %s written", jsonFile)
	}
	loops := 0
	for _, t := range types {
		switch {
		case t.IsMap():
			loops++
		case t.IsStruct():
			for _, f := range t.Fields {
				if f.Inline != ir.InlineNone {
					loops++
				}
			}
		}
	}
	rewritten, n, err := postgen.SortedMapEncoding(src, loops)
	if err != nil {
		return err
	}
	o.Files[jsonFile] = rewritten
	o.Steps = append(o.Steps, postgen.Step{Name: postgen.SortedMapEncodingStep, Reason: postgen.SortedMapEncodingReason, Count: n, Detail: "map loops in encoders"})
	vsrc, ok := o.Files[validatorsFile]
	if !ok {
		return fmt.Errorf("ogen: no %s written", validatorsFile)
	}
	calls := 0
	for _, t := range types {
		if t.IsStruct() {
			calls += len(t.Validators.Ogen)
		}
	}
	if vsrc, calls, err = postgen.SpecValidators(vsrc, calls); err != nil {
		return err
	}
	if vsrc, err = postgen.AllowNil(vsrc, empty); err != nil {
		return err
	}
	o.Steps = append(o.Steps, postgen.Step{Name: postgen.EncodeEmptyNilStep, Reason: postgen.EncodeEmptyNilReason, Count: len(empty), Detail: "nil checks"})
	o.Files[validatorsFile] = vsrc
	fields, err := specFields(types)
	if err != nil {
		return err
	}
	o.Steps = append(o.Steps, postgen.Step{Name: postgen.SpecValidatorsStep, Reason: postgen.SpecValidatorsReason, Count: calls, Detail: "object validators"})
	helpers, err := postgen.Helpers(pkg, []string{"github.com/go-faster/errors", "github.com/ogen-go/ogen/validate"}, append([]byte(postgen.ValidateWithSource), fields...))
	if err != nil {
		return err
	}
	if _, dup := o.Files[postgen.HelpersFile]; dup {
		return fmt.Errorf("ogen: wrote %s, the post-generation helpers' file", postgen.HelpersFile)
	}
	o.Files[postgen.HelpersFile] = helpers
	return nil
}

// checkVariantTags fails when a variant of a discriminated union carries
// undeclared keys (AdditionalProps) but does not declare the discriminator:
// its decoder, which sees the whole object, would keep the discriminator as
// an undeclared key and the union's encoder would write it twice.
func checkVariantTags(types map[string]*ir.Type) error {
	var bad []string
	for name, t := range types {
		if !t.IsSum() || t.SumSpec.Discriminator == "" {
			continue
		}
		for _, v := range t.SumOf {
			if !v.IsStruct() || !slices.ContainsFunc(v.Fields, func(f *ir.Field) bool { return f.Inline == ir.InlineAdditional }) {
				continue
			}
			if !slices.ContainsFunc(v.Fields, func(f *ir.Field) bool { return f.Inline == ir.InlineNone && f.Tag.JSON == t.SumSpec.Discriminator }) {
				bad = append(bad, fmt.Sprintf("%s variant %s lacks %q", name, v.Name, t.SumSpec.Discriminator))
			}
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("ogen: union variants that would keep their discriminator as an undeclared key: %s", strings.Join(bad, "; "))
	}
	return nil
}

// EncodeEmptyStep names the IR change encodeEmpty makes.
const (
	EncodeEmptyStep   = "encode-empty-arrays"
	EncodeEmptyReason = "fields tagged transponder:\"encode-empty\" (normalizer rule required-arrays) are arrays whose nil ogen writes as []: each gets its own copy of its type, with the nil semantic set to ogen's \"invalid\" (always written) from \"optional\" (left out); decoding is the same"
)

// encodeEmpty sets the nil semantic of the array fields the required-arrays
// rule tagged, so ogen's encoder writes them always ([] from nil); the
// validator's nil check that comes with it is taken out again by
// postgen.AllowNil (a nil one is written [], so it is valid). Each tagged
// field gets its own copy of its type: ogen may share one *ir.Type between
// fields, and an untagged field must keep leaving a nil out. It fails on a
// tagged field that is not an optional array: the rule and ogen disagree on
// its shape. It returns the tagged fields, sorted.
func encodeEmpty(types map[string]*ir.Type) ([]postgen.Field, error) {
	var fields []postgen.Field
	var bad []string
	for name, t := range types {
		if !t.IsStruct() {
			continue
		}
		for _, f := range t.Fields {
			if !tagged(f) {
				continue
			}
			if !f.Type.IsArray() || f.Type.NilSemantic != ir.NilOptional {
				bad = append(bad, fmt.Sprintf("%s.%s (%s, nil %s)", name, f.Name, f.Type.Go(), f.Type.NilSemantic))
				continue
			}
			own := *f.Type
			own.NilSemantic = ir.NilInvalid
			f.Type = &own
			fields = append(fields, postgen.Field{Type: t.Name, Name: f.Name})
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return nil, fmt.Errorf("ogen: fields tagged %s:%q that are not optional arrays: %s", normalize.EncodeEmptyTag, normalize.EncodeEmpty, strings.Join(bad, ", "))
	}
	slices.SortFunc(fields, func(a, b postgen.Field) int { return strings.Compare(a.Type+"."+a.Name, b.Type+"."+b.Name) })
	return slices.CompactFunc(fields, func(a, b postgen.Field) bool { return a == b }), nil
}

// tagged reports whether the required-arrays rule tagged f.
func tagged(f *ir.Field) bool {
	return f.Tag.ExtraTags[normalize.EncodeEmptyTag] == normalize.EncodeEmpty
}

// specFields returns the specField methods of the struct types with
// pluggable validators: for a JSON field name, whether the value carries it
// (an optional value set, a slice, map or pointer not nil, raw JSON not
// empty), whether it is null, and whether the type has it. A variant's discriminator is carried
// by its union (whose encoder writes it), so it counts as present.
func specFields(types map[string]*ir.Type) ([]byte, error) {
	tags := map[*ir.Type]map[string]bool{}
	for _, t := range types {
		if !t.IsSum() || t.SumSpec.Discriminator == "" {
			continue
		}
		for _, v := range t.SumOf {
			if tags[v] == nil {
				tags[v] = map[string]bool{}
			}
			tags[v][t.SumSpec.Discriminator] = true
		}
	}
	var b bytes.Buffer
	var bad []string
	for _, name := range walk.SortedKeys(types) {
		t := types[name]
		if !t.IsStruct() || len(t.Validators.Ogen) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nfunc (s *%s) specField(name string) (present, null, known bool) {\n\tswitch name {\n", t.Name)
		for _, f := range t.Fields {
			if f.Inline != ir.InlineNone || f.Tag.JSON == "" {
				continue
			}
			var cond, null = "", "false"
			switch ft := f.Type; {
			case tags[t][f.Tag.JSON]:
				cond = "true /* the union writes its discriminator */"
			case tagged(f):
				cond = "true /* always written, [] from nil (encode-empty) */"
			case ft.IsGeneric():
				cond = "s." + f.Name + ".Set"
				if ft.GenericVariant.Nullable {
					null = "s." + f.Name + ".Null"
				}
			case ft.IsArray(), ft.IsMap(), ft.IsPointer():
				cond = "s." + f.Name + " != nil"
			case ft.IsAny():
				cond = "len(s." + f.Name + ") != 0"
			default:
				bad = append(bad, fmt.Sprintf("%s.%s (%s)", t.Name, f.Name, ft.Go()))
				continue
			}
			fmt.Fprintf(&b, "\tcase %q:\n\t\treturn %s, %s, true\n", f.Tag.JSON, cond, null)
		}
		b.WriteString("\t}\n\treturn false, false, false\n}\n")
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("ogen: fields whose presence cannot be told: %s", strings.Join(bad, ", "))
	}
	return b.Bytes(), nil
}
