package typed_test

// The typed converter beside the JSON one it wraps, on the same bytes:
//
//	go test -run '^$' -bench Typed -count 6 ./mapping/typed > bench.txt
//	go tool benchstat -col /impl bench.txt
//
// impl=json is mapping.ResponsesToChat on the request's bytes; impl=typed is
// ToOpenRouter on the request already decoded (what a caller holding an
// openai.CreateResponse pays: encode, convert, decode and re-encode the chat
// request to check it); impl=typed-decode adds decoding the bytes.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/mapping/typed"
)

func BenchmarkTyped(b *testing.B) {
	dir := fixtures.SharedDir("../..")
	for _, name := range []string{"a_small_request", "b_large_request"} {
		data, err := os.ReadFile(filepath.Join(dir, "bench", name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		var req openai.CreateResponse
		if err := req.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
		impls := []struct {
			name string
			run  func() error
		}{
			{"json", func() error {
				_, _, err := mapping.ResponsesToChat(data, mapping.Options{})
				return err
			}},
			{"typed", func() error {
				_, _, err := typed.ToOpenRouter(&req, mapping.Options{})
				return err
			}},
			{"typed-decode", func() error {
				var r openai.CreateResponse
				if err := r.UnmarshalJSON(data); err != nil {
					return err
				}
				_, _, err := typed.ToOpenRouter(&r, mapping.Options{})
				return err
			}},
		}
		for _, impl := range impls {
			b.Run("fixture="+name+"/impl="+impl.name, func(b *testing.B) {
				if err := impl.run(); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
