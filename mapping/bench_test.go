package mapping_test

// The converter, bytes in → bytes out, as a ratio to the same-run baseline
// of the codec's benchmarks (jsontext reading every token of the request
// and copying it, ../shared/bench/README.md):
//
//	go test -run '^$' -bench Convert -count 6 ./mapping > bench.txt
//	go tool benchstat -col /impl bench.txt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
)

func BenchmarkConvert(b *testing.B) {
	dir := fixtures.SharedDir("..")
	type fixture struct {
		name string
		data []byte
	}
	var fs []fixture
	for _, name := range []string{"a_small_request", "b_large_request"} {
		data, err := os.ReadFile(filepath.Join(dir, "bench", name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		fs = append(fs, fixture{name, data})
	}
	corpus, err := fixtures.Corpus(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range corpus {
		if p.Kind == codec.ResponsesRequest {
			fs = append(fs, fixture{strings.TrimPrefix(p.Name, "requests/"), p.Data})
		}
	}
	var cv, dcv, mcv mapping.Converter
	var bl fixtures.Baseline
	for _, f := range fs {
		impls := []struct {
			name string
			run  func(out []byte) ([]byte, error)
		}{
			{"baseline", func(out []byte) ([]byte, error) {
				err := bl.Tokenize(f.data)
				return append(out, f.data...), err
			}},
			{"openrouter", func([]byte) ([]byte, error) {
				out, _, err := mapping.ResponsesToChat(f.data, mapping.Options{})
				return out, err
			}},
			{"openai", func([]byte) ([]byte, error) {
				out, _, err := mapping.ResponsesToChat(f.data, mapping.Options{Dialect: mapping.OpenAI})
				return out, err
			}},
			{"openrouter-reused", func(out []byte) ([]byte, error) {
				out, _, err := cv.ResponsesToChat(out, f.data, mapping.Options{})
				return out, err
			}},
			// the dialects of direct providers: a carrier (DeepSeek), a
			// strict shape and rewritten ids (Mistral)
			{"deepseek-reused", func(out []byte) ([]byte, error) {
				out, _, err := dcv.ResponsesToChat(out, f.data, mapping.Options{Dialect: mapping.Deepseek})
				return out, err
			}},
			{"mistral-reused", func(out []byte) ([]byte, error) {
				out, _, err := mcv.ResponsesToChat(out, f.data, mapping.Options{Dialect: mapping.Mistral})
				return out, err
			}},
		}
		for _, impl := range impls {
			b.Run("fixture="+f.name+"/impl="+impl.name, func(b *testing.B) {
				out, err := impl.run(nil)
				if err != nil {
					b.Fatal(err)
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

// BenchmarkReverse: the chat → Responses converter on
// ../shared/bench/e_large_chat_request.json (the Codex-like conversation
// of b in chat form) beside the same-run tight baseline of
// ../shared/bench/README.md (impl=baseline; issue 20's goal: ≤ 1.5× that).
func BenchmarkReverse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures.SharedDir(".."), "bench", "e_large_chat_request.json"))
	if err != nil {
		b.Fatal(err)
	}
	var rc mapping.ReverseConverter
	var bl fixtures.Baseline
	for _, impl := range []struct {
		name string
		run  func(out []byte) ([]byte, error)
	}{
		{"baseline", func(out []byte) ([]byte, error) {
			err := bl.Tokenize(data)
			return append(out, data...), err
		}},
		{"openai", func([]byte) ([]byte, error) {
			out, _, err := mapping.ChatToResponses(data, mapping.ReverseOptions{Dialect: mapping.OpenAI})
			return out, err
		}},
		{"openai-reused", func(out []byte) ([]byte, error) {
			out, _, err := rc.ChatToResponses(out, data, mapping.ReverseOptions{Dialect: mapping.OpenAI})
			return out, err
		}},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			out, err := impl.run(nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if out, err = impl.run(out[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
