package specvariant

import (
	"bytes"
	"testing"

	"github.com/transponder-dev/transponder/openapi"
)

// The pinned OpenRouter spec rewritten into its late-2025 constructs goes
// through the whole pipeline (ogen and the shape tables), each construct
// taken by its rule, and the rewrite is deterministic.
func TestPinnedSpecOpenRouter2025Generates(t *testing.T) {
	s, data := pinnedSpec(t, "openrouter")
	variant, err := OpenRouter2025(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := OpenRouter2025(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(variant, again) {
		t.Error("OpenRouter2025 is not deterministic")
	}
	g, err := openapi.Generate(s, variant)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Tables) == 0 {
		t.Error("no shape table")
	}
	hits := map[string][]string{}
	for _, rr := range g.Rules.Rules {
		for _, h := range rr.Hits {
			hits[rr.Name] = append(hits[rr.Name], h.Pointer)
		}
	}
	for rule, where := range map[string]string{
		"scalar-allof":        "/components/schemas/ProviderPreferences/properties/sort/anyOf/0",
		"inline-events":       "/components/schemas/ChatStreamingResponse/properties/data",
		"infer-discriminator": "/components/schemas/ChatMessages",
		"same-kind-variants":  "/components/schemas/InputMessageItem/properties/content",
	} {
		found := false
		for _, p := range hits[rule] {
			found = found || p == where
		}
		if !found {
			t.Errorf("%s: no hit at %s (hits: %v)", rule, where, hits[rule])
		}
	}
	if _, ok := g.Types["InputContent"]; !ok {
		t.Error("the content union InputContent has no Go type")
	}
}

func TestOpenRouter2025Refuses(t *testing.T) {
	for name, src := range map[string]string{
		"not a spec":      `[1, 2]`,
		"no schemas":      `{"openapi": "3.1.0"}`,
		"no ProviderSort": `{"components": {"schemas": {"ProviderPreferences": {"properties": {"sort": {"anyOf": [{"type": "null"}]}}}}}}`,
	} {
		if _, err := OpenRouter2025([]byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
