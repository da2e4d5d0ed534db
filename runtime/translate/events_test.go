package translate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/generator"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

// mapping/chat_chunk_responses.yaml says which stream event types the
// translator emits and which never (the alignment matrix shows it): every
// type the golden and recorded streams make is declared emitted, and
// every type declared emitted is made by one of them.
func TestEventsAsDeclared(t *testing.T) {
	const file = "mapping/chat_chunk_responses.yaml"
	data, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	f, errs := generator.Load(file, data)
	if errs != nil {
		t.Fatal(errs)
	}
	emitted := map[string]bool{}
	record := func(events [][]byte) {
		for _, e := range events {
			var ev struct{ Type string }
			if err := json.Unmarshal(e, &ev); err != nil {
				t.Fatal(err)
			}
			emitted[ev.Type] = true
		}
	}
	dirs, _ := filepath.Glob("testdata/*/upstream.sse")
	for _, p := range dirs {
		reqBody, err := os.ReadFile(filepath.Join(filepath.Dir(p), "request.json"))
		if err != nil {
			t.Fatal(err)
		}
		up, _ := os.ReadFile(p)
		var out bytes.Buffer
		if err := Pipe(NewChatToResponses(request(t, string(reqBody)), Options{IDs: &SeqIDs{}, Clock: clock}), bytes.NewReader(up), &out); err != nil {
			t.Fatal(err)
		}
		var events [][]byte
		for rd := sse.NewReader(&out); rd.Next(); {
			events = append(events, append([]byte(nil), rd.Event().Data...))
		}
		checkStream(t, events)
		record(events)
	}
	ps, err := fixtures.Corpus(shared(t))
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, `{"model":"m","input":"hi"}`)
	for _, bf := range fixtures.ByFile(ps) {
		if strings.HasPrefix(bf.Name, "chat-sse/") {
			record(stream(t, req, bf.Payloads, nil))
		}
	}
	var declared []string
	for _, e := range f.Events {
		if e.Emit != "" {
			declared = append(declared, e.Type)
			if !emitted[e.Type] {
				t.Errorf("%s:%d: %s is declared emitted, but no golden or recorded stream makes it", file, e.Line, e.Type)
			}
		}
	}
	for typ := range emitted {
		if !slices.Contains(declared, typ) {
			t.Errorf("the translator emits %s, which %s does not declare emitted", typ, file)
		}
	}
}
