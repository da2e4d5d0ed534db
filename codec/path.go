package codec

// Paths as errors and findings name them: OpenAI's param syntax, long
// keys clipped.

import (
	"strconv"
	"unicode/utf8"
)

// pathString renders a path as OpenAI's error "param" does:
// input[3].content[0].text; keys that are not identifiers are quoted
// (metadata["a.b"]).
func (d *Doc) pathString(path []seg) string {
	var buf [128]byte
	return string(d.appendPath(buf[:0], path))
}

// appendPath appends the path's text to dst.
func (d *Doc) appendPath(dst []byte, path []seg) []byte {
	for _, s := range path {
		if s.start < 0 {
			dst = append(strconv.AppendInt(append(dst, '['), int64(s.index), 10), ']')
			continue
		}
		dst = appendKeyTo(dst, clipBytes(unquote(d.data[s.start:s.end])))
	}
	return dst
}

// maxKeyShown is how much of a key paths and errors show: they name a
// place in the payload, they do not echo it.
const maxKeyShown = 64

// clip returns key, cut to maxKeyShown bytes (on a rune boundary) and
// marked "…" if longer.
func clip(key []byte) string { return string(clipBytes(key)) }

func clipBytes(key []byte) []byte {
	if len(key) <= maxKeyShown {
		return key
	}
	n := maxKeyShown
	for n > 0 && !utf8.RuneStart(key[n]) {
		n--
	}
	return append(key[:n:n], "…"...)
}

// appendKeyTo appends a key step to the path in dst: .key, or ["key"]
// for a key that is not an identifier (and key alone at the top level).
func appendKeyTo(dst, key []byte) []byte {
	ident := len(key) > 0
	for i, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	switch {
	case !ident:
		return append(strconv.AppendQuote(append(dst, '['), string(key)), ']')
	case len(dst) > 0:
		dst = append(dst, '.')
	}
	return append(dst, key...)
}

// Where the decoder is: its path, and the steps of it recorded in the
// Doc for the nodes and findings that name it.

// push appends s to the path, refusing a path deeper than MaxDepth.
func (x *decoder) push(s seg) error {
	if len(x.path) >= MaxDepth {
		return x.tooDeep()
	}
	x.step(s)
	return nil
}

// step appends s to the path (push without the depth check).
func (x *decoder) step(s seg) {
	x.path = append(x.path, s)
	if n := len(x.path); n <= len(x.steps) {
		x.steps[n-1] = -1 // a new step: not recorded
	}
}

// record adds the steps of the current path that are not in the Doc yet
// and returns the index of the last one (-1 at the top level).
func (x *decoder) record() int32 {
	for len(x.steps) < len(x.path) {
		x.steps = append(x.steps, -1)
	}
	// The recorded steps are a prefix of the path: step marks each new
	// step unrecorded, and a step that changes has all after it new too.
	i := len(x.path)
	for i > 0 && x.steps[i-1] < 0 {
		i--
	}
	for ; i < len(x.path); i++ {
		parent := int32(-1)
		if i > 0 {
			parent = x.steps[i-1]
		}
		x.doc.segs = append(x.doc.segs, pathSeg{x.path[i], parent})
		x.steps[i] = int32(len(x.doc.segs) - 1)
	}
	if len(x.path) == 0 {
		return -1
	}
	return x.steps[len(x.path)-1]
}
