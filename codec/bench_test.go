package codec_test

// Benchmarks of the JSON layer, measured as ratios to a same-run baseline:
// one pass of jsontext reading every token of the input plus copying its
// bytes (../shared/bench/README.md). Sub-benchmarks are named
// fixture=…/impl=…, so
//
//	make bench && go tool benchstat -col /impl bench.txt
//
// prints each implementation beside the baseline: impl=codec is this
// package (decode into a reused Doc, re-encode), impl=ogen the plain
// generated codec (decode into the generated type, encode it).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
	"github.com/transponder-dev/transponder/internal/fixtures"
)

type fixture struct {
	name   string
	data   []byte
	stream bool                                             // SSE: the payloads are the events' data
	ogen   func(payload []byte, out []byte) ([]byte, error) // decode + re-encode one payload
	root   codec.Root                                       // what the codec decodes a payload as
}

func root(d *codec.Dialect, p codec.Payload) codec.Root {
	r, ok := d.Payload(p)
	if !ok {
		panic(fmt.Sprintf("%s has no %s", d.Name(), p))
	}
	return r
}

var (
	oaRequest = root(codec.OpenAI, codec.ResponsesRequest)
	oaEvent   = root(codec.OpenAI, codec.ResponsesEvent)
	orChunk   = root(codec.OpenRouter, codec.ChatChunk)
)

func read(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// ogenCodec is what ogen generates for every schema type.
type ogenCodec[T any] interface {
	*T
	UnmarshalJSON([]byte) error
	MarshalJSON() ([]byte, error)
}

// viaOgen decodes a payload into a T with ogen's codec and appends its
// re-encoding to out.
func viaOgen[T any, P ogenCodec[T]](p, out []byte) ([]byte, error) {
	var v T
	if err := P(&v).UnmarshalJSON(p); err != nil {
		return nil, err
	}
	enc, err := P(&v).MarshalJSON()
	return append(out, enc...), err
}

var (
	responsesRequest = viaOgen[openai.CreateResponse]
	chatChunk        = viaOgen[openrouter.ChatStreamChunk]
	chatBody         = viaOgen[openrouter.ChatResult]
	chatRequest      = viaOgen[openrouter.ChatRequest]
	responsesEvent   = viaOgen[openai.ResponseStreamEvent]
)

func benchFixtures(b *testing.B) []fixture {
	dir := shared(b)
	fs := []fixture{
		{name: "a_small_request", data: read(b, filepath.Join(dir, "bench", "a_small_request.json")), ogen: responsesRequest, root: oaRequest},
		{name: "b_large_request", data: read(b, filepath.Join(dir, "bench", "b_large_request.json")), ogen: responsesRequest, root: oaRequest},
		{name: "c_chat_response", data: read(b, filepath.Join(dir, "bench", "c_chat_response.json")), ogen: chatBody, root: root(codec.OpenRouter, codec.ChatBody)},
		{name: "e_large_chat_request", data: read(b, filepath.Join(dir, "bench", "e_large_chat_request.json")), ogen: chatRequest, root: root(codec.OpenRouter, codec.ChatRequest)},
		{name: "d_chat_stream", data: read(b, filepath.Join(dir, "bench", "d_chat_stream.sse")), stream: true, ogen: chatChunk, root: orChunk},
		{name: "f_responses_stream", data: read(b, filepath.Join(dir, "bench", "f_responses_stream.sse")), stream: true, ogen: responsesEvent, root: oaEvent},
	}
	large, err := fixtures.CodexLarge(dir)
	if err != nil {
		b.Fatal(err)
	}
	fs = append(fs, fixture{name: "codex_assembled", data: large, ogen: responsesRequest, root: oaRequest})
	reqs, _ := filepath.Glob(filepath.Join(dir, "corpus", "requests", "*.json"))
	for _, f := range reqs {
		var rec struct {
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(read(b, f), &rec); err != nil {
			b.Fatal(err)
		}
		fs = append(fs, fixture{name: filepath.Base(f), data: rec.Body, ogen: responsesRequest, root: oaRequest})
	}
	return fs
}

// payloads calls fn with each JSON payload of the fixture: the body, or each
// event's data ([DONE] skipped).
func payloads(f fixture, fn func([]byte) error) error {
	if !f.stream {
		return fn(f.data)
	}
	r := sse.NewReader(bytes.NewReader(f.data))
	for r.Next() {
		if e := r.Event(); !e.Done() {
			if err := fn(e.Data); err != nil {
				return err
			}
		}
	}
	return r.Err()
}

// baseline reads every token of every payload (the tight baseline, bl
// kept from call to call) and copies the input bytes.
func baseline(bl *fixtures.Baseline, f fixture, out []byte) ([]byte, error) {
	err := payloads(f, bl.Tokenize)
	return append(out, f.data...), err
}

func BenchmarkRoundTrip(b *testing.B) {
	var doc codec.Doc
	var bl fixtures.Baseline
	for _, f := range benchFixtures(b) {
		impls := []struct {
			name string
			run  func([]byte) ([]byte, error)
		}{
			{"baseline", func(out []byte) ([]byte, error) { return baseline(&bl, f, out) }},
			{"codec", func(out []byte) ([]byte, error) {
				if f.stream { // SSE framing, [DONE], and each event decoded into the Stream's Doc
					s := codec.NewStream(bytes.NewReader(f.data), f.root)
					for s.Next() {
						out = s.Doc().AppendJSON(out)
					}
					return out, s.Err()
				}
				if err := doc.Decode(f.root, f.data); err != nil {
					return nil, err
				}
				return doc.AppendJSON(out), nil
			}},
			{"ogen", func(out []byte) ([]byte, error) {
				err := payloads(f, func(p []byte) error {
					var err error
					out, err = f.ogen(p, out)
					return err
				})
				return out, err
			}},
		}
		for _, impl := range impls {
			b.Run("fixture="+f.name+"/impl="+impl.name, func(b *testing.B) {
				out, err := impl.run(nil)
				if err != nil {
					b.Skipf("%s cannot take this fixture: %v", impl.name, err)
				}
				b.SetBytes(int64(len(f.data)))
				b.ReportAllocs()
				for b.Loop() {
					if out, err = impl.run(out[:0]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
