// Command transponder is the Transponder CLI.
//
//	transponder generate [-root DIR] [-check] [-dump DIR] [spec ...]   regenerate gen/ from the pinned specs
//	transponder specs [-dir DIR] [spec ...]                download the pinned specs and verify their checksums
//
// Specs are read from $SPECS_DIR, else .specs/, else ../shared/specs.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/transponder-dev/transponder/internal/specgen"
	"github.com/transponder-dev/transponder/openapi"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("transponder: ")
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "generate":
		fs := flag.NewFlagSet("generate", flag.ExitOnError)
		root := fs.String("root", ".", "module root")
		check := fs.Bool("check", false, "only list stale generated files; exit 1 if any")
		dump := fs.String("dump", "", "also write the normalized specs into this directory")
		_ = fs.Parse(os.Args[2:])
		err = specgen.Run(os.Stderr, specgen.Options{Root: *root, Check: *check, Dump: *dump, Names: fs.Args()})
	case "specs":
		fs := flag.NewFlagSet("specs", flag.ExitOnError)
		dir := fs.String("dir", ".specs", "where to download the specs")
		_ = fs.Parse(os.Args[2:])
		err = fetch(*dir, fs.Args())
	default:
		usage()
	}
	if err != nil {
		log.Fatal(err)
	}
}

func fetch(dir string, names []string) error {
	m, err := openapi.LoadManifest()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, s := range m.Specs {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		if err := openapi.Fetch(ctx, http.DefaultClient, s, dir); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: %s (sha256 ok)\n", s.Name, s.File)
	}
	return nil
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: transponder generate [-root DIR] [-check] [-dump DIR] [spec ...] | transponder specs [-dir DIR] [spec ...]")
	os.Exit(2)
}
