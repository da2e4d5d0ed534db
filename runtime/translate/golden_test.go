package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/golden"
	"github.com/transponder-dev/transponder/runtime/conformance"
)

// Golden cases testdata/<case>/: request.json (the client's Responses
// request), upstream.sse (the chat stream) → events.sse (what the client
// gets); upstream.json (the same answer, not streamed) → response.json,
// which must equal the stream's terminal response. Every stream passes
// the checker. -update rewrites the outputs.
func TestGolden(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/*/upstream.sse")
	if len(dirs) < 10 {
		t.Fatalf("%d cases", len(dirs))
	}
	for _, p := range dirs {
		dir := filepath.Dir(p)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			reqBody, err := os.ReadFile(filepath.Join(dir, "request.json"))
			if err != nil {
				t.Fatal(err)
			}
			req := request(t, string(reqBody))
			up, _ := os.ReadFile(p)
			var out bytes.Buffer
			tr := NewChatToResponses(req, Options{IDs: &SeqIDs{}, Clock: clock})
			if err := Pipe(tr, bytes.NewReader(up), &out); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(dir, "events.sse"), out.String(), *update)
			var events [][]byte
			rd := sse.NewReader(bytes.NewReader(out.Bytes()))
			for rd.Next() {
				events = append(events, append([]byte(nil), rd.Event().Data...))
			}
			checkStream(t, events)
			term := terminalResponse(t, events)
			body, err := os.ReadFile(filepath.Join(dir, "upstream.json"))
			if os.IsNotExist(err) {
				return
			}
			resp, _, err := ChatToResponse(req, body, Options{IDs: &SeqIDs{}, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			if fs := conformance.CheckResponse(resp); conformance.Violations(fs) > 0 {
				t.Fatalf("response: %v\n%s", fs, resp)
			}
			// The warnings name the chat field: a delta's in the stream, the
			// message's in a completion.
			term = bytes.ReplaceAll(term, []byte(`].delta.`), []byte(`].message.`))
			if fs := conformance.CompareResponses(term, resp); len(fs) > 0 {
				t.Errorf("the stream's terminal response and the non-stream Response differ: %v", fs)
			}
			var ind bytes.Buffer
			if err := json.Indent(&ind, resp, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(dir, "response.json"), ind.String()+"\n", *update)
		})
	}
}

// A Responder reuses its memory (items, parts, buffers) from one
// completion to the next: converting the golden completions one after
// another, forwards then backwards, gives what converting each afresh
// gives, Response and warnings.
func TestResponderReuse(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/upstream.json")
	if len(paths) < 5 {
		t.Fatalf("%d cases", len(paths))
	}
	type tc struct {
		req       *Request
		body      []byte
		want      []byte
		wantWarns string
	}
	var cases []tc
	for _, p := range paths {
		reqBody, err := os.ReadFile(filepath.Join(filepath.Dir(p), "request.json"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := os.ReadFile(p)
		c := tc{req: request(t, string(reqBody)), body: body}
		resp, warns, err := ChatToResponse(c.req, body, Options{IDs: &SeqIDs{}, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		c.want, c.wantWarns = resp, fmt.Sprint(warns)
		cases = append(cases, c)
	}
	var r Responder
	back := slices.Clone(cases)
	slices.Reverse(back)
	order := append(slices.Clone(cases), back...)
	for i, c := range order {
		resp, warns, err := r.Convert(c.req, c.body, Options{IDs: &SeqIDs{}, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(resp, c.want) || fmt.Sprint(warns) != c.wantWarns {
			t.Errorf("conversion %d differs from a fresh one:\n%s\n%v\nwant\n%s\n%s", i, resp, warns, c.want, c.wantWarns)
		}
	}
}

// A stream translator reset (as StreamPool does) reuses its memory (items,
// parts, their text, arguments and details) from one stream to the next:
// translating the golden streams one after another on one translator,
// forwards then backwards, gives what translating each afresh gives, and
// so does a StreamPool's.
func TestStreamReuse(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*/upstream.sse")
	if len(paths) < 10 {
		t.Fatalf("%d cases", len(paths))
	}
	type tc struct {
		req       *Request
		up, want  []byte
		wantWarns string
	}
	opts := func() Options { return Options{IDs: &SeqIDs{}, Clock: clock} }
	var cases []tc
	for _, p := range paths {
		reqBody, err := os.ReadFile(filepath.Join(filepath.Dir(p), "request.json"))
		if err != nil {
			t.Fatal(err)
		}
		c := tc{req: request(t, string(reqBody))}
		c.up, _ = os.ReadFile(p)
		var out bytes.Buffer
		tr := NewChatToResponses(c.req, opts())
		if err := Pipe(tr, bytes.NewReader(c.up), &out); err != nil {
			t.Fatal(err)
		}
		c.want, c.wantWarns = out.Bytes(), fmt.Sprint(tr.Warnings())
		cases = append(cases, c)
	}
	back := slices.Clone(cases)
	slices.Reverse(back)
	order := append(slices.Clone(cases), back...)
	one := NewChatToResponses(&Request{}, opts())
	var pool StreamPool
	for i, c := range order {
		for _, pooled := range []bool{false, true} {
			tr := one
			if pooled {
				tr = pool.Get(c.req, opts())
			} else {
				tr.Reset(c.req, opts())
			}
			var out bytes.Buffer
			if err := Pipe(tr, bytes.NewReader(c.up), &out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), c.want) || fmt.Sprint(tr.Warnings()) != c.wantWarns {
				t.Errorf("stream %d (pooled %v) differs from a fresh one:\n%s\n%v\nwant\n%s\n%s", i, pooled, out.Bytes(), tr.Warnings(), c.want, c.wantWarns)
			}
			if pooled {
				pool.Put(tr)
			}
		}
	}
}
