package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

// The failure side of Decode: what it refuses, and where it says the fault
// is. Offsets count bytes from the start of the input; paths are those of
// Finding.Path.

type syntaxCase struct {
	name   string
	in     string
	offset int
	path   string
	reason string // a substring of SyntaxError.Reason
}

// decodeError decodes in against r and returns its *SyntaxError, failing the
// test if Decode succeeds or fails with anything else.
func decodeError(t *testing.T, r codec.Root, in string) *codec.SyntaxError {
	t.Helper()
	doc, err := codec.Decode(r, []byte(in))
	if err == nil {
		t.Fatalf("Decode(%.80q) succeeded (%d nodes, %d findings), want a syntax error", in, doc.Len(), len(doc.Findings()))
	}
	if doc != nil {
		t.Errorf("Decode(%.80q) returned a Doc with its error", in)
	}
	var se *codec.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("Decode(%.80q): %v (%T), want a *codec.SyntaxError", in, err, err)
	}
	return se
}

func checkSyntaxCases(t *testing.T, r codec.Root, cases []syntaxCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			se := decodeError(t, r, tc.in)
			if se.Offset != tc.offset || se.Path != tc.path || !strings.Contains(se.Reason, tc.reason) {
				t.Errorf("Decode(%.80q):\n got offset %d, path %.80q, reason %q\nwant offset %d, path %q, reason containing %q",
					tc.in, se.Offset, se.Path, se.Reason, tc.offset, tc.path, tc.reason)
			}
		})
	}
}

func TestDecodeSyntaxErrors(t *testing.T) {
	checkSyntaxCases(t, oaRequest, []syntaxCase{
		// Strings.
		{"unterminated string", `{"model":"gpt`, 13, "model", "unterminated string"},
		{"unterminated key", `{"mod`, 5, "", "unterminated string"},
		{"backslash at the end", `{"model":"a\`, 11, "model", "unterminated string"},
		{"bad escape", `{"model":"a\xb"}`, 11, "model", "invalid escape"},
		{"short \\u escape", `{"model":"\u12"}`, 10, "model", `invalid \u escape`},
		{"\\u escape cut off", `{"model":"\u12`, 10, "model", `invalid \u escape`},
		{"\\u escape not hex", `{"model":"\u12G4"}`, 10, "model", `invalid \u escape`},
		{"raw newline in a string", "{\"model\":\"a\nb\"}", 11, "model", "control character in string"},
		{"raw tab in a string", "{\"model\":\"a\tb\"}", 11, "model", "control character in string"},
		{"NUL in a key", "{\"mo\x00del\":1}", 4, "", "control character in string"},
		{"invalid UTF-8 byte", "{\"model\":\"a\xffb\"}", 11, "model", "invalid UTF-8"},
		{"truncated UTF-8 sequence", "{\"model\":\"\xe2\x82\"}", 10, "model", "invalid UTF-8"},
		{"UTF-8 encoded surrogate", "{\"model\":\"\xed\xa0\x80\"}", 10, "model", "invalid UTF-8"},
		{"overlong UTF-8", "{\"model\":\"\xc0\xaf\"}", 10, "model", "invalid UTF-8"},
		{"invalid UTF-8 in a key", "{\"\xff\":1}", 2, "", "invalid UTF-8"},
		{"invalid UTF-8 in an input text", "{\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"\xfe\"}]}]}", 82, "input[0].content[0].text", "invalid UTF-8"},
		// An item without its tag is scanned for it to the end before it is
		// walked: a fault found on the way is traced to its path all the same.
		{"invalid UTF-8 in an untagged item", "{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"\xfe\"}]}]}", 65, "input[0].content[0].text", "invalid UTF-8"},

		// Literals.
		{"bad literal", `{"stream":tru}`, 10, "stream", "invalid literal"},
		{"literal cut off", `{"stream":fals`, 10, "stream", "invalid literal"},
		{"misspelled null", `{"model":nul}`, 9, "model", "invalid literal"},
		{"literal with trailing letters", `{"stream":truex}`, 14, "", `unexpected 'x'`},

		// Numbers.
		{"leading zero", `{"temperature":01}`, 16, "", `unexpected '1'`},
		{"no fraction digits", `{"temperature":1.}`, 17, "temperature", "invalid number"},
		{"lone minus", `{"temperature":-}`, 16, "temperature", "invalid number"},
		{"no exponent digits", `{"temperature":1e}`, 17, "temperature", "invalid number"},
		{"exponent sign only", `{"temperature":1e+}`, 18, "temperature", "invalid number"},
		{"plus sign", `{"temperature":+1}`, 15, "temperature", `unexpected '+'`},
		{"leading dot", `{"temperature":.5}`, 15, "temperature", `unexpected '.'`},
		{"bad number of the wrong kind", `{"model":1.}`, 11, "model", "invalid number"},
		{"leading zero in free-form", `{"metadata":{"a":-01}}`, 19, "metadata", `unexpected '1'`},
		{"bad number in free-form", `{"metadata":{"a":1.}}`, 19, "metadata.a", "invalid number"},

		// Structure.
		{"missing colon", `{"model" "a"}`, 9, "", `unexpected '"'`},
		{"missing value", `{"model":}`, 9, "model", `unexpected '}'`},
		{"missing comma", `{"model":"a" "b":1}`, 13, "", `unexpected '"'`},
		{"key not a string", `{1:2}`, 1, "", `unexpected '1'`},
		{"single-quoted key", `{'model':"a"}`, 1, "", `unexpected '\''`},
		{"trailing comma in an object", `{"model":"a",}`, 13, "", `unexpected '}'`},
		{"trailing comma in an array", `{"include":["a",]}`, 16, "include[1]", `unexpected ']'`},
		{"trailing comma in a free-form object", `{"metadata":{"a":"b",}}`, 21, "metadata", `unexpected '}'`},
		{"trailing comma in a free-form array", `{"metadata":{"a":["b",]}}`, 22, "metadata.a[1]", `unexpected ']'`},
		{"unclosed object", `{"model":"a"`, 12, "", "unexpected end of input"},
		{"array closed by a brace", `{"include":["a"}`, 15, "include", `unexpected '}'`},
		{"trailing data", `{"model":"a"} x`, 14, "", "data after the top-level value"},
		{"two documents", `{}{}`, 2, "", "data after the top-level value"},
		{"not JSON", `x`, 0, "", `unexpected 'x'`},
		{"empty input", ``, 0, "", "unexpected end of input"},
		{"only whitespace", " \n\t", 3, "", "unexpected end of input"},
		{"byte order mark", "\xef\xbb\xbf{}", 0, "", "unexpected byte 0xef"},
		{"non-ASCII byte", `{"model":"a",` + "\xc3\xa9}", 13, "", "unexpected byte 0xc3"},

		// Where the decoder was.
		{"end of input in an input item", `{"input":[{"role":"user","content":"hi"},{"role":"user"`, 55, "input[1]", "unexpected end of input"},
		{"end of input at a content", `{"input":[{"role":"user","content":"hi"},{"type":"message","role":"user","content":`, 83, "input[1].content", "unexpected end of input"},
		{"end of input in a content part", `{"input":[{"role":"user","content":"hi"},{"type":"message","role":"user","content":[{"type":"input_text","text":"a"`, 115, "input[1].content[0]", "unexpected end of input"},
		// Free-form and unknown values are skipped, not walked; a fault in one
		// names its path inside the value all the same.
		{"error inside tool parameters", `{"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":tru}}}]}`, 88, "tools[0].parameters.properties.a", "invalid literal"},
		{"end of input inside metadata", `{"metadata":{"a":[1,2`, 21, "metadata.a", "unexpected end of input"},
		{"key cut off inside metadata", `{"metadata":{"a":{"b`, 20, "metadata.a", "unterminated string"},
		{"error inside an unknown field", `{"x":{"y":[nul]}}`, 11, "x.y[0]", "invalid literal"},
		{"error inside an unknown field needing quotes", `{"a.b":[tru]}`, 8, `["a.b"][0]`, "invalid literal"},
		{"error inside an item of unknown type", `{"input":[{"type":"future","a":[}]}`, 32, "input[0].a[0]", `unexpected '}'`},
		{"error in a tag", `{"input":[{"type":"mess\age"}]}`, 23, "input[0].type", "invalid escape"},
		{"error in a value of the wrong kind", `{"model":[1,{"a":fals}]}`, 17, "model[1].a", "invalid literal"},
	})
}

func TestDecodeDuplicateKeys(t *testing.T) {
	checkSyntaxCases(t, oaRequest, []syntaxCase{
		{"top level", `{"model":"a","model":"b"}`, 13, "", `duplicate key "model"`},
		{"escaped", `{"model":"a","mod\u0065l":"b"}`, 13, "", `duplicate key "model"`},
		{"unknown key", `{"x":1,"x":2}`, 7, "", `duplicate key "x"`},
		{"unknown key needing quotes", `{"a.b":1,"a.b":2}`, 9, "", `duplicate key "a.b"`},
		{"input item", `{"input":[{"role":"user","role":"user","content":"hi"}]}`, 25, "input[0]", `duplicate key "role"`},
		{"unknown key in an input item", `{"input":[{"role":"user","content":"hi","x":1,"x":2}]}`, 46, "input[0]", `duplicate key "x"`},
		{"type tag", `{"input":[{"type":"message","type":"function_call","role":"user","content":"hi"}]}`, 28, "input[0]", `duplicate key "type"`},
		{"type tag after other keys", `{"input":[{"role":"user","type":"message","content":"hi","type":"message"}]}`, 57, "input[0]", `duplicate key "type"`},
		{"content part", `{"input":[{"role":"user","content":[{"type":"input_text","text":"a","text":"b"}]}]}`, 68, "input[0].content[0]", `duplicate key "text"`},
		{"nested object", `{"reasoning":{"effort":"low","effort":"high"}}`, 29, "reasoning", `duplicate key "effort"`},
		// An item whose first tag is unknown, or not a string, is not walked;
		// a second, known tag must not slip past (encoding/json would read it).
		{"unknown type, then a known one", `{"input":[{"type":"zzz","type":"message","role":"user","content":"hi"}]}`, 24, "input[0]", `duplicate key "type"`},
		{"non-string type, then a known one", `{"input":[{"type":1,"a":2,"type":"message","role":"user","content":"hi"}]}`, 26, "input[0]", `duplicate key "type"`},
		{"unknown type repeated", `{"input":[{"type":"zzz","type":"zzz"}]}`, 24, "input[0]", `duplicate key "type"`},
		{"the ninth unknown key repeats the first", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"a":2}`, 55, "", `duplicate key "a"`},
		{"an unknown key of the top repeated after an item's own", `{"x":1,"input":[{"role":"user","content":"hi","x":1,"y":1}],"x":2}`, 60, "", `duplicate key "x"`},
		{"the tenth repeats the ninth", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"i":2}`, 55, "", `duplicate key "i"`},
	})
	// OpenRouter's trace is an open object: the keys it allows without
	// declaring them are walked too.
	r, ok := codec.OpenRouter.Payload(codec.ResponsesRequest)
	if !ok {
		t.Fatal("openrouter has no responses request")
	}
	checkSyntaxCases(t, r, []syntaxCase{
		{"declared key of an open object", `{"trace":{"trace_id":"a","trace_id":"b"}}`, 25, "trace", `duplicate key "trace_id"`},
		{"undeclared key of an open object", `{"trace":{"x":1,"x":2}}`, 16, "trace", `duplicate key "x"`},
	})
}

// Free-form values are validated, not walked: a key they repeat is theirs to
// interpret, and the decoding succeeds.
func TestDecodeDuplicateKeysInFreeForm(t *testing.T) {
	for _, in := range []string{
		`{"metadata":{"a":"1","a":"2"}}`,
		`{"tools":[{"type":"function","name":"f","parameters":{"type":"object","type":"object"}}]}`,
		`{"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"string","type":"number"}}}}]}`,
		`{"x":{"a":1,"a":2}}`,
		`{"input":[{"type":"future","a":1,"a":2}]}`,
	} {
		doc, err := codec.Decode(oaRequest, []byte(in))
		if err != nil {
			t.Errorf("Decode(%s): %v", in, err)
			continue
		}
		if got := doc.AppendJSON(nil); string(got) != in {
			t.Errorf("Decode(%s).AppendJSON = %s", in, got)
		}
	}
}

func TestDecodeDepth(t *testing.T) {
	nest := func(prefix string, n int, suffix string) string {
		return prefix + strings.Repeat("[", n) + strings.Repeat("]", n) + suffix
	}
	// The top-level object is one level: metadata holds MaxDepth-1 more.
	for _, in := range []string{
		nest(`{"metadata":`, 100, `}`),
		nest(`{"metadata":`, codec.MaxDepth-1, `}`),
		nest(`{"x":`, codec.MaxDepth-1, `}`),
		nest(`{"tools":[{"type":"function","name":"f","parameters":`, codec.MaxDepth-3, `}]}`),
		`{"metadata":` + strings.Repeat(`{"a":`, codec.MaxDepth-1) + `1` + strings.Repeat(`}`, codec.MaxDepth-1) + `}`,
	} {
		if _, err := codec.Decode(oaRequest, []byte(in)); err != nil {
			t.Errorf("Decode(%.60s…): %v", in, err)
		}
	}
	// Too deep: the error is at the bracket that opens level MaxDepth+1,
	// whether it is empty or not.
	for _, tc := range []struct {
		name, in, path string
		bracket        int // the offset of the bracket that opens level MaxDepth+1
		member         int // how far after it its first member is
	}{
		{"MaxDepth+1 levels", nest(`{"metadata":`, codec.MaxDepth, `}`), "metadata", len(`{"metadata":`) + codec.MaxDepth - 1, 1},
		{"MaxDepth+2 levels", nest(`{"metadata":`, codec.MaxDepth+1, `}`), "metadata", len(`{"metadata":`) + codec.MaxDepth - 1, 1},
		{"far too deep", nest(`{"metadata":`, 100000, `}`), "metadata", len(`{"metadata":`) + codec.MaxDepth - 1, 1},
		{"not closed", `{"metadata":` + strings.Repeat("[", 100000), "metadata", len(`{"metadata":`) + codec.MaxDepth - 1, 1},
		{"objects", `{"metadata":` + strings.Repeat(`{"a":`, codec.MaxDepth) + `1` + strings.Repeat(`}`, codec.MaxDepth) + `}`, "metadata", len(`{"metadata":`) + 5*(codec.MaxDepth-1), 5},
		{"empty at MaxDepth+1", `{"metadata":` + strings.Repeat("[", codec.MaxDepth-1) + "[]" + strings.Repeat("]", codec.MaxDepth-1) + `}`, "metadata", len(`{"metadata":`) + codec.MaxDepth - 1, 1},
		{"unknown field", nest(`{"x":`, codec.MaxDepth, `}`), "x", len(`{"x":`) + codec.MaxDepth - 1, 1},
		{"tool parameters", nest(`{"tools":[{"type":"function","name":"f","parameters":`, codec.MaxDepth-2, `}]}`), "tools[0].parameters",
			len(`{"tools":[{"type":"function","name":"f","parameters":`) + codec.MaxDepth - 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			se := decodeError(t, oaRequest, tc.in)
			if se.Reason != "nested too deeply" || !errors.Is(se, codec.ErrTooDeep) || !strings.HasPrefix(se.Path, tc.path) || se.Offset != tc.bracket {
				t.Errorf("got offset %d, path %.60q, reason %q; want offset %d, path %q…, reason \"nested too deeply\"",
					se.Offset, se.Path, se.Reason, tc.bracket, tc.path)
			}
		})
	}
}

func TestSyntaxErrorAs(t *testing.T) {
	_, err := codec.Decode(oaRequest, []byte(`{"model":"a",}`))
	if err == nil {
		t.Fatal("Decode succeeded")
	}
	var se *codec.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("errors.As(%T, *codec.SyntaxError) = false", err)
	}
	if !errors.As(fmt.Errorf("wrapped: %w", err), new(*codec.SyntaxError)) {
		t.Error("errors.As through a wrapping error = false")
	}
	for _, e := range []error{err, &codec.SyntaxError{Offset: 3, Path: "input[1]", Reason: "x"}} {
		if !strings.HasPrefix(e.Error(), "codec: ") {
			t.Errorf("Error() = %q, want the prefix \"codec: \"", e.Error())
		}
	}
	if got, want := err.Error(), `codec: invalid JSON at offset 13 (the top level): unexpected '}'`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = codec.Decode(oaRequest, []byte(`{"input":[{"role":"user","role":"user"}]}`))
	if got, want := fmt.Sprint(err), `codec: invalid JSON at offset 25 (input[0]): duplicate key "role"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestDecodeZeroRoot(t *testing.T) {
	for _, in := range []string{`{}`, ``, `x`} {
		doc, err := codec.Decode(codec.Root{}, []byte(in))
		if err == nil || doc != nil {
			t.Errorf("Decode(Root{}, %q) = %v, %v; want an error", in, doc, err)
		} else if !strings.HasPrefix(err.Error(), "codec: ") {
			t.Errorf("Decode(Root{}, %q): %q, want the prefix \"codec: \"", in, err)
		}
		var d codec.Doc
		if err := d.Decode(codec.Root{}, []byte(in)); err == nil {
			t.Errorf("Doc.Decode(Root{}, %q) succeeded", in)
		}
	}
}

// summary renders everything a Doc reports, to compare two Docs.
func summary(d *codec.Doc) []string {
	out := []string{fmt.Sprintf("root %s, %d nodes, bytes %s", d.Root().Name(), d.Len(), d.Bytes())}
	for n := range d.Nodes() {
		parent := "none"
		if p, ok := n.Parent(); ok {
			parent = fmt.Sprintf("%s@%d", p.Path(), p.Offset())
		}
		var children []string
		for c := range n.Children() {
			children = append(children, fmt.Sprintf("%s@%d", c.Path(), c.Offset()))
		}
		out = append(out, fmt.Sprintf("node %q@%d union=%s variant=%s type=%q known=%t defaulted=%t parent=%s children=%q raw=%s",
			n.Path(), n.Offset(), n.Union(), n.Variant(), n.Type(), n.Known(), n.Defaulted(), parent, children, n.Raw()))
	}
	for _, f := range d.Findings() {
		out = append(out, fmt.Sprintf("finding %s: kind=%d name=%q want=%q path=%q raw=%s", f, f.Kind, f.Name(), f.Want(), f.Path(), f.Raw))
	}
	return out
}

func TestDocReuse(t *testing.T) {
	forward, err := filepath.Glob(filepath.Join("..", "testdata", "forward", "request-*.json"))
	if err != nil || len(forward) == 0 {
		t.Fatalf("no forward request cases: %v", err)
	}
	var inputs [][]byte
	for i, name := range forward {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
		// A failure between two successes, each cut at a different place.
		inputs = append(inputs, data[:len(data)*(i+1)/(len(forward)+1)])
	}
	inputs = append(inputs,
		[]byte(`{"model":1,"input":[{"type":"message"},{"type":2},{}],"tools":[{"type":"function"}]}`),
		[]byte(`{"model":"a","model":"b"}`),
		[]byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":"a"}]}],"metadata":{"a":[[[[]]]]}}`),
		[]byte(`{"metadata":`+strings.Repeat("[", codec.MaxDepth)+`}`),
		[]byte(`{}`),
	)

	var reused codec.Doc
	failures := 0
	for _, data := range inputs {
		in := bytes.Clone(data) // the reused Doc must not depend on an earlier input's bytes
		errReused := reused.Decode(oaRequest, in)
		fresh, errFresh := codec.Decode(oaRequest, data)
		if fmt.Sprint(errReused) != fmt.Sprint(errFresh) {
			t.Errorf("%.40s…: reused Doc: %v; fresh Doc: %v", data, errReused, errFresh)
			continue
		}
		if errFresh != nil {
			failures++
			continue
		}
		if got, want := summary(&reused), summary(fresh); !slices.Equal(got, want) {
			t.Errorf("%.40s…: the reused Doc reports\n%s\nwant\n%s", data, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if !bytes.Equal(reused.AppendJSON(nil), data) {
			t.Errorf("%.40s…: the reused Doc re-encodes as %s", data, reused.AppendJSON(nil))
		}
	}
	if failures < 3 || failures == len(inputs) {
		t.Errorf("%d of %d inputs failed: the test wants both", failures, len(inputs))
	}
}

// A Doc decoding the events of a stream one after another (as a stream's
// translator does: each payload in the memory of the one before) reads
// each as a fresh Doc does, whatever it keeps from one Decode to the next
// (the hints of props.go): the recorded streams, and payloads that differ
// from the one before a byte after a member, in it, or in its order.
func TestDocReuseOnStreams(t *testing.T) {
	payloads, err := fixtures.Corpus(fixtures.SharedDir(".."))
	if err != nil {
		t.Fatal(err)
	}
	bench, err := fixtures.Bench(fixtures.SharedDir(".."))
	if err != nil {
		t.Fatal(err)
	}
	var seqs []seq
	for _, f := range fixtures.ByFile(append(payloads, bench...)) {
		var p codec.Payload
		switch f.Kind {
		case codec.ChatChunk, codec.ResponsesEvent:
			p = f.Kind
		default:
			continue
		}
		for _, d := range []*codec.Dialect{codec.OpenAI, codec.OpenRouter} {
			if r, ok := d.Payload(p); ok {
				seqs = append(seqs, seq{r, f.Payloads})
			}
		}
	}
	chunk := func(s string) []byte {
		return []byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,` + s + `}]}`)
	}
	seqs = append(seqs, seq{orChunk, [][]byte{
		chunk(`"delta":{"content":"a"},"finish_reason":null`),
		chunk(`"delta":{"content":"a"},"finish_reason":null`),
		chunk(`"delta":{"content":"a"},"finish_reason":"stop"`),                                     // a member that changes
		chunk(`"delta":{"content":"a"},"finish_reason":"nope"`),                                     // to an unknown value: a finding
		chunk(`"delta":{"content":"a"},"finish_reason":"nope"`),                                     // again
		[]byte(`{"id":"c","object":"chat.completion.chunk","created":12,"model":"m","choices":[]}`), // the byte after a member
		[]byte(`{"id":"c","object":"chat.completion.chunk","created":1.5,"model":"m","choices":[]}`),
		[]byte(`{"id":"c","object":"chat.completion.chunk","created":1,"created":1,"model":"m","choices":[]}`), // repeated: refused
		[]byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}`),
		[]byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[]`), // cut
		[]byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}`),
		[]byte(`{"id":"c","object":"chat.completion.chunk","model":"m","created":1,"choices":[]}`), // reordered
		[]byte(`{"object":"chat.completion.chunk","id":"c","created":1,"model":"m","choices":[]}`),
		// Keys where the hints (props.go) say another was: written with
		// an escape, longer, spaced from the colon, cut, repeated.
		[]byte(`{"\u006fbject":"chat.completion.chunk","id":"c","created":1,"model":"m","choices":[]}`),
		[]byte(`{"objectx":"chat.completion.chunk","id":"c","created":1,"model":"m","choices":[]}`),
		[]byte(`{"object" :"chat.completion.chunk","id" : "c","created"` + "\t\n" + `:1,"model":"m","choices":[]}`),
		[]byte(`{"object"`),
		[]byte(`{"object":`),
		[]byte(`{"object":"chat.completion.chunk","object":"chat.completion.chunk"}`),
		[]byte(`{"object":"chat.completion.chunk","object":"chat.completion.chunk"}`),
		[]byte(`{"object":"chat.completion.chunk","id":"c","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}`),
		[]byte(`{"object":"chat.completion.chunk","id":"c","created":1,"model":"m","choices":[{"delta":{"content":"a"},"index":0}]}`),
		// Keys matched as their pattern `"key":` of up to 16 bytes:
		// undeclared ones (short, long, of 13 bytes), repeated; a key that
		// differs from the hint's past its first 8 bytes or in its 16th;
		// the same keys within the data's last 16 bytes.
		chunk(`"delta":{"content":"a"},"finish_reason":null,"x_short":1,"x_thirteen_13":2,"x_longer_than_sixteen":3`),
		chunk(`"delta":{"content":"a"},"finish_reason":null,"x_short":1,"x_thirteen_13":2,"x_longer_than_sixteen":3`),
		chunk(`"delta":{"content":"a"},"finish_reasons":null,"x_shorts":1,"x_thirteen_1x":2,"x_longer_than_sixteen":3`),
		chunk(`"delta":{"content":"a"},"finish_reason":null,"x_short":1,"x_short":2`),
		chunk(`"delta":{"content":"a"},"finish_reason":null,"x_short":1,"x_thirteen_13":2,"x_thirteen_13":2`),
		chunk(`"delta":{"content":"a"},"finish_reason":null,"x_short":1,"x_thirteen_13":2,"x_longer_than_sixteen":3`),
		[]byte(`{"choices":[{"finish_reason":null,"index":0}],"id":"c"}`),
		[]byte(`{"choices":[{"finish_reason":null,"index":0}],"id":"c"}`),
		[]byte(`{"choices":[],"id":"c","x_short":1}`), // undeclared, within the last 16 bytes
		[]byte(`{"choices":[],"id":"c","x_short":1}`),
		[]byte(`{"choices":[],"id":"c","x_short":1,"x_short":2}`),
	}})
	// Objects of more schemas at one depth than it keeps hints for
	// (props.go): input items of five types, in turn and in another order.
	items := []string{
		`{"type":"message","role":"user","content":"hi"}`,
		`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`,
		`{"type":"function_call_output","call_id":"c","output":"ok"}`,
		`{"type":"reasoning","id":"r","summary":[]}`,
		`{"type":"item_reference","id":"i"}`,
	}
	request := func(order ...int) []byte {
		var in []string
		for _, i := range order {
			in = append(in, items[i])
		}
		return []byte(`{"model":"m","input":[` + strings.Join(in, ",") + `]}`)
	}
	// (A Doc learns hints from its second Decode: the first is request(0).)
	seqs = append(seqs, seq{root(codec.OpenAI, codec.ResponsesRequest), [][]byte{
		request(0), request(0, 1, 2, 3, 4, 0, 1, 2, 3, 4), request(0, 1, 2, 3, 4), request(4, 3, 2, 1, 0, 0, 0), request(2, 2, 1, 1, 0),
	}})
	for _, skeletons := range []bool{false, true} {
		t.Run(fmt.Sprintf("skeletons=%t", skeletons), func(t *testing.T) {
			decodeAlike(t, seqs, skeletons)
		})
	}
}

// decodeAlike decodes each sequence's payloads one after another with a
// reused Doc (keeping skeletons or not), each beside a fresh Doc, and
// fails on any difference in what they report.
func decodeAlike(t *testing.T, seqs []seq, skeletons bool) {
	decoded, hits := 0, 0
	for _, s := range seqs {
		var reused codec.Doc
		reused.Skeletons(skeletons)
		for i, data := range s.data {
			// (decodeLike decodes a copy, cleared after: as a stream
			// reader's buffer, the payload before is overwritten.)
			if _, ok := decodeLike(t, &reused, s.root, data, fmt.Sprintf("payload %d of its stream", i-1)); ok {
				decoded++
			}
		}
		hits += reused.SkeletonHits()
	}
	if decoded < 1000 {
		t.Errorf("%d payloads decoded: the streams are missing", decoded)
	}
	// The recorded streams' chunks are mostly alike: most are read
	// against the skeleton of the one before.
	if skeletons && hits < decoded/2 || !skeletons && hits > 0 {
		t.Errorf("%d of %d payloads read against a skeleton", hits, decoded)
	}
	t.Logf("%d of %d payloads read against a skeleton", hits, decoded)
}

// tapeOf lists every value in v (each member's key, every value's
// offset, end, kind and bytes), as Members and Elems step to them.
func tapeOf(v codec.Value, out []string) []string {
	out = append(out, fmt.Sprintf("%d+%d %v %s", v.Offset(), len(v.Raw()), v.Kind(), v.Raw()))
	switch v.Kind() {
	case codec.Object:
		for k, m := range v.Members() {
			out = append(out, fmt.Sprintf("key %s", k.Raw()))
			out = tapeOf(m, out)
		}
	case codec.Array:
		for _, e := range v.Elems() {
			out = tapeOf(e, out)
		}
	}
	return out
}

// seq is payloads decoded one after another.
type seq struct {
	root codec.Root
	data [][]byte
}

// Release lets go of the payload (and of the findings that point into
// it); the Doc decodes the next payload as a new one would.
func TestDocRelease(t *testing.T) {
	r, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	var d codec.Doc
	first := []byte(`{"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"mystery":1}`)
	if err := d.Decode(r, first); err != nil || len(d.Findings()) != 1 {
		t.Fatalf("%v %v", err, d.Findings())
	}
	d.Release()
	if d.Bytes() != nil || len(d.Findings()) != 0 {
		t.Errorf("released, the Doc still has %q and %v", d.Bytes(), d.Findings())
	}
	next := []byte(`{"id":"b","object":"chat.completion.chunk","created":2,"model":"m","choices":[]}`)
	fresh, err := codec.Decode(r, next)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Decode(r, next); err != nil || !bytes.Equal(d.Value().Get("id").Raw(), fresh.Value().Get("id").Raw()) || len(d.Findings()) != len(fresh.Findings()) {
		t.Errorf("after Release: %v %s %v", err, d.Value().Raw(), d.Findings())
	}
	// Keeping skeletons, it keeps none of the payload either: the next
	// payload (the same one) is decoded whole.
	d.Skeletons(true)
	for range 2 {
		if err := d.Decode(r, next); err != nil {
			t.Fatal(err)
		}
	}
	if d.SkeletonHits() != 1 || codec.SkeletonBytes(&d) == 0 {
		t.Fatalf("%d hits, %d bytes kept", d.SkeletonHits(), codec.SkeletonBytes(&d))
	}
	d.Release()
	if n := codec.SkeletonBytes(&d); n != 0 {
		t.Errorf("released, the Doc keeps %d bytes of its skeleton", n)
	}
	if err := d.Decode(r, next); err != nil || d.SkeletonHits() != 1 {
		t.Errorf("after Release: %v, %d hits", err, d.SkeletonHits())
	}
}

// A union's tag read first (tagFirst: the usual object) and the same tag
// found by the scan (elsewhere in the object, or its key escaped) give the
// same variant, nodes and findings, and the same errors.
func TestTagFirst(t *testing.T) {
	r, _ := codec.OpenAI.Payload(codec.ResponsesEvent)
	const rest = `"item_id":"i","output_index":0,"content_index":0,"delta":"x","sequence_number":1,"logprobs":[]`
	for _, c := range []struct{ first, later string }{
		{`{"type":"response.output_text.delta",` + rest + `}`, `{` + rest + `,"type":"response.output_text.delta"}`},
		{"{ \n\"type\" :\t\"response.output_text.delta\" ," + rest + `}`, `{"t\u0079pe":"response.output_text.delta",` + rest + `}`},
		{`{"type":"response.future","x":1}`, `{"x":1,"type":"response.future"}`},
		{`{"type":1,"x":1}`, `{"x":1,"type":1}`},
		{`{"type":null,"x":1}`, `{"x":1,"type":null}`},
		{`{"type":"response.output_text.delta","type":"error"}`, `{"x":1,"type":"response.output_text.delta","type":"error"}`},
		{`{"typex":"error","type":"response.output_text.delta",` + rest + `}`, `{` + rest + `,"typex":"error","type":"response.output_text.delta"}`},
		{`{"type":"response.output_text.delta"}`, `{"t\u0079pe":"response.output_text.delta"}`},
		{`{"type":"response.output_text.delta"`, `{"x":1,"type":"response.output_text.delta"`},
	} {
		first, errFirst := codec.Decode(r, []byte(c.first))
		later, errLater := codec.Decode(r, []byte(c.later))
		if (errFirst == nil) != (errLater == nil) {
			t.Errorf("%s: %v; %s: %v", c.first, errFirst, c.later, errLater)
			continue
		}
		if errFirst != nil {
			continue
		}
		if got, want := shape(first), shape(later); !slices.Equal(got, want) {
			t.Errorf("%s reads as\n%s\nbut %s as\n%s", c.first, strings.Join(got, "\n"), c.later, strings.Join(want, "\n"))
		}
	}
}

// shape is what a Doc found, without offsets: each node's path, variant,
// type and whether it is known, each finding's kind and path.
func shape(d *codec.Doc) []string {
	var out []string
	for n := range d.Nodes() {
		out = append(out, fmt.Sprintf("node %q variant=%s type=%q known=%t", n.Path(), n.Variant(), n.Type(), n.Known()))
	}
	for _, f := range d.Findings() {
		if f.Kind == codec.UnknownField && f.Name() == "x" {
			continue // the later forms' extra member
		}
		out = append(out, fmt.Sprintf("finding kind=%d path=%q", f.Kind, f.Path()))
	}
	slices.Sort(out)
	return out
}

// Quiet: a top-level key the spec lacks that the caller handles makes no
// finding, its value read as any member's; the same key deeper still
// does, a repeated one is still refused, and nil ends it.
func TestDocQuiet(t *testing.T) {
	r, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	const chunk = `{"id":"a","router":"eu-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"router":"x","delta":{},"finish_reason":null}],"mystery":1}`
	names := func(d *codec.Doc) []string {
		var out []string
		for _, f := range d.Findings() {
			out = append(out, f.Path())
		}
		return out
	}
	var d codec.Doc
	d.Quiet(func(key []byte) bool { return string(key) == "router" })
	if err := d.Decode(r, []byte(chunk)); err != nil {
		t.Fatal(err)
	}
	if got, want := names(&d), []string{"choices[0].router", "mystery"}; !slices.Equal(got, want) {
		t.Errorf("quiet router: findings %q, want %q", got, want)
	}
	if got := d.Value().Get("router").Raw(); string(got) != `"eu-1"` {
		t.Errorf("quiet router reads %s", got)
	}
	if err := d.Decode(r, []byte(`{"router":"a","id":"x","router":"b"}`)); err == nil {
		t.Error("a repeated quiet key was taken")
	}
	d.Quiet(nil)
	if err := d.Decode(r, []byte(chunk)); err != nil {
		t.Fatal(err)
	}
	if got, want := names(&d), []string{"router", "choices[0].router", "mystery"}; !slices.Equal(got, want) {
		t.Errorf("no longer quiet: findings %q, want %q", got, want)
	}
}

// Finding.At matches a finding's path against a pattern with [] for each
// index, as Path would write it, at every depth and for each kind.
func TestFindingAt(t *testing.T) {
	doc, err := codec.Decode(oaRequest, []byte(`{"zz":1,"input":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"input_text","text":"a","yy":2}],"xx":3}],"tools":[{"type":"function","parameters":{}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	wildcard := regexp.MustCompile(`\[[0-9]+\]`)
	var paths []string
	for _, f := range doc.Findings() {
		p := f.Path()
		paths = append(paths, p)
		pattern := wildcard.ReplaceAllString(p, "[]")
		if !f.At(pattern) {
			t.Errorf("%s (%v): not At(%q)", p, f.Kind, pattern)
		}
		for _, bad := range []string{pattern + "x", pattern[1:], "x" + pattern, strings.Replace(pattern, "[]", ".x", 1), strings.Replace(pattern, ".", "[].", 1), ""} {
			if bad != pattern && f.At(bad) {
				t.Errorf("%s (%v): At(%q)", p, f.Kind, bad)
			}
		}
	}
	if want := []string{"zz", "input[1].content[0].yy", "input[1].xx", "tools[0].name", "tools[0].strict"}; !slices.Equal(paths, want) {
		t.Errorf("findings at %q, want %q", paths, want)
	}
	// Escaped keys are compared unescaped, at the top and below.
	doc, err = codec.Decode(oaRequest, []byte(`{"z\u007a":1,"in\u0070ut":[{"role":"user","content":"a","x\u0078":3}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, f := range doc.Findings() {
		for _, pattern := range []string{"zz", `z\u007a`, "input[].xx", `in\u0070ut[].xx`, `input[].x\u0078`, "input[].x"} {
			if f.At(pattern) {
				at = append(at, pattern)
			}
		}
	}
	if want := []string{"zz", "input[].xx"}; !slices.Equal(at, want) {
		t.Errorf("escaped keys At %q, want %q", at, want)
	}
}
