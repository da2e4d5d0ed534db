package typed_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/internal/jsontest"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/mapping/typed"
)

// The typed form gives the chat requests of the golden cases, as the
// generated types re-encode them.
func TestTyped(t *testing.T) {
	for _, c := range []string{"sampling", "function_tools", "tool_choice_allowed_tools", "text_format_json_schema", "reasoning", "codex_tools", "history"} {
		t.Run(c, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", c)
			body, err := os.ReadFile(filepath.Join(dir, "request.json"))
			if err != nil {
				t.Fatal(err)
			}
			var req openai.CreateResponse
			if err := req.UnmarshalJSON(body); err != nil {
				t.Fatal(err)
			}
			or, _, err := typed.ToOpenRouter(&req, mapping.Options{})
			if err != nil {
				t.Fatal(err)
			}
			oa, _, err := typed.ToOpenAI(&req, mapping.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				file string
				got  interface{ MarshalJSON() ([]byte, error) }
			}{{"openrouter.json", or}, {"openai.json", oa}} {
				got, err := x.got.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(filepath.Join(dir, x.file))
				if err != nil {
					t.Fatal(err)
				}
				d, err := jsontest.Diff(want, got)
				if err != nil {
					t.Fatal(err)
				}
				if d != "" {
					t.Errorf("%s: %s", x.file, d)
				}
			}
		})
	}
	var req openai.CreateResponse
	if err := req.UnmarshalJSON([]byte(`{"model":"m","input":"x","background":true}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := typed.ToOpenRouter(&req, mapping.Options{}); err == nil {
		t.Error("background: no error")
	}
}
