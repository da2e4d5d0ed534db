package translate

// Ids: where a Response's and its items' ids come from.

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync/atomic"

	"github.com/transponder-dev/transponder/codec"
)

// IDSource makes the ids of responses and their items: NewID("resp")
// gives "resp_…". It must be safe for concurrent use.
type IDSource interface {
	NewID(prefix string) string
}

// RandomIDs makes ids of 24 random bytes in hex, as OpenAI's look.
type RandomIDs struct{}

// NewID returns prefix_ and 48 hex digits, made in one allocation (a
// Response takes one id per item).
func (RandomIDs) NewID(prefix string) string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	var id strings.Builder
	id.Grow(len(prefix) + 1 + hex.EncodedLen(len(b)))
	id.WriteString(prefix)
	id.WriteByte('_')
	var h [48]byte
	hex.Encode(h[:], b[:])
	id.Write(h[:])
	return id.String()
}

// SeqIDs makes ids from a counter (prefix_0001, prefix_0002, …): for tests
// and golden files.
type SeqIDs struct{ n atomic.Int64 }

// NewID returns prefix_ and the next number.
func (s *SeqIDs) NewID(prefix string) string {
	var b [64]byte
	n := s.n.Add(1)
	out := append(append(b[:0], prefix...), '_')
	for d := int64(1000); d > n && d > 1; d /= 10 {
		out = append(out, '0') // at least four digits
	}
	return string(codec.AppendInt(out, n))
}
