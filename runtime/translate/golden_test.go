package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// goldenAnswers are the golden cases' requests with their upstream's
// answer in file (upstream.json or upstream.sse), in order then in
// reverse: what the reuse tests convert one after another.
func goldenAnswers(t *testing.T, file string, atLeast int) (reqs []*Request, answers [][]byte) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", file))
	if len(paths) < atLeast {
		t.Fatalf("%d cases", len(paths))
	}
	for _, p := range paths {
		reqBody, err := os.ReadFile(filepath.Join(filepath.Dir(p), "request.json"))
		if err != nil {
			t.Fatal(err)
		}
		answer, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		reqs, answers = append(reqs, request(t, string(reqBody))), append(answers, answer)
	}
	for i := len(paths) - 1; i >= 0; i-- {
		reqs, answers = append(reqs, reqs[i]), append(answers, answers[i])
	}
	return reqs, answers
}

// A Responder reuses its memory (items, parts, buffers) from one
// completion to the next: converting the golden completions one after
// another, forwards then backwards, gives what converting each afresh
// gives, Response and warnings.
func TestResponderReuse(t *testing.T) {
	reqs, bodies := goldenAnswers(t, "upstream.json", 5)
	var r Responder
	for i, req := range reqs {
		want, wantWarns, err := ChatToResponse(req, bodies[i], Options{IDs: &SeqIDs{}, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		resp, warns, err := r.Convert(req, bodies[i], Options{IDs: &SeqIDs{}, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(resp, want) || fmt.Sprint(warns) != fmt.Sprint(wantWarns) {
			t.Errorf("conversion %d differs from a fresh one:\n%s\n%v\nwant\n%s\n%v", i, resp, warns, want, wantWarns)
		}
	}
}

// A stream translator reset (as StreamPool does) reuses its memory (items,
// parts, their text, arguments and details) from one stream to the next:
// translating the golden streams one after another on one translator,
// forwards then backwards, gives what translating each afresh gives, and
// so does a StreamPool's.
func TestStreamReuse(t *testing.T) {
	reqs, ups := goldenAnswers(t, "upstream.sse", 10)
	opts := func() Options { return Options{IDs: &SeqIDs{}, Clock: clock} }
	pipe := func(tr ChatToResponses, up []byte) (string, string) {
		var out bytes.Buffer
		if err := Pipe(tr, bytes.NewReader(up), &out); err != nil {
			t.Fatal(err)
		}
		return out.String(), fmt.Sprint(tr.Warnings())
	}
	one := NewChatToResponses(&Request{}, opts())
	var pool StreamPool
	for i, req := range reqs {
		want, wantWarns := pipe(NewChatToResponses(req, opts()), ups[i])
		one.Reset(req, opts())
		pooled := pool.Get(req, opts())
		for _, tr := range []ChatToResponses{one, pooled} {
			if got, warns := pipe(tr, ups[i]); got != want || warns != wantWarns {
				t.Errorf("stream %d (pooled %v) differs from a fresh one:\n%s\n%v\nwant\n%s\n%s", i, tr == pooled, got, warns, want, wantWarns)
			}
		}
		pool.Put(pooled)
	}
}
