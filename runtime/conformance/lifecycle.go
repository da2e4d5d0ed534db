package conformance

// Rules 2–4: the lifecycle of the response, sequence numbers, and the
// response's identity.

import (
	"encoding/json"
	"strconv"
)

func terminal(typ string) bool {
	return typ == "response.completed" || typ == "response.incomplete" || typ == "response.failed"
}

func (c *Checker) lifecycle(typ string) {
	switch {
	case c.phase == phaseTerminal:
		c.violation("lifecycle", "%s after the terminal event", typ)
		return
	case c.phase == phaseStart && typ != "response.created":
		c.violation("lifecycle", "the first event is %s, not response.created", typ)
	case c.phase != phaseStart && typ == "response.created":
		c.violation("lifecycle", "response.created again")
	case typ == "response.queued" && c.phase != phaseCreated:
		c.violation("lifecycle", "response.queued not right after response.created")
	case typ == "response.in_progress" && c.phase != phaseCreated:
		c.violation("lifecycle", "response.in_progress not right after response.created (or response.queued)")
	case c.phase == phaseErrored && typ != "response.failed":
		c.violation("lifecycle", "%s after an error event: only response.failed may follow", typ)
	}
	switch {
	case terminal(typ):
		c.phase = phaseTerminal
	case typ == "error":
		c.phase = phaseErrored
	case typ == "response.created" && c.phase == phaseStart, typ == "response.queued" && c.phase == phaseCreated:
		c.phase = phaseCreated
	case c.phase != phaseErrored:
		c.phase = phaseOpen
	}
}

func (c *Checker) sequence(raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		c.violation("sequence", "no sequence_number")
		return
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
			c.violation("sequence", "sequence_number %s is not an integer this checker can follow", clip(string(raw)))
		}
		return // (not a number: the schema rule reports it)
	}
	switch {
	case !c.seqSeen && n != 0:
		c.violation("sequence", "sequence_number starts at %d, not 0", n)
	case c.seqSeen && n <= c.seq:
		c.violation("sequence", "sequence_number %d after %d", n, c.seq)
	case c.seqSeen && n > c.seq+1:
		c.add("sequence-gap", Violation, "sequence_number %d after %d: %d missing", n, c.seq, n-c.seq-1)
	}
	if !c.seqSeen || n > c.seq {
		c.seq = n
	}
	c.seqSeen = true
}

func (c *Checker) identity(resp json.RawMessage) {
	var r struct {
		ID        *string         `json:"id"`
		CreatedAt json.RawMessage `json:"created_at"`
		Model     *string         `json:"model"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return // the schema rule reports it
	}
	id, model := deref(r.ID), deref(r.Model)
	if !c.known {
		c.id, c.created, c.model, c.known = id, string(r.CreatedAt), model, true
		return
	}
	if id != c.id {
		c.violation("response-identity", "response id %q, was %q", id, c.id)
	}
	if string(r.CreatedAt) != c.created {
		c.violation("response-identity", "created_at %s, was %s", r.CreatedAt, c.created)
	}
	if model != c.model {
		c.violation("response-identity", "model %q, was %q", model, c.model)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
