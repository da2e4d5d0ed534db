package codec

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// special and special32 mark the first byte a JSON string does not hold as
// it is (a quote, a backslash, a control character, non-ASCII) exactly,
// and mark none in a word without one: every byte value at every place,
// the bytes below it plain and those above it anything.
func TestSpecialMarksFirst(t *testing.T) {
	k := specialConsts
	rng := rand.New(rand.NewPCG(5, 6))
	plainByte := func() byte { // printable ASCII but the quote and the backslash
		for {
			if c := byte(0x20 + rng.IntN(0x60)); plain[c] {
				return c
			}
		}
	}
	first := func(b []byte) int {
		for i, c := range b {
			if !plain[c] {
				return i
			}
		}
		return len(b)
	}
	var w [8]byte
	for at := range 8 {
		for c := range 256 {
			for range 64 {
				for i := range w {
					switch {
					case i < at:
						w[i] = plainByte()
					case i == at:
						w[i] = byte(c)
					case rng.IntN(2) == 0:
						w[i] = plainByte()
					default:
						w[i] = byte(rng.Uint32())
					}
				}
				want := first(w[:])
				m := k.special(load8(w[:], 0))
				if got := bits.TrailingZeros64(m) >> 3; got != want || (m == 0) != (want == 8) {
					t.Fatalf("special(% x) = %016x: first at %d, want %d", w, m, got, want)
				}
				if at < 4 {
					want := first(w[:4])
					m := k.special32(load4(w[:], 0))
					if got := bits.TrailingZeros32(m) >> 3; got != want || (m == 0) != (want == 4) {
						t.Fatalf("special32(% x) = %08x: first at %d, want %d", w[:4], m, got, want)
					}
				}
			}
		}
	}
}
