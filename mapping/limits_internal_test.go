package mapping

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// decimalIn answers for the decimals requests hold, and what it answers
// is the exact comparison of the decimal written; when it says in, the
// float ParseFloat makes of the number is in too (what limits.check
// relies on, falling back to ParseFloat otherwise).
func TestDecimalIn(t *testing.T) {
	ordinary := []string{"0", "-0", "0.0", "-0.0", "0.7", "1", "1.0", "1.0000001", "2", "2.0", "2.000", "2.0001", "-2", "-2.0", "-2.5", "-1.99",
		"3", "10", "0.999999999999999999999", "2.0000000000000000001", "1.9999999999999999999", "-2.0000000000000000001", "123456789012345", "1."}
	others := []string{"1234567890123456", "1e0", "2E-1", "-", "", ".5", "-1e400"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		ordinary = append(ordinary, fmt.Sprintf("%d.%0*d", r.IntN(7)-3, r.IntN(25)+1, r.IntN(1000)), strconv.Itoa(r.IntN(9)-4))
	}
	for _, b := range bounds {
		lo, hi := new(big.Rat).SetFloat64(b.min), new(big.Rat).SetFloat64(b.max)
		for i, s := range append(ordinary, others...) {
			in, ok := decimalIn([]byte(s), b.min, b.max)
			if !ok {
				if i < len(ordinary) {
					t.Errorf("%s: decimalIn(%q) did not answer", b.key, s)
				}
				continue
			}
			exact, isNum := new(big.Rat).SetString(s)
			if !isNum {
				t.Errorf("%s: %q is no number, but decimalIn answered", b.key, s)
				continue
			}
			if want := exact.Cmp(lo) >= 0 && exact.Cmp(hi) <= 0; in != want {
				t.Errorf("%s [%g, %g]: decimalIn(%q) = %v, want %v", b.key, b.min, b.max, s, in, want)
			}
			if x, _ := strconv.ParseFloat(s, 64); in && (x < b.min || x > b.max) {
				t.Errorf("%s [%g, %g]: decimalIn(%q) in, but its float %g is not", b.key, b.min, b.max, s, x)
			}
		}
	}
	if _, ok := decimalIn([]byte("0.5"), 0, 1.5); ok {
		t.Error("a bound not whole answered")
	}
}

// checkToolName takes a name with each byte (written as it is where JSON
// allows, as a \u escape where not) exactly when OpenAI's pattern does.
func TestToolNameBytes(t *testing.T) {
	pattern := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	for c := range 256 {
		js := `"ab` + string(rune(c)) + `d"`
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			js = fmt.Sprintf(`"ab\\u%04xd"`, c)
		}
		v, ok := codec.Parse([]byte(js))
		if !ok {
			t.Fatalf("%s: not JSON", js)
		}
		code, _ := checkToolName(v)
		if want := pattern.MatchString("ab" + string(rune(c)) + "d"); (code == "") != want {
			t.Errorf("%s: code %q, want valid %v", js, code, want)
		}
	}
}
