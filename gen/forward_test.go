package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
	"github.com/transponder-dev/transponder/internal/jsontest"
)

// What the plain ogen codec does with the synthetic forward-compatibility
// cases of ../testdata/forward: the decode error, or every difference of a
// round trip that is not JSON-equal, in testdata/forward_gaps.golden (the
// JSON layer, codec/, takes every one). It depends on the pinned specs'
// content (which types exist, how ogen names them): `go test ./gen -run
// TestPinnedSpec -update` rewrites it.
func TestPinnedSpecForwardGaps(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "forward", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no forward cases: %v", err)
	}
	targets := map[string][]target{
		"request":  requestTargets,
		"event":    {{"openai.ResponseStreamEvent", roundTrip[openai.ResponseStreamEvent]}, {"openrouter.StreamEvents", roundTrip[openrouter.StreamEvents]}},
		"chunk":    {{"openai.CreateChatCompletionStreamResponse", roundTrip[openai.CreateChatCompletionStreamResponse]}, {"openrouter.ChatStreamChunk", roundTrip[openrouter.ChatStreamChunk]}},
		"response": {{"openai.Response", roundTrip[openai.Response]}, {"openrouter.OpenResponsesResult", roundTrip[openrouter.OpenResponsesResult]}},
	}
	got := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kind, _, _ := strings.Cut(filepath.Base(f), "-")
		ts, ok := targets[kind]
		if !ok {
			t.Fatalf("%s: unknown kind %q", f, kind)
		}
		for _, tg := range ts {
			key := filepath.Base(f) + " as " + tg.name
			out, err := tg.rt(data)
			if err != nil {
				got[key] = "error: " + err.Error()
				continue
			}
			d, err := jsontest.Diff(data, out)
			switch {
			case err != nil:
				got[key] = "invalid JSON: " + err.Error()
			case d != "":
				got[key] = d
			}
		}
	}
	checkGaps(t, "forward_gaps.golden", "the plain ogen codec on ../testdata/forward: what does not round-trip", got)
}
