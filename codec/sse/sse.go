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
//
// It reads into one buffer of its own that starts small and grows to the
// longest line it meets: a stream held open for minutes holds little. The
// data of an event of one "data:" line (what both APIs send) is a slice
// of that buffer, not a copy.
type Reader struct {
	rd       io.Reader
	buf      []byte // buf[r:w] is read and not yet consumed
	r, w     int
	rerr     error  // the error the last read returned, once buf[r:w] is used up
	pending  []byte // the rest of a line split at a lone CR (in buf)
	ev       Event
	data     []byte // the event's data, when it is not a slice of buf
	ref      int    // the data's start in buf while it is one (a single data line); -1 when not
	refLen   int
	hasData  bool
	idle     int    // fills in a row that used little of a large buf (fill)
	lastType string // the last event type read
	started  bool
	err      error
	events   int
	offset   int64 // bytes consumed, for error positions
}

// The buffer's first size; the size from which a buffer that stays
// mostly empty is given back (after large events, a stream goes on with
// small ones), after idleFills fills in a row that used under a quarter
// of it.
const (
	minBuffer  = 512
	keepBuffer = 64 << 10
	idleFills  = 8
)

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{rd: r, ref: -1}
}

// Next advances to the next event. It returns false at the end of the stream
// or on an error (see Err).
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	r.ev = Event{}
	r.data = r.data[:0]
	if cap(r.data) >= keepBuffer {
		r.data = nil // a large event's copy is not kept for the small ones after it
	}
	r.ref = -1
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
			if !r.hasData {
				// value is in buf, its capacity running to buf's end:
				// where it starts is what its capacity says.
				if value == nil {
					value = line[len(line):]
				}
				if len(value) > MaxEventSize {
					r.err = fmt.Errorf("%w (event %d, byte %d)", ErrEventTooLarge, r.events, r.offset)
					return false
				}
				r.ref, r.refLen = cap(r.buf)-cap(value), len(value)
				r.hasData = true
				continue
			}
			r.unref()
			if len(r.data)+1+len(value) > MaxEventSize {
				r.err = fmt.Errorf("%w (event %d, byte %d)", ErrEventTooLarge, r.events, r.offset)
				return false
			}
			r.data = append(append(r.data, '\n'), value...)
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

// unref copies the data out of buf, before buf moves or another data line
// joins it.
func (r *Reader) unref() {
	if r.ref >= 0 {
		r.data = append(r.data[:0], r.buf[r.ref:r.ref+r.refLen]...)
		r.ref = -1
	}
}

func (r *Reader) dispatch() bool {
	if r.ref >= 0 {
		r.ev.Data = r.buf[r.ref : r.ref+r.refLen : r.ref+r.refLen]
	} else {
		r.ev.Data = r.data
	}
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
	var line []byte
	for scanned := 0; ; {
		if i := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); i >= 0 {
			end := r.r + scanned + i
			line = r.buf[r.r:end] // its capacity runs to buf's end: see "data"
			r.r = end + 1
			r.offset += int64(len(line) + 1)
			break
		}
		scanned = r.w - r.r
		if r.rerr != nil {
			if scanned == 0 {
				return nil, r.rerr
			}
			if !errors.Is(r.rerr, io.EOF) {
				return nil, r.rerr
			}
			line = r.buf[r.r:r.w] // the last line, without its end
			r.r = r.w
			r.offset += int64(len(line))
			break
		}
		if scanned > MaxEventSize {
			return nil, fmt.Errorf("%w (line at byte %d)", ErrEventTooLarge, r.offset+int64(scanned))
		}
		r.fill()
	}
	if len(line) > MaxEventSize {
		return nil, fmt.Errorf("%w (line at byte %d)", ErrEventTooLarge, r.offset)
	}
	if len(line) >= keepBuffer/4 {
		r.idle = 0
	}
	if !r.started {
		r.started = true
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	return r.split(line), nil
}

// fill reads more: what is not consumed moves to the front of buf, which
// grows when it is full, and shrinks back once large lines stopped coming.
func (r *Reader) fill() {
	r.unref()
	n := r.w - r.r
	if len(r.buf) >= keepBuffer && n < keepBuffer/4 {
		r.idle++
	}
	switch {
	case r.buf == nil:
		r.buf = make([]byte, minBuffer)
	case n == len(r.buf), r.idle >= idleFills:
		r.idle = 0
		size := minBuffer
		for size < 2*n {
			size *= 2
		}
		b := make([]byte, size)
		copy(b, r.buf[r.r:r.w])
		r.buf = b
	default:
		copy(r.buf, r.buf[r.r:r.w])
	}
	r.r, r.w = 0, n
	for range 100 {
		m, err := r.rd.Read(r.buf[r.w:])
		if m < 0 || m > len(r.buf)-r.w {
			r.rerr = errors.New("sse: reader returned an invalid count")
			return
		}
		r.w += m
		if err != nil {
			r.rerr = err
			return
		}
		if m > 0 {
			return
		}
	}
	r.rerr = io.ErrNoProgress
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
