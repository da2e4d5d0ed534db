package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/transponder-dev/transponder/openapi/internal/oasgen"
	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// SpecsDir finds the specs directory: $SPECS_DIR, else root/.specs (what
// `make specs` downloads), else ../shared/specs beside the checkout (the
// developers' and CI's copy).
func SpecsDir(root string) (string, error) {
	if d := os.Getenv("SPECS_DIR"); d != "" {
		return d, nil
	}
	for _, d := range []string{filepath.Join(root, ".specs"), filepath.Join(root, "..", "shared", "specs")} {
		if yaml, _ := filepath.Glob(filepath.Join(d, "*.yaml")); len(yaml) > 0 {
			return d, nil
		}
	}
	return "", errors.New("openapi: no specs directory: set SPECS_DIR, or run `make specs` to download the pinned specs into .specs")
}

// Owned reports whether a file in an output directory is written by the
// pipeline (and so removed before writing anew).
func Owned(name string) bool {
	return name == ReportFile || name == oasgen.NamesFile || (strings.HasPrefix(name, "oas_") && strings.HasSuffix(name, "_gen.go"))
}

// Write replaces the pipeline's files in root/Spec.Output with g's. Files the
// pipeline does not own (hand-written doc.go, tests) are left alone.
func Write(root string, g *Generated) error {
	dir := filepath.Join(root, g.Spec.Output)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, keep := g.Files[e.Name()]; !keep && !e.IsDir() && Owned(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for _, name := range walk.SortedKeys(g.Files) {
		if err := writeFile(filepath.Join(dir, name), g.Files[name]); err != nil {
			return err
		}
	}
	if g.Spec.Tables != "" {
		return writeFile(filepath.Join(root, filepath.FromSlash(g.Spec.Tables)), g.Tables)
	}
	return nil
}

// writeFile writes data to path unless it is there already: an unchanged
// file keeps its mtime, so builds stay cached.
func writeFile(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Stale compares g's files with what is in root/Spec.Output and lists the
// differences: files that differ, are missing, or should not be there.
func Stale(root string, g *Generated) ([]string, error) {
	dir := filepath.Join(root, g.Spec.Output)
	var out []string
	for _, name := range walk.SortedKeys(g.Files) {
		old, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			out = append(out, g.OutputPath(name)+": missing")
		case err != nil:
			return nil, err
		case !bytes.Equal(old, g.Files[name]):
			out = append(out, g.OutputPath(name)+": differs")
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if _, ok := g.Files[e.Name()]; !ok && Owned(e.Name()) {
			out = append(out, g.OutputPath(e.Name())+": no longer generated")
		}
	}
	if g.Spec.Tables != "" {
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(g.Spec.Tables)))
		switch {
		case errors.Is(err, os.ErrNotExist):
			out = append(out, g.Spec.Tables+": missing")
		case err != nil:
			return nil, err
		case !bytes.Equal(old, g.Tables):
			out = append(out, g.Spec.Tables+": differs")
		}
	}
	return out, nil
}

// Fetch downloads the spec from its pinned URL into dir, after checking the
// checksum; a mismatch writes nothing and shows both hashes.
func Fetch(ctx context.Context, client *http.Client, s Spec, dir string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("openapi: fetch %s: %w", s.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("openapi: fetch %s: %s: HTTP %d", s.Name, s.URL, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("openapi: fetch %s: %w", s.Name, err)
	}
	if err := s.Check(s.URL, data); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+s.File+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, s.File))
}
