// Package mapping holds the declarative Responses ↔ Chat Completions
// mapping and the converters generated from it.
//
// responses_chat.yaml maps every field of the pinned OpenAI spec's
// Responses request onto OpenRouter's and OpenAI's chat requests; `go test
// ./mapping` checks it is complete and valid (generator.Validate). The
// transforms it names and the generated converters are the rest of issue 5.
package mapping
