package openapi

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-faster/yaml"
)

//go:embed manifest.yaml overlays/*.yaml overlays/dialects/*.yaml
var files embed.FS

// Manifest lists the specs Transponder generates from.
type Manifest struct {
	Specs []Spec `yaml:"specs"`
	// Dialects are the chat dialects of direct providers (DeepSeek,
	// Mistral, …): a base spec's chat operation with the base's overlay,
	// then the dialect's. Only their shape tables are generated (their
	// requests are written by mapping/'s converters, not ogen's types).
	Dialects []DialectSpec `yaml:"dialects"`
}

// DialectSpec is a chat dialect derived from a pinned spec.
type DialectSpec struct {
	Name    string `yaml:"name"`    // the dialect's name, as in mapping/dialects/<name>.yaml
	Base    string `yaml:"base"`    // the spec it derives from (its chat operation and overlay)
	Overlay string `yaml:"overlay"` // what the provider adds to the base, relative to openapi/
	Tables  string `yaml:"tables"`  // the codec's shape table file, relative to the module root
	Dialect string `yaml:"dialect"` // the *codec.Dialect variable the table file declares
}

// DialectOperation is the one operation a derived dialect keeps.
const DialectOperation = "POST /chat/completions"

// Spec is one pinned upstream spec and what to generate from it.
type Spec struct {
	Name       string   `yaml:"name"`       // short name, e.g. "openai"
	File       string   `yaml:"file"`       // file name in the specs directory
	URL        string   `yaml:"url"`        // where `make specs` downloads it from
	SHA256     string   `yaml:"sha256"`     // pin, hex
	Package    string   `yaml:"package"`    // Go package name of the output
	Output     string   `yaml:"output"`     // output directory, relative to the module root
	Overlay    string   `yaml:"overlay"`    // overlay file, relative to openapi/ (optional)
	Tables     string   `yaml:"tables"`     // the codec's shape table file, relative to the module root
	Dialect    string   `yaml:"dialect"`    // the *codec.Dialect variable the table file declares
	Operations []string `yaml:"operations"` // "METHOD /path" to keep
	// Base and Extra are a derived dialect's (Manifest.Derived): the spec
	// it derives from, and its own overlay, applied after Overlay.
	Base  string `yaml:"-"`
	Extra string `yaml:"-"`
}

// LoadManifest returns the embedded manifest.
func LoadManifest() (*Manifest, error) {
	data, err := files.ReadFile("manifest.yaml")
	if err != nil {
		return nil, err
	}
	return ParseManifest(data)
}

// ParseManifest parses a manifest and checks that every entry is complete.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("openapi: manifest: %w", err)
	}
	seen := map[string]bool{}
	for i, s := range m.Specs {
		switch {
		case s.Name == "" || s.File == "" || s.URL == "" || s.Package == "" || s.Output == "":
			return nil, fmt.Errorf("openapi: manifest: spec %d: name, file, url, package and output are required", i)
		case !isHexSHA256(s.SHA256):
			return nil, fmt.Errorf("openapi: manifest: spec %s: sha256 must be 64 lower-case hex digits", s.Name)
		case (s.Tables == "") != (s.Dialect == ""):
			return nil, fmt.Errorf("openapi: manifest: spec %s: tables and dialect go together", s.Name)
		case len(s.Operations) == 0:
			return nil, fmt.Errorf("openapi: manifest: spec %s: no operations", s.Name)
		case seen[s.Name]:
			return nil, fmt.Errorf("openapi: manifest: spec %s listed twice", s.Name)
		}
		seen[s.Name] = true
	}
	for _, d := range m.Dialects {
		base, ok := m.Lookup(d.Base)
		switch {
		case d.Name == "" || d.Overlay == "" || d.Tables == "" || d.Dialect == "":
			return nil, fmt.Errorf("openapi: manifest: dialect %q: name, base, overlay, tables and dialect are required", d.Name)
		case !ok:
			return nil, fmt.Errorf("openapi: manifest: dialect %s: no spec %q to derive from", d.Name, d.Base)
		case !slices.Contains(base.Operations, DialectOperation):
			return nil, fmt.Errorf("openapi: manifest: dialect %s: spec %s has no %s", d.Name, d.Base, DialectOperation)
		case seen[d.Name]:
			return nil, fmt.Errorf("openapi: manifest: dialect %s listed twice (or as a spec)", d.Name)
		}
		seen[d.Name] = true
	}
	return &m, nil
}

// Derived is the spec of each dialect: its base's file, pin and overlay,
// the chat operation, its own overlay and table.
func (m *Manifest) Derived() []Spec {
	out := make([]Spec, 0, len(m.Dialects))
	for _, d := range m.Dialects {
		base, _ := m.Lookup(d.Base)
		out = append(out, Spec{Name: d.Name, File: base.File, URL: base.URL, SHA256: base.SHA256, Overlay: base.Overlay,
			Tables: d.Tables, Dialect: d.Dialect, Operations: []string{DialectOperation}, Base: d.Base, Extra: d.Overlay})
	}
	return out
}

// Tables are the shape tables of every spec and dialect: their files and
// variables, in the manifest's order (codec.Dialects lists them).
func (m *Manifest) Tables() (vars []string) {
	for _, s := range append(slices.Clone(m.Specs), m.Derived()...) {
		if s.Tables != "" {
			vars = append(vars, s.Dialect)
		}
	}
	return vars
}

// Lookup returns the spec with the given name.
func (m *Manifest) Lookup(name string) (Spec, bool) {
	for _, s := range m.Specs {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// ChecksumError says a spec file is not the pinned one.
type ChecksumError struct {
	File string
	Want string // the pin
	Got  string // the file's
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("openapi: %s does not match its pin:\n  pinned sha256: %s\n  file sha256:   %s\n"+
		"a spec update is explicit: `transponder pin -specs DIR` records the new files' sha256 in openapi/manifest.yaml; regenerate, review the diff", e.File, e.Want, e.Got)
}

// Check verifies data against the spec's pin.
func (s Spec) Check(file string, data []byte) error {
	if got := Sum(data); got != s.SHA256 {
		return &ChecksumError{File: file, Want: s.SHA256, Got: got}
	}
	return nil
}

// Read reads the spec from dir and verifies its checksum.
func (s Spec) Read(dir string) ([]byte, error) {
	path := filepath.Join(dir, s.File)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("openapi: spec %s: %w (set SPECS_DIR, or run `make specs`)", s.Name, err)
	}
	if err := s.Check(path, data); err != nil {
		return nil, err
	}
	return data, nil
}

// overlays are the overlay files the spec applies, in order: its own,
// then a derived dialect's.
func (s Spec) overlays() ([][]byte, error) {
	var out [][]byte
	for _, name := range []string{s.Overlay, s.Extra} {
		if name == "" {
			continue
		}
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, fmt.Errorf("openapi: spec %s: overlay: %w", s.Name, err)
		}
		out = append(out, data)
	}
	return out, nil
}

func isHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// DialectsFile lists the codec's shape tables (codec.Dialects), from the
// module root.
const DialectsFile = "codec/dialects_gen.go"

// DialectsSource is DialectsFile's Go source: every table of the manifest,
// in its order.
func DialectsSource(m *Manifest) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by transponder generate from openapi/manifest.yaml. DO NOT EDIT.\n\npackage codec\n\n")
	b.WriteString("// Dialects are the shape tables of the manifest's specs and derived dialects, in its order.\n")
	b.WriteString("var Dialects = []*Dialect{")
	for i, v := range m.Tables() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v)
	}
	b.WriteString("}\n")
	return b.Bytes()
}
