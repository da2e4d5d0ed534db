// Package golden compares test output with a golden file, or rewrites the
// file when the test runs with its -update flag.
package golden

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Check compares got with the file at path; with update it writes got
// there instead. A difference is reported line by line (+ got, - want).
func Check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) == got {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	var diff []string
	for _, l := range gl {
		if !slices.Contains(wl, l) {
			diff = append(diff, "+ "+l)
		}
	}
	for _, l := range wl {
		if !slices.Contains(gl, l) {
			diff = append(diff, "- "+l)
		}
	}
	if len(diff) == 0 {
		diff = append(diff, "(the same lines, in another order)")
	}
	t.Errorf("%s is stale (rerun with -update and review):\n%s", path, strings.Join(diff, "\n"))
}
