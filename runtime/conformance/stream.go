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
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\ufeff" {
		_, _ = br.Discard(3)
	}
	first, err := firstByte(br)
	if err != nil {
		return Report{}, err
	}
	if first != 0 && first != '{' && !strings.ContainsRune("deir:", rune(first)) {
		return Report{}, fmt.Errorf("conformance: neither SSE (data:, event:, id:, retry:, :comment lines) nor JSON lines: starts with %q", first)
	}
	c := NewChecker()
	if first == '{' {
		sc := bufio.NewScanner(br)
		sc.Buffer(nil, sse.MaxEventSize)
		for sc.Scan() {
			if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
				c.Event(line)
			}
		}
		if err := sc.Err(); err != nil {
			return Report{}, fmt.Errorf("conformance: reading JSON lines: %w", err)
		}
	} else {
		sr := sse.NewReader(br)
		for sr.Next() {
			if e := sr.Event(); !e.Done() {
				c.SSE(e)
			}
		}
		if err := sr.Err(); err != nil {
			return Report{}, fmt.Errorf("conformance: reading SSE: %w", err)
		}
	}
	fs := c.Finish()
	return Report{Events: c.n, Conformant: Violations(fs) == 0, Findings: fs}, nil
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
