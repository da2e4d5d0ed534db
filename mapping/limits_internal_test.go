package mapping

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// decimalIn answers as ParseFloat and a comparison would, for every
// number it answers for: around the bounds, signs, zeros, fractions.
func TestDecimalIn(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "-0.0", "0.7", "1", "1.0", "1.0000001", "2", "2.0", "2.000", "2.0001", "-2", "-2.0", "-2.5", "-1.99",
		"3", "10", "0.999999999999999999999", "123456789012345", "1234567890123456", "1e0", "2E-1", "-", "", ".5", "1.", "01"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		nums = append(nums, fmt.Sprintf("%d.%0*d", r.IntN(7)-3, r.IntN(3)+1, r.IntN(1000)), strconv.Itoa(r.IntN(9)-4))
	}
	for _, b := range bounds {
		for _, s := range append(nums, "0.5") {
			in, ok := decimalIn([]byte(s), b.min, b.max)
			x, err := strconv.ParseFloat(s, 64)
			if !ok {
				continue
			}
			if err != nil {
				t.Errorf("%s: %q is no number, but decimalIn answered", b.key, s)
				continue
			}
			if want := x >= b.min && x <= b.max; in != want {
				t.Errorf("%s [%g, %g]: decimalIn(%q) = %v, want %v", b.key, b.min, b.max, s, in, want)
			}
		}
	}
	if _, ok := decimalIn([]byte("1e0"), 0, 2); ok {
		t.Error("an exponent answered")
	}
	if _, ok := decimalIn([]byte("0.5"), 0, 1.5); ok {
		t.Error("a bound not whole answered")
	}
}
