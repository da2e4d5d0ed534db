package translate

import (
	"slices"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/mapping"
)

// The reasoning item: its text and details as they arrive, and its JSON.

// ReasoningText is a piece of reasoning text: it repeats the details' when
// reasoning_details carry text.
func (t *translator) ReasoningText(s codec.Value) {
	if t.sawDet {
		return
	}
	it := t.current(kReasoning)
	t.delta(it, t.partOf(it, "reasoning_text", -1), s.Raw())
}

// ReasoningDetail is a reasoning detail, or a piece of one.
func (t *translator) ReasoningDetail(d codec.Value) {
	if d.Kind() != codec.Object {
		t.reply.Warn(t.msgPath()+".reasoning_details", "a reasoning detail that is not an object; left out")
		return
	}
	it := t.current(kReasoning)
	// What is read of it, in one pass (a repeated key: its first value).
	var idx, typ, text, summary codec.Value
	for k, m := range d.Members() {
		switch string(k.Bytes()) {
		case "index":
			if !idx.Exists() {
				idx = m
			}
		case "type":
			if !typ.Exists() {
				typ = m
			}
		case "text":
			if !text.Exists() {
				text = m
			}
		case "summary":
			if !summary.Exists() {
				summary = m
			}
		}
	}
	index := int64(-1)
	if n, ok := idx.Int(); ok {
		index = n
	}
	var det *detail
	if index >= 0 {
		for _, x := range it.details {
			if x.index == index {
				det = x
			}
		}
	}
	if det == nil {
		det = it.newDetail(index)
	}
	// The details merged are what encrypted_content replays (reasoningItem):
	// only a request that includes it reads them.
	if t.req.Encrypted {
		s := text // the string that joins, if one does
		if summary.Exists() {
			s = summary
			if text.Exists() {
				s = codec.Value{}
			}
		}
		det.merge(d, s)
	}
	key := -2 - int64(len(it.details)-1) // a detail without index: apart from indexes and -1 (the strings)
	if index >= 0 {
		key = index
	}
	switch {
	case typ.IsStr("reasoning.text"):
		if text.Kind() == codec.String && len(text.Raw()) > 2 {
			t.sawDet = true
			t.delta(it, t.partOf(it, "reasoning_text", key), text.Raw())
		}
	case typ.IsStr("reasoning.summary"):
		if summary.Kind() == codec.String && len(summary.Raw()) > 2 {
			t.sawDet = true
			t.delta(it, t.partOf(it, "summary_text", key), summary.Raw())
		}
	}
}

// newDetail adds a detail to a reasoning item (one of a previous
// stream's, reused with its memory, if the item has one).
func (it *item) newDetail(index int64) *detail {
	var det *detail
	if n := len(it.details); n < cap(it.details) {
		det = it.details[:n+1][n]
	}
	if det == nil {
		det = new(detail)
	}
	*det = detail{index: index, raw: det.raw[:0], members: det.members[:0], skel: det.skel[:0]}
	it.details = append(it.details, det)
	return det
}

// retained is about how many bytes d keeps for reuse.
func (d *detail) retained() int {
	n := cap(d.raw) + cap(d.skel)
	for _, m := range d.members[:cap(d.members)] {
		n += cap(m.key) + cap(m.val)
	}
	return n
}

// merge adds a piece of a detail: strings of text, summary and data join;
// other members take the last value that is not empty. s is the piece's
// text or summary, if it has one of them (the string that joins: a piece
// that differs from the last one in its contents alone is merged by
// appending them).
func (d *detail) merge(v, s codec.Value) {
	raw := v.Raw()
	if d.skelOK && s.Kind() == codec.String {
		at, sr := s.Offset()-v.Offset(), s.Raw()
		if at == d.cat && len(raw)-len(sr) == len(d.skel)-2 &&
			string(raw[:at]) == string(d.skel[:at]) && string(raw[at+len(sr):]) == string(d.skel[at+2:]) {
			d.pieces++
			x := &d.members[d.catM]
			x.val = appendDoubling(x.val[:len(x.val)-1], sr[1:])
			return
		}
	}
	if d.pieces++; d.pieces == 1 {
		d.raw = append(d.raw, v.Raw()...)
	}
	joined, catM := 0, -1 // the strings joined; s's member, if it joined
	// The members this piece wrote (of the first 64): a piece naming one
	// twice (a detail of a type the spec does not know is not checked
	// for that) is no skeleton — merging it again is not merging its
	// string alone.
	var wrote uint64
	again := len(d.members) > 64
	j := 0 // the member's place: pieces usually have their keys in one order
	for k, m := range v.Members() {
		xi := -1
		if j < len(d.members) && string(d.members[j].key) == string(k.Raw()) {
			xi = j
		} else {
			for i := range d.members {
				if string(d.members[i].key) == string(k.Raw()) {
					xi = i
					break // each key is in members once
				}
			}
		}
		j++
		if xi < 0 {
			concat := m.Kind() == codec.String && (k.Is("text") || k.Is("summary") || k.Is("data"))
			var key, val []byte // a previous stream's, if any
			if n := len(d.members); n < cap(d.members) {
				x := &d.members[:n+1][n]
				key, val = x.key[:0], x.val[:0]
			}
			xi = len(d.members)
			d.members = append(d.members, member{key: append(key, k.Raw()...), val: append(val, m.Raw()...), concat: concat})
		} else {
			switch x := &d.members[xi]; {
			case x.concat && m.Kind() == codec.String: // (the key is one whose strings join)
				x.val = appendDoubling(x.val[:len(x.val)-1], m.Raw()[1:])
			case !empty(m):
				x.val = append(x.val[:0], m.Raw()...)
			}
		}
		if bit := uint64(1) << (xi & 63); xi >= 64 || wrote&bit != 0 {
			again = true
		} else {
			wrote |= bit
		}
		if d.members[xi].concat && m.Kind() == codec.String {
			joined++
			if s.Exists() && m.Offset() == s.Offset() {
				catM = xi
			}
		}
	}
	// The next piece may be this one with other contents in s alone: not
	// if another string joined too (merging it again would repeat it), nor
	// if a member came twice.
	d.skelOK = joined == 1 && catM >= 0 && !again
	if d.skelOK {
		at, n := s.Offset()-v.Offset(), len(s.Raw())
		d.skel = append(append(d.skel[:0], raw[:at+1]...), raw[at+n-1:]...)
		d.cat, d.catM = at, catM
	}
}

func empty(v codec.Value) bool {
	switch v.Kind() {
	case codec.Null:
		return true
	case codec.String:
		return len(v.Raw()) == 2
	}
	return false
}

// appendDetail writes a merged detail: as received if it came whole.
func (d *detail) appendJSON(dst []byte) []byte {
	if d.pieces == 1 {
		return append(dst, d.raw...)
	}
	dst = append(dst, '{')
	for i, m := range d.members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, '"'), m.key...)
		dst = append(append(dst, '"', ':'), m.val...)
	}
	return append(dst, '}')
}

// reasoningItem is the finished reasoning item: its summary and content
// the parts streamed, in their order; encrypted_content (if the request
// includes it) the details in mapping's replay form — those that came,
// after a reasoning.text detail holding the reasoning strings if any came
// (mapping/reasoning.go).
func (t *translator) reasoningItem(it *item) []byte {
	var strs []byte
	for _, p := range it.parts {
		if p.detail == -1 {
			strs = append(strs, p.text...)
		}
	}
	b := codec.AppendString(append([]byte(nil), `{"id":`...), it.id)
	b = append(b, `,"type":"reasoning","summary":[`...)
	b = appendParts(b, it.parts, "summary_text")
	b = append(b, ']')
	if slices.ContainsFunc(it.parts, func(p *part) bool { return p.typ == "reasoning_text" }) {
		b = appendParts(append(b, `,"content":[`...), it.parts, "reasoning_text")
		b = append(b, ']')
	}
	if !t.req.Encrypted {
		return append(b, `,"encrypted_content":null}`...)
	}
	details := []byte{'['}
	if len(strs) > 0 {
		details = append(append(append(details, `{"type":"reasoning.text","text":"`...), strs...), `","format":"unknown"}`...)
	}
	for _, d := range it.details {
		if len(details) > 1 {
			details = append(details, ',')
		}
		details = d.appendJSON(details)
	}
	details = append(details, ']')
	b = mapping.AppendEncryptedReasoning(append(b, `,"encrypted_content":"`...), details)
	return append(b, `"}`...)
}

// appendParts appends an item's parts of a type, comma-separated.
func appendParts(dst []byte, parts []*part, typ string) []byte {
	n := 0
	for _, p := range parts {
		if p.typ == typ {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst, n = appendPart(dst, p), n+1
		}
	}
	return dst
}
