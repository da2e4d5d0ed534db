package translate

// A custom tool's input, streamed out of the JSON string of its call's
// arguments.

import (
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// inputScanner streams a custom tool's input out of the pieces of its
// call's arguments, {"input": "…"}: the string's content, still escaped,
// goes out as it comes, an escape sequence split between pieces held
// back until it is whole. Arguments of another shape become the input
// whole (with a warning); members after input are left out (with a
// warning).
type inputScanner struct {
	raw     bool   // the upstream called a custom tool: the arguments are the input
	state   uint8  // see below
	pending []byte // decoded argument bytes not yet judged (before the value, or an escape)
	out     []byte // the input, escaped, as emitted so far
	tail    []byte // what finish emitted
	key     []byte
	warning string
	esc     []byte // an escape sequence in progress (inside the input string)
}

const (
	sStart  = iota // before {
	sKey           // in the first key
	sColon         // after the key
	sValue         // before the value
	sString        // inside the input string
	sAfter         // after it
	sWhole         // the arguments are the input
	sExtra         // members after the input
	sClosed        // {} so far: no input
)

// feed takes a piece of the arguments (the content of a JSON string,
// escaped once: the arguments' own JSON).
func (s *inputScanner) feed(piece []byte) {
	if s.raw {
		s.out = append(s.out, piece...)
		return
	}
	// The arguments' text is the piece unescaped; the input's content is
	// that text's string content, which is valid JSON string content as
	// it stands.
	text, ok := codec.Unquote(append(append([]byte{'"'}, piece...), '"'))
	if !ok {
		text = string(piece)
	}
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch s.state {
		case sStart, sKey, sColon, sValue, sClosed:
			s.pending = append(s.pending, ch)
			s.prefix(ch)
		case sString:
			s.inString(ch)
		case sAfter:
			if ch == '}' || isSpace(ch) {
				continue
			}
			s.state = sExtra
		case sWhole:
			s.out = appendEscaped(s.out, ch)
		}
	}
}

// prefix judges a byte before the input's value.
func (s *inputScanner) prefix(ch byte) {
	if isSpace(ch) && (s.state != sKey || len(s.key) == 0) {
		return
	}
	switch s.state {
	case sStart:
		if ch == '{' {
			s.state = sKey
			return
		}
	case sKey:
		if len(s.key) == 0 && ch == '}' {
			s.state = sClosed
			return
		}
		if len(s.key) == 0 && ch != '"' {
			break
		}
		s.key = append(s.key, ch)
		if len(s.key) > 1 && ch == '"' && s.key[len(s.key)-2] != '\\' {
			if string(s.key) == `"input"` {
				s.state = sColon
				return
			}
			break
		}
		if len(s.key) <= len(`"input"`) {
			return
		}
	case sColon:
		if ch == ':' {
			s.state = sValue
			return
		}
	case sValue:
		if ch == '"' {
			s.state, s.pending = sString, s.pending[:0]
			return
		}
	}
	s.whole()
}

// whole gives up on {"input": …}: the arguments so far are the input.
func (s *inputScanner) whole() {
	s.state = sWhole
	s.warning = `the arguments of a custom tool call were not {"input": "…"}; the whole arguments are the input`
	for _, ch := range s.pending {
		s.out = appendEscaped(s.out, ch)
	}
	s.pending = s.pending[:0]
}

// inString takes a byte of the input string's content. An escape is
// held back until it is whole (a surrogate pair: both halves, so a delta
// never splits a character); a backslash that starts no escape is text.
func (s *inputScanner) inString(ch byte) {
	if len(s.esc) == 0 {
		switch ch {
		case '\\':
			s.esc = append(s.esc, ch)
		case '"':
			s.state = sAfter
		default:
			s.out = appendEscaped(s.out, ch)
		}
		return
	}
	s.esc = append(s.esc, ch)
	n := escLen(s.esc)
	if n == 0 {
		return // it may still grow
	}
	var buf [12]byte
	var rest []byte
	if n < 0 { // not an escape: the backslash is text, what follows is read again
		s.out = append(s.out, '\\', '\\')
		rest = append(buf[:0], s.esc[1:]...)
	} else {
		s.out = append(s.out, s.esc[:n]...)
		rest = append(buf[:0], s.esc[n:]...)
	}
	s.esc = s.esc[:0]
	for _, c := range rest {
		s.inString(c)
	}
}

// escLen says how long the escape e starts with is: 0 if it may still
// grow, -1 if e starts none.
func escLen(e []byte) int {
	if len(e) < 2 {
		return 0
	}
	if e[1] != 'u' {
		if strings.IndexByte(`"\/bfnrt`, e[1]) >= 0 {
			return 2
		}
		return -1
	}
	for i := 2; i < len(e) && i < 6; i++ {
		if !isHex(e[i]) {
			return -1
		}
	}
	if len(e) < 6 {
		return 0
	}
	if e[2]|0x20 != 'd' || strings.IndexByte("89abAB", e[3]) < 0 {
		return 6 // not a high surrogate
	}
	if len(e) > 6 && e[6] != '\\' || len(e) > 7 && e[7] != 'u' {
		return 6
	}
	for i := 8; i < len(e) && i < 12; i++ {
		if !isHex(e[i]) {
			return 6
		}
	}
	if len(e) < 12 {
		return 0
	}
	return 12
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }

// finish ends the arguments.
func (s *inputScanner) finish() {
	if s.raw {
		return
	}
	mark := len(s.out)
	switch s.state {
	case sStart: // nothing, or whitespace
		s.warning = `a custom tool call without arguments (absent, null or blank); its input is empty`
	case sClosed:
		s.warning = `the arguments of a custom tool call were {}, no input; its input is empty`
	case sKey, sColon, sValue:
		if len(s.pending) > 0 {
			s.whole()
		}
	case sString:
		s.warning = `the arguments of a custom tool call end inside the input string`
		s.esc = s.esc[:0]
	case sExtra:
		s.warning = `the arguments of a custom tool call have members besides input; left out`
	}
	s.tail = s.out[mark:]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// appendEscaped appends a byte of text as JSON string content (bytes of
// UTF-8 sequences as they are).
func appendEscaped(dst []byte, ch byte) []byte {
	switch {
	case ch == '"' || ch == '\\':
		return append(dst, '\\', ch)
	case ch < 0x20:
		switch ch {
		case '\n':
			return append(dst, '\\', 'n')
		case '\t':
			return append(dst, '\\', 't')
		case '\r':
			return append(dst, '\\', 'r')
		}
		return append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[ch>>4], "0123456789abcdef"[ch&15])
	}
	return append(dst, ch)
}

// actionOf names what a built-in call's arguments make.
var actionOf = map[string]string{"local_shell": "action", "shell": "action", "apply_patch": "operation", "tool_search": "arguments (an object)"}

// fits reports whether a built-in call's arguments make its action or
// operation as the Responses API has it.
func fits(typ string, v codec.Value) bool {
	if v.Kind() != codec.Object {
		return false
	}
	switch typ {
	case "local_shell": // a command to run: not none, not an empty one
		return allStrings(v.Get("command"))
	case "shell":
		return allStrings(v.Get("commands"))
	case "apply_patch":
		path := v.Get("path").Kind() == codec.String
		switch op, _ := v.Get("type").Str(); op {
		case "create_file", "update_file":
			return path && v.Get("diff").Kind() == codec.String
		case "delete_file":
			return path
		}
		return false
	}
	return true
}

// allStrings reports whether v is an array of strings, not empty (a
// command to run, not none).
func allStrings(v codec.Value) bool {
	if v.Kind() != codec.Array {
		return false
	}
	n := 0
	for _, e := range v.Elems() {
		if e.Kind() != codec.String {
			return false
		}
		n++
	}
	return n > 0
}

// appendOr appends v, or def if v is absent.
func appendOr(dst []byte, v codec.Value, def string) []byte {
	if v.Exists() {
		return append(dst, v.Raw()...)
	}
	return append(dst, def...)
}
