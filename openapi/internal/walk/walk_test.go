package walk

import "testing"

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"response.output_text.delta": "ResponseOutputTextDelta",
		"web_search_call":            "WebSearchCall",
		"openrouter:web_search":      "OpenrouterWebSearch",
		"InputItem":                  "InputItem",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Escape("a/b~c"); got != "a~1b~0c" {
		t.Errorf("Escape = %q", got)
	}
	for in, want := range map[string]string{
		"#/components/schemas/A":    "A",
		"#/components/schemas/A/x":  "",
		"#/components/responses/A":  "",
		MappingRef("Cat"):           "Cat",
		MappingRef("other.yaml#/A"): "",
	} {
		if got := ComponentName(in); got != want {
			t.Errorf("ComponentName(%q) = %q, want %q", in, got, want)
		}
	}
}
