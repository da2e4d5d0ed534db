package codec

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendInt: every power of ten and its neighbours, both signs, the
// extremes and a million random numbers of every length, each as strconv
// writes it, after what dst held.
func TestAppendInt(t *testing.T) {
	ns := []int64{0, 1, 9, 10, 11, 99, 100, 101, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		ns = append(ns, p-1, p, p+1, 10*p-1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		ns = append(ns, int64(r.Uint64()>>r.IntN(64)))
	}
	for _, n := range ns {
		for _, n := range []int64{n, -n} {
			for _, dst := range [][]byte{nil, []byte("x:"), make([]byte, 3, 40)} {
				want := strconv.AppendInt(append([]byte(nil), dst...), n, 10)
				if got := AppendInt(dst, n); string(got) != string(want) {
					t.Fatalf("AppendInt(%q, %d) = %q, want %q", dst, n, got, want)
				}
			}
		}
	}
}
