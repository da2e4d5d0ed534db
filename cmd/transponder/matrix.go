package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/openapi"
	"github.com/transponder-dev/transponder/runtime/matrix"
)

// runMatrix is `transponder matrix`: the alignment matrix of the pinned
// specs (the shape tables compiled in) and mapping/*.yaml, written to
// ALIGNMENT.md and alignment.json at the module root (-check: only say
// whether they are stale, exit 1 if so). With -specs DIR, of the specs in
// DIR as they are now (after a spec update, before anything is
// generated), written where -o says. Or `transponder matrix diff`.
func runMatrix(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "diff" {
		return matrixDiff(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "module root")
	check := fs.Bool("check", false, "only report whether "+matrix.MarkdownFile+" and "+matrix.JSONFile+" are stale; exit 1 if so")
	specs := fs.String("specs", "", "normalize the specs of this directory now (not checked against their pins: a spec update) instead of using the compiled shape tables")
	out := fs.String("o", "", "write the files into this directory, made if it does not exist (default: the module root)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" {
		*out = *root
	}
	files, err := matrix.Mappings(os.DirFS(*root))
	if err != nil {
		fmt.Fprintln(stderr, "transponder matrix:", err)
		return 2
	}
	dialects := matrix.Compiled()
	if *specs != "" {
		if dialects, err = normalizedDialects(*specs); err != nil {
			fmt.Fprintln(stderr, "transponder matrix:", err)
			return 2
		}
	}
	m, err := matrix.Build(matrix.Input{Dialects: dialects, Mappings: files})
	if err != nil {
		fmt.Fprintln(stderr, "transponder matrix:", err)
		return 2
	}
	stale := 0
	for _, f := range []struct {
		name string
		data []byte
	}{{matrix.MarkdownFile, m.Markdown()}, {matrix.JSONFile, m.JSON()}} {
		p := filepath.Join(*out, f.name)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, f.data) {
			continue
		}
		stale++
		if *check {
			fmt.Fprintf(stderr, "%s is stale: run go generate ./... (or transponder matrix)\n", f.name)
			continue
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(stderr, "transponder matrix:", err)
			return 2
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			fmt.Fprintln(stderr, "transponder matrix:", err)
			return 2
		}
	}
	fmt.Fprintf(stdout, "alignment matrix: %.1f%% of %d paths covered, %d unmapped\n", m.Coverage.CoveredPercent, m.Coverage.Total, m.Coverage.Unmapped)
	if *check && stale > 0 {
		return 1
	}
	return 0
}

// normalizedDialects are the shape tables of the manifest's specs as they
// are in dir now: prune → overlay → normalize, in memory.
func normalizedDialects(dir string) (map[string]*codec.Dialect, error) {
	man, err := openapi.LoadManifest()
	if err != nil {
		return nil, err
	}
	out := map[string]*codec.Dialect{}
	for _, s := range append(man.Specs, man.Derived()...) {
		data, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			return nil, err
		}
		table, err := openapi.TablesJSON(s, data)
		if err != nil {
			return nil, err
		}
		if out[s.Name], err = codec.LoadDialect(table); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// matrixDiff is `transponder matrix diff [-format text|markdown] OLD.json
// NEW.json`: paths added, removed and changed, and mapping entries newly
// stale ("! stale P: why") and no longer stale ("= no longer stale P"),
// section by section. Exit 1 when a path became unmapped or a status got
// worse, 2 when the files cannot be read; an entry newly stale alone is
// not worse (go generate goes on without it), what it costs is (a field
// no longer carried is dropped now: worse).
func matrixDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "text or markdown (for a pull-request comment)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 || *format != "text" && *format != "markdown" {
		fmt.Fprintln(stderr, "usage: transponder matrix diff [-format text|markdown] OLD.json NEW.json")
		return 2
	}
	var ms [2]*matrix.Matrix
	for i, name := range fs.Args() {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(stderr, "transponder matrix diff:", err)
			return 2
		}
		if ms[i], err = matrix.Load(data); err != nil {
			fmt.Fprintf(stderr, "transponder matrix diff: %s: %v\n", name, err)
			return 2
		}
	}
	d := matrix.Diff(ms[0], ms[1])
	out := d.Text()
	if *format == "markdown" {
		out = d.Markdown()
	}
	if _, err := stdout.Write(out); err != nil {
		return 2
	}
	if d.Worse() {
		return 1
	}
	return 0
}
