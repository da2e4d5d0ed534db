package codec_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

func TestStreamChat(t *testing.T) {
	root, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	in := ": OPENROUTER PROCESSING\r\n\r\n" +
		`data: {"id":"g","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"He"}}]}` + "\r\n\r\n" +
		": OPENROUTER PROCESSING\n\n" +
		"data: {\"id\":\"g\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\n" +
		"data: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"llo\"},\"finish_reason\":\"stop\",\"native_finish_reason\":\"end_turn\"}],\"x_new\":1}\n\n" +
		"data: [DONE]\n\n" +
		"data: {\"after\":\"done\"}\n\n"
	s := codec.NewStream(strings.NewReader(in), root)
	var contents, unknown []string
	for s.Next() {
		doc := s.Doc()
		if !bytes.Equal(doc.AppendJSON(nil), s.Event().Data) {
			t.Errorf("event not re-encoded as it was")
		}
		for _, f := range doc.Findings() {
			if f.Kind == codec.UnknownField {
				unknown = append(unknown, f.Path())
			}
		}
		contents = append(contents, string(doc.Bytes()[bytes.Index(doc.Bytes(), []byte(`"content"`)):][:16]))
	}
	if err := s.Err(); err != nil || !s.Done() {
		t.Fatalf("err %v, done %v", err, s.Done())
	}
	equal(t, "chunks", contents, []string{`"content":"He"}}`, `"content":"llo"}`})
	equal(t, "findings", unknown, []string{"x_new"})
	if s.Next() {
		t.Error("data after [DONE] was read")
	}
}

func TestStreamResponses(t *testing.T) {
	root, _ := codec.OpenAI.Payload(codec.ResponsesEvent)
	in := "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"object\":\"response\"}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,\"delta\":\"hi\",\"logprobs\":[]}"
	s := codec.NewStream(strings.NewReader(in), root)
	var types []string
	for s.Next() {
		types = append(types, s.Event().Type+"="+s.Doc().Node(0).Variant())
	}
	if s.Err() != nil || s.Done() {
		t.Fatalf("err %v, done %v", s.Err(), s.Done())
	}
	equal(t, "events", types, []string{"response.created=ResponseCreatedEvent", "response.output_text.delta=ResponseTextDeltaEvent"})
}

func TestStreamBadEvent(t *testing.T) {
	root, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	s := codec.NewStream(strings.NewReader("data: {\"id\":\"a\"}\n\ndata:\n\ndata: {\"id\":\"b\",}\n\ndata: {}\n\n"), root)
	n := 0
	for s.Next() {
		n++
	}
	var se *codec.SyntaxError
	var ste *codec.StreamError
	if n != 1 || !errors.As(s.Err(), &se) || !errors.As(s.Err(), &ste) || ste.Event != 1 || strings.Count(s.Err().Error(), "codec:") != 1 {
		t.Fatalf("%d events, err %v", n, s.Err())
	}
	if se.Offset != 10 { // the } after the comma
		t.Errorf("offset %d", se.Offset)
	}
}

// Every recorded chat stream decodes chunk by chunk, and ends with [DONE].
func TestStreamCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared(t), "corpus", "chat-sse", "*.sse"))
	if len(files) == 0 {
		t.Fatal("no recorded chat streams")
	}
	corpus, err := fixtures.Corpus(shared(t))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := codec.OpenRouter.Payload(codec.ChatChunk)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, p := range corpus {
			if strings.HasPrefix(p.Name, "chat-sse/"+filepath.Base(f)+"#") {
				want++
			}
		}
		s := codec.NewStream(bytes.NewReader(data), root)
		n := 0
		for s.Next() {
			n++
		}
		if s.Err() != nil || !s.Done() || n != want || n == 0 {
			t.Errorf("%s: %d chunks of %d, done %v, err %v", filepath.Base(f), n, want, s.Done(), s.Err())
		}
	}
}
