package translate

import (
	"regexp"
	"testing"
)

// RandomIDs makes prefix_ and 48 hex digits, different each time, in one
// allocation.
func TestRandomIDs(t *testing.T) {
	var ids RandomIDs
	form := regexp.MustCompile(`^msg_[0-9a-f]{48}$`)
	seen := map[string]bool{}
	for range 100 {
		id := ids.NewID("msg")
		if !form.MatchString(id) || seen[id] {
			t.Fatalf("%q: not msg_ and 48 hex digits, or seen before", id)
		}
		seen[id] = true
	}
	if raceEnabled {
		return // (its instrumentation allocates: 2 an id)
	}
	if n := testing.AllocsPerRun(100, func() { _ = ids.NewID("resp") }); n != 1 {
		t.Errorf("%v allocations an id, want 1", n)
	}
}
