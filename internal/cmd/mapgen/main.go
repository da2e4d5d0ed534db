// Command mapgen generates the converters of mapping/ from its YAML
// mappings (package generator): for each *.yaml of the directory it runs
// in, <name>_gen.go, and typed/<name>_fields_gen.go (the compile-time
// references to ogen's types, read from ../gen/<dialect>/go_names.txt).
// It runs from go:generate in mapping/:
//
//	go run ../internal/cmd/mapgen [-check]
//
// With -check it writes nothing, lists the stale files and exits 1 if
// there are any. Errors name the mapping file and line. Mapping entries
// the spec at hand lacks (a field, variant, target or event type a spec
// release removed) are not errors: each is reported on stderr,
//
//	mapping/responses_chat.yaml:120: stale: entry prompt_cache_retention (…)
//
// and left out of the generated files.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/transponder-dev/transponder/generator"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("mapgen: ")
	check := flag.Bool("check", false, "only list stale generated files; exit 1 if any")
	flag.Parse()
	names, err := filepath.Glob("*.yaml")
	if err != nil {
		log.Fatal(err)
	}
	stale, failed := 0, false
	here, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	dir := filepath.Base(here)
	for _, name := range names {
		files, warns, errs := generator.Generate(os.DirFS(".."), dir+"/"+name)
		for _, s := range warns {
			fmt.Fprintln(os.Stderr, s)
		}
		for _, e := range errs {
			fmt.Fprintln(os.Stderr, e)
			failed = true
		}
		keys := make([]string, 0, len(files))
		for k := range files {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := filepath.Join("..", filepath.FromSlash(k))
			old, _ := os.ReadFile(p)
			if bytes.Equal(old, files[k]) {
				continue
			}
			stale++
			if *check {
				fmt.Println(k)
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				log.Fatal(err)
			}
			if err := os.WriteFile(p, files[k], 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
	if failed || *check && stale > 0 {
		os.Exit(1)
	}
}
