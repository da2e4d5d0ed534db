package mapping_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/internal/golden"
	"github.com/transponder-dev/transponder/mapping"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// caseOptions is a case's options.json.
type caseOptions struct {
	Models       []mapping.ModelRule `json:"models"`
	System       string              `json:"system"`
	UnknownTypes string              `json:"unknown_types"`
	SessionID    string              `json:"session_id"`
	UnknownItems string              `json:"unknown_items"`
	// Items are the items item_reference may name.
	Items map[string]json.RawMessage `json:"items"`
	// NoItems: no lookup at all.
	NoItems bool `json:"no_items"`
	// Dialects: the case converts for every dialect (mapping/dialects),
	// not only OpenRouter's and OpenAI's.
	Dialects bool `json:"dialects"`
}

func (o caseOptions) options(t *testing.T, d mapping.Dialect) mapping.Options {
	opts := mapping.Options{Dialect: d, Models: o.Models, SessionID: o.SessionID}
	switch o.System {
	case "", "system":
	case "developer":
		opts.System = mapping.Developer
	case "merge":
		opts.System = mapping.Merge
	default:
		t.Fatalf("options.json: system %q", o.System)
	}
	switch o.UnknownTypes {
	case "", "drop":
	case "reject":
		opts.UnknownTypes = mapping.RejectUnknown
	default:
		t.Fatalf("options.json: unknown_types %q", o.UnknownTypes)
	}
	switch o.UnknownItems {
	case "", "reject":
	case "drop":
		opts.UnknownItems = mapping.DropUnknownItems
	default:
		t.Fatalf("options.json: unknown_items %q", o.UnknownItems)
	}
	if !o.NoItems {
		opts.Items = func(id string) ([]byte, error) {
			if it, ok := o.Items[id]; ok {
				return it, nil
			}
			return nil, fmt.Errorf("%w: %s", mapping.ErrItemNotFound, id)
		}
	}
	return opts
}

type caseDialect struct {
	d     mapping.Dialect
	table *codec.Dialect
}

var dialects = []caseDialect{{mapping.OpenRouter, codec.OpenRouter}, {mapping.OpenAI, codec.OpenAI}}

// allDialects are every dialect with its shape table.
func allDialects(t *testing.T) []caseDialect {
	var out []caseDialect
	for _, name := range mapping.Dialects() {
		d, err := mapping.ParseDialect(name)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(codec.Dialects, func(x *codec.Dialect) bool { return x.Name() == name })
		if i < 0 {
			t.Fatalf("no shape table for %s", name)
		}
		out = append(out, caseDialect{d, codec.Dialects[i]})
	}
	return out
}

// Each testdata/<case>/request.json (a Responses request, with
// options.json if the case needs options) converts, for each dialect, to
// <dialect>.json (the chat request, indented) and <dialect>.warnings, or
// to <dialect>.error.json; every chat request is valid for its dialect's
// schema in the pinned spec. Rewrite with -update, and review.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/request.json")
	if err != nil || len(dirs) == 0 {
		t.Fatal("no cases", err)
	}
	for _, req := range dirs {
		dir := filepath.Dir(req)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			body, err := os.ReadFile(req)
			if err != nil {
				t.Fatal(err)
			}
			var co caseOptions
			if b, err := os.ReadFile(filepath.Join(dir, "options.json")); err == nil {
				dec := json.NewDecoder(bytes.NewReader(b))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&co); err != nil {
					t.Fatal(err)
				}
			}
			ds := dialects
			if co.Dialects {
				ds = allDialects(t)
			}
			for _, d := range ds {
				out, warns, err := mapping.ResponsesToChat(body, co.options(t, d.d))
				sameAsSplit(t, body, co.options(t, d.d), out, warns, err)
				name := filepath.Join(dir, d.d.String())
				if *update {
					for _, ext := range []string{".json", ".warnings", ".error.json"} {
						os.Remove(name + ext)
					}
				}
				var e *mapping.Error
				if err != nil {
					if !errors.As(err, &e) {
						t.Fatalf("%s: %v is not a *mapping.Error", d.d, err)
					}
					golden.Check(t, name+".error.json", indent(t, e.AppendJSON(nil)), *update)
					continue
				}
				golden.Check(t, name+".json", indent(t, out), *update)
				var w strings.Builder
				for _, x := range warns {
					w.WriteString(x.String() + "\n")
				}
				golden.Check(t, name+".warnings", w.String(), *update)
				validChat(t, d.table, out)
				again, _, _ := mapping.ResponsesToChat(body, co.options(t, d.d))
				if !bytes.Equal(out, again) {
					t.Errorf("%s: a second conversion differs", d.d)
				}
			}
		})
	}
}

// A Converter reuses its memory (builder, joined texts, tool map) from
// one conversion to the next: converting every golden request for every
// dialect on one Converter, forwards then backwards, gives what a fresh
// conversion gives, output, warnings and error.
func TestConverterReuse(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/request.json")
	if err != nil || len(dirs) < 50 {
		t.Fatal("cases", len(dirs), err)
	}
	type tc struct {
		name  string
		body  []byte
		opts  mapping.Options
		want  string
		warns string
	}
	var cases []tc
	for _, req := range dirs {
		body, err := os.ReadFile(req)
		if err != nil {
			t.Fatal(err)
		}
		var co caseOptions
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(req), "options.json")); err == nil {
			if err := json.Unmarshal(b, &co); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range allDialects(t) {
			c := tc{name: req + " " + d.d.String(), body: body, opts: co.options(t, d.d)}
			out, warns, err := mapping.ResponsesToChat(body, c.opts)
			c.want, c.warns = fmt.Sprint(string(out), err), fmt.Sprint(warns)
			cases = append(cases, c)
		}
	}
	back := slices.Clone(cases)
	slices.Reverse(back)
	var cv mapping.Converter
	var out []byte
	for _, c := range append(cases, back...) {
		var warns []mapping.Warning
		out, warns, err = cv.ResponsesToChat(out[:0], c.body, c.opts)
		if got := fmt.Sprint(string(out), err); got != c.want || fmt.Sprint(warns) != c.warns {
			t.Errorf("%s: a reused Converter gives\n%s\n%v\nnot\n%s\n%s", c.name, got, warns, c.want, c.warns)
		}
	}
}

// sameAsSplit fails the test if Decode then Convert (what the gateway
// does, reading the request in between) does not give what
// ResponsesToChat gave, or if the request the Converter read is not the
// body (its chat-shaped tools flattened).
func sameAsSplit(t *testing.T, body []byte, opts mapping.Options, out []byte, warns []mapping.Warning, err error) {
	t.Helper()
	var cv mapping.Converter
	var want []string
	convert := func() ([]byte, []mapping.Warning, error) { return cv.Convert(nil, opts) }
	converted := sameSplit(t, "ResponsesToChat", cv.Decode, convert, body, out, warns, err, func(v codec.Value) {
		flat, ok := mapping.FlatRequest(v) // v is valid until Convert
		if !ok {
			flat = v.Raw()
		}
		want = members(t, flat)
	})
	if converted && err == nil {
		if got := members(t, cv.Request().Raw()); !slices.Equal(got, want) {
			t.Errorf("Request is not the body as the mapping reads it:\n%q\n%q", got, want)
		}
	}
}

// sameSplit fails the test if a converter's Decode then Convert does not
// give what its one call (named whole) gave, or if Convert converts
// without a Decode, or twice for one. read sees what Decode read, before
// Convert. It reports whether Decode read the body (and Convert ran).
func sameSplit(t *testing.T, whole string, decode func([]byte) (codec.Value, error), convert func() ([]byte, []mapping.Warning, error),
	body, out []byte, warns []mapping.Warning, err error, read func(codec.Value)) bool {
	t.Helper()
	if _, _, cerr := convert(); cerr == nil {
		t.Error("Convert before any Decode converted")
	}
	v, derr := decode(body)
	if derr != nil {
		if err == nil || derr.Error() != err.Error() {
			t.Errorf("Decode: %v; %s: %v", derr, whole, err)
		}
		return false
	}
	if !bytes.Equal(v.Raw(), bytes.TrimSpace(body)) {
		t.Errorf("Decode's value is not the body")
	}
	if read != nil {
		read(v)
	}
	split, swarns, serr := convert()
	if fmt.Sprint(serr) != fmt.Sprint(err) || !bytes.Equal(split, out) || !slices.Equal(swarns, warns) {
		t.Errorf("Decode then Convert: %s %v %v; %s: %s %v %v", split, swarns, serr, whole, out, warns, err)
	}
	if _, _, err := convert(); err == nil {
		t.Error("a second Convert of one Decode converted")
	}
	return true
}

// members lists a request's top-level members but input (which
// resolving item references rewrites), as key=value.
func members(t *testing.T, body []byte) []string {
	t.Helper()
	v, ok := codec.Parse(body)
	if !ok {
		t.Fatalf("not JSON: %s", body)
	}
	var out []string
	for k, m := range v.Members() {
		if !k.Is("input") {
			out = append(out, k.String()+"="+string(m.Raw()))
		}
	}
	return out
}

// indent is the output indented: compacting it gives back the exact bytes.
func indent(t *testing.T, b []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return buf.String() + "\n"
}

// validChat fails the test if a chat request has anything its dialect's
// schema does not know or allow.
func validChat(t *testing.T, table *codec.Dialect, out []byte) {
	t.Helper()
	root, _ := table.Payload(codec.ChatRequest)
	doc, err := codec.Decode(root, out)
	if err != nil {
		t.Fatalf("%s: %v", table.Name(), err)
	}
	for _, f := range doc.Findings() {
		t.Errorf("%s chat request: %s", table.Name(), f)
	}
	if !doc.Value().Get("model").Exists() || !doc.Value().Get("messages").Exists() {
		t.Errorf("%s chat request without model or messages", table.Name())
	}
}

// The recorded Codex requests convert, for both dialects, to chat requests
// their schemas accept.
func TestCorpusRequests(t *testing.T) {
	corpus, err := fixtures.Corpus(fixtures.SharedDir(".."))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range corpus {
		if p.Kind != codec.ResponsesRequest {
			continue
		}
		n++
		for _, d := range dialects {
			out, _, err := mapping.ResponsesToChat(p.Data, mapping.Options{Dialect: d.d})
			if err != nil {
				t.Errorf("%s, %s: %v", p.Name, d.d, err)
				continue
			}
			validChat(t, d.table, out)
		}
	}
	if n == 0 {
		t.Fatal("no recorded requests")
	}
}

// The operator's provider preferences go into every OpenRouter request,
// replacing a client's (with a warning); the OpenAI dialect has none.
func TestProviderOption(t *testing.T) {
	prov := []byte(`{"data_collection":"deny","zdr":true}`)
	out, warns, err := mapping.ResponsesToChat([]byte(`{"model":"m","input":"hi","provider":{"order":["x"]}}`), mapping.Options{Provider: prov})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"provider":{"data_collection":"deny","zdr":true}`)) || bytes.Contains(out, []byte(`"order"`)) {
		t.Errorf("%s", out)
	}
	if len(warns) != 1 || warns[0].Path != "provider" {
		t.Errorf("warnings %v", warns)
	}
	out, _, err = mapping.ResponsesToChat([]byte(`{"model":"m","input":"hi"}`), mapping.Options{Provider: prov, Dialect: mapping.OpenAI})
	if err != nil || bytes.Contains(out, []byte(`"provider"`)) {
		t.Errorf("openai: %s %v", out, err)
	}
}

// A conversion's allocations, counted (not timed): the small request of
// ../shared/bench converted once (what a library user calling
// ResponsesToChat gets: the Converter, its first memory, the output, the
// tool map at its size, the tools' names) and by a reused Converter
// (none: the tools' names are those it made for the request before).
func TestConvertAllocations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures.SharedDir(".."), "bench", "a_small_request.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		if _, _, err := mapping.ResponsesToChat(data, mapping.Options{}); err != nil {
			t.Fatal(err)
		}
	}); n > 9 {
		t.Errorf("a fresh conversion makes %v allocations, want at most 9", n)
	}
	var cv mapping.Converter
	out := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(20, func() {
		if out, _, err = cv.ResponsesToChat(out[:0], data, mapping.Options{}); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("a reused Converter makes %v allocations, want none", n)
	}
}
