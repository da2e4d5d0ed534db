package openapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
)

// ManifestFile is the manifest's path from the module root.
const ManifestFile = "openapi/manifest.yaml"

// Sum is the sha256 of a spec file, as the manifest pins it.
func Sum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Pinned is one pin Pin changed.
type Pinned struct {
	Name     string
	Old, New string // sha256
	URL      string // the new url ("" when unchanged)
}

var (
	nameLine   = regexp.MustCompile(`^\s*-\s*name:\s*(\S+)\s*$`)
	sha256Line = regexp.MustCompile(`^(\s*sha256:\s*)([0-9a-f]{64})(\s*)$`)
	urlLine    = regexp.MustCompile(`^(\s*url:\s*)(\S+)(\s*)$`)
)

// Pin rewrites the manifest's text so that each named spec's sha256 is
// sums[name] (and its url urls[name], when given), keeping every other
// byte (comments, order). It is how a spec update is recorded without
// editing the manifest by hand: `transponder pin`.
func Pin(manifest []byte, sums, urls map[string]string) ([]byte, []Pinned, error) {
	before, err := ParseManifest(manifest)
	if err != nil {
		return nil, nil, err
	}
	lines := bytes.SplitAfter(manifest, []byte("\n"))
	var changed []Pinned
	done := map[string]bool{}
	spec := ""
	for i, l := range lines {
		if m := nameLine.FindSubmatch(l); m != nil {
			spec = string(m[1])
			continue
		}
		if spec == "" {
			continue
		}
		if m := sha256Line.FindSubmatch(l); m != nil {
			want, ok := sums[spec]
			if !ok {
				continue
			}
			done[spec] = true
			if string(m[2]) != want {
				lines[i] = []byte(string(m[1]) + want + string(m[3]))
				changed = append(changed, Pinned{Name: spec, Old: string(m[2]), New: want})
			}
			continue
		}
		if m := urlLine.FindSubmatch(l); m != nil {
			if u, ok := urls[spec]; ok && u != string(m[2]) {
				lines[i] = []byte(string(m[1]) + u + string(m[3]))
				changed = append(changed, Pinned{Name: spec, URL: u})
			}
		}
	}
	for name := range sums {
		if !done[name] {
			return nil, nil, fmt.Errorf("openapi: manifest: no sha256 line for spec %q", name)
		}
	}
	out := bytes.Join(lines, nil)
	// The rewrite went by lines; the parse says whether each spec got
	// its own pins (a manifest whose items do not start with name would
	// credit a line to the previous spec).
	after, err := ParseManifest(out)
	if err != nil {
		return nil, nil, err
	}
	for i, s := range after.Specs {
		sum, url := before.Specs[i].SHA256, before.Specs[i].URL
		if v, ok := sums[s.Name]; ok {
			sum = v
		}
		if v, ok := urls[s.Name]; ok {
			url = v
		}
		if s.SHA256 != sum || s.URL != url {
			return nil, nil, fmt.Errorf("openapi: manifest: the pins of spec %q are not where pin looked for them (each item starts with its name)", s.Name)
		}
	}
	return out, merge(changed), nil
}

// merge folds a spec's url change into its sha256 change.
func merge(ps []Pinned) []Pinned {
	var out []Pinned
	for _, p := range ps {
		if i := len(out) - 1; i >= 0 && out[i].Name == p.Name {
			if p.URL != "" {
				out[i].URL = p.URL
			} else {
				out[i].Old, out[i].New = p.Old, p.New
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

// PinDir pins the manifest under root to the spec files of dir (all of
// the manifest's specs, or those named): it writes root/openapi/manifest.yaml
// and returns what changed. The manifest is embedded in the openapi
// package, so what reads it sees the new pins from its next build on
// (`go generate` builds anew).
func PinDir(root, dir string, names []string, urls map[string]string) ([]Pinned, error) {
	path := filepath.Join(root, filepath.FromSlash(ManifestFile))
	old, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(old)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	for _, s := range m.Specs {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			return nil, fmt.Errorf("openapi: pin %s: %w", s.Name, err)
		}
		sums[s.Name] = Sum(data)
	}
	for _, n := range names {
		if _, ok := sums[n]; !ok {
			return nil, fmt.Errorf("openapi: pin: no spec %q in the manifest", n)
		}
	}
	for n := range urls {
		if _, ok := sums[n]; !ok {
			return nil, fmt.Errorf("openapi: pin: a url for %q, which is not pinned here", n)
		}
	}
	out, changed, err := Pin(old, sums, urls)
	if err != nil {
		return nil, err
	}
	if len(changed) == 0 {
		return nil, nil
	}
	return changed, os.WriteFile(path, out, 0o644)
}
