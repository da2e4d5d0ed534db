package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/transponder-dev/transponder/mapping"
)

// convert is `transponder convert`: a Responses request (FILE or stdin) to
// the chat request of a dialect on stdout, the warnings on stderr. It
// returns the exit code: 0 converted, 1 refused (OpenAI's error body on
// stdout), 2 bad usage or unreadable input.
func convert(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dialect := fs.String("dialect", "openrouter", "the chat dialect: "+strings.Join(mapping.Dialects(), ", "))
	system := fs.String("system", "system", "system, developer or merge")
	reject := fs.Bool("reject-unknown", false, "refuse types the pinned spec does not know instead of dropping them")
	session := fs.String("session-id", "", "OpenRouter session_id when the request sets none")
	dropItems := fs.Bool("drop-unknown-items", false, "leave out input items of types the pinned spec does not know (with a warning) instead of refusing the request")
	toolMap := fs.Bool("tool-map", false, "print the tool map (upstream name → Responses tool) as JSON on stderr")
	file, err := parseArgs(fs, args)
	opts := mapping.Options{SessionID: *session}
	if err == nil {
		opts.Dialect, err = parseDialect(*dialect)
	}
	if err == nil {
		opts.System, err = parseSystem(*system)
	}
	if *reject {
		opts.UnknownTypes = mapping.RejectUnknown
	}
	if *dropItems {
		opts.UnknownItems = mapping.DropUnknownItems
	}
	if err != nil {
		fmt.Fprintln(stderr, "transponder convert:", err)
		fmt.Fprintln(stderr, "usage: transponder convert [--dialect NAME] [--system system|developer|merge] [--reject-unknown] [--drop-unknown-items] [--session-id ID] [--tool-map] [FILE|-]")
		return 2
	}
	var body []byte
	if file != "" && file != "-" {
		body, err = os.ReadFile(file)
	} else {
		body, err = io.ReadAll(stdin)
	}
	if err != nil {
		fmt.Fprintln(stderr, "transponder:", err)
		return 2
	}
	var cv mapping.Converter
	out, warns, err := cv.ResponsesToChat(nil, body, opts)
	for _, w := range warns {
		fmt.Fprintln(stderr, "warning:", w)
	}
	var e *mapping.Error
	if errors.As(err, &e) {
		fmt.Fprintf(stdout, "%s\n", e.AppendJSON(nil))
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "transponder:", err)
		return 2
	}
	if *toolMap {
		m, _ := json.Marshal(cv.ToolMap().Tools())
		fmt.Fprintf(stderr, "tool map: %s\n", m)
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}
