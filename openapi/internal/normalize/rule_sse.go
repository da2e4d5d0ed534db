package normalize

import (
	"strings"

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
	for _, op := range walk.Operations(d.T) {
		if op.Op.Responses == nil {
			continue
		}
		for _, code := range walk.SortedKeys(op.Op.Responses.Map()) {
			r := op.Op.Responses.Value(code)
			if r.Value == nil {
				continue
			}
			m, ok := r.Value.Content["text/event-stream"]
			if !ok {
				continue
			}
			delete(r.Value.Content, "text/event-stream")
			r.Value.Content[StreamMediaType] = m
			ptr := "/paths/" + walk.Escape(op.Path) + "/" + strings.ToLower(op.Method) + "/responses/" + code + "/content/text~1event-stream"
			d.Hit(Node{Pointer: ptr}, "event stream read as JSON events (%s)", StreamMediaType)
		}
	}
	return nil
}
