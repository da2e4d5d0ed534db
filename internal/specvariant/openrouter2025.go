// Package specvariant rewrites the pinned specs into variants that earlier
// (or later) releases published: test support for "a spec update
// regenerates with no hand edit" (issue 18). Only tests import it.
package specvariant

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-faster/yaml"
)

// OpenRouter2025 rewrites the pinned OpenRouter description (YAML or JSON)
// into the constructs OpenRouter published from late 2025 to spring 2026,
// which the normalizer's rules scalar-allof, inline-events,
// infer-discriminator and same-kind-variants take:
//
//   - ProviderPreferences.sort names ProviderSort as {type: string, allOf:
//     [$ref ProviderSort], description}, and every service_tier written as an
//     inline enum becomes allOf [{type: string, enum}, {type: [string, null],
//     description}];
//   - the Responses stream's event union StreamEvents writes
//     TextDeltaEvent inline (its mapping entry dropped), and the chat
//     stream's envelope ChatStreamingResponse writes its chunk inline;
//   - ChatMessages loses its discriminator and each message's role is a
//     const;
//   - InputMessageItem.content is anyOf [array of InputContent, array of
//     InputContent, null], InputContent being its item union as a component.
//
// The output is JSON (a YAML document too), keys sorted: deterministic.
func OpenRouter2025(spec []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, fmt.Errorf("specvariant: %w", err)
	}
	schemas, _ := dig(doc, "components", "schemas").(map[string]any)
	if schemas == nil {
		return nil, errors.New("specvariant: no components.schemas")
	}
	for _, step := range []func(map[string]any) error{providerSort, serviceTier, inlineEvents, messagesWithoutDiscriminator, sameNamedContent} {
		if err := step(schemas); err != nil {
			return nil, err
		}
	}
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil, fmt.Errorf("specvariant: %w", err)
	}
	return append(out, '\n'), nil
}

func dig(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func isRef(v any, name string) bool {
	m, ok := v.(map[string]any)
	return ok && m["$ref"] == "#/components/schemas/"+name
}

// clone deep-copies a decoded JSON value.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = clone(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = clone(x)
		}
		return out
	}
	return v
}

func providerSort(schemas map[string]any) error {
	sort, _ := dig(schemas, "ProviderPreferences", "properties", "sort").(map[string]any)
	variants, _ := sort["anyOf"].([]any)
	i := slices.IndexFunc(variants, func(v any) bool { return isRef(v, "ProviderSort") })
	if i < 0 {
		return errors.New("specvariant: ProviderPreferences.sort has no ProviderSort variant")
	}
	variants[i] = map[string]any{"type": "string", "allOf": []any{ref("ProviderSort")}, "description": "The provider sorting strategy"}
	return nil
}

func serviceTier(schemas map[string]any) error {
	n := 0
	for _, name := range sortedKeys(schemas) {
		props, _ := dig(schemas, name, "properties").(map[string]any)
		tier, _ := props["service_tier"].(map[string]any)
		enum, _ := tier["enum"].([]any)
		if len(enum) == 0 {
			continue
		}
		values := slices.DeleteFunc(slices.Clone(enum), func(v any) bool { return v == nil })
		annot := map[string]any{"type": []any{"string", "null"}}
		if d, ok := tier["description"]; ok {
			annot["description"] = d
		}
		props["service_tier"] = map[string]any{"allOf": []any{map[string]any{"type": "string", "enum": values}, annot}}
		n++
	}
	if n == 0 {
		return errors.New("specvariant: no service_tier written as an inline enum")
	}
	return nil
}

func inlineEvents(schemas map[string]any) error {
	events, _ := schemas["StreamEvents"].(map[string]any)
	variants, _ := events["oneOf"].([]any)
	i := slices.IndexFunc(variants, func(v any) bool { return isRef(v, "TextDeltaEvent") })
	if i < 0 || schemas["TextDeltaEvent"] == nil {
		return errors.New("specvariant: StreamEvents has no TextDeltaEvent variant")
	}
	variants[i] = clone(schemas["TextDeltaEvent"])
	if mapping, _ := dig(events, "discriminator", "mapping").(map[string]any); mapping != nil {
		for _, k := range sortedKeys(mapping) {
			if mapping[k] == "#/components/schemas/TextDeltaEvent" {
				delete(mapping, k)
			}
		}
	}
	props, _ := dig(schemas, "ChatStreamingResponse", "properties").(map[string]any)
	if !isRef(props["data"], "ChatStreamChunk") || schemas["ChatStreamChunk"] == nil {
		return errors.New("specvariant: ChatStreamingResponse.data is not ChatStreamChunk")
	}
	props["data"] = clone(schemas["ChatStreamChunk"])
	return nil
}

func messagesWithoutDiscriminator(schemas map[string]any) error {
	msgs, _ := schemas["ChatMessages"].(map[string]any)
	variants, _ := msgs["oneOf"].([]any)
	if msgs["discriminator"] == nil || len(variants) < 2 {
		return errors.New("specvariant: ChatMessages is not a discriminated oneOf")
	}
	delete(msgs, "discriminator")
	for _, v := range variants {
		name, _ := v.(map[string]any)["$ref"].(string)
		role, _ := dig(schemas, name[len("#/components/schemas/"):], "properties", "role").(map[string]any)
		enum, _ := role["enum"].([]any)
		if len(enum) != 1 {
			return fmt.Errorf("specvariant: %s: role is not a one-value enum", name)
		}
		delete(role, "enum")
		role["const"] = enum[0]
	}
	return nil
}

func sameNamedContent(schemas map[string]any) error {
	content, _ := dig(schemas, "InputMessageItem", "properties", "content").(map[string]any)
	if content == nil || content["items"] == nil || schemas["InputContent"] != nil {
		return errors.New("specvariant: InputMessageItem.content is not an array, or InputContent is taken")
	}
	schemas["InputContent"] = content["items"]
	array := func() any { return map[string]any{"type": "array", "items": ref("InputContent")} }
	props := schemas["InputMessageItem"].(map[string]any)["properties"].(map[string]any)
	props["content"] = map[string]any{"anyOf": []any{array(), array(), map[string]any{"type": "null"}}}
	return nil
}
