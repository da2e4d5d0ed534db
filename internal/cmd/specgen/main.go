// Command specgen regenerates gen/ from the pinned specs: prune → overlay →
// normalize → ogen. It is what `go generate ./gen` runs; `transponder
// generate` does the same. It imports nothing but the openapi package, so it
// builds even when packages that use the generated code do not.
//
// Usage (from gen/, as go:generate runs it):
//
//	go run ../internal/cmd/specgen [-root ..] [-check] [-dump DIR] [spec ...]
//
// Specs are read from $SPECS_DIR, else .specs/ (`make specs`), else
// ../shared/specs.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/transponder-dev/transponder/internal/specgen"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("specgen: ")
	root := flag.String("root", "..", "module root")
	check := flag.Bool("check", false, "only report generated files that are stale; exit 1 if any")
	dump := flag.String("dump", "", "also write the normalized specs into this directory")
	flag.Parse()
	if err := specgen.Run(os.Stderr, specgen.Options{Root: *root, Check: *check, Dump: *dump, Names: flag.Args()}); err != nil {
		log.Fatal(err)
	}
}
