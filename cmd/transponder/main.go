// Command transponder is the Transponder CLI.
//
//	transponder serve [-config FILE] [-listen ADDR] [-upstream URL] [-dialect D] [-replay SCRIPT]
//	                                                       the gateway: the Responses API over Chat Completions
//	transponder generate [-root DIR] [-check] [-dump DIR] [spec ...]   regenerate gen/ from the pinned specs
//	transponder specs [-dir DIR] [spec ...]                download the pinned specs and verify their checksums
//	transponder pin [-root DIR] [-specs DIR] [-url NAME=URL]... [spec ...]  pin the manifest to the spec files at hand (a spec update)
//	transponder check-stream [--api responses|chat] [--format text|json] [FILE|-]
//	                                                       check a Responses stream, or a Chat Completions one (SSE or JSON lines)
//	transponder convert [--dialect D] [--system M] [FILE|-]  a Responses request → a chat request
//	transponder matrix [-root DIR] [-check] [-specs DIR] [-o DIR]  write ALIGNMENT.md and alignment.json
//	transponder matrix diff [-format text|markdown] OLD.json NEW.json
//	                                                       what changed; exit 1 if a path became unmapped or a status got worse
//
// check-stream exits 0 if the stream is conformant (warnings allowed), 1 if
// it breaks a rule, 2 if the input cannot be read. The rules are those of
// package runtime/conformance: a Responses stream by default, a Chat
// Completions stream (chunks, then [DONE]; JSON lines need no [DONE])
// with --api chat.
//
// Specs are read from $SPECS_DIR, else .specs/, else ../shared/specs.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/transponder-dev/transponder/internal/specgen"
	"github.com/transponder-dev/transponder/openapi"
	"github.com/transponder-dev/transponder/runtime/conformance"
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
	case "check-stream":
		os.Exit(checkStream(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	case "convert":
		os.Exit(convert(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	case "matrix":
		os.Exit(runMatrix(os.Args[2:], os.Stdout, os.Stderr))
	case "serve":
		os.Exit(serve(os.Args[2:], os.Stderr))
	case "pin":
		err = pin(os.Args[2:], os.Stderr)
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
	fmt.Fprintln(os.Stderr, "usage: transponder serve [-config FILE] [-listen ADDR] [-upstream URL] [-dialect NAME] [-replay SCRIPT]\n"+
		"       transponder generate [-root DIR] [-check] [-dump DIR] [spec ...]\n"+
		"       transponder specs [-dir DIR] [spec ...]\n"+
		"       transponder pin [-root DIR] [-specs DIR] [-url NAME=URL]... [spec ...]\n"+
		"       transponder check-stream [--api responses|chat] [--format text|json] [FILE|-]\n"+
		"       transponder convert [--dialect NAME] [--system system|developer|merge] [--reject-unknown] [--drop-unknown-items] [--session-id ID] [--tool-map] [FILE|-]\n"+
		"       transponder matrix [-root DIR] [-check] [-specs DIR] [-o DIR]\n"+
		"       transponder matrix diff [-format text|markdown] OLD.json NEW.json")
	os.Exit(2)
}

// parseArgs parses a command's flags and its one optional FILE argument;
// flags may come before or after the file.
func parseArgs(fs *flag.FlagSet, args []string) (file string, err error) {
	err = fs.Parse(args)
	file = fs.Arg(0)
	if err == nil && fs.NArg() > 0 {
		err = fs.Parse(fs.Args()[1:])
	}
	if err == nil && fs.NArg() > 0 {
		err = errors.New("more than one file")
	}
	return file, err
}

// checkStream is `transponder check-stream`; it returns the exit code.
func checkStream(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-stream", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "text or json")
	api := fs.String("api", "responses", "the stream's API: responses (Responses events) or chat (Chat Completions chunks)")
	file, err := parseArgs(fs, args)
	if err != nil || *format != "text" && *format != "json" || *api != "responses" && *api != "chat" {
		fmt.Fprintln(stderr, "usage: transponder check-stream [--api responses|chat] [--format text|json] [FILE|-]")
		return 2
	}
	check, unit := conformance.CheckStream, "events"
	if *api == "chat" {
		check, unit = conformance.CheckChatStream, "chunks"
	}
	in, name := stdin, "stdin"
	if f := file; f != "" && f != "-" {
		file, err := os.Open(f)
		if err != nil {
			fmt.Fprintln(stderr, "transponder:", err)
			return 2
		}
		defer file.Close()
		in, name = file, f
	}
	rep, err := check(in)
	if err != nil {
		fmt.Fprintf(stderr, "transponder: %s: %v\n", name, err)
		return 2
	}
	if *format == "json" {
		if rep.Findings == nil {
			rep.Findings = []conformance.Finding{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return 2
		}
	} else {
		for _, f := range rep.Findings {
			fmt.Fprintln(stdout, f)
		}
		v := conformance.Violations(rep.Findings)
		switch {
		case v == 0 && len(rep.Findings) == 0:
			fmt.Fprintf(stdout, "%s: %d %s, conformant\n", name, rep.Events, unit)
		case v == 0:
			fmt.Fprintf(stdout, "%s: %d %s, conformant, %d warnings\n", name, rep.Events, unit, len(rep.Findings))
		default:
			fmt.Fprintf(stdout, "%s: %d %s, %d violations, %d warnings\n", name, rep.Events, unit, v, len(rep.Findings)-v)
		}
	}
	if !rep.Conformant {
		return 1
	}
	return 0
}
