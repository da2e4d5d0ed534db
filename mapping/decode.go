package mapping

import (
	"errors"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// Reading a request: Decode and Convert, the two halves of ResponsesToChat
// for a serving layer that reads the request in between.

// Decode reads body as the request the Converter converts next
// (ResponsesToChat is Decode then Convert): a serving layer reads what it
// needs of the request (its model, what it continues) from v, and Convert
// converts it without reading the body again. It fails with an *Error on
// a body that is not a JSON object. v is valid until the Converter's next
// Decode or conversion.
func (cv *Converter) Decode(body []byte) (v codec.Value, err error) {
	if err := cv.c.decode(body); err != nil {
		return codec.Value{}, err
	}
	return cv.c.doc.Value(), nil
}

// Convert converts the request the last Decode read as ResponsesToChat
// converts a body, appending the chat request to dst; once per Decode.
func (cv *Converter) Convert(dst []byte, opts Options) ([]byte, []Warning, error) {
	c := &cv.c
	if !c.pending {
		return dst, nil, errNoDecode
	}
	c.reset()
	return cv.convert(dst, &opts)
}

func (cv *Converter) convert(dst []byte, opts *Options) ([]byte, []Warning, error) {
	c := &cv.c
	c.pending = false
	if err := c.run(opts); err != nil {
		return dst, c.warns, err
	}
	if dst == nil {
		n := len(c.doc.Bytes())
		dst = make([]byte, 0, n+n/8)
	}
	return c.b.AppendJSON(dst), c.warns, nil
}

// decode reads the request into c.doc.
func (c *conv) decode(body []byte) error {
	c.decoded, c.pending = false, false
	c.tools.reset() // the last conversion's map is not this request's
	if err := decodeBody(&c.doc, codec.ResponsesRequest, body); err != nil {
		return err
	}
	c.decoded, c.pending = true, true
	return nil
}

// errNoDecode is Convert's error when no Decode read a request to convert.
var errNoDecode = errors.New("mapping: Convert without a request that Decode read and no conversion converted")

// decodeBody decodes a request body of payload p (OpenAI's shape) into
// doc: an *Error if it is not JSON (naming where, clipped) or not an
// object.
func decodeBody(doc *codec.Doc, p codec.Payload, body []byte) error {
	root, _ := codec.OpenAI.Payload(p)
	if err := doc.Decode(root, body); err != nil {
		var se *codec.SyntaxError
		if errors.As(err, &se) {
			return &Error{Message: "the body is not valid JSON: " + se.Reason, Param: clipPath(se.Path), Code: "invalid_json"}
		}
		return &Error{Message: "the body is not valid JSON", Code: "invalid_json"}
	}
	if doc.Value().Kind() != codec.Object {
		return &Error{Message: "the body must be a JSON object", Code: "invalid_type"}
	}
	return nil
}

// maxParam bounds the path an error names: a value nested too deeply
// is named by the value it is in, maxParam bytes of path down at most.
const maxParam = 128

// clipPath cuts a path longer than maxParam at a step: the path of a
// value the path is in.
func clipPath(p string) string {
	if len(p) <= maxParam {
		return p
	}
	if i := strings.LastIndexAny(p[:maxParam+1], ".["); i > 0 {
		return p[:i]
	}
	if i := strings.IndexAny(p, ".["); i > 0 {
		return p[:i] // a first key over maxParam: it alone
	}
	return p
}

// ChunkExtra and BodyExtra report whether a top-level key the spec does
// not declare is one of the mapping's extras for a chunk (a completion),
// which Chunk (Body) handles without a warning: for codec.Doc.Quiet, so
// that decoding makes no finding of them (OpenRouter's provider, in every
// chunk).
func ChunkExtra(key []byte) bool { return isChatChunkResponsesExtra(key) }

// BodyExtra: see ChunkExtra.
func BodyExtra(key []byte) bool { return isChatResponsesExtra(key) }
