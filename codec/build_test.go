package codec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/transponder-dev/transponder/codec"
)

func TestBuilder(t *testing.T) {
	var b codec.Builder
	b.Reset()
	b.Set(codec.Top, "model", []byte(`"gpt"`))
	msgs := b.Array(codec.Top, "messages")
	m := b.AppendObject(msgs)
	b.SetString(m, "content", "a \"quote\", a tab\t, a control \x01 and bad UTF-8 \xff")
	rf := b.Object(codec.Top, "response_format")
	b.Set(b.Object(rf, "json_schema"), "name", []byte(`"x"`))
	b.Set(rf, "type", []byte(`"json_schema"`))
	b.Object(codec.Top, "empty")                 // left out: nothing in it
	b.AppendObject(b.Array(codec.Top, "tools"))  // left out: an array of empty objects
	b.Set(codec.Top, "metadata", []byte(`{}`))   // kept: a raw {}
	b.Set(codec.Top, "model", []byte(`"gpt-5"`)) // replaced in place
	b.SetBool(codec.Top, "stream", true)
	b.Set(codec.Top, "gone", []byte(`1`))
	b.Delete(codec.Top, "gone")
	arr := b.Array(codec.Top, "list")
	b.AppendRaw(arr, []byte(`1`))
	two := b.AppendObject(arr)
	b.Set(two, "k", []byte(`2`))
	b.AppendRaw(arr, []byte(`3`))
	b.Filter(arr, func(r codec.Ref) bool { return r != two })
	got := string(b.AppendJSON(nil))
	want := `{"model":"gpt-5","messages":[{"content":"a \"quote\", a tab\t, a control \u0001 and bad UTF-8 ` + "\ufffd" + `"}],"response_format":{"json_schema":{"name":"x"},"type":"json_schema"},"metadata":{},"stream":true,"list":[1,3]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, ok := b.Child(codec.Top, "model"); ok {
		t.Error("Child of a raw value")
	}
	if b.Len(codec.Top) != 6 {
		t.Errorf("Len %d, want 6 (empty members not counted)", b.Len(codec.Top))
	}
	for _, c := range []struct {
		r    codec.Ref
		want bool
	}{{codec.Top, false}, {arr, false}, {b.Object(codec.Top, "empty"), true}, {b.Array(codec.Top, "tools"), true}, {rf, false}, {two, false}} {
		if got := b.Empty(c.r); got != c.want || got != (b.Len(c.r) == 0) {
			t.Errorf("Empty(%d) = %v, want %v (Len %d)", c.r, got, c.want, b.Len(c.r))
		}
	}
	b.Reset()
	if got := string(b.AppendJSON(nil)); got != "{}" {
		t.Errorf("after Reset: %s", got)
	}
	var zero codec.Builder
	if got := string(zero.AppendJSON(nil)); got != "{}" {
		t.Errorf("zero Builder: %s", got)
	}
}

func TestNodeAt(t *testing.T) {
	doc, err := codec.Decode(oaRequest, []byte(`{"input":[{"role":"user","content":"hi"},{"type":"function_call_output","call_id":"c","output":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, it := range doc.Value().Get("input").Elems() {
		n, ok := doc.NodeAt(it)
		if !ok {
			t.Fatalf("no node at %s", it.Raw())
		}
		tags = append(tags, n.Tag()+"/"+n.Type())
	}
	if got := tags[0] + " " + tags[1]; got != "message/ function_call_output/function_call_output" {
		t.Errorf("tags %s", got)
	}
	if _, ok := doc.NodeAt(doc.Value().Get("input")); ok {
		t.Error("a node at the input array")
	}
}

func TestUnquote(t *testing.T) {
	for raw, want := range map[string]string{`"fo"`: "fo", `"f\u006f\n"`: "fo\n", `"\ud83d\ude00"`: "\U0001F600"} {
		if got, ok := codec.Unquote([]byte(raw)); !ok || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	if _, ok := codec.Unquote([]byte(`12`)); ok {
		t.Error("Unquote of a number")
	}
}

// A zero Builder's first value may be quoted into its buffer before it
// has its top: SetString then SetString (before, the first value's bytes
// were handed out again and overwritten).
func TestZeroBuilder(t *testing.T) {
	var b codec.Builder
	b.SetString(codec.Top, "a", "first")
	b.SetString(codec.Top, "b", "second")
	if got, want := string(b.AppendJSON(nil)), `{"a":"first","b":"second"}`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

// TestAppendString: plain runs are copied eight bytes at a time; every
// mix of plain bytes, quotes, backslashes, control characters, UTF-8 of
// each length and invalid bytes, at every place against the eight-byte
// words, comes out as the rune-by-rune escaping says (each invalid byte a
// U+FFFD) and as JSON that decodes to the string.
func TestAppendString(t *testing.T) {
	pieces := []string{"a", "xyz", "0123456789", "\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "<&>", "/", "é", "€", "😀", "\xff", "\xe2\x82", "\xed\xa0\x80", "\x7f"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var s strings.Builder
		for n := rng.IntN(12); n > 0; n-- {
			s.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in := s.String()
		want := []byte{'x', '"'}
		for i, r := range in {
			switch {
			case r == '"' || r == '\\':
				want = append(want, '\\', byte(r))
			case r == '\n':
				want = append(want, `\n`...)
			case r == '\r':
				want = append(want, `\r`...)
			case r == '\t':
				want = append(want, `\t`...)
			case r < 0x20:
				want = fmt.Appendf(want, `\u%04x`, r)
			case r == utf8.RuneError && !strings.HasPrefix(in[i:], "\ufffd"):
				want = append(want, "\ufffd"...)
			default:
				want = utf8.AppendRune(want, r)
			}
		}
		want = append(want, '"')
		out := codec.AppendString([]byte("x"), in)
		if !bytes.Equal(out, want) {
			t.Fatalf("%q: %q, want %q", in, out, want)
		}
		var got string
		if err := json.Unmarshal(out[1:], &got); err != nil || got != string([]rune(in)) {
			t.Fatalf("%q: %q decodes to %q (%v)", in, out[1:], got, err)
		}
	}
}

// Every length up to three words, one byte to escape or check at each
// place of it: the words of eight, the last word overlapping those before
// it, the two words of four of a short string, the bytes of a shorter one.
func TestAppendStringPlaces(t *testing.T) {
	for n := 1; n <= 24; n++ {
		for p := range n {
			for _, c := range []string{`"`, `\`, "\x1f", "\n", "é"} {
				in := strings.Repeat("a", p) + c + strings.Repeat("b", n-p-1)
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(in); err != nil {
					t.Fatal(err)
				}
				if got := codec.AppendString(nil, in); string(got) != strings.TrimSuffix(want.String(), "\n") {
					t.Errorf("%q: %s, want %s", in, got, want.Bytes())
				}
			}
		}
	}
}

// Members walks an object's members in the order they were set, a
// replaced one in its place, a deleted one gone, empty containers
// included; RawOf reads the raw ones and nil for a container. SetNew
// leaves a member that has a value as it is.
func TestBuilderMembers(t *testing.T) {
	var b codec.Builder
	b.Set(codec.Top, "a", []byte(`1`))
	u := b.Object(codec.Top, "usage")
	b.Set(u, "n", []byte(`2`))
	b.Object(codec.Top, "empty")
	b.Set(codec.Top, "gone", []byte(`3`))
	b.Set(codec.Top, "a", []byte(`4`))
	b.Delete(codec.Top, "gone")
	b.SetNew(codec.Top, "a", []byte(`5`)) // a has a value: kept
	b.SetNew(u, "m", []byte(`6`))
	var got []string
	for k, r := range b.Members(codec.Top) {
		got = append(got, fmt.Sprintf("%s=%s", k, b.RawOf(r)))
		if k == "usage" {
			for k, r := range b.Members(r) {
				got = append(got, fmt.Sprintf("usage.%s=%s", k, b.RawOf(r)))
			}
		}
	}
	if want := "a=4 usage= usage.n=2 usage.m=6 empty="; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	for k := range b.Members(codec.Top) {
		if k != "a" {
			t.Errorf("the walk went on past a break, to %q", k)
		}
		break
	}
}

// What holds nothing is left out wherever it is: an empty object or array
// (or one of only such) as the first member, between members, last, as an
// array's element, and a nil raw value; a raw {} or [] is kept.
func TestBuilderLeavesOutEmpty(t *testing.T) {
	var b codec.Builder
	b.Object(codec.Top, "first")
	b.Set(codec.Top, "nil", nil)
	b.Set(codec.Top, "zero", []byte{}) // no JSON value either: left out, not written as "zero":
	b.SetJSON(codec.Top, "zeroJSON", "")
	b.Set(codec.Top, "a", []byte(`1`))
	b.AppendObject(b.Array(b.Object(codec.Top, "nested"), "list"))
	arr := b.Array(codec.Top, "arr")
	b.AppendObject(arr)
	b.AppendRaw(arr, []byte(`[]`))
	b.AppendObject(arr)
	b.AppendRaw(arr, nil)
	b.AppendRaw(arr, []byte{})
	b.Set(b.AppendObject(arr), "k", []byte(`{}`))
	b.Object(codec.Top, "last")
	if got, want := string(b.AppendJSON([]byte("x"))), `x{"a":1,"arr":[[],{"k":{}}]}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var e codec.Builder
	e.Object(codec.Top, "only")
	if got := string(e.AppendJSON(nil)); got != `{}` {
		t.Errorf("an empty payload: %s", got)
	}
}

// Keys are written as JSON strings whatever they hold: a plain one as it
// is, one with a quote, a backslash, a control character or invalid UTF-8
// escaped (the ad-hoc Builders copy a request's keys), non-ASCII kept.
func TestBuilderKeys(t *testing.T) {
	var b codec.Builder
	b.Reset()
	for _, k := range []string{"model", "max_completion_tokens_and_more", "a\"b", "back\\slash", "tab\there", "é", "\xff", ""} {
		b.SetJSON(codec.Top, k, "1")
	}
	got := string(b.AppendJSON(make([]byte, 0, 4))) // grown by the keys
	want := `{"model":1,"max_completion_tokens_and_more":1,"a\"b":1,"back\\slash":1,"tab\there":1,"é":1,"` + "\ufffd" + `":1,"":1}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestBuilderKeyWords: keys of every length up to 40 (bytes, four-byte
// words, eight-byte words with an overlapping last one), plain and with a
// byte to escape at every position, each written as AppendString writes
// it, whatever was in the buffer's spare capacity.
func TestBuilderKeyWords(t *testing.T) {
	for n := 0; n <= 40; n++ {
		plain := strings.Repeat("k", n)
		keys := []string{plain}
		for i := range n {
			for _, c := range []string{"\"", "\\", "\n", "\x01", "é"[:1], "\x7f"} {
				keys = append(keys, plain[:i]+c+plain[i+1:])
			}
		}
		for _, k := range keys {
			var b codec.Builder
			b.Reset()
			b.SetJSON(codec.Top, k, "1")
			want := "{" + string(codec.AppendString(nil, k)) + ":1}"
			dirty := bytes.Repeat([]byte{0xaa}, 64)[:0]
			if got := string(b.AppendJSON(dirty)); got != want {
				t.Errorf("key %q: got %s, want %s", k, got, want)
			}
		}
	}
}

// TestBuilderLit: the …Lit methods build what the methods of the same
// names build (their keys written without a check), and mix with them:
// a member set by one is found, replaced and kept in place by the other.
func TestBuilderLit(t *testing.T) {
	build := func(lit bool) string {
		var b codec.Builder
		b.Reset()
		obj, arr := b.Object, b.Array
		set, setNew, setJSON := b.Set, b.SetNew, b.SetJSON
		if lit {
			obj, arr = b.ObjectLit, b.ArrayLit
			set, setNew, setJSON = b.SetLit, b.SetNewLit, b.SetJSONLit
		}
		set(codec.Top, "model", []byte(`"m"`))
		setNew(codec.Top, "model", []byte(`"not kept"`))
		msgs := arr(codec.Top, "messages")
		m := b.AppendObject(msgs)
		setJSON(m, "role", `"user"`)
		set(m, "content", []byte(`"hi"`))
		var fn codec.Ref
		tool := b.AppendObject(arr(codec.Top, "tools"))
		setJSON(tool, "type", `"function"`)
		setNew(b.ObjectOnce(tool, "function", &fn), "name", []byte(`"f"`))
		setNew(b.ObjectOnce(tool, "function", &fn), "parameters", []byte(`{}`))
		set(obj(codec.Top, "response_format"), "type", []byte(`"text"`))
		b.Set(codec.Top, "model", []byte(`"replaced"`)) // by the other kind of method
		b.SetLit(codec.Top, "stream", []byte(`true`))   // then as a literal
		b.Set(codec.Top, "we\"ird", []byte(`1`))        // a key from a payload: escaped
		return string(b.AppendJSON(nil))
	}
	want := `{"model":"replaced","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"response_format":{"type":"text"},"stream":true,"we\"ird":1}`
	for _, lit := range []bool{false, true} {
		if got := build(lit); got != want {
			t.Errorf("lit %v:\ngot  %s\nwant %s", lit, got, want)
		}
	}
}

// TestBuilderMembersModel: random Sets, SetNews, Arrays and Deletes (literal
// keys or not) and Resets on a Builder's top and on an object in it, with
// keys of equal lengths, of lengths 16 apart (an object tells its members'
// keys apart by their lengths first) and "", checked against a model of
// ordered members: Has, Raw and Child after every step, the JSON after
// each run.
func TestBuilderMembersModel(t *testing.T) {
	keys := []string{"", "a", "b", "ab", "type", "text", "role", "model", "tools", "top_p",
		"0123456789abcdef", "0123456789abcdefX", "x", "messages", "metadata"}
	type member struct {
		key   string
		raw   string   // a raw value's
		elems []string // an array's
	}
	find := func(ms []member, k string) int {
		for i, m := range ms {
			if m.key == k {
				return i
			}
		}
		return -1
	}
	render := func(ms []member) string {
		var w strings.Builder
		for _, m := range ms {
			if w.Len() > 0 {
				w.WriteByte(',')
			}
			w.WriteString(`"` + m.key + `":`)
			if m.elems != nil {
				w.WriteString("[" + strings.Join(m.elems, ",") + "]")
			} else {
				w.WriteString(m.raw)
			}
		}
		return w.String()
	}
	rng := rand.New(rand.NewPCG(7, 23))
	var b codec.Builder
	for run := range 300 {
		b.Reset()
		var top, sub []member
		obj0 := b.ObjectLit(codec.Top, "sub-object")
		for step := range 80 {
			obj, ms := codec.Top, &top
			if rng.IntN(2) == 0 {
				obj, ms = obj0, &sub
			}
			k := keys[rng.IntN(len(keys))]
			raw := fmt.Sprint(step)
			i := find(*ms, k)
			switch op := rng.IntN(9); op {
			case 0, 1: // Set, SetLit: in place if there
				if op == 0 {
					b.Set(obj, k, []byte(raw))
				} else {
					b.SetLit(obj, k, []byte(raw))
				}
				if i >= 0 {
					(*ms)[i] = member{key: k, raw: raw}
				} else {
					*ms = append(*ms, member{key: k, raw: raw})
				}
			case 2, 3: // SetNew, SetNewLit: only if not there
				if op == 2 {
					b.SetNew(obj, k, []byte(raw))
				} else {
					b.SetNewLit(obj, k, []byte(raw))
				}
				if i < 0 {
					*ms = append(*ms, member{key: k, raw: raw})
				}
			case 4, 5: // Array, ArrayLit: the array there, or one in the place of a raw value
				var arr codec.Ref
				if op == 4 {
					arr = b.Array(obj, k)
				} else {
					arr = b.ArrayLit(obj, k)
				}
				b.AppendRaw(arr, []byte(raw))
				switch {
				case i < 0:
					*ms = append(*ms, member{key: k, elems: []string{raw}})
				case (*ms)[i].elems == nil:
					(*ms)[i] = member{key: k, elems: []string{raw}}
				default:
					(*ms)[i].elems = append((*ms)[i].elems, raw)
				}
			case 6, 7:
				b.Delete(obj, k)
				if i >= 0 {
					*ms = append((*ms)[:i], (*ms)[i+1:]...)
				}
			case 8:
				if rng.IntN(10) == 0 {
					b.Reset()
					top, sub = nil, nil
					obj0 = b.ObjectLit(codec.Top, "sub-object")
				}
			}
			for _, o := range []struct {
				ref codec.Ref
				ms  []member
			}{{codec.Top, top}, {obj0, sub}} {
				for _, k := range keys {
					j := find(o.ms, k)
					if got := b.Has(o.ref, k); got != (j >= 0) {
						t.Fatalf("run %d step %d: Has(%d, %q) = %v, want %v", run, step, o.ref, k, got, j >= 0)
					}
					if got, want := string(b.Raw(o.ref, k)), ""; j >= 0 && o.ms[j].elems == nil {
						if want = o.ms[j].raw; got != want {
							t.Fatalf("run %d step %d: Raw(%d, %q) = %q, want %q", run, step, o.ref, k, got, want)
						}
					}
					if _, ok := b.Child(o.ref, k); ok != (j >= 0 && o.ms[j].elems != nil) {
						t.Fatalf("run %d step %d: Child(%d, %q) ok %v", run, step, o.ref, k, ok)
					}
				}
			}
		}
		// The sub-object first (set first, never deleted: "sub-object" is
		// none of the keys), left out if empty.
		want := render(top)
		if len(sub) > 0 {
			want = strings.TrimSuffix(`"sub-object":{`+render(sub)+`},`+want, ",")
		}
		if got := string(b.AppendJSON(nil)); got != "{"+want+"}" {
			t.Fatalf("run %d:\n got  %s\n want {%s}", run, got, want)
		}
	}
}
