package gateway

import (
	"errors"
	"net/http"

	"github.com/transponder-dev/transponder/codec"
)

// Prepare runs what POST /v1/responses does with the store before the
// request is converted (reading what it continues, resolving its
// references, assembling the input), for owner: the benchmarks time it.
// release ends the request (the body is not to be read after it).
func Prepare(s *Server, r *http.Request, owner string, body []byte) (out []byte, release func(), err error) {
	q := &request{s: s, r: r, owner: owner}
	doc, ok := codec.Parse(body)
	if !ok {
		return nil, q.release, errors.New("not JSON")
	}
	out, aerr := q.prepare(doc, body)
	if aerr != nil {
		return nil, q.release, aerr
	}
	return out, q.release, nil
}
