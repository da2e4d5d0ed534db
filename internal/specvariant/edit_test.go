package specvariant

import (
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	spec := `openapi: 3.1.0
components:
  schemas:
    U:
      anyOf:
        - $ref: '#/components/schemas/A'
        - $ref: '#/components/schemas/B'
    A:
      type: object
      required: [x, y]
      properties:
        x: {type: string, enum: [a, b]}
        y: {type: integer}
`
	out, err := Apply([]byte(spec), []Edit{
		{Op: Remove, Pointer: "/components/schemas/A/properties/y"},
		{Op: Drop, Pointer: "/components/schemas/A/required", Value: "y"},
		{Op: Drop, Pointer: "/components/schemas/U/anyOf", Value: "#/components/schemas/B"},
		{Op: Drop, Pointer: "/components/schemas/A/properties/x/enum", Value: "b"},
		{Op: Append, Pointer: "/components/schemas/A/properties/x/enum", Value: "c"},
		{Op: Set, Pointer: "/components/schemas/A/properties/z", Value: "{type: boolean}"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `openapi: 3.1.0
components:
  schemas:
    U:
      anyOf:
        - $ref: '#/components/schemas/A'
    A:
      type: object
      required: [x]
      properties:
        x: {type: string, enum: [a, c]}
        z: {type: boolean}
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	for _, e := range []Edit{
		{Op: Remove, Pointer: "/components/schemas/A/properties/nope"},
		{Op: Drop, Pointer: "/components/schemas/U/anyOf", Value: "#/components/schemas/C"},
		{Op: Append, Pointer: "/components/schemas/A/type", Value: "x"},
		{Op: Set, Pointer: "components/schemas/A", Value: "{}"},
	} {
		if _, err := Apply([]byte(spec), []Edit{e}); err == nil || !strings.Contains(err.Error(), e.Op.String()) {
			t.Errorf("%v: err = %v, want one naming the edit", e, err)
		}
	}
}
