package openapi

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-faster/yaml"
)

//go:embed manifest.yaml overlays/*.yaml
var files embed.FS

// Manifest lists the specs Transponder generates from.
type Manifest struct {
	Specs []Spec `yaml:"specs"`
}

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
	return &m, nil
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

func (s Spec) overlay() ([]byte, error) {
	if s.Overlay == "" {
		return nil, nil
	}
	data, err := fs.ReadFile(files, s.Overlay)
	if err != nil {
		return nil, fmt.Errorf("openapi: spec %s: overlay: %w", s.Name, err)
	}
	return data, nil
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
