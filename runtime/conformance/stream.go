package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/transponder-dev/transponder/codec/sse"
)

// Report is the result of checking a whole stream.
type Report struct {
	Events     int       `json:"events"`
	Conformant bool      `json:"conformant"` // no violations (warnings allowed)
	Findings   []Finding `json:"findings"`
}

// CheckStream reads a Responses stream, as Server-Sent Events (event: and
// data: lines) or as JSON lines (one event's data a line; told apart by
// the first byte that is not white space: "{" is JSON lines), and checks
// it. An error means the input could not be read as either: reading
// failed, or an event was larger than sse.MaxEventSize.
func CheckStream(r io.Reader) (Report, error) {
	c := NewChecker()
	if err := readStream(r, func(line []byte) { c.Event(line) }, func(e sse.Event) {
		if !e.Done() {
			c.SSE(e)
		}
	}); err != nil {
		return Report{}, err
	}
	fs := c.Finish()
	return Report{Events: c.n, Conformant: Violations(fs) == 0, Findings: fs}, nil
}

// CheckChatStream reads a Chat Completions stream, as Server-Sent Events
// (data: lines, [DONE] required at the end) or as JSON lines (a chunk a
// line; a recording of the chunks, so a [DONE] line is allowed but not
// required), and checks it with a ChatChecker. Events counts the chunks
// and [DONE]. An error means the input could not be read as either.
func CheckChatStream(r io.Reader) (Report, error) {
	c := NewChatChecker()
	jsonLines := false
	if err := readStream(r, func(line []byte) {
		jsonLines = true
		if string(line) == "[DONE]" {
			c.Done()
		} else {
			c.Chunk(line)
		}
	}, func(e sse.Event) { c.SSE(e) }); err != nil {
		return Report{}, err
	}
	c.noDone = jsonLines
	fs := c.Finish()
	return Report{Events: c.n, Conformant: Violations(fs) == 0, Findings: fs}, nil
}

// readStream reads SSE or JSON lines (told apart by the first byte that
// is not white space: "{" is JSON lines) and hands over each non-empty
// line or each event.
func readStream(r io.Reader, line func([]byte), event func(sse.Event)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\ufeff" {
		_, _ = br.Discard(3)
	}
	first, err := firstByte(br)
	if err != nil {
		return err
	}
	if first != 0 && first != '{' && !strings.ContainsRune("deir:", rune(first)) {
		return fmt.Errorf("conformance: neither SSE (data:, event:, id:, retry:, :comment lines) nor JSON lines: starts with %q", first)
	}
	if first == '{' {
		sc := bufio.NewScanner(br)
		sc.Buffer(nil, sse.MaxEventSize)
		for sc.Scan() {
			if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
				line(l)
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("conformance: reading JSON lines: %w", err)
		}
		return nil
	}
	sr := sse.NewReader(br)
	for sr.Next() {
		event(sr.Event())
	}
	if err := sr.Err(); err != nil {
		return fmt.Errorf("conformance: reading SSE: %w", err)
	}
	return nil
}

// firstByte peeks at the first byte that is not white space (0 at EOF).
func firstByte(br *bufio.Reader) (byte, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) == n {
			switch c := b[n-1]; c {
			case ' ', '\t', '\r', '\n':
				if n < br.Size() {
					continue
				}
			default:
				return c, nil
			}
		}
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("conformance: %w", err)
		}
	}
}
