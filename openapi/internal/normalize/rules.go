package normalize

// Rules returns the normalizer's rules in the order they apply.
// The order matters: later rules see the shapes earlier rules produced.
func Rules() []Rule {
	return []Rule{
		{Name: "sse-as-json", Reason: "ogen's typed SSE needs its client (which re-POSTs when a stream ends without [DONE]); events are generated as JSON bodies instead", Apply: sseAsJSON},
		{Name: "inline-events", Reason: "the shape tables and ogen's names find an operation's event schema by component; an event union or chunk written inline in the stream response is moved to one, named by its title, its type value or the operation", Apply: inlineEvents},
		{Name: "inline-bodies", Reason: "the shape tables name each operation's request and response payload by component, and ogen (no client, no server) types no inline body; a JSON request body or 200 response written inline is moved to one, named by its title or the operation", Apply: inlineBodies},
		{Name: "object-type", Reason: "ogen makes a schema without type any JSON value (jx.Raw), though it declares properties; it is the object it describes (type object)", Apply: objectType},
		{Name: "recursive-ref", Reason: "ogen cannot follow $recursiveRef; a plain $ref to the enclosing component means the same here", Apply: recursiveRef},
		{Name: "ref-siblings", Reason: "keywords beside a $ref (default: null, description) are read by ogen as the target's own and break generation", Apply: refSiblings},
		{Name: "ref-allof", Reason: "OpenAPI 3.0 writes keywords beside a reference as allOf [$ref] (nullable: true, a description); ogen makes that a second type for the target, and a sum of same-named types when nullable: it is the $ref, anyOf [$ref, null] when nullable", Apply: refAllOf},
		{Name: "scalar-allof", Reason: "an allOf of non-object parts (a referenced enum with a description, an enum with nullable) is read as an object by the shape tables and ogen; it is the one schema its parts describe", Apply: scalarAllOf},
		{Name: "nullable-keyword", Reason: "ogen reads 3.1 null types, not OpenAPI 3.0's nullable: true, which these specs still use in places", Apply: nullableKeyword},
		{Name: "int-bounds", Reason: "integer bounds beyond int64 (±2^63 as float64) make ogen's validator overflow; int64 already bounds them", Apply: intBounds},
		{Name: "allof-override", Reason: "ogen cannot merge an allOf whose parts declare one property differently; flattened, the later part wins", Apply: allOfOverride},
		{Name: "additional-properties", Reason: "beside declared properties, false makes ogen reject newer fields and true/schema makes it encode a Go map in random order; open objects are marked x-open-object", Apply: additionalProps},
		{Name: "free-form", Reason: "maps and any-JSON unions become jx.Raw: ogen encodes Go maps by ranging over them (key order changes run to run) and cannot generate any-value unions", Apply: freeForm},
		{Name: "infer-discriminator", Reason: "ogen cannot infer a union of objects whose variants share their fields (chat messages: role, content, name) without a discriminator; the property whose values tell every variant apart (role) becomes one, with an explicit mapping", Apply: inferDiscriminator},
		{Name: "same-kind-variants", Reason: "ogen names union variants by type and stops at two of one kind (sum types with same names: two arrays, two integers, one reference twice); identical ones cannot be told apart on the wire either and are merged into one; differing ones are left for ogen to refuse, naming the schema", Apply: sameKindVariants},
		{Name: "shared-values", Reason: "a discriminated union maps a value to one variant; variants that share one (three kinds of \"message\") are merged so none of their payloads is rejected or loses fields", Apply: sharedValues},
		{Name: "string-union", Reason: "a union whose variants are all strings is one string (ogen: complex anyOf); open enums keep their values as x-known-values", Apply: stringUnion},
		{Name: "object-union", Reason: "ogen needs an explicit wire-value mapping for unions of objects, one union level, and objects apart from primitives", Apply: objectUnion},
		{Name: "nullable-component", Reason: "ogen unwraps a component written as anyOf [S, null] and names S after its first user, so the component never becomes a type", Apply: nullableComponent},
		{Name: "inline-names", Reason: "ogen names inline types Parent+Property, so reasoning.effort and reasoning_effort (or an inline type and a component) collide", Apply: inlineNames},
		{Name: "optional-const", Reason: "ogen writes a const property on every encode, adding fields the client never sent; an optional const becomes a one-value enum", Apply: optionalConst},
		{Name: "relax-required", Reason: "ogen rejects objects that lack a required field and real traffic lacks them (strict, sequence_number, name); the list is kept in x-spec-required", Apply: relaxRequired},
		{Name: "spec-validation", Reason: "decoding takes payloads without the fields the spec requires; the generated Validate() checks them (and the overlays' exclusive groups) through ogen's pluggable validators, recursing as ogen's own do", Apply: specValidation},
		{Name: "required-arrays", Reason: "an array the spec requires and does not let be null, in an object a server makes (reachable only from the responses and stream events, or an item of a response's output and its parts, which a request may replay: output_text annotations and logprobs), is written as [] from a Go nil, never left out or null, while decoding a payload without it still works; an object only a request carries (a tool choice, an input message) keeps a nil left out", Apply: requiredArrays},
		{Name: "optional-nullable", Reason: "servers send null for optional fields the spec types as objects or strings (\"usage\": null); ogen rejects the payload", Apply: optionalNullable},
		{Name: "defaults-aside", Reason: "ogen fills defaults while decoding (a round trip adds fields the client never sent) and cannot generate object defaults", Apply: defaultsAside},
		{Name: "unknown-fields", Reason: "real clients and servers send fields newer than the spec; every object with declared properties carries the others (ogen's AdditionalProps, jx.Raw), encoded in sorted key order by a post-generation step", Apply: unknownFields},
	}
}
