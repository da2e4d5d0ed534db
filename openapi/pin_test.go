package openapi

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPinKeepsEverythingElse(t *testing.T) {
	old, err := files.ReadFile("manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(old)
	if err != nil {
		t.Fatal(err)
	}
	sum := Sum([]byte("a newer spec"))
	out, changed, err := Pin(old, map[string]string{"openrouter": sum}, map[string]string{"openrouter": "https://example.invalid/new.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 1 || changed[0].Name != "openrouter" || changed[0].New != sum || changed[0].URL == "" {
		t.Fatalf("changed = %+v", changed)
	}
	nm, err := ParseManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range nm.Specs {
		want := m.Specs[i]
		if s.Name == "openrouter" {
			want.SHA256, want.URL = sum, "https://example.invalid/new.yaml"
		}
		if s.SHA256 != want.SHA256 || s.URL != want.URL || s.File != want.File || len(s.Operations) != len(want.Operations) {
			t.Errorf("spec %s: %+v, want %+v", s.Name, s, want)
		}
	}
	// Only the two lines changed: comments and order stay.
	a, b := strings.Split(string(old), "\n"), strings.Split(string(out), "\n")
	if len(a) != len(b) {
		t.Fatalf("%d lines, were %d", len(b), len(a))
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	if diff != 2 {
		t.Errorf("%d lines changed, want 2", diff)
	}
	// Pinning to what is pinned changes nothing.
	again, changed, err := Pin(old, map[string]string{m.Specs[0].Name: m.Specs[0].SHA256}, nil)
	if err != nil || len(changed) != 0 || !bytes.Equal(again, old) {
		t.Errorf("a no-op pin: %v, %+v", err, changed)
	}
	if _, _, err := Pin(old, map[string]string{"nope": sum}, nil); err == nil {
		t.Error("pinning a spec the manifest lacks: no error")
	}
}

func TestPinDir(t *testing.T) {
	root, specs := t.TempDir(), t.TempDir()
	old, err := files.ReadFile("manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "openapi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ManifestFile), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(specs, "openai.openapi.yaml"), []byte("openapi: 3.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PinDir(root, specs, nil, nil); err == nil {
		t.Error("pinning every spec with one file missing: no error")
	}
	changed, err := PinDir(root, specs, []string{"openai"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 1 || changed[0].New != Sum([]byte("openapi: 3.1.0\n")) {
		t.Fatalf("changed = %+v", changed)
	}
	data, _ := os.ReadFile(filepath.Join(root, ManifestFile))
	m, err := ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Lookup("openai")
	if err := s.Check("openai.openapi.yaml", []byte("openapi: 3.1.0\n")); err != nil {
		t.Error(err)
	}
}

// A manifest whose item does not start with its name: the line-wise
// rewrite would credit the sha256 to the wrong spec; the parse after it
// says so instead of writing it.
func TestPinRefusesWhatItCannotPlace(t *testing.T) {
	old, err := files.ReadFile("manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(old), "  - name: openrouter\n    file: openrouter.openapi.yaml\n", "  - file: openrouter.openapi.yaml\n    name: openrouter\n", 1)
	if moved == string(old) {
		t.Fatal("the manifest changed shape; fix this test")
	}
	// openai's pins are found; openrouter's lines would be taken for
	// openai's too.
	if _, _, err := Pin([]byte(moved), map[string]string{"openai": Sum([]byte("x"))}, nil); err == nil {
		t.Error("no error")
	}
}
