// Command abbench compares a package's benchmarks at two revisions as
// ratios to their same-run baselines: the way issue 23's figures are made,
// kept here so that they can be made again.
//
// On a shared machine a benchmark's time varies by ±20% from run to run,
// and by ±8–13% from one build of the same source to the next: where the
// linker puts each function decides which lines of the 32 KB instruction
// cache collide, and the baseline's own time moves with it. So abbench
//
//   - builds the test binary of each revision (base from a git worktree,
//     new from the working tree) once per function alignment (-align: the
//     linker's -funcalign, a different layout of the same code each);
//   - runs them interleaved, round after round, on one thread (-test.cpu 1)
//     pinned to one CPU (-cpu, with taskset where there is one);
//   - reports, for every benchmark with an impl=baseline sibling (the same
//     name with impl=baseline), the median and range of its per-round ratio
//     to that sibling, the ratio of their floors (each one's tenth
//     percentile over the rounds: many short rounds, -rounds 40
//     -benchtime 30ms, make it steady), and its median and floor ns/op, for
//     each revision and layout.
//
// The raw lines go to -out (benchstat reads them: the revision and layout
// are in the name's last element, /v=REV-aALIGN).
//
//	go run ./internal/cmd/abbench -base HEAD~3 -pkg ./runtime/translate -bench 'Stream/chunk=|Response/impl=(reused|baseline)$'
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

func main() {
	base := flag.String("base", "HEAD", "the base revision (git)")
	pkg := flag.String("pkg", "", "the package, from the module root (./runtime/translate)")
	bench := flag.String("bench", "", "the benchmarks (-test.bench)")
	rounds := flag.Int("rounds", 6, "rounds (each runs every binary once)")
	benchtime := flag.String("benchtime", "150ms", "-test.benchtime of each run")
	align := flag.String("align", "32,64", "function alignments, one layout each (-ldflags=-funcalign)")
	cpu := flag.Int("cpu", 1, "the CPU to pin the runs to (taskset -c; none if the machine has no such CPU), -1 for none")
	out := flag.String("out", "abbench.txt", "the raw benchmark lines")
	flag.Parse()
	if *pkg == "" || *bench == "" {
		fmt.Fprintln(os.Stderr, "usage: abbench -pkg ./runtime/translate -bench REGEX [-base REV] [-rounds N] [-align 32,64]")
		os.Exit(2)
	}
	// Interrupted, the runs stop and the worktree and binaries are removed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *cpu >= runtime.NumCPU() {
		fmt.Fprintf(os.Stderr, "abbench: no CPU %d here: the runs are not pinned\n", *cpu)
		*cpu = -1
	}
	if err := run(ctx, *base, *pkg, *bench, *rounds, *benchtime, *align, *cpu, *out); err != nil {
		fmt.Fprintln(os.Stderr, "abbench:", err)
		os.Exit(1)
	}
}

// build is a test binary: a revision at a layout, run in dir (its
// package's directory in the revision's tree: the tests read their files
// from there).
type build struct {
	rev, align, bin, dir string
}

func (b build) name() string { return b.rev + "-a" + b.align }

func run(ctx context.Context, base, pkg, bench string, rounds int, benchtime, aligns string, cpu int, out string) error {
	root, err := git("", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "abbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	wt := filepath.Join(tmp, "base")
	if _, err := git(root, "worktree", "add", "--detach", wt, base); err != nil {
		return err
	}
	defer git(root, "worktree", "remove", "--force", wt) //nolint:errcheck // best effort
	var builds []build
	for _, a := range strings.Split(aligns, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		for _, v := range []struct{ rev, dir string }{{"base", wt}, {"new", root}} {
			b := build{rev: v.rev, align: a, bin: filepath.Join(tmp, v.rev+"-"+a+".test"), dir: filepath.Join(v.dir, pkg)}
			// -trimpath: the same code in both trees builds the same binary
			// (the trees' paths would otherwise move its layout).
			cmd := exec.CommandContext(ctx, "go", "test", "-c", "-trimpath", "-ldflags=-funcalign="+b.align, "-o", b.bin, pkg)
			cmd.Dir, cmd.Stderr = v.dir, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("building %s: %w", b.name(), err)
			}
			builds = append(builds, b)
		}
	}
	if len(builds) == 0 {
		return fmt.Errorf("no alignment in %q", aligns)
	}
	var raw bytes.Buffer
	res := results{}
	for r := range rounds {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", r+1, rounds)
		for _, b := range builds {
			// -test.cpu 1: one thread, as pinned, and names without a
			// -GOMAXPROCS suffix.
			args := []string{b.bin, "-test.run", "^$", "-test.bench", bench, "-test.benchtime", benchtime, "-test.benchmem", "-test.cpu", "1"}
			if _, err := exec.LookPath("taskset"); err == nil && cpu >= 0 {
				args = append([]string{"taskset", "-c", strconv.Itoa(cpu)}, args...)
			}
			cmd := exec.CommandContext(ctx, args[0], args[1:]...)
			cmd.Dir, cmd.Stderr = b.dir, os.Stderr
			o, err := cmd.Output()
			if err != nil {
				return fmt.Errorf("running %s: %w", b.name(), err)
			}
			for _, l := range benchLines(o) {
				name, ns := l.name, l.ns
				res.add(b.name(), name, r, ns)
				fmt.Fprintf(&raw, "%s/v=%s %s\n", name, b.name(), l.rest)
			}
		}
	}
	if err := os.WriteFile(out, raw.Bytes(), 0o644); err != nil {
		return err
	}
	res.report(os.Stdout, builds)
	return nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	o, err := cmd.Output()
	return strings.TrimSpace(string(o)), err
}

type line struct {
	name string
	ns   float64 // ns/op
	rest string  // the line after the name
}

// benchLines are the result lines of a test binary's output.
func benchLines(o []byte) []line {
	var ls []line
	sc := bufio.NewScanner(bytes.NewReader(o))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || f[3] != "ns/op" {
			continue
		}
		ns, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(sc.Text(), f[0])
		ls = append(ls, line{f[0], ns, strings.TrimSpace(rest)})
	}
	return ls
}

// results: build → benchmark → ns/op by round (NaN-free: a round a
// benchmark did not run in is absent).
type results map[string]map[string]map[int]float64

func (r results) add(build, name string, round int, ns float64) {
	if r[build] == nil {
		r[build] = map[string]map[int]float64{}
	}
	if r[build][name] == nil {
		r[build][name] = map[int]float64{}
	}
	r[build][name][round] = ns
}

var implRE = regexp.MustCompile(`impl=[^/]*`)

// report prints each benchmark with a baseline sibling: its ratio to it by
// build, median [min–max] over the rounds, the ratio of their floors, and
// its median and floor ns/op.
func (r results) report(w io.Writer, builds []build) {
	var names []string
	for _, b := range builds {
		for name := range r[b.name()] {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		bl := implRE.ReplaceAllString(name, "impl=baseline")
		if bl == name {
			continue
		}
		fmt.Fprintln(w, name)
		for _, b := range builds {
			v, base := r[b.name()][name], r[b.name()][bl]
			var ratios, ns, bns []float64
			for round, x := range v {
				if y, ok := base[round]; ok && y > 0 {
					ratios = append(ratios, x/y)
					bns = append(bns, y)
				}
				ns = append(ns, x)
			}
			if len(ratios) == 0 {
				continue
			}
			slices.Sort(ratios)
			fmt.Fprintf(w, "  %-10s %.2fx [%.2f–%.2f]  floor %.2fx  %.0f ns/op, floor %.0f\n", b.name(),
				median(ratios), ratios[0], ratios[len(ratios)-1], floor(ns)/floor(bns), median(ns), floor(ns))
		}
	}
}

// floor is the tenth percentile of x (its least at under 20 values): a
// benchmark's time in the rounds its neighbours disturbed least. On a
// shared machine they only add time, in bursts that make a round's ratio
// to the baseline run beside it swing by 2× either way. In a quiet hour
// the ratio of the two floors moved by 2% from build to build of the
// same code where the median ratio moved by 10%; in a busy one both move
// by 10%: compare runs, not one figure.
func floor(x []float64) float64 {
	x = slices.Clone(x)
	slices.Sort(x)
	return x[len(x)/10]
}

func median(x []float64) float64 {
	x = slices.Clone(x)
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}
