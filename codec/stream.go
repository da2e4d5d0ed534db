package codec

import (
	"bytes"
	"fmt"
	"io"

	"github.com/transponder-dev/transponder/codec/sse"
)

// Stream decodes a stream of Server-Sent Events whose data are payloads of
// one kind (chat chunks, Responses events): each event's data is decoded
// against root into the one Doc the stream reuses. `data: [DONE]` ends the
// stream; comments (": OPENROUTER PROCESSING"), events without data and
// events with empty data are skipped.
//
//	s := codec.NewStream(body, root)
//	for s.Next() {
//		doc := s.Doc() // valid until the next call of Next
//	}
//	if err := s.Err(); err != nil { … }
type Stream struct {
	r     *sse.Reader
	root  Root
	doc   Doc
	event sse.Event
	n     int // events decoded
	done  bool
	err   error
}

// NewStream returns a Stream reading r. Its Doc keeps skeletons
// (Doc.Skeletons): a stream's payloads are alike.
func NewStream(r io.Reader, root Root) *Stream {
	s := &Stream{r: sse.NewReader(r), root: root}
	s.doc.Skeletons(true)
	return s
}

// Next decodes the next event; it returns false at [DONE], at the end of
// the input, or on an error (see Err).
func (s *Stream) Next() bool {
	if s.done || s.err != nil {
		return false
	}
	if !s.r.Next() {
		s.err = s.r.Err()
		return false
	}
	for {
		s.event = s.r.Event()
		if s.event.Done() {
			s.done = true
			return false
		}
		if len(bytes.TrimSpace(s.event.Data)) > 0 {
			break
		}
		// An event with empty data is a keep-alive, not a payload.
		if !s.r.Next() {
			s.err = s.r.Err()
			return false
		}
	}
	if err := s.doc.Decode(s.root, s.event.Data); err != nil {
		s.err = &StreamError{Event: s.n, Err: err}
		return false
	}
	s.n++
	return true
}

// StreamError is an event of a stream whose data is not JSON.
type StreamError struct {
	Event int   // the index of the event among those with data
	Err   error // a *SyntaxError
}

func (e *StreamError) Error() string { return fmt.Sprintf("%v (stream event %d)", e.Err, e.Event) }

// Unwrap returns Err.
func (e *StreamError) Unwrap() error { return e.Err }

// Doc is the decoded data of the current event; it and its nodes and
// findings are valid until the next call of Next.
func (s *Stream) Doc() *Doc { return &s.doc }

// Event is the current event (its type, id and data).
func (s *Stream) Event() sse.Event { return s.event }

// Done reports whether the stream ended with [DONE] (a Responses stream
// has none; a chat stream that ends without it was cut short).
func (s *Stream) Done() bool { return s.done }

// Err is the error that stopped the stream: reading failed, or an event's
// data was not JSON (a *StreamError).
func (s *Stream) Err() error { return s.err }
