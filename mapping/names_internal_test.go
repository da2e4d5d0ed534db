package mapping

import (
	"fmt"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// names.of: the string a JSON string holds, the same string again for
// the same name from the second conversion on (none kept on the first),
// escapes read, at most maxNames kept.
func TestNamesOf(t *testing.T) {
	val := func(js string) codec.Value {
		v, ok := codec.Parse([]byte(js))
		if !ok {
			t.Fatalf("%s is not JSON", js)
		}
		return v
	}
	var n names
	n.next() // a first conversion
	if s := n.of(val(`"get_weather"`)); s != "get_weather" || len(n.made) != 0 {
		t.Fatalf("first conversion: %q, kept %q", s, n.made)
	}
	n.next()
	v := val(`"get_weather"`)
	a := n.of(v)
	b := n.of(val(`"get_weather"`))
	if a != "get_weather" || b != a || len(n.made) != 1 || testing.AllocsPerRun(10, func() { b = n.of(v) }) != 0 {
		t.Fatalf("second conversion: %q %q, kept %q", a, b, n.made)
	}
	if s := n.of(val(`"a\u005fb"`)); s != "a_b" {
		t.Errorf("escaped: %q", s)
	}
	if s := n.of(val(`7`)); s != "" {
		t.Errorf("a number: %q", s)
	}
	for i := range 2 * maxNames {
		if s := n.of(val(fmt.Sprintf(`"t%d"`, i))); s != fmt.Sprintf("t%d", i) {
			t.Fatalf("name %d: %q", i, s)
		}
		if len(n.made) > maxNames {
			t.Fatalf("%d names kept", len(n.made))
		}
	}
}
