package main

import (
	"bytes"
	"strings"
	"testing"
)

// benchLines reads a test binary's result lines (run with -test.cpu 1:
// names without a -GOMAXPROCS suffix) and nothing else; report gives each
// benchmark's ratio to its impl=baseline sibling, round by round, and the
// ratio of the two floors.
func TestBenchLinesReport(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkStream/chunk=text/impl=baseline   	 100	       500.0 ns/op	 440 MB/s	 0 B/op	 0 allocs/op
BenchmarkStream/chunk=text/impl=translate  	 100	       600 ns/op	 360 MB/s	 0 B/op	 0 allocs/op
BenchmarkOther 	 100	       7 ns/op
PASS
`)
	ls := benchLines(out)
	if len(ls) != 3 || ls[0].name != "BenchmarkStream/chunk=text/impl=baseline" || ls[1].ns != 600 || !strings.HasPrefix(ls[1].rest, "100") {
		t.Fatalf("%+v", ls)
	}
	res := results{}
	for round, scale := range []float64{1, 2, 1.5} {
		for _, l := range ls {
			res.add("new-a32", l.name, round, l.ns*scale)
		}
	}
	res.add("new-a32", "BenchmarkStream/chunk=text/impl=translate", 2, 825) // 1.1× in round 2
	var got bytes.Buffer
	res.report(&got, []build{{rev: "new", align: "32"}})
	want := "BenchmarkStream/chunk=text/impl=translate\n  new-a32    1.20x [1.10–1.20]  floor 1.20x  825 ns/op, floor 600\n"
	if got.String() != want {
		t.Errorf("report:\n%s\nwant\n%s", got.String(), want)
	}
}

// floor is the tenth percentile: the least of under 20 values, the third
// least of 20 to 29.
func TestFloor(t *testing.T) {
	var x []float64
	for i := 30; i > 0; i-- {
		x = append(x, float64(i))
	}
	if f := floor(x[:9]); f != 22 {
		t.Errorf("floor of 30..22: %v", f)
	}
	if f := floor(x); f != 4 {
		t.Errorf("floor of 30..1: %v", f)
	}
	if x[0] != 30 {
		t.Error("floor sorted its argument")
	}
}
