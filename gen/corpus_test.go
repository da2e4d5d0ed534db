package gen_test

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/internal/jsontest"
)

type target struct {
	name string
	rt   func([]byte) ([]byte, error)
}

// What the plain ogen codec makes of every recorded stream event, chunk and
// response body: "file as Type" → payloads it cannot take (decode error, or
// re-encoded JSON that is not JSON-equal to the input), out of how many.
// (Unknown fields are carried since the unknown-fields rule: what is left
// are event and item types the pinned specs do not have.)
// Pinned, so a spec, overlay or normalizer change that moves it is seen; the
// forward-compatible layer of the next issue is measured against it.
var knownCorpusGaps = map[string]string{
	// Arrays the spec requires, absent in the recording, written as [] (rule
	// required-arrays, server-only objects): the text events' logprobs,
	// OpenRouter's response tools.
	"vercel-openai-phase.1.jsonl as openai.ResponseStreamEvent":                      "4 of 17",
	"vercel-openai-phase.1.jsonl as openrouter.StreamEvents":                         "7 of 17",
	"vercel-xai-text-with-reasoning-streaming.1.jsonl as openai.ResponseStreamEvent": "1 of 679",
	"vercel-xai-text-with-reasoning-streaming.1.jsonl as openrouter.StreamEvents":    "1 of 679",
	// Event and item types the pinned specs do not have.
	"vercel-openai-apply-patch-tool.1.jsonl as openai.ResponseStreamEvent": "33 of 38",
	"vercel-openai-file-search-tool.1.jsonl as openrouter.StreamEvents":    "3 of 94",
	"vercel-openai-local-shell-tool.1.jsonl as openrouter.StreamEvents":    "3 of 7",
	"vercel-openai-shell-tool.1.jsonl as openrouter.StreamEvents":          "7 of 182",
}

func TestCorpusPayloads(t *testing.T) {
	targets := map[codec.Payload][]target{
		codec.ResponsesEvent: {
			{"openai.ResponseStreamEvent", roundTrip[openai.ResponseStreamEvent]},
			{"openrouter.StreamEvents", roundTrip[openrouter.StreamEvents]},
		},
		codec.ChatChunk: {
			{"openai.CreateChatCompletionStreamResponse", roundTrip[openai.CreateChatCompletionStreamResponse]},
			{"openrouter.ChatStreamChunk", roundTrip[openrouter.ChatStreamChunk]},
		},
		codec.ResponsesBody: {
			{"openai.Response", roundTrip[openai.Response]},
			{"openrouter.OpenResponsesResult", roundTrip[openrouter.OpenResponsesResult]},
		},
		codec.ChatBody: {
			{"openai.CreateChatCompletionResponse", roundTrip[openai.CreateChatCompletionResponse]},
			{"openrouter.ChatResult", roundTrip[openrouter.ChatResult]},
		},
	}
	all, err := fixtures.Corpus(sharedDir(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	total := 0
	for _, f := range fixtures.ByFile(all) {
		// (Requests are another test's; *.part* files split a recording
		// that is also here whole.)
		if f.Kind == codec.ResponsesRequest || strings.Contains(f.Name, ".part") {
			continue
		}
		for _, tg := range targets[f.Kind] {
			bad, first := 0, ""
			for _, p := range f.Payloads {
				total++
				out, err := tg.rt(p)
				if err == nil {
					var d string
					if d, err = jsontest.Diff(p, out); err == nil && d != "" {
						err = fmt.Errorf("re-encoded JSON differs: %s", d)
					}
				}
				if err != nil {
					if bad == 0 {
						first = err.Error()
					}
					bad++
				}
			}
			if bad > 0 {
				key := path.Base(f.Name) + " as " + tg.name
				got[key] = fmt.Sprintf("%d of %d", bad, len(f.Payloads))
				t.Logf("%s: %s fail; first: %.200s", key, got[key], first)
			}
		}
	}
	t.Logf("%d payload decodings, %d file/type pairs with gaps", total, len(got))
	var diffs []string
	for k, v := range got {
		if knownCorpusGaps[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: %s, pinned %q", k, v, knownCorpusGaps[k]))
		}
	}
	for k, v := range knownCorpusGaps {
		if _, ok := got[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: no gap now, pinned %q", k, v))
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		t.Errorf("corpus gaps of the ogen codec changed:\n%s", strings.Join(diffs, "\n"))
	}
}
