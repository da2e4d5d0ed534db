package gen_test

import (
	"flag"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/internal/golden"
	"github.com/transponder-dev/transponder/internal/jsontest"
)

type target struct {
	name string
	rt   func([]byte) ([]byte, error)
}

// What the plain ogen codec makes of every recorded stream event, chunk and
// response body: "file as Type: payloads it cannot take (decode error, or
// re-encoded JSON that is not JSON-equal to the input) of how many", in
// testdata/corpus_gaps.golden. (Unknown fields are carried since the
// unknown-fields rule: what is left are arrays the spec requires that a
// recording lacks, written as [] by the required-arrays rule, and event and
// item types the pinned specs do not have.) It depends on the pinned specs'
// content: a spec, overlay or normalizer change that moves it is seen, and
// `go test ./gen -run TestPinnedSpec -update` rewrites it (review the diff).
func TestPinnedSpecCorpusPayloads(t *testing.T) {
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
	checkGaps(t, "corpus_gaps.golden", "the plain ogen codec on the recorded corpus: payloads it cannot take", got)
}

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// checkGaps compares got (a key → what went wrong) with a golden file of
// testdata/, one "key: value" line each, sorted.
func checkGaps(t *testing.T, file, title string, got map[string]string) {
	t.Helper()
	lines := make([]string, 0, len(got))
	for k, v := range got {
		lines = append(lines, k+": "+v)
	}
	slices.Sort(lines)
	golden.Check(t, filepath.Join("testdata", file), "# "+title+" (depends on the pinned specs; rewrite with -update).\n"+strings.Join(lines, "\n")+"\n", *update)
}
