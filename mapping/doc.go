// Package mapping converts Responses API requests into Chat Completions
// requests, as mapping/responses_chat.yaml declares field by field, for
// OpenRouter's and OpenAI's chat dialects.
//
// The converters (responses_chat_gen.go) are generated from the YAML by
// package generator (`go generate ./mapping`); the transforms the YAML
// names are the hand-written functions of transforms.go, and the checks
// that need the whole request (unknown top-level fields, forced tools,
// allowed tools) are in convert.go. ResponsesToChat is the entry point:
// bytes in, bytes out, with a warning for everything not carried whole.
package mapping
