package mapping_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
)

// Whatever the body, the converter returns valid JSON or a *mapping.Error,
// never panics, and converts the same body to the same bytes.
func FuzzResponsesToChat(f *testing.F) {
	reqs, _ := filepath.Glob("testdata/*/request.json")
	for _, r := range reqs {
		b, err := os.ReadFile(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte(`{"tools":[1,"x",null,{"type":"function","function":3}],"input":[{"type":"message","content":[{}]}]}`), uint8(7))
	for o := uint8(0x10); o < 0x80; o += 0x10 { // the dialects of mapping/dialects
		f.Add([]byte(`{"model":"m","input":[{"role":"developer","content":"d"},{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"r"}]},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"ok"}],"reasoning":{"effort":"none"}}`), o)
	}
	f.Fuzz(func(t *testing.T, body []byte, o uint8) {
		opts := mapping.Options{
			// bit 0 and bits 4-6: the dialect (every one of mapping/dialects)
			Dialect:      mapping.Dialect((int(o&1) + 2*int(o>>4&7)) % len(mapping.Dialects())),
			System:       mapping.SystemMode(o >> 1 % 3),
			UnknownTypes: mapping.UnknownTypes(o >> 3 & 1),
			Models:       []mapping.ModelRule{{From: "gpt-", To: "openai/gpt-", Prefix: true}},
		}
		out, _, err := mapping.ResponsesToChat(body, opts)
		if err != nil {
			var e *mapping.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T is not a *mapping.Error: %v", err, err)
			}
			if !json.Valid(e.AppendJSON(nil)) {
				t.Fatalf("error body not JSON: %s", e.AppendJSON(nil))
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
		again, _, _ := mapping.ResponsesToChat(body, opts)
		if !bytes.Equal(out, again) {
			t.Fatalf("two conversions differ")
		}
	})
}
