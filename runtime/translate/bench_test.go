package translate

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
)

// BenchmarkStream: ../shared/bench/d_chat_stream.sse (500 chunks: text
// deltas, two interleaved tool calls, usage) in bytes → Responses SSE
// bytes (impl=translate), beside the same-run baseline: jsontext reading
// every token of every chunk, and copying the bytes (impl=baseline). The
// chunks are split out of the SSE beforehand for both; ns/op and
// allocs/op are per stream (500 chunks). chunk=KIND is the steady state
// of one kind of chunk (text, reasoning, a tool call's arguments) in
// streams of 500 such chunks, per chunk, each beside the baseline on the
// same chunk.
func BenchmarkStream(b *testing.B) {
	data, chunks := benchStream(b)
	req := request(b, `{"model":"m","input":"hi","tools":[`+
		`{"type":"function","name":"get_weather","parameters":{"type":"object"}},`+
		`{"type":"function","name":"get_time","parameters":{"type":"object"}}]}`)
	opts := Options{IDs: &SeqIDs{}, Clock: clock}
	b.Run("impl=baseline", func(b *testing.B) {
		var bl fixtures.Baseline
		out := make([]byte, 0, 1<<20)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			out = out[:0]
			for _, c := range chunks {
				if err := bl.Tokenize(c); err != nil {
					b.Fatal(err)
				}
				out = append(out, c...)
			}
		}
	})
	// impl=translate reuses one translator (Reset), as the gateway does
	// (StreamPool); impl=new makes one per stream.
	for _, reuse := range []bool{true, false} {
		name := "impl=translate"
		if !reuse {
			name = "impl=new"
		}
		b.Run(name, func(b *testing.B) {
			out := make([]byte, 0, 1<<20)
			t := NewChatToResponses(req, opts)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if reuse {
					t.Reset(req, opts)
				} else {
					t = NewChatToResponses(req, opts)
				}
				out = AppendSSE(out[:0], t.Start())
				for _, c := range chunks {
					out = AppendSSE(out, t.Next(c))
				}
				out = AppendSSE(out, t.Finish())
			}
		})
	}
	// The steady state of each kind of chunk, beside the baseline on the
	// same chunk (ns/op and allocs/op per chunk): a text delta, a
	// reasoning delta (OpenRouter's reasoning and reasoning_details), the
	// same when the request includes reasoning.encrypted_content (as
	// Codex's do: the details are kept, to replay), a tool call's argument
	// delta (the call opened before the loop).
	encReq := request(b, `{"model":"m","input":"hi","include":["reasoning.encrypted_content"]}`)
	const reasoningChunk = `{"id":"gen-1","provider":"Google","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Some thought, \"quoted\".","reasoning_details":[{"type":"reasoning.text","text":"Some thought, \"quoted\".","format":"anthropic-claude-v1","index":0}]},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`
	for _, k := range []struct {
		name, open, chunk string
		req               *Request
	}{
		{"text", "", `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Some words of text, \"quoted\"."},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}`, req},
		{"reasoning", "", reasoningChunk, req},
		{"reasoning-encrypted", "", reasoningChunk, encReq},
		{"args",
			`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
			`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"type":"function","function":{"arguments":"{\"location\": \"Par"}}]},"finish_reason":null,"native_finish_reason":null,"logprobs":null}],"system_fingerprint":"fp_6d7dcc9a98"}`, req},
	} {
		chunk := []byte(k.chunk)
		b.Run("chunk="+k.name+"/impl=baseline", func(b *testing.B) {
			var bl fixtures.Baseline
			out := make([]byte, 0, 4096)
			b.SetBytes(int64(len(chunk)))
			for b.Loop() {
				if err := bl.Tokenize(chunk); err != nil {
					b.Fatal(err)
				}
				out = append(out[:0], chunk...)
			}
		})
		b.Run("chunk="+k.name+"/impl=translate", func(b *testing.B) {
			// A stream of streamLen chunks at most, as the bench stream:
			// what a stream accumulates (its text) grows as a real one's,
			// not without end. Each next one is the translator reset (as
			// the gateway's StreamPool does), off the clock.
			const streamLen = 500
			t := NewChatToResponses(k.req, opts)
			open := func() {
				t.Reset(k.req, opts)
				t.Start()
				if k.open != "" {
					t.Next([]byte(k.open))
				}
			}
			open()
			if len(t.Next(chunk)) == 0 {
				b.Fatal("the chunk makes no event")
			}
			scratch := make([]byte, 0, 4096)
			b.SetBytes(int64(len(chunk)))
			n := 0
			for b.Loop() {
				if n++; n%streamLen == 0 {
					b.StopTimer()
					open()
					b.StartTimer()
				}
				_, _ = io.Discard.Write(AppendSSE(scratch[:0], t.Next(chunk)))
			}
		})
	}
}

// BenchmarkAnswer: the stream of ../shared/bench/d_chat_stream.sse
// answering ../shared/bench/b_large_request.json (193 KB), the request's
// conversion included, per request. impl=convert is the conversion alone
// (a reused Converter), impl=stream the stream alone (its Request made
// before; its translator from a StreamPool, as the gateway's), impl=whole
// both with the Request read from the conversion (RequestOf: one parse);
// impl=reparsed makes it with NewRequest instead
// (the body parsed a second time), impl=request is RequestOf alone. Whole
// and request take their Requests from a RequestPool, as the gateway
// does (impl=request-new: RequestOf's own memory each time). impl=baseline
// is the tight baseline on the request and the chunks. One pass: whole ≈
// convert + stream (+ request).
func BenchmarkAnswer(b *testing.B) {
	_, chunks := benchStream(b)
	body, err := os.ReadFile(filepath.Join(fixtures.SharedDir(filepath.Join("..", "..")), "bench", "b_large_request.json"))
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{IDs: &SeqIDs{}, Clock: clock}
	var cv mapping.Converter
	chat := make([]byte, 0, 1<<18)
	out := make([]byte, 0, 1<<20)
	convert := func() {
		if chat, _, err = cv.ResponsesToChat(chat[:0], body, mapping.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	var pool StreamPool // as the gateway takes its streams' translators
	stream := func(req *Request) {
		t := pool.Get(req, opts)
		defer pool.Put(t)
		out = AppendSSE(out[:0], t.Start())
		for _, c := range chunks {
			out = AppendSSE(out, t.Next(c))
		}
		out = AppendSSE(out, t.Finish())
		t.Release()
	}
	convert()
	req := RequestOf(&cv)
	var requests RequestPool // as the gateway takes its Requests
	var bl fixtures.Baseline
	for _, impl := range []struct {
		name string
		run  func()
	}{
		{"baseline", func() {
			if err := bl.Tokenize(body); err != nil {
				b.Fatal(err)
			}
			out = append(out[:0], body...)
			for _, c := range chunks {
				if err := bl.Tokenize(c); err != nil {
					b.Fatal(err)
				}
				out = append(out, c...)
			}
		}},
		{"convert", convert},
		{"stream", func() { stream(req) }},
		{"request", func() { requests.Put(requests.Of(&cv)) }},
		{"request-new", func() { _ = RequestOf(&cv) }},
		{"whole", func() {
			convert()
			r := requests.Of(&cv)
			stream(r)
			requests.Put(r)
		}},
		{"reparsed", func() {
			convert()
			r, err := NewRequest(body, cv.ToolMap().Clone())
			if err != nil {
				b.Fatal(err)
			}
			stream(r)
		}},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				impl.run()
			}
		})
	}
}

// benchStream is ../shared/bench/d_chat_stream.sse, and its chunks' data
// ([DONE] left out).
func benchStream(b testing.TB) (data []byte, chunks [][]byte) {
	data, err := os.ReadFile(filepath.Join(fixtures.SharedDir(filepath.Join("..", "..")), "bench", "d_chat_stream.sse"))
	if err != nil {
		b.Fatal(err)
	}
	rd := sse.NewReader(bytes.NewReader(data))
	for rd.Next() {
		if e := rd.Event(); !e.Done() {
			chunks = append(chunks, append([]byte(nil), e.Data...))
		}
	}
	return data, chunks
}

// BenchmarkResponse: ../shared/bench/c_chat_response.json (a chat
// completion: 1.5 KB text, 2 tool calls, usage with cost) → the Response
// object (impl=translate), beside the same-run jsontext baseline
// (impl=baseline: every token read, the bytes copied); impl=reused is a
// Responder converting one after another.
func BenchmarkResponse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures.SharedDir(filepath.Join("..", "..")), "bench", "c_chat_response.json"))
	if err != nil {
		b.Fatal(err)
	}
	req := request(b, `{"model":"m","input":"hi","tools":[`+
		`{"type":"function","name":"get_weather","parameters":{"type":"object"}},`+
		`{"type":"function","name":"get_time","parameters":{"type":"object"}}]}`)
	b.Run("impl=baseline", func(b *testing.B) {
		var bl fixtures.Baseline
		out := make([]byte, 0, 1<<16)
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := bl.Tokenize(data); err != nil {
				b.Fatal(err)
			}
			out = append(out[:0], data...)
		}
	})
	b.Run("impl=translate", func(b *testing.B) {
		opts := Options{IDs: &SeqIDs{}, Clock: clock}
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, _, err := ChatToResponse(req, data, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=reused", func(b *testing.B) {
		opts := Options{IDs: &SeqIDs{}, Clock: clock}
		var r Responder
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, _, err := r.Convert(req, data, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
