package normalize

import "testing"

// The constructs of OpenRouter's descriptions from late 2025 to spring 2026
// (issue 18), each on a minimal schema of its shape. ogen_test.go runs ogen
// and the shape tables on the same shapes.

const providerSort = `"ProviderSort": {"type": "string", "enum": ["price", "throughput"]}`

func TestRuleScalarAllOf(t *testing.T) {
	const rule = "scalar-allof"
	runRuleCases(t, rule, []ruleCase{{
		name: "a referenced enum and a description",
		doc: schemasDoc(`{` + providerSort + `, "Prefs": {"type": "object", "properties": {
			"sort": {"allOf": [{"$ref": "#/components/schemas/ProviderSort"}, {"description": "how to sort"}]}}}}`),
		hits: []wantHit{{Schema: "Prefs", Pointer: "/components/schemas/Prefs/properties/sort", Detail: "allOf of ProviderSort and annotations -> $ref"}},
		want: map[string]string{"/components/schemas/Prefs/properties/sort": `{"$ref": "#/components/schemas/ProviderSort"}`},
	}, {
		name: "a typed allOf of a referenced enum",
		doc: schemasDoc(`{` + providerSort + `, "Prefs": {"type": "object", "properties": {
			"sort": {"type": "string", "description": "how", "allOf": [{"$ref": "#/components/schemas/ProviderSort"}]}}}}`),
		hits: []wantHit{{Schema: "Prefs", Pointer: "/components/schemas/Prefs/properties/sort", Detail: "-> $ref"}},
		want: map[string]string{"/components/schemas/Prefs/properties/sort": `{"$ref": "#/components/schemas/ProviderSort"}`},
	}, {
		name: "a referenced enum made nullable",
		doc: schemasDoc(`{` + providerSort + `, "Prefs": {"type": "object", "properties": {
			"sort": {"allOf": [{"$ref": "#/components/schemas/ProviderSort"}, {"description": "how", "nullable": true}]}}}}`),
		hits: []wantHit{{Schema: "Prefs", Pointer: "/components/schemas/Prefs/properties/sort", Detail: "-> anyOf [$ref, null]"}},
		want: map[string]string{"/components/schemas/Prefs/properties/sort": `{"anyOf": [{"$ref": "#/components/schemas/ProviderSort"}, {"type": "null"}]}`},
	}, {
		name: "an inline enum and a nullable type",
		doc: schemasDoc(`{"Req": {"type": "object", "properties": {
			"service_tier": {"allOf": [{"type": "string", "enum": ["auto", "default", "flex"]}, {"type": ["string", "null"], "description": "the tier", "default": "auto"}]}}}}`),
		hits: []wantHit{{Schema: "Req", Pointer: "/components/schemas/Req/properties/service_tier", Detail: "2 non-object parts merged into one schema (type string, null, 4 enum values)"}},
		want: map[string]string{"/components/schemas/Req/properties/service_tier": `{"type": ["string", "null"], "enum": ["auto", "default", "flex", null], "description": "the tier", "default": "auto"}`},
	}, {
		name: "two enums intersected",
		doc: schemasDoc(`{"Req": {"type": "object", "properties": {
			"tier": {"allOf": [{"type": "string", "enum": ["a", "b", "c"]}, {"type": "string", "enum": ["b", "c", "d"]}]}}}}`),
		hits: []wantHit{{Schema: "Req", Pointer: "/components/schemas/Req/properties/tier", Detail: "type string, 2 enum values"}},
		want: map[string]string{"/components/schemas/Req/properties/tier": `{"type": "string", "enum": ["b", "c"]}`},
	}, {
		name: "one bound in both parts, annotations differing",
		doc: schemasDoc(`{"Req": {"type": "object", "properties": {
			"n": {"allOf": [{"type": "integer", "minimum": 1, "description": "a"}, {"type": ["integer", "null"], "minimum": 1, "maximum": 9, "description": "b"}]}}}}`),
		hits: []wantHit{{Schema: "Req", Pointer: "/components/schemas/Req/properties/n", Detail: "(type integer, null, maximum, minimum)"}},
		want: map[string]string{"/components/schemas/Req/properties/n": `{"type": ["integer", "null"], "minimum": 1, "maximum": 9, "description": "a"}`},
	}})
	runUntouched(t, rule, map[string]string{
		"object parts": schemasDoc(`{"Base": {"type": "object", "properties": {"id": {"type": "string"}}},
			"Derived": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"description": "d"}]}}`),
		"an object and a scalar": schemasDoc(`{"X": {"allOf": [{"type": "object", "properties": {"id": {"type": "string"}}}, {"type": "string"}]}}`),
		"annotations only":       schemasDoc(`{"X": {"allOf": [{"description": "a"}, {"title": "b"}]}}`),
		"disjoint enums":         schemasDoc(`{"X": {"allOf": [{"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["b"]}]}}`),
		// Merging would keep the first bound and drop the second: the parts
		// disagree, and the rule refuses rather than loosen.
		"conflicting bounds":   schemasDoc(`{"X": {"allOf": [{"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 5, "description": "d"}]}}`),
		"conflicting patterns": schemasDoc(`{"X": {"allOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "b$"}]}}`),
	})
}

// streamDoc is a document with one streaming operation whose event-stream
// response has the given schema.
func streamDoc(event, schemas string) string {
	return `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
		"paths": {"/chat/completions": {"post": {"responses": {"200": {"description": "ok", "content": {
			"text/event-stream": {"schema": ` + event + `}}}}}}},
		"components": {"schemas": ` + schemas + `}}`
}

const events = `{
	"Created": {"type": "object", "properties": {"type": {"type": "string", "enum": ["response.created"]}}},
	"Delta": {"type": "object", "properties": {"type": {"type": "string", "enum": ["response.output_text.delta"]}, "delta": {"type": "string"}}}}`

func TestRuleInlineEvents(t *testing.T) {
	const rule = "inline-events"
	const ptr = "/paths/~1chat~1completions/post/responses/200/content/text~1event-stream/schema"
	runRuleCases(t, rule, []ruleCase{{
		name: "an event union in the data envelope",
		doc: streamDoc(`{"type": "object", "properties": {"data": {"oneOf": [
			{"$ref": "#/components/schemas/Created"}, {"$ref": "#/components/schemas/Delta"}]}}}`, events),
		hits: []wantHit{{Pointer: ptr + "/properties/data", Detail: "moved to component ChatCompletionsStreamEvent"}},
		want: map[string]string{
			ptr + "/properties/data":                         `{"$ref": "#/components/schemas/ChatCompletionsStreamEvent"}`,
			"/components/schemas/ChatCompletionsStreamEvent": `{"oneOf": [{"$ref": "#/components/schemas/Created"}, {"$ref": "#/components/schemas/Delta"}]}`,
		},
	}, {
		name: "a chunk inline in a component envelope, by title",
		doc: streamDoc(`{"$ref": "#/components/schemas/Streaming"}`, `{"Streaming": {"type": "object", "properties": {"data": {
			"title": "chat completion chunk", "type": "object", "properties": {"id": {"type": "string"}}}}}}`),
		hits: []wantHit{{Schema: "Streaming", Pointer: "/components/schemas/Streaming/properties/data", Detail: "moved to component ChatCompletionChunk"}},
		want: map[string]string{"/components/schemas/Streaming/properties/data": `{"$ref": "#/components/schemas/ChatCompletionChunk"}`},
	}, {
		name: "one event without an envelope, by its type",
		doc:  streamDoc(`{"type": "object", "properties": {"type": {"type": "string", "const": "response.done"}, "id": {"type": "string"}}}`, `{}`),
		hits: []wantHit{{Pointer: ptr, Detail: "moved to component ResponseDoneEvent"}},
		want: map[string]string{ptr: `{"$ref": "#/components/schemas/ResponseDoneEvent"}`},
	}})
	runUntouched(t, rule, map[string]string{
		"components already": streamDoc(`{"type": "object", "properties": {"data": {"$ref": "#/components/schemas/Created"}}}`, events),
		"no stream":          schemasDoc(events),
	})
}

// Chat messages as a late-2025 OpenRouter spec wrote them: a oneOf without
// a discriminator, the variants sharing content and name, role a const.
func messages(kw string, withDisc bool) string {
	msg := func(role, extra string) string {
		return `{"type": "object", "required": ["role", "content"], "properties": {"role": {"type": "string", "const": "` + role + `"},
			"content": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}, "name": {"type": "string"}` + extra + `}}`
	}
	disc := ""
	if withDisc {
		disc = `, "discriminator": {"propertyName": "role"}`
	}
	return schemasDoc(`{
		"SystemMessage": ` + msg("system", "") + `,
		"UserMessage": ` + msg("user", "") + `,
		"ToolMessage": ` + msg("tool", `, "tool_call_id": {"type": "string"}`) + `,
		"Message": {"` + kw + `": [{"$ref": "#/components/schemas/SystemMessage"}, {"$ref": "#/components/schemas/UserMessage"},
			{"$ref": "#/components/schemas/ToolMessage"}, ` + msg("developer", "") + `]` + disc + `}}`)
}

func TestRuleInferDiscriminator(t *testing.T) {
	const rule = "infer-discriminator"
	mapping := `{"propertyName": "role", "mapping": {"system": "#/components/schemas/SystemMessage", "user": "#/components/schemas/UserMessage",
		"tool": "#/components/schemas/ToolMessage", "developer": "#/components/schemas/MessageDeveloper"}}`
	runRuleCases(t, rule, []ruleCase{{
		name: "messages told apart by role (oneOf)",
		doc:  messages("oneOf", false),
		hits: []wantHit{{Schema: "Message", Pointer: "/components/schemas/Message", Detail: `discriminator "role": 4 values over 4 variants`}},
		want: map[string]string{
			"/components/schemas/Message/discriminator":            mapping,
			"/components/schemas/Message/oneOf/3":                  `{"$ref": "#/components/schemas/MessageDeveloper"}`,
			"/components/schemas/MessageDeveloper/properties/role": `{"type": "string", "const": "developer"}`,
		},
	}, {
		name: "messages told apart by role (anyOf)",
		doc:  messages("anyOf", false),
		hits: []wantHit{{Schema: "Message", Pointer: "/components/schemas/Message", Detail: `discriminator "role"`}},
		want: map[string]string{"/components/schemas/Message/discriminator": mapping},
	}, {
		name: "nothing tells them apart: merged",
		doc: schemasDoc(`{"A": {"type": "object", "properties": {"text": {"type": "string"}}},
			"B": {"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "integer"}}},
			"C": {"type": "object", "properties": {"n": {"type": "integer"}}},
			"U": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}, {"$ref": "#/components/schemas/C"}]}}`),
		hits:   []wantHit{{Schema: "U", Pointer: "/components/schemas/U", Detail: "3 object variants [A B C] merged into one"}},
		want:   map[string]string{"/components/schemas/U/properties": `{"text": {"type": "string"}, "n": {"type": "integer"}}`},
		absent: []string{"/components/schemas/U/oneOf"},
	}})
	runUntouched(t, rule, map[string]string{
		"declared discriminator": messages("oneOf", true),
		"told apart by type": schemasDoc(`{"A": {"type": "object", "properties": {"type": {"const": "a"}, "role": {"const": "x"}}},
			"B": {"type": "object", "properties": {"type": {"const": "b"}, "role": {"const": "y"}}},
			"U": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}}`),
		"told apart by their own fields": schemasDoc(`{"A": {"type": "object", "properties": {"text": {"type": "string"}}},
			"B": {"type": "object", "properties": {"image": {"type": "string"}}},
			"U": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}}`),
		// ogen infers this oneOf by text and image; an optional format made
		// its discriminator would reject the payloads that leave it out.
		"told apart by their own fields, an optional enum beside": schemasDoc(`{
			"A": {"type": "object", "properties": {"text": {"type": "string"}, "format": {"type": "string", "enum": ["a"]}}},
			"B": {"type": "object", "properties": {"image": {"type": "string"}, "format": {"type": "string", "enum": ["b"]}}},
			"U": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}}`),
	})
}

const parts = `"InputText": {"type": "object", "properties": {"type": {"type": "string", "enum": ["input_text"]}, "text": {"type": "string"}}},
	"InputImage": {"type": "object", "properties": {"type": {"type": "string", "enum": ["input_image"]}, "image_url": {"type": "string"}}},
	"Part": {"oneOf": [{"$ref": "#/components/schemas/InputText"}, {"$ref": "#/components/schemas/InputImage"}]}`

func TestRuleSameKindVariants(t *testing.T) {
	const rule = "same-kind-variants"
	msg := func(content string) string {
		return schemasDoc(`{` + parts + `, "Msg": {"type": "object", "properties": {"content": ` + content + `}}}`)
	}
	const ptr = "/components/schemas/Msg/properties/content"
	runRuleCases(t, rule, []ruleCase{{
		name: "two arrays of one item schema (sum types with same names)",
		doc: msg(`{"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Part"}}, {"type": "string"},
			{"type": "array", "items": {"$ref": "#/components/schemas/Part"}}, {"type": "null"}]}`),
		hits: []wantHit{{Schema: "Msg", Pointer: ptr, Detail: `merged 2 identical array variants {"items":{"$ref":"#/components/schemas/Part"},"type":"array"}`}},
		want: map[string]string{ptr: `{"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Part"}}, {"type": "string"}, {"type": "null"}]}`},
	}, {
		name: "two identical arrays, one nullable",
		doc: msg(`{"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/InputText"}},
			{"type": ["array", "null"], "items": {"$ref": "#/components/schemas/InputText"}}]}`),
		hits: []wantHit{{Schema: "Msg", Pointer: ptr, Detail: `merged 2 identical array variants {"items":{"$ref":"#/components/schemas/InputText"},"type":"array"}`}},
		want: map[string]string{ptr: `{"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/InputText"}}, {"type": "null"}]}`},
	}, {
		name: "one reference twice, two identical integers",
		doc:  msg(`{"oneOf": [{"$ref": "#/components/schemas/InputText"}, {"type": "integer", "minimum": 1}, {"$ref": "#/components/schemas/InputText"}, {"type": "integer", "minimum": 1}]}`),
		hits: []wantHit{{Schema: "Msg", Pointer: ptr, Detail: "merged 2 references to InputText, 2 identical integer variants"}},
		want: map[string]string{ptr: `{"oneOf": [{"$ref": "#/components/schemas/InputText"}, {"type": "integer", "minimum": 1}]}`},
	}})
	runUntouched(t, rule, map[string]string{
		"one of each kind": msg(`{"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Part"}}, {"type": "string"}, {"type": "integer"}, {"type": "null"}]}`),
		"strings and objects are other rules'": msg(`{"anyOf": [{"type": "string"}, {"type": "string", "enum": ["a"]},
			{"$ref": "#/components/schemas/InputText"}, {"$ref": "#/components/schemas/InputImage"}]}`),
		// One array of the union of the items would accept mixed arrays.
		"arrays of different items": msg(`{"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/InputText"}},
			{"type": ["array", "null"], "items": {"$ref": "#/components/schemas/InputImage"}}]}`),
		// A bare integer would drop both enums.
		"integers of different enums": msg(`{"oneOf": [{"type": "integer", "enum": [1, 2]}, {"type": "integer", "enum": [3]}]}`),
		// Not every pair is identical: the whole union is left for ogen to report.
		"a repeated reference beside different integers": msg(`{"oneOf": [{"$ref": "#/components/schemas/InputText"}, {"type": "integer", "minimum": 1},
			{"$ref": "#/components/schemas/InputText"}, {"type": "integer"}]}`),
	})
}
