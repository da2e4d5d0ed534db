// Package specgen is the body of `transponder generate` and of the
// go:generate tool: read the pinned specs, run the pipeline, write or check.
package specgen

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/transponder-dev/transponder/openapi"
)

// ErrStale is returned by a check that found generated files out of date.
var ErrStale = errors.New("generated files are stale: run `make generate`")

// Run regenerates the named specs (all when names is empty) under root.
// With check, nothing is written; stale files are listed on w.
func Run(w io.Writer, root string, check bool, names []string) error {
	m, err := openapi.LoadManifest()
	if err != nil {
		return err
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
	for _, n := range names {
		if _, ok := m.Lookup(n); !ok {
			return fmt.Errorf("no spec %q in the manifest", n)
		}
	}
	if stale {
		return ErrStale
	}
	return nil
}
