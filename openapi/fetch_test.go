package openapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/openapi"
)

// `make specs`: the pinned URL is downloaded over HTTP (a loopback server
// here), written only when its checksum matches the pin.
func TestFetch(t *testing.T) {
	body := []byte("openapi: 3.1.0\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/spec.yaml" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	sum := sha256.Sum256(body)
	s := openapi.Spec{Name: "t", File: "t.yaml", URL: srv.URL + "/spec.yaml", SHA256: hex.EncodeToString(sum[:])}

	dir := t.TempDir()
	if err := openapi.Fetch(context.Background(), srv.Client(), s, dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, s.File))
	if err != nil || string(got) != string(body) {
		t.Fatalf("fetched %q, %v", got, err)
	}

	bad := s
	bad.SHA256 = hex.EncodeToString(make([]byte, 32))
	dir2 := t.TempDir()
	err = openapi.Fetch(context.Background(), srv.Client(), bad, dir2)
	var ce *openapi.ChecksumError
	if !errors.As(err, &ce) || ce.Got != s.SHA256 || ce.Want != bad.SHA256 {
		t.Fatalf("want a ChecksumError with both hashes, got %v", err)
	}
	if entries, _ := os.ReadDir(dir2); len(entries) != 0 {
		t.Errorf("a spec that does not match its pin was written: %v", entries)
	}

	missing := s
	missing.URL = srv.URL + "/nope"
	if err := openapi.Fetch(context.Background(), srv.Client(), missing, t.TempDir()); err == nil {
		t.Error("HTTP 404 accepted")
	}
}

func TestSpecsDir(t *testing.T) {
	root := t.TempDir()
	t.Setenv("SPECS_DIR", "")
	if err := os.MkdirAll(filepath.Join(root, ".specs", "normalized"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d, err := openapi.SpecsDir(root); err == nil {
		t.Errorf("a .specs without specs was chosen: %s", d)
	}
	if err := os.WriteFile(filepath.Join(root, ".specs", "a.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := openapi.SpecsDir(root); err != nil || d != filepath.Join(root, ".specs") {
		t.Errorf("SpecsDir = %q, %v", d, err)
	}
	t.Setenv("SPECS_DIR", "/elsewhere")
	if d, _ := openapi.SpecsDir(root); d != "/elsewhere" {
		t.Errorf("SPECS_DIR not honoured: %s", d)
	}
}
