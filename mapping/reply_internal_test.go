package mapping

import (
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// empty says what a dropped or unknown field carries nothing: a number is
// empty exactly when it is zero, read from its digits, not from a float
// (1e-400 underflows to 0 but is not zero).
func TestEmpty(t *testing.T) {
	for raw, want := range map[string]bool{
		`0`: true, `-0`: true, `0.0`: true, `0.000`: true, `0e5`: true, `-0.0E-3`: true,
		`1`: false, `0.001`: false, `-2`: false, `1e-400`: false, `10`: false, `0.5e0`: false,
		`null`: true, `false`: true, `true`: false, `""`: true, `"0"`: false,
		`[]`: true, `[0]`: false, `{}`: true, `{"a":0,"b":null}`: true, `{"a":0.1}`: false,
	} {
		v, ok := codec.Parse([]byte(raw))
		if !ok {
			t.Fatalf("%s: not JSON", raw)
		}
		if got := empty(v); got != want {
			t.Errorf("empty(%s) = %v, want %v", raw, got, want)
		}
	}
}

// finishReasons (what finishReason reads without making a string) are the
// reasons FinishOf knows.
func TestFinishReasons(t *testing.T) {
	for _, r := range finishReasons {
		if _, ok := FinishOf(r); !ok {
			t.Errorf("%q: not a reason FinishOf knows", r)
		}
	}
	if _, ok := FinishOf("stopped"); ok {
		t.Error("FinishOf knows any reason")
	}
}
