// Package sse reads and writes Server-Sent Events as the Chat Completions and
// Responses APIs use them.
//
// The reader follows the WHATWG event-stream format where it matters to these
// APIs and is lenient where real servers are sloppy:
//   - lines end in LF, CRLF or CR; a leading UTF-8 BOM is skipped;
//   - comment lines (": OPENROUTER PROCESSING") are skipped;
//   - "event:", "id:" and "retry:" are read; several "data:" lines join with
//     "\n"; one space after the colon is removed;
//   - an event still open when the stream ends is delivered (the format
//     would drop it; servers that end without a blank line exist);
//   - "data: [DONE]" (the Chat Completions terminator) is an ordinary event
//     whose Done method reports true: ending the stream is the caller's call.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxEventSize bounds the bytes of one event's data; a larger event is an
// error rather than unbounded memory.
const MaxEventSize = 32 << 20

// ErrEventTooLarge is returned when an event's data exceeds MaxEventSize.
var ErrEventTooLarge = errors.New("sse: event larger than MaxEventSize")

// Event is one dispatched event.
type Event struct {
	Type  string // the "event:" field, "" when absent
	ID    string // the "id:" field, "" when absent
	Retry int    // the "retry:" field in milliseconds, 0 when absent or invalid
	// Data is the event's data, lines joined with "\n". It is only valid
	// until the next call to Next: copy it to keep it.
	Data []byte
}

// Done reports whether the event is the Chat Completions stream terminator,
// "data: [DONE]".
func (e Event) Done() bool { return string(bytes.TrimSpace(e.Data)) == "[DONE]" }

// Reader reads events from a stream. Use it as
//
//	for r.Next() { e := r.Event(); … }
//	if err := r.Err(); err != nil { … }
type Reader struct {
	br       *bufio.Reader
	line     []byte // the current line, reused
	pending  []byte // the rest of a line split at a lone CR
	ev       Event
	data     []byte
	hasData  bool
	lastType string // the last event type read
	started  bool
	err      error
	events   int
	offset   int64 // bytes consumed, for error positions
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 4<<10)}
}

// Next advances to the next event. It returns false at the end of the stream
// or on an error (see Err).
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	r.ev = Event{}
	r.data = r.data[:0]
	r.hasData = false
	for {
		line, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && r.hasData {
				return r.dispatch() // the stream ended without a blank line
			}
			if !errors.Is(err, io.EOF) {
				r.err = err
			}
			return false
		}
		if len(line) == 0 {
			if r.hasData {
				return r.dispatch()
			}
			// A blank line with no data dispatches nothing (event: alone).
			r.ev = Event{}
			continue
		}
		if line[0] == ':' {
			continue // comment
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			if r.hasData {
				r.data = append(r.data, '\n')
			}
			if len(r.data)+len(value) > MaxEventSize {
				r.err = fmt.Errorf("%w (event %d, byte %d)", ErrEventTooLarge, r.events, r.offset)
				return false
			}
			r.data = append(r.data, value...)
			r.hasData = true
		case "event":
			if string(value) != r.lastType { // a stream repeats its types: reuse the string
				r.lastType = string(value)
			}
			r.ev.Type = r.lastType
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.ev.ID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
				r.ev.Retry = n
			}
		default:
			// Unknown fields are ignored, as the format says.
		}
	}
}

func (r *Reader) dispatch() bool {
	r.ev.Data = r.data
	r.events++
	return true
}

// Event returns the event Next advanced to.
func (r *Reader) Event() Event { return r.ev }

// Err returns the first error other than the end of the stream.
func (r *Reader) Err() error { return r.err }

// readLine returns the next line without its terminator (LF, CRLF or CR).
// The slice is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	if r.pending != nil {
		return r.split(r.pending), nil
	}
	r.line = r.line[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.offset += int64(len(chunk))
		r.line = append(r.line, chunk...)
		if len(r.line) > MaxEventSize {
			return nil, fmt.Errorf("%w (line at byte %d)", ErrEventTooLarge, r.offset)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (len(r.line) == 0 || !errors.Is(err, io.EOF)) {
			return nil, err
		}
		break
	}
	line := r.line
	if !r.started {
		r.started = true
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return r.split(line), nil
}

// split returns line up to a lone CR (an old-Mac line end) and keeps the rest
// for the next call.
func (r *Reader) split(line []byte) []byte {
	r.pending = nil
	if i := bytes.IndexByte(line, '\r'); i >= 0 {
		r.pending = line[i+1:]
		return line[:i]
	}
	return line
}

// AppendEvent appends one event in the form the Responses API streams:
// "event: TYPE\ndata: DATA\n\n" (the event line only when typ is set). data
// must be one line (JSON encoded without newlines).
func AppendEvent(dst []byte, typ string, data []byte) []byte {
	if typ != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, typ...)
		dst = append(dst, '\n')
	}
	dst = append(dst, "data: "...)
	dst = append(dst, data...)
	return append(dst, '\n', '\n')
}
