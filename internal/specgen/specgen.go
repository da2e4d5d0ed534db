// Package specgen is the body of `transponder generate` and of the tool that
// `go generate ./gen` runs: read the pinned specs, run the pipeline, write or
// check.
package specgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/transponder-dev/transponder/openapi"
)

// ErrStale is returned by a check that found generated files out of date.
var ErrStale = errors.New("generated files are stale: run `make generate`")

// Options says what Run does.
type Options struct {
	Root  string   // module root
	Check bool     // write nothing; list stale files and return ErrStale if any
	Dump  string   // if set, also write each normalized spec here as <name>.json
	Names []string // specs to run; all when empty
}

// Run regenerates the specs under o.Root, reporting progress on w.
func Run(w io.Writer, o Options) error {
	root, check, names := o.Root, o.Check, o.Names
	m, err := openapi.LoadManifest()
	if err != nil {
		return err
	}
	derived := m.Derived()
	for _, n := range names {
		if _, ok := m.Lookup(n); !ok && !slices.ContainsFunc(derived, func(s openapi.Spec) bool { return s.Name == n }) {
			return fmt.Errorf("no spec or dialect %q in the manifest", n)
		}
	}
	dir, err := openapi.SpecsDir(root)
	if err != nil {
		return err
	}
	stale := false
	for _, s := range m.Specs {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		start := time.Now()
		data, err := s.Read(dir)
		if err != nil {
			return err
		}
		g, err := openapi.Generate(s, data)
		if err != nil {
			return err
		}
		if o.Dump != "" {
			spec, err := g.Doc.MarshalJSON()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(o.Dump, 0o755); err != nil {
				return err
			}
			path := filepath.Join(o.Dump, s.Name+".json")
			if err := os.WriteFile(path, spec, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s: normalized spec → %s (go tool ogen can read it)\n", s.Name, path)
		}
		if check {
			diff, err := openapi.Stale(root, g)
			if err != nil {
				return err
			}
			for _, d := range diff {
				fmt.Fprintln(w, d)
			}
			stale = stale || len(diff) > 0
			continue
		}
		if err := openapi.Write(root, g); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %d operations, %d schemas → %s (%d files, %s)\n", s.Name, len(g.Pruned.Operations),
			len(g.Doc.Components.Schemas), s.Output, len(g.Files), time.Since(start).Round(10*time.Millisecond))
	}
	// The derived dialects: a shape table each, from their base's file.
	for _, s := range derived {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		data, err := s.Read(dir)
		if err != nil {
			return err
		}
		table, err := openapi.Tables(s, data)
		if err != nil {
			return err
		}
		d, err := writeOrCheck(root, map[string][]byte{s.Tables: table}, check)
		if err != nil {
			return err
		}
		for _, f := range d {
			fmt.Fprintln(w, f)
		}
		stale = stale || len(d) > 0
		if !check {
			fmt.Fprintf(w, "%s: %s of %s + %s → %s\n", s.Name, openapi.DialectOperation, s.Base, s.Extra, s.Tables)
		}
	}
	if len(names) == 0 { // the list of every table: codec.Dialects
		d, err := writeOrCheck(root, map[string][]byte{openapi.DialectsFile: openapi.DialectsSource(m)}, check)
		if err != nil {
			return err
		}
		for _, f := range d {
			fmt.Fprintln(w, f)
		}
		stale = stale || len(d) > 0
	}
	if stale {
		return ErrStale
	}
	return nil
}

// writeOrCheck writes files (paths from root) that differ, or, checking,
// lists them.
func writeOrCheck(root string, files map[string][]byte, check bool) ([]string, error) {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(root, filepath.FromSlash(name))
		old, err := os.ReadFile(p)
		if err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if check {
			if err != nil {
				out = append(out, name+": missing")
			} else {
				out = append(out, name+": differs")
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}
