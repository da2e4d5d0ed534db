package translate

import "github.com/transponder-dev/transponder/codec"

// What the upstream's answer says of itself: the mapping's gateway fields
// (mapping/chat_chunk_responses.yaml), which the gateway logs.

// Upstream is what an upstream's answer says of itself that the Response
// has no place for, which the mapping leaves to the gateway's log: its id,
// the model it routed to, the provider that served it, its system
// fingerprint (empty when it did not say).
type Upstream struct {
	ID, Model, Provider, SystemFingerprint string
}

// note keeps what the answer (its first chunk, or the completion) says
// of the upstream: per response, not per chunk.
func (t *translator) note(v codec.Value) {
	t.noted = true
	for k, m := range v.Members() {
		i := -1
		switch string(k.Bytes()) {
		case "id":
			i = 0
		case "model":
			i = 1
		case "provider":
			i = 2
		case "system_fingerprint":
			i = 3
		}
		if i >= 0 && m.Kind() == codec.String {
			t.upstream[i] = t.keep(m.Raw())
		}
	}
}

// Upstream: see ChatToResponses.
func (t *translator) Upstream() Upstream {
	str := func(raw []byte) string {
		s, _ := codec.Unquote(raw)
		return s
	}
	return Upstream{ID: str(t.upstream[0]), Model: str(t.upstream[1]), Provider: str(t.upstream[2]), SystemFingerprint: str(t.upstream[3])}
}
