package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/transponder-dev/transponder/openapi"
)

// urlFlags collects -url NAME=URL.
type urlFlags map[string]string

func (u urlFlags) String() string { return "" }

func (u urlFlags) Set(v string) error {
	name, url, ok := strings.Cut(v, "=")
	if !ok || name == "" || url == "" {
		return fmt.Errorf("want NAME=URL, got %q", v)
	}
	u[name] = url
	return nil
}

// pin records the sha256 of the spec files at hand (-specs, else
// $SPECS_DIR, .specs, ../shared/specs) in openapi/manifest.yaml: the one
// step of a spec update that touches the manifest, so nobody edits it by
// hand. -url also records where the new file came from (`transponder
// specs` downloads it from there).
func pin(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("pin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "module root")
	specs := fs.String("specs", "", "the directory of the new spec files (default: $SPECS_DIR, else .specs, else ../shared/specs)")
	urls := urlFlags{}
	fs.Var(urls, "url", "NAME=URL: the new file's source, for `transponder specs` (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := *specs
	if dir == "" {
		var err error
		if dir, err = openapi.SpecsDir(*root); err != nil {
			return err
		}
	}
	changed, err := openapi.PinDir(*root, dir, fs.Args(), urls)
	if err != nil {
		return err
	}
	if len(changed) == 0 {
		fmt.Fprintf(stderr, "%s: the pins already match %s\n", openapi.ManifestFile, dir)
	}
	for _, p := range changed {
		if p.New != "" {
			fmt.Fprintf(stderr, "%s: sha256 %s → %s\n", p.Name, p.Old, p.New)
		}
		if p.URL != "" {
			fmt.Fprintf(stderr, "%s: url → %s\n", p.Name, p.URL)
		}
	}
	return nil
}
