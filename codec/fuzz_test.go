package codec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/internal/jsontest"
)

// FuzzDecode decodes any input against every root of both dialects and
// checks what must hold of the outcome:
//
//   - a failure is a *codec.SyntaxError inside the input, and only for input
//     that is not JSON, nests too deeply, or repeats a key;
//   - a success re-encodes as the input byte for byte, on JSON that
//     encoding/json accepts, and every node and finding is the value its path
//     names in the input, at the offset it says.
//
// Its seeds are the recorded corpus, the forward cases, the small benchmark
// request and a few edge cases.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`[]`,
		`null`,
		`"x"`,
		`-1.5e3`,
		` {"model":"gpt-5.5"} `,
		`{"input":[{"role":"user","content":"hi"}]}`,
		`{"input":[{"type":"future_item","x":{"y":[1,2]}},{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"future_part"}]}]}`,
		`{"in\u0070ut":[{"t\u0079pe":"mess\u0061ge","role":"user","content":"hi"}]}`,
		`{"a.b":{"c":1},"":[],"\"":null,"x y":{"1":2}}`,
		`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"\ud83d\ude00 \u00e9\n\\\/"}]}]}`,
		`{"\ud800":1,"input":[{"role":"user","content":"\udc00"}]}`,
		`{"model":1,"input":[{"type":2},{"type":"message"},{}],"tools":[{"type":"function","parameters":{"a":1,"a":2}}],"metadata":{"a":1,"a":2}}`,
		`{"model":"a","model":"b"}`,
		`{"input":[{"type":"future","type":"message"}]}`,
		`{"type":"response.output_text.delta","item_id":"i","output_index":0,"content_index":0,"delta":"x","sequence_number":1}`,
		`{"type":"response.future_event","response":{"output":[{"type":"future_output"}]}}`,
		`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"a","tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"future"}],"temperature":0.5}`,
		`{"model":"\u12"}`,
		`{"x":[1,2,}`,
	} {
		f.Add([]byte(seed))
	}
	for _, p := range forward(f) {
		f.Add(p.Data)
	}
	if dir, ok := fuzzShared(f); ok {
		payloads, err := fixtures.Corpus(dir)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range payloads {
			f.Add(p.Data)
		}
		small, err := os.ReadFile(filepath.Join(dir, "bench", "a_small_request.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(small)
	}

	var roots []namedRoot
	for _, d := range dialects {
		for _, p := range []codec.Payload{codec.ResponsesRequest, codec.ResponsesBody, codec.ResponsesEvent, codec.ChatRequest, codec.ChatBody, codec.ChatChunk} {
			r, ok := d.Payload(p)
			if !ok {
				f.Fatalf("%s has no %s", d.Name(), p)
			}
			roots = append(roots, namedRoot{d.Name() + " " + p.String(), r})
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		var doc codec.Doc
		var ref *reference
		for _, r := range roots {
			err := doc.Decode(r.root, data)
			if !bytes.Equal(data, in) {
				t.Fatalf("%s: Decode changed its input", r.name)
			}
			if err != nil {
				checkFailure(t, r.name, data, err)
				continue
			}
			if ref == nil {
				ref = newReference(t, data)
			}
			checkSuccess(t, r.name, &doc, ref)
			// Decoded again by the same Doc (with what it keeps of the
			// first decode, props.go), from other memory: the same
			// reading.
			first := summary(&doc)
			firstValue := generic(t, doc.Value())
			if err := doc.Decode(r.root, bytes.Clone(data)); err != nil {
				t.Fatalf("%s: decoded once, not twice: %v", r.name, err)
			}
			if got := summary(&doc); !slices.Equal(got, first) {
				t.Fatalf("%s: decoded again, reports\n%s\nwant\n%s", r.name, strings.Join(got, "\n"), strings.Join(first, "\n"))
			}
			if got := generic(t, doc.Value()); !reflect.DeepEqual(got, firstValue) {
				t.Fatalf("%s: decoded again, reads %v, want %v", r.name, got, firstValue)
			}
			if err := doc.Decode(r.root, data); err != nil {
				t.Fatalf("%s: decoded twice, not thrice: %v", r.name, err)
			}
			checkSuccess(t, r.name, &doc, ref)
			// Reading it through Values reads what encoding/json reads (a
			// repeated key's last value, as both keep).
			if ref.valid {
				if got := generic(t, doc.Value()); !reflect.DeepEqual(got, ref.value) {
					t.Fatalf("%s: Values read %v, encoding/json %v", r.name, got, ref.value)
				}
				// And the tape reads what scanning the bytes reads.
				if scanned, ok := codec.Parse(data); ok {
					sameValue(t, r.name, doc.Value(), scanned)
				}
			}
		}
	})
}

type namedRoot struct {
	name string
	root codec.Root
}

// fuzzShared is the shared directory, if there is one (it must be, on CI).
func fuzzShared(f *testing.F) (string, bool) {
	dir := fixtures.SharedDir("..")
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		if os.Getenv("CI") != "" {
			f.Fatal(err)
		}
		f.Logf("no shared corpus at %s (set SHARED_DIR): seeding without it", dir)
		return "", false
	}
	return dir, true
}

func checkFailure(t *testing.T, root string, data []byte, err error) {
	t.Helper()
	var se *codec.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("%s: %v (%T), want a *codec.SyntaxError", root, err, err)
	}
	if se.Offset < 0 || se.Offset > len(data) || se.Reason == "" {
		t.Fatalf("%s: %v: offset outside the input (%d bytes) or no reason", root, err, len(data))
	}
	if !strings.HasPrefix(err.Error(), "codec: ") {
		t.Fatalf("%s: %q lacks the prefix \"codec: \"", root, err)
	}
	// encoding/json accepts what repeats a key, and nests deeper than
	// codec.MaxDepth; it also accepts invalid UTF-8 in strings, which
	// codec refuses.
	if json.Valid(data) && utf8.Valid(data) && !strings.HasPrefix(se.Reason, "duplicate key ") && se.Reason != "nested too deeply" {
		t.Fatalf("%s: %v, on JSON that encoding/json accepts", root, err)
	}
}

func checkSuccess(t *testing.T, root string, doc *codec.Doc, ref *reference) {
	t.Helper()
	data := ref.data
	if out := doc.AppendJSON(nil); !bytes.Equal(out, data) {
		t.Fatalf("%s: re-encodes as %q", root, out)
	}
	if !bytes.Equal(doc.Bytes(), data) {
		t.Fatalf("%s: Bytes() is %q", root, doc.Bytes())
	}
	if !ref.valid {
		t.Fatalf("%s: decodes what encoding/json refuses", root)
	}
	if !ref.equal { // once per input: the bytes are the same for every root
		if diff, err := jsontest.Diff(doc.AppendJSON(nil), data); diff != "" || err != nil {
			t.Fatalf("%s: re-encoding not JSON-equal: %s %v", root, diff, err)
		}
		ref.equal = true
	}

	i := 0
	for n := range doc.Nodes() {
		where := fmt.Sprintf("%s: node %d (%s %q at %q)", root, i, n.Union(), n.Type(), n.Path())
		i++
		raw, off := n.Raw(), n.Offset()
		if !json.Valid(raw) {
			t.Fatalf("%s: Raw %q is not JSON", where, raw)
		}
		if off < 0 || off+len(raw) > len(data) || len(raw) == 0 || &raw[0] != &data[off] {
			t.Fatalf("%s: Raw is not the input's bytes at offset %d", where, off)
		}
		if n.Known() != (n.Variant() != "") || n.Defaulted() && (!n.Known() || n.Type() != "") {
			t.Fatalf("%s: known %t, variant %q, defaulted %t", where, n.Known(), n.Variant(), n.Defaulted())
		}
		if p, ok := n.Parent(); ok {
			if p.Offset() > off || p.Offset()+len(p.Raw()) < off+len(raw) || !under(n.Path(), p.Path()) {
				t.Fatalf("%s: not inside its parent at %q", where, p.Path())
			}
		}
		for c := range n.Children() {
			if p, ok := c.Parent(); !ok || p.Offset() != off {
				t.Fatalf("%s: child at %q has another parent", where, c.Path())
			}
		}
		ref.check(t, where, n.Path(), raw)
	}
	if i != doc.Len() {
		t.Fatalf("%s: Nodes() yields %d nodes, Len() is %d", root, i, doc.Len())
	}

	for _, f := range doc.Findings() {
		where := fmt.Sprintf("%s: finding %v", root, f)
		if f.Raw != nil && !json.Valid(f.Raw) {
			t.Fatalf("%s: Raw %q is not JSON", where, f.Raw)
		}
		switch f.Kind {
		case codec.UnknownField, codec.ExtraField, codec.UnknownValue, codec.UnknownType, codec.WrongKind:
			if f.Raw == nil {
				t.Fatalf("%s: no Raw", where)
			}
			if (f.Kind == codec.UnknownField || f.Kind == codec.ExtraField) && !strings.HasSuffix(f.Path(), keyPath("", f.Name())) {
				t.Fatalf("%s: the path does not end with the key %q", where, f.Name())
			}
			ref.check(t, where, f.Path(), f.Raw)
		case codec.MissingField:
			if f.Raw != nil {
				t.Fatalf("%s: Raw %q", where, f.Raw)
			}
			ref.checkMissing(t, where, f.Path(), f.Name())
		default:
			t.Fatalf("%s: kind %d", where, f.Kind)
		}
	}
}

// under reports whether path is at or below the path p.
func under(path, p string) bool {
	if !strings.HasPrefix(path, p) {
		return false
	}
	rest := path[len(p):]
	return rest == "" || rest[0] == '[' || p != "" && rest[0] == '.' || p == "" && rest[0] != '.'
}

// reference is the input as encoding/json reads it, to resolve the paths of
// nodes and findings in.
type reference struct {
	data  []byte
	valid bool
	value any      // encoding/json with UseNumber: a repeated key's last value
	dups  []string // the paths of the keys an object repeats
	equal bool     // a Doc's re-encoding was found JSON-equal to data

	checked map[checked]bool // the spans found to be the values at their paths
}

type checked struct {
	path string
	raw  *byte
	n    int
}

func newReference(t *testing.T, data []byte) *reference {
	t.Helper()
	ref := &reference{data: data, valid: json.Valid(data), checked: map[checked]bool{}}
	if !ref.valid {
		return ref
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&ref.value); err != nil {
		t.Fatalf("encoding/json: Valid, but: %v", err)
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := repeatedKeys(dec, "", &ref.dups); err != nil {
		t.Fatalf("encoding/json: Valid, but: %v", err)
	}
	return ref
}

// repeatedKeys lists the paths of the keys that an object repeats, in the
// notation of codec's paths.
func repeatedKeys(dec *json.Decoder, path string, out *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key := tok.(string)
			p := keyPath(path, key)
			if seen[key] {
				*out = append(*out, p)
			}
			seen[key] = true
			if err := repeatedKeys(dec, p, out); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := repeatedKeys(dec, path+"["+strconv.Itoa(i)+"]", out); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token() // } or ]
	return err
}

// keyPath appends a key step to a path as codec writes paths.
func keyPath(path, key string) string {
	if len(key) > 64 { // paths clip long keys (codec's maxKeyShown)
		n := 64
		for n > 0 && !utf8.RuneStart(key[n]) {
			n--
		}
		key = key[:n] + "…"
	}
	ident := key != ""
	for i, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			ident = false
			break
		}
	}
	switch {
	case !ident:
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}

// ambiguous reports whether path goes through a key that its object
// repeats: which value it names depends on the reader.
func (ref *reference) ambiguous(path string) bool {
	if strings.Contains(path, "…\"]") {
		return true // a clipped key: the path names, it does not resolve
	}
	for _, d := range ref.dups {
		if under(path, d) {
			return true
		}
	}
	return false
}

// check checks that raw is JSON-equal to the value at path.
func (ref *reference) check(t *testing.T, where, path string, raw []byte) {
	t.Helper()
	key := checked{path, &raw[0], len(raw)}
	if ref.checked[key] || ref.ambiguous(path) {
		return
	}
	ref.checked[key] = true
	v, err := resolve(ref.value, path)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if diff, err := jsontest.Diff(raw, want); diff != "" || err != nil {
		t.Fatalf("%s: Raw %q is not the value at its path, %s: %s %v", where, raw, want, diff, err)
	}
}

// checkMissing checks that path names a key its object lacks.
func (ref *reference) checkMissing(t *testing.T, where, path, key string) {
	t.Helper()
	var parent string
	switch step := keyPath("", key); {
	case path == step:
	case strings.HasSuffix(path, "."+step):
		parent = strings.TrimSuffix(path, "."+step)
	case step[0] == '[' && strings.HasSuffix(path, step):
		parent = strings.TrimSuffix(path, step)
	default:
		t.Fatalf("%s: the path does not end with the key %q", where, key)
	}
	if ref.ambiguous(parent) {
		return
	}
	v, err := resolve(ref.value, parent)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %q is not an object", where, parent)
	}
	if _, ok := obj[key]; ok {
		t.Fatalf("%s: the object has the key", where)
	}
}

// resolve finds the value at path (input[3].content[0].text,
// metadata["a.b"]) in v.
func resolve(v any, path string) (any, error) {
	for i := 0; i < len(path); {
		var key string
		switch c := path[i]; {
		case c == '[' && i+1 < len(path) && path[i+1] == '"':
			q, err := strconv.QuotedPrefix(path[i+1:])
			if err != nil {
				return nil, fmt.Errorf("path %q: %v", path, err)
			}
			if key, err = strconv.Unquote(q); err != nil {
				return nil, fmt.Errorf("path %q: %v", path, err)
			}
			i += 1 + len(q)
			if i >= len(path) || path[i] != ']' {
				return nil, fmt.Errorf("path %q: no ] at %d", path, i)
			}
			i++
		case c == '[':
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: no ] after %d", path, i)
			}
			n, err := strconv.Atoi(path[i+1 : i+end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: index %q", path, path[i+1:i+end])
			}
			i += end + 1
			a, ok := v.([]any)
			if !ok || n >= len(a) {
				return nil, fmt.Errorf("path %q: no element %d", path, n)
			}
			v = a[n]
			continue
		case c == '.' || i == 0:
			if c == '.' {
				i++
			}
			j := i
			for j < len(path) && (path[j] == '_' || path[j] >= 'a' && path[j] <= 'z' || path[j] >= 'A' && path[j] <= 'Z' || path[j] >= '0' && path[j] <= '9') {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("path %q: no key at %d", path, i)
			}
			key, i = path[i:j], j
		default:
			return nil, fmt.Errorf("path %q: unexpected %q at %d", path, c, i)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("path %q: %q names a key of a non-object", path, key)
		}
		if v, ok = obj[key]; !ok {
			return nil, fmt.Errorf("path %q: no key %q", path, key)
		}
	}
	return v, nil
}
