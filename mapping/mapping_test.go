package mapping_test

import (
	"os"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/generator"
)

// The transforms the mapping names, with the JSON kinds they take and
// give. (Their Go functions come with the emitter; until then this list
// is what the YAML is checked against.)
var transforms = []generator.Transform{
	{Name: "instructions", From: kinds(codec.String), To: kinds(codec.Array)},
	{Name: "inputItems", From: kinds(codec.String, codec.Array), To: kinds(codec.Array)},
	{Name: "model", From: kinds(codec.String), To: kinds(codec.String)},
	{Name: "topLogprobs", From: kinds(codec.Number), To: kinds(codec.Number)},
	{Name: "promptCacheKey", From: kinds(codec.String), To: kinds(codec.String)},
	{Name: "omit", From: kinds(codec.Object), To: nil},
	{Name: "allowedTools", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "allowedToolsFilter", From: kinds(codec.Object), To: kinds(codec.String)},
	{Name: "customChoice", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "customChoiceAsFunction", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "forceHosted", From: kinds(codec.Object), To: kinds(codec.String)},
	{Name: "forceVirtual", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "customTool", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "virtualTool", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "namespaceTools", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "webSearch", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "webSearchOptions", From: kinds(codec.Object), To: kinds(codec.Object)},
	{Name: "imageGeneration", From: kinds(codec.Object), To: kinds(codec.Object)},
}

func kinds(k ...codec.Kind) []codec.Kind { return k }

// The Responses → Chat mapping is complete for every field of the pinned
// spec and valid for both target dialects.
func TestResponsesChatMapping(t *testing.T) {
	data, err := os.ReadFile("responses_chat.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, errs := generator.Load("mapping/responses_chat.yaml", data)
	if errs == nil {
		_, errs = generator.Validate(f, transforms, true)
	}
	for _, e := range errs {
		t.Error(e)
	}
}
