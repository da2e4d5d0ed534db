package postgen

import (
	"bytes"
	"fmt"
	"regexp"
)

// The spec-validators step.
const (
	SpecValidatorsStep   = "spec-validators"
	SpecValidatorsReason = "ogen's Validate() calls an object's pluggable validators (x-ogen-validate, declared by the normalizer's spec-validation rule) through validate.ValidateWith, which ogen v1.24.0's runtime lacks; the calls go to this package's validateWith, which checks spec-required fields and exclusive groups"
	// ValidateWithFunc is the package-level function the calls go to.
	ValidateWithFunc = "validateWith"
)

var (
	ogenValidateWith = []byte("validate.ValidateWith(")
	ogenOgen         = []byte("validate.Ogen(")
	// ogen repeats an object's validators where it validates the object as
	// an element (a union variant, a field): right after calling its
	// Validate(), which has run them.
	repeated = regexp.MustCompile(`if err := ([\w.\[\]]+)\.Validate\(\); err != nil \{\s*return err\s*\}\s*if err := validate\.Ogen\("[^"]+", ([\w.\[\]]+),`)
)

// AlreadyValidatedFunc is what the repeated calls go to: it does nothing.
const AlreadyValidatedFunc = "validatedBefore"

// SpecValidators points ogen's object-level pluggable validator calls in
// src (oas_validators_gen.go) at ValidateWithFunc, and the calls ogen
// repeats where it validates such an object as an element, right after its
// Validate(), at AlreadyValidatedFunc. want is the number of
// calls ogen's IR says there are (one per validator of each object); any
// other count fails: ogen's template changed.
func SpecValidators(src []byte, want int) ([]byte, int, error) {
	n := bytes.Count(src, ogenValidateWith)
	if n != want {
		return nil, 0, fmt.Errorf("postgen: %s: found %d calls of validate.ValidateWith, ogen's IR has %d object validators: its templates changed; the step needs updating", SpecValidatorsStep, n, want)
	}
	// The repeated calls: each must follow a Validate() of the same value.
	ogen := bytes.Count(src, ogenOgen)
	follow := 0
	for _, m := range repeated.FindAllSubmatch(src, -1) {
		if bytes.Equal(m[1], m[2]) {
			follow++
		}
	}
	if follow != ogen {
		return nil, 0, fmt.Errorf("postgen: %s: %d calls of validate.Ogen, %d of them right after a Validate() of the same value: its templates changed; the step needs updating", SpecValidatorsStep, ogen, follow)
	}
	src = bytes.ReplaceAll(src, ogenValidateWith, []byte(ValidateWithFunc+"("))
	return bytes.ReplaceAll(src, ogenOgen, []byte(AlreadyValidatedFunc+"(")), n, nil
}

// ValidateWithSource is the Go source of ValidateWithFunc and what it
// needs: each object type with validators has a method specField(name)
// (present, null, known bool), generated beside it.
const ValidateWithSource = `
// ` + AlreadyValidatedFunc + ` stands for the calls ogen repeats after an object's
// Validate(), which has run its validators (step ` + SpecValidatorsStep + `).
func ` + AlreadyValidatedFunc + `(string, any, any) error { return nil }

// errSpecRequired is the error of a field the spec requires that is absent.
var errSpecRequired = errors.New("required by the spec")

// ` + ValidateWithFunc + ` runs the pluggable validator name (x-ogen-validate of the
// normalized spec) on v, an object with a specField method.
func ` + ValidateWithFunc + `(name string, v any, params any) error {
	obj, ok := v.(interface{ specField(string) (bool, bool, bool) })
	if !ok {
		return errors.Errorf("%T has no spec fields", v)
	}
	// field says whether the field p is sent, and sent with a value.
	field := func(p any) (string, bool, bool, error) {
		name, _ := p.(string)
		present, null, known := obj.specField(name)
		if !known {
			return "", false, false, errors.Errorf("%T has no field %q", v, p)
		}
		return name, present, present && !null, nil
	}
	list, _ := params.([]any)
	var failures []validate.FieldError
	switch name {
	case "x-spec-required":
		for _, p := range list {
			name, present, _, err := field(p)
			if err != nil {
				return err
			}
			if !present { // (null is present: a required field may be nullable)
				failures = append(failures, validate.FieldError{Name: name, Error: errSpecRequired})
			}
		}
	case "x-exclusive":
		for _, g := range list {
			group, _ := g.([]any)
			var sent []string
			for _, p := range group {
				name, _, value, err := field(p)
				if err != nil {
					return err
				}
				if value { // (null is not a choice)
					sent = append(sent, name)
				}
			}
			if len(sent) > 1 {
				failures = append(failures, validate.FieldError{Name: sent[1], Error: errors.Errorf("not allowed together with %q", sent[0])})
			}
		}
	default:
		return errors.Errorf("unknown validator %q", name)
	}
	if len(failures) > 0 {
		return &validate.Error{Fields: failures}
	}
	return nil
}
`
