// Command hotcode reports how much code a benchmark runs on every
// iteration: the 64-byte lines (the instruction cache's) that hold an
// instruction executed at least 0.9 times per iteration, in all and by
// function. It reads callgrind's output, written with --dump-instr=yes
// --compress-pos=no --compress-strings=no (make hotcode does that).
//
// A hot path whose lines exceed the 32 KB instruction cache, or come near
// it, misses the cache on every iteration and runs below what its
// instruction count allows (issue 23: the chunk and Response converters).
//
//	go run ./internal/cmd/hotcode -n 20000 callgrind.out [-top 20]
package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 0, "the iterations the benchmark ran (-test.benchtime Nx)")
	top := flag.Int("top", 20, "the functions to list")
	flag.Parse()
	if *n <= 0 || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: hotcode -n ITERATIONS [-top N] callgrind.out")
		os.Exit(2)
	}
	counts, fns, err := read(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "hotcode:", err)
		os.Exit(1)
	}
	lines := map[uint64]string{} // hot line → the function of its first hot instruction (by address)
	addrs := make([]uint64, 0, len(counts))
	for a, c := range counts {
		if 10*c >= 9*uint64(*n) {
			addrs = append(addrs, a)
		}
	}
	slices.Sort(addrs)
	for _, a := range addrs {
		if _, ok := lines[a>>6]; !ok {
			lines[a>>6] = fns[a]
		}
	}
	byFn := map[string]int{}
	for _, f := range lines {
		byFn[f]++
	}
	type row struct {
		fn    string
		lines int
	}
	var rows []row
	for f, l := range byFn {
		rows = append(rows, row{f, l})
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.lines, a.lines), strings.Compare(a.fn, b.fn))
	})
	fmt.Printf("%d hot instructions on %d lines: %d bytes of code run each iteration\n", len(addrs), len(lines), 64*len(lines))
	for _, r := range rows[:min(*top, len(rows))] {
		fmt.Printf("%5d lines %6d B  %s\n", r.lines, 64*r.lines, r.fn)
	}
}

// read sums callgrind's instruction counts by address, and names each
// address's function. A cost line right after calls= is the call's
// inclusive cost, not the call instruction's own: it is skipped.
func read(path string) (counts map[uint64]uint64, fns map[uint64]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	counts, fns = map[uint64]uint64{}, map[uint64]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	fn, afterCall := "", false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "fn="):
			fn, afterCall = line[3:], false
		case strings.HasPrefix(line, "calls="):
			afterCall = true
		case strings.HasPrefix(line, "0x"):
			if afterCall {
				afterCall = false
				continue
			}
			fields := strings.Fields(line)
			a, err1 := strconv.ParseUint(fields[0][2:], 16, 64)
			c, err2 := strconv.ParseUint(fields[len(fields)-1], 10, 64)
			if err1 != nil || err2 != nil {
				return nil, nil, fmt.Errorf("%s: a cost line I cannot read: %q (written without --compress-pos=no?)", path, line)
			}
			counts[a] += c
			fns[a] = fn
		default:
			afterCall = false
		}
	}
	return counts, fns, sc.Err()
}
