// Package typed is the typed form of package mapping: its converters over
// the types ogen generated into gen/, for callers that hold a request as
// an openai.CreateResponse. It is a package of its own because gen/'s
// packages are large to build and package mapping does not import them.
//
// responses_chat_fields_gen.go refers, at compile time, to every Go field
// and variant of those types that mapping/responses_chat.yaml reads or
// writes: a spec update that removes or renames one breaks this package's
// build until `go generate ./mapping` has run (and the generator names
// the mapping's lines that no longer resolve).
package typed

import (
	"fmt"
	"strings"

	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
	"github.com/transponder-dev/transponder/internal/jsontest"
	"github.com/transponder-dev/transponder/mapping"
)

// ToOpenRouter converts a Responses request into OpenRouter's chat request,
// as mapping.ResponsesToChat does (opts.Dialect is set to OpenRouter), with
// its warnings: the fields of req the spec does not declare (carried in
// the generated types' AdditionalProps) are warned about as on the JSON
// path.
func ToOpenRouter(req *openai.CreateResponse, opts mapping.Options) (*openrouter.ChatRequest, []mapping.Warning, error) {
	opts.Dialect = mapping.OpenRouter
	var chat openrouter.ChatRequest
	warns, err := convert(req, opts, &chat)
	if err != nil {
		return nil, warns, err
	}
	return &chat, warns, nil
}

// ToOpenAI converts a Responses request into OpenAI's chat request, as
// mapping.ResponsesToChat does (opts.Dialect is set to OpenAI).
func ToOpenAI(req *openai.CreateResponse, opts mapping.Options) (*openai.CreateChatCompletionRequest, []mapping.Warning, error) {
	opts.Dialect = mapping.OpenAI
	var chat openai.CreateChatCompletionRequest
	warns, err := convert(req, opts, &chat)
	if err != nil {
		return nil, warns, err
	}
	return &chat, warns, nil
}

// convert encodes req (its undeclared keys included: the generated types
// carry them), converts it with mapping.ResponsesToChat, which warns about
// what it cannot carry, and decodes the chat request into chat. Whatever
// the generated chat type would not give back as mapping wrote it is a
// warning too, never lost silently.
func convert(req *openai.CreateResponse, opts mapping.Options, chat interface {
	UnmarshalJSON([]byte) error
	MarshalJSON() ([]byte, error)
}) ([]mapping.Warning, error) {
	body, err := req.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("typed: encode the request: %w", err)
	}
	out, warns, err := mapping.ResponsesToChat(body, opts)
	if err != nil {
		return warns, err
	}
	if err := chat.UnmarshalJSON(out); err != nil {
		return warns, fmt.Errorf("typed: decode the %s chat request: %w", opts.Dialect, err)
	}
	back, err := chat.MarshalJSON()
	if err != nil {
		return warns, fmt.Errorf("typed: encode the %s chat request: %w", opts.Dialect, err)
	}
	changed, err := changes(opts.Dialect, out, back)
	if err != nil {
		return warns, err
	}
	return append(warns, changed...), nil
}

// changes returns a warning for each difference between out, the chat
// request mapping wrote, and back, what the generated chat type gives back;
// past jsontest.MaxDiffs, one warning says there are more.
func changes(dialect mapping.Dialect, out, back []byte) ([]mapping.Warning, error) {
	ds, truncated, err := jsontest.Differences(out, back)
	if err != nil {
		return nil, fmt.Errorf("typed: the %s chat request: %w", dialect, err)
	}
	var warns []mapping.Warning
	for _, d := range ds {
		path := strings.TrimPrefix(strings.TrimPrefix(d.Path, "$"), ".")
		warns = append(warns, mapping.Warning{Path: path, Reason: fmt.Sprintf("the generated %s chat type changes it (%s)", dialect, d.What)})
	}
	if truncated {
		warns = append(warns, mapping.Warning{Reason: fmt.Sprintf("the generated %s chat type changes more than %d places; the others are not listed", dialect, jsontest.MaxDiffs)})
	}
	return warns, nil
}
