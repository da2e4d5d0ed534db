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
