package normalize

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// StreamMediaType replaces text/event-stream in the normalized spec.
const StreamMediaType = "application/x-sse-event+json"

// sseAsJSON declares each event-stream response as a JSON body of one event.
// ogen's typed SSE support needs its generated client (whose stream reader
// re-POSTs the request when a stream ends without [DONE]); a raw response
// would drop the event types altogether. As a JSON body every event schema
// becomes a Go type with a JSON codec, and Transponder frames SSE itself.
func sseAsJSON(d *Doc) error {
	d.responses(func(_ walk.Operation, ptr string, r *openapi3.Response) {
		m, ok := r.Content["text/event-stream"]
		if !ok {
			return
		}
		delete(r.Content, "text/event-stream")
		r.Content[StreamMediaType] = m
		d.Hit(Node{Pointer: ptr + "/content/text~1event-stream"}, "event stream read as JSON events (%s)", StreamMediaType)
	})
	return nil
}

// responses calls fn with every response of every operation, in a fixed
// order, and its JSON pointer ("/paths/…/post/responses/200").
func (d *Doc) responses(fn func(op walk.Operation, ptr string, r *openapi3.Response)) {
	for _, op := range walk.Operations(d.T) {
		if op.Op.Responses == nil {
			continue
		}
		for _, code := range walk.SortedKeys(op.Op.Responses.Map()) {
			if r := op.Op.Responses.Value(code); r.Value != nil {
				fn(op, "/paths/"+walk.Escape(op.Path)+"/"+strings.ToLower(op.Method)+"/responses/"+code, r.Value)
			}
		}
	}
}
