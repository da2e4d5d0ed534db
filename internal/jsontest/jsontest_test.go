package jsontest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b, want string
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1.0}`, ""},
		{`{"a":1e2}`, `{"a":100}`, ""},
		{`{"a":1}`, `{"a":1,"b":null}`, "$.b: added"},
		{`{"a":1,"b":null}`, `{"a":1}`, "$.b: missing"},
		{`[1,2]`, `[2,1]`, "$[0]: 1 vs 2; $[1]: 2 vs 1"},
		{`{"a":[{"x":"y"}]}`, `{"a":[{"x":"z"}]}`, `$.a[0].x: "y" vs "z"`},
		{`{"a":{}}`, `{"a":[]}`, "$.a: object vs array"},
		{`{"a":true}`, `{"a":"true"}`, `$.a: boolean vs string`},
		// Every difference, in path order, not just the first.
		{`{"input":[{"role":"u"}],"prev":"r"}`, `{"input":[{"type":"message","role":"u"}]}`, `$.input[0].type: added; $.prev: missing`},
	} {
		got, err := Diff([]byte(tc.a), []byte(tc.b))
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Diff(%s, %s) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
	if _, err := Diff([]byte(`{`), []byte(`{}`)); err == nil {
		t.Error("Diff accepted invalid JSON")
	}
}

// Differences gives each difference apart (a value may hold "; "), and says
// when there are more than MaxDiffs.
func TestDifferences(t *testing.T) {
	ds, truncated, err := Differences([]byte(`{"a":"x; y","b":[1]}`), []byte(`{"a":"x; z","b":[1],"c":null}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{{"$.a", `"x; y" vs "x; z"`}, {"$.c", "added"}}
	if !slices.Equal(ds, want) || truncated {
		t.Errorf("got %q %v, want %q false", ds, truncated, want)
	}
	a, b := make([]int, MaxDiffs+1), make([]int, MaxDiffs+1)
	for i := range b {
		b[i] = 1
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	ds, truncated, err = Differences(ja, jb)
	if err != nil || len(ds) != MaxDiffs || !truncated || ds[MaxDiffs-1].Path != fmt.Sprintf("$[%d]", MaxDiffs-1) {
		t.Errorf("%d differences: got %d, truncated %v, %v", MaxDiffs+1, len(ds), truncated, err)
	}
	// Exactly MaxDiffs: all of them, not truncated.
	ja, _ = json.Marshal(a[:MaxDiffs])
	jb, _ = json.Marshal(b[:MaxDiffs])
	if ds, truncated, err = Differences(ja, jb); err != nil || len(ds) != MaxDiffs || truncated {
		t.Errorf("%d differences: got %d, truncated %v, %v", MaxDiffs, len(ds), truncated, err)
	}
}
