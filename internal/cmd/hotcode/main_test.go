package main

import (
	"os"
	"path/filepath"
	"testing"
)

// read sums each address's own cost, names its function, and skips the
// inclusive cost that follows a calls= line.
func TestRead(t *testing.T) {
	const out = `version: 1
events: Ir
fl=a.go
fn=a
0x1000 10 100
0x1004 10 100
0x1040 11 50
cfn=b
calls=100 0x2000 20
0x1008 12 999999
0x1008 12 100
fn=b
0x2000 20 100
0x1000 10 3
`
	path := filepath.Join(t.TempDir(), "callgrind.out")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	counts, fns, err := read(path)
	if err != nil {
		t.Fatal(err)
	}
	for a, want := range map[uint64]uint64{0x1000: 103, 0x1004: 100, 0x1040: 50, 0x1008: 100, 0x2000: 100} {
		if counts[a] != want {
			t.Errorf("%#x: %d, want %d", a, counts[a], want)
		}
	}
	if fns[0x2000] != "b" || fns[0x1004] != "a" {
		t.Errorf("functions %v", fns)
	}
	if err := os.WriteFile(path, []byte("fn=a\n0x1000 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := read(path); err == nil {
		t.Error("a malformed cost line was read")
	}
}
