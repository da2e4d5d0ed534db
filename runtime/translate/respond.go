package translate

import (
	"bytes"
	"io"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/mapping"
)

// A chat completion that is not streamed, in Responses terms (the
// translator's items without its events), and Pipe, the stream's loop.

// ChatToResponse translates a chat completion (not streamed) into the
// Response object: the same items, ids and warnings the stream of the
// same answer ends with.
func ChatToResponse(req *Request, body []byte, opts Options) ([]byte, []mapping.Warning, error) {
	var r Responder
	resp, warns, err := r.Convert(req, body, opts)
	return append([]byte(nil), resp...), warns, err
}

// Responder converts chat completions into Response objects as
// ChatToResponse does, reusing its memory from one to the next (a
// gateway keeps one per worker). Not safe for concurrent use.
type Responder struct{ t translator }

// Convert is ChatToResponse; the Response and warnings are valid until
// the next call.
func (r *Responder) Convert(req *Request, body []byte, opts Options) ([]byte, []mapping.Warning, error) {
	t := &r.t
	t.reset(req, opts, false)
	t.phase = phaseStreaming
	// Room for the Response at once: the items made in the arena (calls,
	// reasoning; a message is written from its parts, appendItem) and the
	// usage, at most about the body's size; then the Response with the
	// request's echo (buf).
	if n := len(body) + 1024; cap(t.arena) < n {
		t.arena = make([]byte, 0, n)
	}
	if n := 2*len(body) + 4096; cap(t.buf) < n {
		t.buf = make([]byte, 0, n)
	}
	if err := t.doc.Decode(t.body, body); err != nil {
		return nil, nil, &APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream's response is not JSON: " + err.Error()}
	}
	t.note(t.doc.Value())
	t.reply.Body(&t.doc, t)
	t.strayLogprobs()
	if !t.sawFin && t.fail == nil {
		// No choices and an error object: the upstream's error in a 200
		// (OpenRouter's, when a provider fails after routing), answered
		// as the error it is, not as a Response missing its finish.
		if root, ok := codec.Parse(body); ok && root.Get("error").Kind() == codec.Object {
			return nil, nil, StreamError(root.Get("error"))
		}
		t.fail = &APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "the upstream's response has no finish reason"}
	}
	t.terminal()
	return t.final, t.reply.Warnings(), nil
}

// Upstream is what the last completion said of its upstream (see
// ChatToResponses.Upstream).
func (r *Responder) Upstream() Upstream { return r.t.Upstream() }

// Pipe translates a chat SSE stream (the upstream's body) into a
// Responses SSE stream written to w, event by event as the chunks come:
// [DONE] or a finish ends it; the body ending before [DONE] without a
// finish reason, or failing, fails the response (after closing the open
// items). Comments (keep-alives) are skipped. It returns the error writing
// to w, if any.
func Pipe(t ChatToResponses, r io.Reader, w io.Writer) error {
	in := sse.NewReader(r)
	var out []byte
	write := func(evs []Event) error {
		out = AppendSSE(out[:0], evs)
		_, err := w.Write(out)
		return err
	}
	if err := write(t.Start()); err != nil {
		return err
	}
	for in.Next() {
		e := in.Event()
		if e.Done() {
			return write(t.Finish())
		}
		if len(bytes.TrimSpace(e.Data)) == 0 {
			continue
		}
		if err := write(t.Next(e.Data)); err != nil {
			return err
		}
	}
	if err := in.Err(); err != nil {
		return write(t.Fail(err))
	}
	return write(t.Finish()) // cut before [DONE]: fails unless a finish reason came

}
