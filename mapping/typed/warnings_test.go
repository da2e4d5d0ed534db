package typed_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/internal/jsontest"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/mapping/typed"
)

func warnStrings(ws []mapping.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	slices.Sort(out) // (the typed request's undeclared keys come sorted)
	return out
}

// For every golden case of mapping/testdata that the generated type
// decodes (and that needs no options.json), the typed converters give the
// warnings mapping.ResponsesToChat gives on the same JSON (unknown fields
// included: the typed request carries them), and the typed chat request
// re-encodes to the chat request mapping produced, for both dialects.
func TestTypedLikeJSON(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "*", "request.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	ran, warned := 0, 0
	for _, f := range dirs {
		dir := filepath.Dir(f)
		name := filepath.Base(dir)
		if _, err := os.Stat(filepath.Join(dir, "options.json")); err == nil {
			continue // options the typed form is not given here
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var req openai.CreateResponse
		if err := req.UnmarshalJSON(body); err != nil {
			t.Logf("%s: the generated type does not decode it: %v", name, err)
			continue
		}
		for _, d := range []mapping.Dialect{mapping.OpenRouter, mapping.OpenAI} {
			t.Run(name+"/"+d.String(), func(t *testing.T) {
				want, wantWarns, wantErr := mapping.ResponsesToChat(body, mapping.Options{Dialect: d})
				var got interface{ MarshalJSON() ([]byte, error) }
				var gotWarns []mapping.Warning
				var gotErr error
				if d == mapping.OpenRouter {
					c, w, err := typed.ToOpenRouter(&req, mapping.Options{})
					got, gotWarns, gotErr = c, w, err
				} else {
					c, w, err := typed.ToOpenAI(&req, mapping.Options{})
					got, gotWarns, gotErr = c, w, err
				}
				if (wantErr == nil) != (gotErr == nil) {
					t.Fatalf("error: JSON %v, typed %v", wantErr, gotErr)
				}
				if !slices.Equal(warnStrings(wantWarns), warnStrings(gotWarns)) {
					t.Errorf("warnings:\n JSON  %q\n typed %q", warnStrings(wantWarns), warnStrings(gotWarns))
				}
				if wantErr != nil {
					return
				}
				out, err := got.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				// Exactly what mapping made of the request the typed form
				// passed it (req re-encoded)...
				reqJSON, err := req.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				exact, _, err := mapping.ResponsesToChat(reqJSON, mapping.Options{Dialect: d})
				if err != nil {
					t.Fatal(err)
				}
				if diff, err := jsontest.Diff(exact, out); err != nil || diff != "" {
					t.Errorf("typed chat request differs from mapping's: %s %v\nmapping: %s\n  typed: %s", diff, err, exact, out)
				}
				// ...and, from the original JSON, the same up to the layout
				// of JSON carried in strings (a built-in call's action as
				// function arguments: the typed request re-encodes it).
				if diff, err := jsontest.Diff(unstring(t, want), unstring(t, out)); err != nil || diff != "" {
					t.Errorf("typed chat request differs from mapping's on the original JSON: %s %v", diff, err)
				}
				ran++
				if len(wantWarns) > 0 {
					warned++
				}
			})
		}
	}
	t.Logf("%d conversions, %d with warnings", ran, warned)
	if ran == 0 {
		t.Fatal("no case ran")
	}
}

// unstring parses the strings of a JSON document that hold a JSON object
// or array, so documents compare up to those strings' layout.
func unstring(t *testing.T, data []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		case string:
			var inner any
			if s := strings.TrimSpace(v); (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && json.Unmarshal([]byte(s), &inner) == nil {
				return walk(inner)
			}
		}
		return v
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Unknown fields of a typed request reach mapping and are warned about,
// at every depth, as on the JSON path.
func TestTypedWarnsUnknownFields(t *testing.T) {
	body := []byte(`{"model":"m","frobnicate":{"a":1},"input":[{"type":"message","role":"user","content":"hi","x_msg":1}],` +
		`"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"strict":true,"x_tool":true}]}`)
	var req openai.CreateResponse
	if err := req.UnmarshalJSON(body); err != nil {
		t.Fatal(err)
	}
	_, want, err := mapping.ResponsesToChat(body, mapping.Options{Dialect: mapping.OpenRouter})
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := typed.ToOpenRouter(&req, mapping.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws := warnStrings(got)
	if !slices.Equal(warnStrings(want), ws) {
		t.Errorf("warnings:\n JSON  %q\n typed %q", warnStrings(want), ws)
	}
	for _, path := range []string{"frobnicate", "input[0].x_msg", "tools[0].x_tool"} {
		if !slices.ContainsFunc(got, func(w mapping.Warning) bool { return w.Path == path }) {
			t.Errorf("no warning for %s: %q", path, ws)
		}
	}
}
