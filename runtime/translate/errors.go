// The error table: an upstream HTTP error response
// (UpstreamError) or the "error" object of a mid-stream chat chunk
// (StreamError) becomes an *APIError shaped as OpenAI sends it, because
// clients act on the fields: Codex compacts the conversation on code
// context_length_exceeded and stops on insufficient_quota; the SDKs retry
// 429 and 5xx and honour Retry-After.
//
//	upstream                            status  type                   code
//	400/413 saying the context is full  400     invalid_request_error  context_length_exceeded
//	code or type insufficient_quota     429     insufficient_quota     insufficient_quota
//	400, 422                            400     invalid_request_error  the upstream's string code, else null
//	401                                 401     invalid_request_error  invalid_api_key
//	402 (out of credits)                429     insufficient_quota     insufficient_quota
//	403                                 403     invalid_request_error  permission_denied
//	403 with metadata.reasons           403     invalid_request_error  content_filter
//	404                                 404     invalid_request_error  model_not_found
//	408, 504                            504     server_error           timeout
//	429                                 429     requests               rate_limit_exceeded
//	other 5xx                           kept    server_error           server_error
//	other 4xx                           kept    invalid_request_error  null
//	anything else (not an error status) 500     server_error           server_error
//
// Retry-After (the upstream's header, else OpenRouter's metadata.headers)
// is passed on for rate_limit_exceeded and 5xx. The message is the
// upstream's (OpenRouter's metadata.raw when the message is only "Provider
// returned error"), or names the status and quotes the body's start. The
// mapping is a pure function of its input.

package translate

import (
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/transponder-dev/transponder/codec"
)

// APIError is an error as OpenAI's API returns it.
type APIError struct {
	Status     int    // HTTP status for the client
	Type       string // invalid_request_error, insufficient_quota, requests, server_error
	Code       string // "" renders as null
	Param      string // "" renders as null
	Message    string
	RetryAfter string // the Retry-After header to send, "" for none
}

// Error names the status and the code (or type); it never echoes the
// message, which may quote the request.
func (e *APIError) Error() string {
	what := e.Code
	if what == "" {
		what = e.Type
	}
	return "transponder: upstream " + strconv.Itoa(e.Status) + ": " + what
}

// AppendJSON appends the error as an HTTP error body:
// {"error":{"message":…,"type":…,"param":…,"code":…}}.
func (e *APIError) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"error":{"message":`...)
	dst = codec.AppendString(dst, e.Message)
	dst = append(dst, `,"type":`...)
	dst = codec.AppendString(dst, e.Type)
	dst = append(dst, `,"param":`...)
	dst = appendNullable(dst, e.Param)
	dst = append(dst, `,"code":`...)
	dst = appendNullable(dst, e.Code)
	return append(dst, "}}"...)
}

// AppendResponseError appends the error as a Response's "error" field (in
// response.failed): {"code":…,"message":…}, the code from ResponseCode.
func (e *APIError) AppendResponseError(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = codec.AppendString(dst, e.ResponseCode())
	dst = append(dst, `,"message":`...)
	dst = codec.AppendString(dst, e.Message)
	return append(dst, '}')
}

// ResponseCode is the code of a failed Response's error:
// context_length_exceeded and insufficient_quota as the live API sends
// them (the pinned spec's ResponseErrorCode does not list them, but Codex
// compacts the conversation on the first and stops on the second; the
// conformance checker knows them as codes beyond the spec), else one of
// the spec's values: rate_limit_exceeded for a rate limit, invalid_prompt
// for any other 4xx, server_error otherwise.
func (e *APIError) ResponseCode() string {
	switch {
	case e.Code == codeContext:
		return codeContext
	case e.Code == codeQuota || e.Type == typeQuota:
		return codeQuota
	case e.Status == http.StatusTooManyRequests:
		return codeRateLimit
	case e.Status >= 400 && e.Status < 500:
		return "invalid_prompt"
	}
	return codeServer
}

const (
	typeInvalid   = "invalid_request_error"
	typeQuota     = "insufficient_quota"
	typeRateLimit = "requests"
	typeServer    = "server_error"

	codeContext   = "context_length_exceeded"
	codeQuota     = "insufficient_quota"
	codeRateLimit = "rate_limit_exceeded"
	codeServer    = "server_error"
	codeFilter    = "content_filter"
)

// row is a line of the status table.
type row struct {
	lo, hi   int    // the upstream status, inclusive range
	status   int    // the status for the client; 0 keeps the upstream's
	typ      string // the error type
	code     string // the error code ("" is null)
	keepCode bool   // the upstream's string code instead of code
}

// statusTable is searched in order; the first row whose range holds the
// upstream status wins. The rules that read the message or the metadata
// (context length, quota, moderation) are in classify.
var statusTable = [...]row{
	{lo: 400, hi: 400, status: 400, typ: typeInvalid, keepCode: true},
	{lo: 401, hi: 401, status: 401, typ: typeInvalid, code: "invalid_api_key"},
	quotaRow,
	{lo: 403, hi: 403, status: 403, typ: typeInvalid, code: "permission_denied"},
	{lo: 404, hi: 404, status: 404, typ: typeInvalid, code: "model_not_found"},
	{lo: 408, hi: 408, status: 504, typ: typeServer, code: "timeout"},
	{lo: 422, hi: 422, status: 400, typ: typeInvalid, keepCode: true},
	{lo: 429, hi: 429, status: 429, typ: typeRateLimit, code: codeRateLimit},
	{lo: 504, hi: 504, status: 504, typ: typeServer, code: "timeout"},
	{lo: 500, hi: 599, typ: typeServer, code: codeServer},
	{lo: 400, hi: 499, typ: typeInvalid},
}

// quotaRow is OpenRouter's 402 (out of credits) as OpenAI says it; it is
// also the row for any upstream error whose code or type is
// insufficient_quota (OpenAI sends those as 429).
var quotaRow = row{lo: 402, hi: 402, status: 429, typ: typeQuota, code: codeQuota}

// notAnError is the row for a status outside 400–599 (a caller's mistake
// or an error inside a 200 stream): a server error, so clients retry.
var notAnError = row{status: 500, typ: typeServer, code: codeServer}

// contextPhrases say, in an upstream message or code, that the prompt does
// not fit the model's context (matched lowercase).
var contextPhrases = [...]string{
	"context length",
	"context_length_exceeded",
	"context window",
	"maximum context",
	"too many tokens",
	"prompt is too long",
	"input is too long",
	"reduce the length",
}

// streamCodeStatus gives a status to the string codes a mid-stream error
// may carry that a client acts on; other string codes are 500.
var streamCodeStatus = map[string]int{
	codeContext:   400,
	codeRateLimit: 429,
	codeQuota:     429,
}

const (
	maxSnippet    = 200 // bytes of a non-JSON body quoted in the message
	maxRetryAfter = 64  // bytes of a Retry-After value passed on
)

// Redacted is e with its message rewritten by redact (a copy, when it
// changes; e itself when redact is nil or changes nothing): a gateway
// masks the keys an upstream's message quotes.
func (e *APIError) Redacted(redact func(string) string) *APIError {
	if redact == nil {
		return e
	}
	if m := redact(e.Message); m != e.Message {
		c := *e
		c.Message = m
		return &c
	}
	return e
}

// UpstreamError maps an upstream HTTP error response: its status, its
// headers (for Retry-After) and its body, an OpenRouter or OpenAI error
// object or anything else (an HTML page from a proxy, nothing).
func UpstreamError(status int, header http.Header, body []byte) *APIError {
	var obj codec.Value
	if root, ok := codec.Parse(body); ok {
		obj = root.Get("error")
	}
	msg, _ := obj.Str() // {"error":"…"}
	if obj.Kind() == codec.Object {
		msg = objectMessage(obj)
	}
	if msg == "" {
		msg = "upstream returned HTTP " + strconv.Itoa(status)
		if s := snippet(body); s != "" {
			msg += ": " + s
		}
	}
	return classify(status, header.Get("Retry-After"), obj, msg)
}

// StreamError maps the "error" object of a mid-stream chat chunk,
// {"code": 502 or "server_error", "message": …, "metadata": {…}}. An
// integer code that is an error status is the status; a string code is
// kept as the upstream's code, and the status is 500 unless the code is
// one of streamCodeStatus.
func StreamError(v codec.Value) *APIError {
	status := http.StatusInternalServerError
	code := v.Get("code")
	if n, ok := code.Int(); ok && n >= 400 && n < 600 {
		status = int(n)
	} else if s, ok := code.Str(); ok {
		if st, ok := streamCodeStatus[s]; ok {
			status = st
		}
	}
	msg := objectMessage(v)
	if msg == "" {
		msg = "upstream stream error"
	}
	return classify(status, "", v, msg)
}

// classify applies the table to an upstream status and error object (the
// zero Value if there is none); msg is the message already chosen.
func classify(status int, retryAfter string, obj codec.Value, msg string) *APIError {
	code, _ := obj.Get("code").Str()
	typ, _ := obj.Get("type").Str()
	param, _ := obj.Get("param").Str()
	meta := obj.Get("metadata")

	r := notAnError
	for _, t := range statusTable {
		if status >= t.lo && status <= t.hi {
			r = t
			break
		}
	}
	if r.status == 0 {
		r.status = status
	}
	if r.keepCode {
		r.code = code
	}
	switch {
	case code == codeQuota || typ == typeQuota:
		r = quotaRow
	case (status == 400 || status == 413) && isContext(msg, code):
		r = row{status: 400, typ: typeInvalid, code: codeContext}
	case status == 403 && meta.Get("reasons").Exists():
		r.code = codeFilter
	}

	e := &APIError{Status: r.status, Type: r.typ, Code: r.code, Param: param, Message: msg}
	if r.code == codeRateLimit || r.status >= 500 {
		e.RetryAfter = retryAfterValue(retryAfter)
		if e.RetryAfter == "" {
			e.RetryAfter = metadataRetryAfter(meta)
		}
	}
	return e
}

// objectMessage is an error object's message. OpenRouter says only
// "Provider returned error" when the provider failed; the provider's own
// message is then in metadata.raw.
func objectMessage(obj codec.Value) string {
	msg, _ := obj.Get("message").Str()
	if generic := strings.TrimSpace(msg); generic == "" || strings.EqualFold(generic, "Provider returned error") {
		if raw := rawMessage(obj.Get("metadata").Get("raw")); raw != "" {
			return raw
		}
	}
	return msg
}

// rawMessage is the message in OpenRouter's metadata.raw: the provider's
// body as a string (or, from some providers, an object). A JSON body gives
// its error.message or message; any other text is quoted as snippet does.
func rawMessage(raw codec.Value) string {
	var text []byte
	switch raw.Kind() {
	case codec.String:
		s, _ := raw.Str()
		text = []byte(s)
	case codec.Object:
		text = raw.Raw()
	default:
		return ""
	}
	if v, ok := codec.Parse(text); ok {
		for _, m := range [...]codec.Value{v.Get("error").Get("message"), v.Get("message")} {
			if s, ok := m.Str(); ok && strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return snippet(text)
}

// isContext reports whether an upstream message or code says the prompt
// is longer than the model's context.
func isContext(msg, code string) bool {
	if code == codeContext {
		return true
	}
	lower := strings.ToLower(msg)
	for _, p := range contextPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// metadataRetryAfter is OpenRouter's metadata.headers["Retry-After"] (any
// case), a string or a number, or "".
func metadataRetryAfter(meta codec.Value) string {
	for k, v := range meta.Get("headers").Members() {
		if !strings.EqualFold(k.String(), "Retry-After") {
			continue
		}
		switch v.Kind() {
		case codec.String:
			s, _ := v.Str()
			return retryAfterValue(s)
		case codec.Number:
			return retryAfterValue(string(v.Raw()))
		}
	}
	return ""
}

// retryAfterValue is s if it can be sent as a header value (printable
// ASCII, not too long), else "".
func retryAfterValue(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxRetryAfter {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return ""
		}
	}
	return s
}

// snippet is the start of a body for a message: at most maxSnippet bytes
// of valid UTF-8, with runs of whitespace and control characters as one
// space and invalid bytes dropped.
func snippet(b []byte) string {
	out := make([]byte, 0, min(len(b), maxSnippet))
	space := false
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case r <= ' ' || r == 0x7f:
			space = len(out) > 0
			continue
		}
		n := utf8.RuneLen(r)
		if space {
			n++
		}
		if len(out)+n > maxSnippet {
			break
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

func appendNullable(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return codec.AppendString(dst, s)
}
