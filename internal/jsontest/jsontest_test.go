package jsontest

import "testing"

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
