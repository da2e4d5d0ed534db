package postgen

import (
	"strings"
	"testing"
)

// What ogen v1.24.0's templates write for a struct with AdditionalProps, a
// map type and an array field.
const ogenEncoders = `package p

func (s *T) encodeFields(e *jx.Encoder) {
	{
		e.ArrStart()
		for _, elem := range s.Items {
			e.Str(elem)
		}
		e.ArrEnd()
	}
	for k, elem := range s.AdditionalProps {
		e.FieldStart(k)

		if len(elem) != 0 {
			e.Raw(elem)
		}
	}
}

func (s TAdditional) encodeFields(e *jx.Encoder) {
	for k, elem := range s {
		e.FieldStart(k)
		e.Raw(elem)
	}
}

func (s *T) Decode(d *jx.Decoder) error {
	for k, v := range s.AdditionalProps {
		_, _ = k, v
	}
	return nil
}
`

func TestSortedMapEncoding(t *testing.T) {
	out, n, err := SortedMapEncoding([]byte(ogenEncoders), 2)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("rewrote %d loops, want 2", n)
	}
	got := string(out)
	for _, want := range []string{
		"for _, k := range sortedKeys(s.AdditionalProps) {\n\t\telem := s.AdditionalProps[k]\n\t\te.FieldStart(k)",
		"for _, k := range sortedKeys(s) {\n\t\telem := s[k]\n\t\te.FieldStart(k)",
		"for _, elem := range s.Items {",        // arrays untouched
		"for k, v := range s.AdditionalProps {", // decoders do not emit: untouched
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// An ogen upgrade whose templates no longer write the loops the step
// expects stops the pipeline.
func TestSortedMapEncodingFailsLoudly(t *testing.T) {
	if _, _, err := SortedMapEncoding([]byte(ogenEncoders), 3); err == nil || !strings.Contains(err.Error(), "templates changed") {
		t.Errorf("3 expected, 2 found: err = %v", err)
	}
	changed := strings.ReplaceAll(ogenEncoders, "for k, elem := range", "for k := range")
	if _, _, err := SortedMapEncoding([]byte(changed), 2); err == nil {
		t.Error("no loops of the expected shape: no error")
	}
}

func TestHelpers(t *testing.T) {
	src, err := Helpers("openai", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(src), "// Code generated ") || !strings.Contains(string(src), "func sortedKeys[V any](m map[string]V) []string") {
		t.Errorf("helpers:\n%s", src)
	}
}

func TestAllowNil(t *testing.T) {
	src := []byte("package p\n\nfunc (s *T) Validate() error {\n\tif err := func() error {\n\t\tif s.A == nil {\n\t\t\treturn errors.New(\"nil is invalid value\")\n\t\t}\n\t\treturn nil\n\t}(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\nfunc (s *U) Validate() error {\n\tif s.A == nil {\n\t\treturn errors.New(\"nil is invalid value\")\n\t}\n\treturn nil\n}\n")
	out, err := AllowNil(src, []Field{{Type: "T", Name: "A"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(out), "nil is invalid value"); got != 1 {
		t.Errorf("%d nil checks left, want U's one:\n%s", got, out)
	}
	if !strings.Contains(string(out), "func (s *U) Validate() error {\n\tif s.A == nil {") {
		t.Errorf("U's check removed:\n%s", out)
	}
	// A check that is not there (an ogen upgrade changed its template): fail.
	if _, err := AllowNil(out, []Field{{Type: "T", Name: "A"}}); err == nil {
		t.Error("no error for a missing check")
	}
}
