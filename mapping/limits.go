package mapping

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/transponder-dev/transponder/codec"
)

// OpenAI's limits on a request that the pinned specs' shape tables do not
// carry (they keep kinds, not bounds): checked on both directions before
// anything is converted, so that a request OpenAI refuses is refused here
// too, naming its path, and never reaches an upstream.

// Metadata limits (OpenAI's metadata: at most 16 pairs, keys up to 64
// characters, string values up to 512); function and custom tool names
// (at most 64 of a-z, A-Z, 0-9, _ and -).
const (
	maxMetadataPairs = 16
	maxMetadataKey   = 64
	maxMetadataValue = 512
	maxToolName      = 64
)

// limitedInts are the integer fields that must be at least 1 (a token
// bound of 0 or less is no bound an upstream can honour); bounds are the
// number fields with OpenAI's documented ranges.
var (
	limitedInts = [...]string{"max_output_tokens", "max_tokens", "max_completion_tokens"}
	bounds      = [...]struct {
		key      string
		min, max float64
	}{{"temperature", 0, 2}, {"top_p", 0, 1}, {"frequency_penalty", -2, 2}, {"presence_penalty", -2, 2}}
)

// limits are the top-level fields checkLimits reads.
type limits struct {
	model, metadata, tools codec.Value
	ints                   [len(limitedInts)]codec.Value
	nums                   [len(bounds)]codec.Value
}

// read keeps member k (m) if it is one of the fields checked, reporting
// whether it is: the forward direction reads them in the pass that
// captures the fields its other checks read (a walk of the top level
// each would step over every member again).
func (l *limits) read(k []byte, m codec.Value) bool {
	// One switch: the tables are searched only for a key they hold (a
	// request has many keys, most of them none of these).
	switch string(k) {
	case "model":
		l.model = m
	case "metadata":
		l.metadata = m
	case "tools":
		l.tools = m
	case "max_output_tokens", "max_tokens", "max_completion_tokens":
		for i := range limitedInts {
			if limitedInts[i] == string(k) {
				l.ints[i] = m
			}
		}
	case "temperature", "top_p", "frequency_penalty", "presence_penalty":
		for i := range bounds {
			if bounds[i].key == string(k) {
				l.nums[i] = m
			}
		}
	default:
		return false
	}
	return true
}

// checkLimits checks the top-level request v against OpenAI's limits;
// chat says v is a chat request (its function tools nest the name and
// parameters under "function").
func checkLimits(v codec.Value, chat bool) *Error {
	var l limits
	for k, f := range v.Members() {
		l.read(k.Bytes(), f)
	}
	return l.check(chat)
}

// check checks the fields read against OpenAI's limits, in a fixed order.
func (l *limits) check(chat bool) *Error {
	model, metadata, tools := l.model, l.metadata, l.tools
	ints, nums := &l.ints, &l.nums
	// What fails is reported by the functions apart (limitError and the
	// like): a request that passes runs only the checks, whose code is then
	// all the instruction cache holds of this.
	if model.Kind() == codec.String && bytes.IndexByte(model.Raw(), '\\') >= 0 {
		if e := checkModel(model); e != nil {
			return e
		}
	}
	if e := CheckMetadata(metadata); e != nil {
		return e
	}
	for i, f := range ints {
		if f.Kind() != codec.Number {
			continue
		}
		if n, ok := f.Int(); !ok || n < 1 {
			if e := intError(limitedInts[i], f); e != nil {
				return e
			}
		}
	}
	for i, f := range nums {
		if f.Kind() != codec.Number {
			continue
		}
		if in, ok := decimalIn(f.Raw(), bounds[i].min, bounds[i].max); ok && in {
			continue // (0.7: no float parsed)
		}
		// ±Inf for a number beyond float64
		if x, _ := f.Float(); x < bounds[i].min || x > bounds[i].max {
			return boundError(i, f, x)
		}
	}
	for i, t := range tools.Elems() {
		// The tool's members read in one pass (a Get each would walk them
		// again); a chat function's name and parameters are in "function".
		var typ, fn, name, params codec.Value
		for k, m := range t.Members() {
			switch string(k.Bytes()) {
			case "type":
				typ = m
			case "function":
				fn = m
			case "name":
				name = m
			case "parameters":
				params = m
			}
		}
		nested := ""
		switch typ := string(typ.Raw()); {
		case chat && typ == `"function"`:
			name, params, nested = fn.Get("name"), fn.Get("parameters"), "function."
		case !chat && (typ == `"function"` || typ == `"custom"`):
		default:
			continue
		}
		if code, msg := checkToolName(name); code != "" {
			return toolError(i, nested+"name", code, msg)
		}
		if code, msg := checkParameters(params); code != "" {
			return toolError(i, nested+"parameters", code, msg)
		}
	}
	return nil
}

// decimalIn reports whether the JSON number raw, as the exact decimal it
// writes, is within [lo, hi] (whole numbers), read from its digits: ok
// false for one it leaves to ParseFloat (an exponent, a whole part of 15
// digits or more, bounds not whole). in implies that the float64 nearest
// raw is within them too (the bounds are floats exactly), not the
// converse: 2.0000000000000000001 is out here and 2 as a float, so only
// in is taken as an answer. The bounds' checks of a request's temperature
// and top_p, without strconv's code in the instruction cache.
func decimalIn(raw []byte, lo, hi float64) (in, ok bool) {
	l, h := int64(lo), int64(hi)
	if float64(l) != lo || float64(h) != hi {
		return false, false
	}
	i, neg := 0, len(raw) > 0 && raw[0] == '-'
	if neg {
		i = 1
	}
	// The magnitude n+f: n its whole part, 0 ≤ f < 1, frac: f > 0.
	var n int64
	start := i
	for ; i < len(raw) && raw[i] >= '0' && raw[i] <= '9'; i++ {
		if i-start == 15 {
			return false, false
		}
		n = n*10 + int64(raw[i]-'0')
	}
	if i == start {
		return false, false
	}
	frac := false
	if i < len(raw) && raw[i] == '.' {
		for i++; i < len(raw) && raw[i] >= '0' && raw[i] <= '9'; i++ {
			frac = frac || raw[i] != '0'
		}
	}
	if i != len(raw) {
		return false, false // an exponent
	}
	// atMost: n+f ≤ k; atLeast: n+f ≥ k (k whole).
	atMost := func(k int64) bool { return n < k || n == k && !frac }
	atLeast := func(k int64) bool { return n >= k }
	if !neg || n == 0 && !frac { // (-0 is 0)
		return (l <= 0 || atLeast(l)) && h >= 0 && atMost(h), true
	}
	// -(n+f) ≥ l and ≤ h
	return l <= 0 && atMost(-l) && (h >= 0 || atLeast(-h)), true
}

// checkModel refuses a model name with a control character (escaped: raw
// ones are not JSON).
func checkModel(model codec.Value) *Error {
	if s, _ := model.Str(); strings.ContainsFunc(s, isControl) {
		return &Error{Message: "Invalid 'model': a model name has no control characters.", Param: "model", Code: "invalid_value"}
	}
	return nil
}

// intError is the error of f, the integer field k that Int could not read
// or that is below 1; nil for a number that is not an integer (the shape
// tables' invalid_type).
func intError(k string, f codec.Value) *Error {
	if n, ok := f.Int(); ok {
		return &Error{Message: fmt.Sprintf("Invalid '%s': integer below minimum value. Expected a value >= 1, but got %d instead.", k, n), Param: k, Code: "integer_below_min_value"}
	}
	switch raw := string(f.Raw()); {
	case strings.ContainsAny(raw, ".eE"):
		return nil
	case strings.HasPrefix(raw, "-"):
		return &Error{Message: fmt.Sprintf("Invalid '%s': integer below minimum value. Expected a value >= 1, but got %s instead.", k, clipNum(f.Raw())), Param: k, Code: "integer_below_min_value"}
	}
	return &Error{Message: fmt.Sprintf("Invalid '%s': integer above maximum value. Expected a value <= %d, but got %s instead.", k, int64(math.MaxInt64), clipNum(f.Raw())), Param: k, Code: "integer_above_max_value"}
}

// boundError is the error of f (x), out of bounds[i].
func boundError(i int, f codec.Value, x float64) *Error {
	b := bounds[i]
	if x < b.min {
		return &Error{Message: fmt.Sprintf("Invalid '%s': decimal below minimum value. Expected a value >= %g, but got %s instead.", b.key, b.min, clipNum(f.Raw())), Param: b.key, Code: "decimal_below_min_value"}
	}
	return &Error{Message: fmt.Sprintf("Invalid '%s': decimal above maximum value. Expected a value <= %g, but got %s instead.", b.key, b.max, clipNum(f.Raw())), Param: b.key, Code: "decimal_above_max_value"}
}

// toolError is the error code with message msg (a format of the path) of
// field of tools[i].
func toolError(i int, field, code, msg string) *Error {
	path := at("tools", i, "") + "." + field
	return &Error{Message: fmt.Sprintf(msg, path), Param: path, Code: code}
}

// CheckMetadata checks a metadata value against OpenAI's limits (an object
// of at most 16 string values, keys up to 64 characters, values up to
// 512); nil for a good one, or absent or null. The Conversations API's
// metadata is held to the same.
func CheckMetadata(m codec.Value) *Error {
	switch m.Kind() {
	case codec.Invalid, codec.Null:
		return nil
	case codec.Object:
	default:
		return &Error{Message: "Invalid type for 'metadata': expected an object, but got " + kindName(m.Kind()) + " instead.", Param: "metadata", Code: "invalid_type"}
	}
	n := 0
	for k, val := range m.Members() {
		n++
		// A string's raw bytes are at least as many as its characters: it
		// is decoded only when they are over the limit, or for an error.
		if len(k.Raw()) > maxMetadataKey {
			if l := utf8.RuneCountInString(k.String()); l > maxMetadataKey {
				return &Error{Message: fmt.Sprintf("Invalid 'metadata': a key is %d characters long; the limit is %d.", l, maxMetadataKey), Param: "metadata", Code: "string_above_max_length"}
			}
		}
		if val.Kind() != codec.String {
			key := k.String()
			return &Error{Message: "Invalid type for 'metadata." + key + "': expected a string, but got " + kindName(val.Kind()) + " instead.", Param: "metadata." + key, Code: "invalid_type"}
		}
		if len(val.Raw()) > maxMetadataValue {
			s, _ := val.Str()
			if l := utf8.RuneCountInString(s); l > maxMetadataValue {
				key := k.String()
				return &Error{Message: fmt.Sprintf("Invalid 'metadata.%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", key, maxMetadataValue, l), Param: "metadata." + key, Code: "string_above_max_length"}
			}
		}
	}
	if n > maxMetadataPairs {
		return &Error{Message: fmt.Sprintf("Invalid 'metadata': too many properties. Expected an object with at most %d properties, but got an object with %d properties instead.", maxMetadataPairs, n), Param: "metadata", Code: "object_above_max_properties"}
	}
	return nil
}

// checkToolName checks a function's name: an error's code and message
// (a format of the path), or "".
func checkToolName(name codec.Value) (code, msg string) {
	if name.Kind() != codec.String {
		return "", "" // missing or of the wrong kind: the shape tables' errors
	}
	raw := name.Raw()
	raw = raw[1 : len(raw)-1]   // an escape is outside the pattern: its raw bytes fail it too
	if len(raw) > maxToolName { // bytes at least as many as characters: counted only then
		s, _ := name.Str()
		if utf8.RuneCountInString(s) > maxToolName {
			return "string_above_max_length", "Invalid '%s': string too long. Expected a string with maximum length " + strconv.Itoa(maxToolName) + "."
		}
	}
	for _, c := range raw {
		if !nameByte(c) {
			return "invalid_value", "Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
		}
	}
	return "", ""
}

// checkParameters: a function's parameters are a JSON Schema of an
// object (or absent, or null).
func checkParameters(p codec.Value) (code, msg string) {
	switch p.Kind() {
	case codec.Invalid, codec.Null:
		return "", ""
	case codec.Object:
	default:
		return "invalid_type", "Invalid type for '%s': expected an object, but got " + kindName(p.Kind()) + " instead."
	}
	if bytes.HasPrefix(p.Raw(), []byte(`{"type":"object"`)) { // as most schemas start, compact
		if rest := p.Raw()[len(`{"type":"object"`):]; len(rest) > 0 && (rest[0] == ',' || rest[0] == '}') {
			return "", "" // (the first "type", as Get finds it: a free-form object is not on the tape, and Get scans)
		}
	}
	if t := p.Get("type"); t.Exists() && string(t.Raw()) != `"object"` {
		return "invalid_function_parameters", "Invalid schema for function parameters at '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: " + strings.ReplaceAll(clipNum(t.Raw()), "%", "%%") + "'."
	}
	return "", ""
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func kindName(k codec.Kind) string {
	switch k {
	case codec.Object:
		return "an object"
	case codec.Array:
		return "an array"
	case codec.String:
		return "a string"
	case codec.Number:
		return "a number"
	case codec.Bool:
		return "a boolean"
	}
	return "null"
}

func clipNum(raw []byte) string {
	if len(raw) > 32 {
		return string(raw[:32]) + "…"
	}
	return string(raw)
}
