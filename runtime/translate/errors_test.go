package translate

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/transponder-dev/transponder/codec"
)

const cloudflare502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
	"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"

type upstreamCase struct {
	name   string
	status int
	header http.Header
	body   string
	want   APIError
}

var upstreamCases = []upstreamCase{
	{
		name:   "openrouter 400 context length",
		status: 400,
		body:   `{"error":{"code":400,"message":"This endpoint's maximum context length is 128000 tokens. However, you requested about 200000 tokens (190000 of text input, 10000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","metadata":{"provider_name":null}}}`,
		want: APIError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
			Message: `This endpoint's maximum context length is 128000 tokens. However, you requested about 200000 tokens (190000 of text input, 10000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`},
	},
	{
		name:   "openai 400 context_length_exceeded code",
		status: 400,
		body:   `{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		want: APIError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded", Param: "messages",
			Message: "Your input exceeds the context window of this model."},
	},
	{
		name:   "openrouter 413 prompt too long in metadata.raw",
		status: 413,
		body:   `{"error":{"code":413,"message":"Provider returned error","metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}","provider_name":"Anthropic"}}}`,
		want: APIError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
			Message: "prompt is too long: 210000 tokens > 200000 maximum"},
	},
	{
		name:   "openai 400 string code and param",
		status: 400,
		body:   `{"error":{"message":"Invalid value: 'extreme'. Supported values are: 'low', 'medium', and 'high'.","type":"invalid_request_error","param":"reasoning_effort","code":"invalid_value"}}`,
		want: APIError{Status: 400, Type: "invalid_request_error", Code: "invalid_value", Param: "reasoning_effort",
			Message: "Invalid value: 'extreme'. Supported values are: 'low', 'medium', and 'high'."},
	},
	{
		name:   "openrouter 400 integer code is null",
		status: 400,
		body:   `{"error":{"code":400,"message":"tools.0.function.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"}}`,
		want: APIError{Status: 400, Type: "invalid_request_error",
			Message: "tools.0.function.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"},
	},
	{
		name:   "openrouter 422",
		status: 422,
		body:   `{"error":{"code":422,"message":"Input required: specify \"prompt\" or \"messages\""}}`,
		want:   APIError{Status: 400, Type: "invalid_request_error", Message: `Input required: specify "prompt" or "messages"`},
	},
	{
		name:   "openai 401",
		status: 401,
		body:   `{"error":{"message":"Incorrect API key provided: sk-abc***xyz.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
		want:   APIError{Status: 401, Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key provided: sk-abc***xyz."},
	},
	{
		name:   "openrouter 402 insufficient credits",
		status: 402,
		body:   `{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402}}`,
		want: APIError{Status: 429, Type: "insufficient_quota", Code: "insufficient_quota",
			Message: "Insufficient credits. Add more using https://openrouter.ai/settings/credits"},
	},
	{
		name:   "openai 429 insufficient_quota stays fatal",
		status: 429,
		header: http.Header{"Retry-After": {"20"}},
		body:   `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
		want: APIError{Status: 429, Type: "insufficient_quota", Code: "insufficient_quota",
			Message: "You exceeded your current quota, please check your plan and billing details."},
	},
	{
		name:   "openrouter 403 moderation",
		status: 403,
		body:   `{"error":{"code":403,"message":"openai/gpt-4o requires moderation on OpenRouter. Your input was flagged for \"violence\". No credits were charged.","metadata":{"reasons":["violence"],"flagged_input":"…","provider_name":"OpenAI","model_slug":"openai/gpt-4o"}}}`,
		want: APIError{Status: 403, Type: "invalid_request_error", Code: "content_filter",
			Message: `openai/gpt-4o requires moderation on OpenRouter. Your input was flagged for "violence". No credits were charged.`},
	},
	{
		name:   "403 without moderation",
		status: 403,
		body:   `{"error":{"code":403,"message":"Key limit exceeded"}}`,
		want:   APIError{Status: 403, Type: "invalid_request_error", Code: "permission_denied", Message: "Key limit exceeded"},
	},
	{
		name:   "openrouter 404",
		status: 404,
		body:   `{"error":{"message":"No endpoints found for openai/gpt-9.","code":404}}`,
		want:   APIError{Status: 404, Type: "invalid_request_error", Code: "model_not_found", Message: "No endpoints found for openai/gpt-9."},
	},
	{
		name:   "408 is a timeout",
		status: 408,
		body:   `{"error":{"code":408,"message":"Request timed out"}}`,
		want:   APIError{Status: 504, Type: "server_error", Code: "timeout", Message: "Request timed out"},
	},
	{
		name:   "429 with Retry-After header",
		status: 429,
		header: http.Header{"Retry-After": {"7"}},
		body:   `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min.","metadata":{"headers":{"X-RateLimit-Limit":"20","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1741305600000","Retry-After":"99"}}}}`,
		want: APIError{Status: 429, Type: "requests", Code: "rate_limit_exceeded", RetryAfter: "7",
			Message: "Rate limit exceeded: free-models-per-min."},
	},
	{
		name:   "429 with metadata.headers retry-after and raw",
		status: 429,
		body:   `{"error":{"code":429,"message":"Provider returned error","metadata":{"raw":"google/gemini-2.5-pro is temporarily rate-limited upstream. Please retry shortly.","provider_name":"Google AI Studio","headers":{"retry-after":"30"}}}}`,
		want: APIError{Status: 429, Type: "requests", Code: "rate_limit_exceeded", RetryAfter: "30",
			Message: "google/gemini-2.5-pro is temporarily rate-limited upstream. Please retry shortly."},
	},
	{
		name:   "429 with numeric metadata Retry-After",
		status: 429,
		body:   `{"error":{"code":429,"message":"Rate limited","metadata":{"headers":{"Retry-After":12}}}}`,
		want:   APIError{Status: 429, Type: "requests", Code: "rate_limit_exceeded", RetryAfter: "12", Message: "Rate limited"},
	},
	{
		name:   "429 metadata Retry-After that is not a header value",
		status: 429,
		body:   `{"error":{"code":429,"message":"Rate limited","metadata":{"headers":{"Retry-After":"5\r\nSet-Cookie: x=1"}}}}`,
		want:   APIError{Status: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Rate limited"},
	},
	{
		name:   "500 with metadata.raw",
		status: 500,
		body:   `{"error":{"code":500,"message":"Provider returned error","metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}","provider_name":"Anthropic"}}}`,
		want:   APIError{Status: 500, Type: "server_error", Code: "server_error", Message: "Internal server error"},
	},
	{
		name:   "502 HTML body",
		status: 502,
		body:   cloudflare502,
		want: APIError{Status: 502, Type: "server_error", Code: "server_error",
			Message: "upstream returned HTTP 502: <html> <head><title>502 Bad Gateway</title></head> <body> <center><h1>502 Bad Gateway</h1></center> <hr><center>cloudflare</center> </body> </html>"},
	},
	{
		name:   "503 empty body keeps Retry-After",
		status: 503,
		header: http.Header{"Retry-After": {"5"}},
		want:   APIError{Status: 503, Type: "server_error", Code: "server_error", RetryAfter: "5", Message: "upstream returned HTTP 503"},
	},
	{
		name:   "503 overloaded",
		status: 503,
		body:   `{"error":{"code":503,"message":"Provider returned error","metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}","provider_name":"Anthropic"}}}`,
		want:   APIError{Status: 503, Type: "server_error", Code: "server_error", Message: "Overloaded"},
	},
	{
		name:   "504",
		status: 504,
		body:   `{"error":{"message":"Gateway timeout","code":504}}`,
		want:   APIError{Status: 504, Type: "server_error", Code: "timeout", Message: "Gateway timeout"},
	},
	{
		name:   "409 other 4xx",
		status: 409,
		body:   `{"error":{"message":"Conflict","type":"invalid_request_error","code":null}}`,
		want:   APIError{Status: 409, Type: "invalid_request_error", Message: "Conflict"},
	},
	{
		name:   "error as a string",
		status: 400,
		body:   `{"error":"model is required"}`,
		want:   APIError{Status: 400, Type: "invalid_request_error", Message: "model is required"},
	},
	{
		name:   "not an error status",
		status: 200,
		body:   `{"error":{"message":"upstream sent 200 with an error"}}`,
		want:   APIError{Status: 500, Type: "server_error", Code: "server_error", Message: "upstream sent 200 with an error"},
	},
}

func TestUpstreamError(t *testing.T) {
	for _, c := range upstreamCases {
		t.Run(c.name, func(t *testing.T) {
			got := UpstreamError(c.status, c.header, []byte(c.body))
			if *got != c.want {
				t.Errorf("got  %+v\nwant %+v", *got, c.want)
			}
			checkRendering(t, got)
		})
	}
}

// checkRendering checks what every error must satisfy: valid JSON in both
// shapes with the keys in order, a ResponseErrorCode from the spec, and an
// Error() that does not quote the message.
func checkRendering(t *testing.T, e *APIError) {
	t.Helper()
	body := e.AppendJSON(nil)
	var v struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("AppendJSON: %v: %s", err, body)
	}
	if v.Error.Message != e.Message || v.Error.Type != e.Type ||
		deref(v.Error.Param) != e.Param || deref(v.Error.Code) != e.Code ||
		(v.Error.Param == nil) != (e.Param == "") || (v.Error.Code == nil) != (e.Code == "") {
		t.Errorf("AppendJSON does not round-trip: %s", body)
	}
	if !strings.HasPrefix(string(body), `{"error":{"message":`) {
		t.Errorf("AppendJSON key order: %s", body)
	}

	re := e.AppendResponseError(nil)
	var r struct{ Code, Message *string }
	if err := json.Unmarshal(re, &r); err != nil || r.Code == nil || r.Message == nil {
		t.Fatalf("AppendResponseError: %v: %s", err, re)
	}
	if !slices.Contains(responseErrorCodes(t), e.ResponseCode()) {
		t.Errorf("ResponseCode %q is not in the spec's ResponseErrorCode", e.ResponseCode())
	}

	msg := e.Error()
	if e.Message != "" && strings.Contains(msg, e.Message) {
		t.Errorf("Error() echoes the message: %q", msg)
	}
	if !strings.HasPrefix(msg, "transponder: upstream ") || msg != strings.ToLower(msg) {
		t.Errorf("Error() = %q", msg)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestAppendJSONBytes(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		json   string
		resp   string
		err    string
	}{
		{
			name:   "param and code",
			status: 400,
			body:   `{"error":{"message":"Invalid value: 'extreme'.","type":"invalid_request_error","param":"reasoning_effort","code":"invalid_value"}}`,
			json:   `{"error":{"message":"Invalid value: 'extreme'.","type":"invalid_request_error","param":"reasoning_effort","code":"invalid_value"}}`,
			resp:   `{"code":"invalid_prompt","message":"Invalid value: 'extreme'."}`,
			err:    "transponder: upstream 400: invalid_value",
		},
		{
			name:   "nulls and escapes",
			status: 422,
			body:   `{"error":{"code":422,"message":"bad \"input\"\n<tag> & é"}}`,
			json:   `{"error":{"message":"bad \"input\"\n<tag> & é","type":"invalid_request_error","param":null,"code":null}}`,
			resp:   `{"code":"invalid_prompt","message":"bad \"input\"\n<tag> & é"}`,
			err:    "transponder: upstream 400: invalid_request_error",
		},
		{
			name:   "rate limit",
			status: 429,
			body:   `{"error":{"code":429,"message":"Rate limited"}}`,
			json:   `{"error":{"message":"Rate limited","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			resp:   `{"code":"rate_limit_exceeded","message":"Rate limited"}`,
			err:    "transponder: upstream 429: rate_limit_exceeded",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := UpstreamError(c.status, nil, []byte(c.body))
			if got := string(e.AppendJSON([]byte("x"))); got != "x"+c.json {
				t.Errorf("AppendJSON\ngot  %s\nwant %s", got, c.json)
			}
			if !json.Valid(e.AppendJSON(nil)) {
				t.Error("AppendJSON: invalid JSON")
			}
			if got := string(e.AppendResponseError(nil)); got != c.resp {
				t.Errorf("AppendResponseError\ngot  %s\nwant %s", got, c.resp)
			}
			if got := e.Error(); got != c.err {
				t.Errorf("Error() = %q, want %q", got, c.err)
			}
		})
	}
}

func TestResponseCode(t *testing.T) {
	for _, c := range []struct {
		e    APIError
		want string
	}{
		{APIError{Status: 429, Type: "requests", Code: "rate_limit_exceeded"}, "rate_limit_exceeded"},
		{APIError{Status: 429, Type: "insufficient_quota", Code: "insufficient_quota"}, "insufficient_quota"},
		{APIError{Status: 402, Type: "insufficient_quota"}, "insufficient_quota"},
		{APIError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded"}, "context_length_exceeded"},
		{APIError{Status: 403, Type: "invalid_request_error", Code: "content_filter"}, "invalid_prompt"},
		{APIError{Status: 401, Type: "invalid_request_error", Code: "invalid_api_key"}, "invalid_prompt"},
		{APIError{Status: 504, Type: "server_error", Code: "timeout"}, "server_error"},
		{APIError{Status: 503, Type: "server_error", Code: "server_error"}, "server_error"},
		{APIError{}, "server_error"},
	} {
		if got := c.e.ResponseCode(); got != c.want {
			t.Errorf("%+v: ResponseCode() = %q, want %q", c.e, got, c.want)
		}
	}
}

func TestStreamError(t *testing.T) {
	for _, c := range []struct {
		name string
		obj  string
		want APIError
	}{
		{
			name: "integer status code",
			obj:  `{"code":502,"message":"Provider disconnected"}`,
			want: APIError{Status: 502, Type: "server_error", Code: "server_error", Message: "Provider disconnected"},
		},
		{
			name: "string code",
			obj:  `{"code":"server_error","message":"x"}`,
			want: APIError{Status: 500, Type: "server_error", Code: "server_error", Message: "x"},
		},
		{
			name: "string context code",
			obj:  `{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}`,
			want: APIError{Status: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
				Message: "Your input exceeds the context window of this model."},
		},
		{
			name: "integer that is not a status",
			obj:  `{"code":-32000,"message":"upstream crashed"}`,
			want: APIError{Status: 500, Type: "server_error", Code: "server_error", Message: "upstream crashed"},
		},
		{
			name: "429 with metadata headers",
			obj:  `{"code":429,"message":"Provider returned error","metadata":{"raw":"Rate limit reached","headers":{"Retry-After":3}}}`,
			want: APIError{Status: 429, Type: "requests", Code: "rate_limit_exceeded", RetryAfter: "3", Message: "Rate limit reached"},
		},
		{
			name: "no message",
			obj:  `{"code":503}`,
			want: APIError{Status: 503, Type: "server_error", Code: "server_error", Message: "upstream stream error"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, ok := codec.Parse([]byte(c.obj))
			if !ok {
				t.Fatalf("bad fixture %s", c.obj)
			}
			got := StreamError(v)
			if *got != c.want {
				t.Errorf("got  %+v\nwant %+v", *got, c.want)
			}
			checkRendering(t, got)
		})
	}
	if got := StreamError(codec.Value{}); got.Status != 500 || got.Code != "server_error" {
		t.Errorf("absent error: %+v", *got)
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	for _, c := range []struct {
		in, want string
	}{
		{"", ""},
		{" \r\n\t ", ""},
		{"  a \r\n b\x00c  ", "a b c"},
		{"ok\xff\xfebad", "okbad"},
		{long, strings.Repeat("é", 100)},
		{strings.Repeat("a", 199) + "é", strings.Repeat("a", 199)},
	} {
		got := snippet([]byte(c.in))
		if got != c.want {
			t.Errorf("snippet(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) > maxSnippet || !utf8.ValidString(got) {
			t.Errorf("snippet(%q) = %q: too long or invalid UTF-8", c.in, got)
		}
	}
	e := UpstreamError(502, nil, []byte("\xff"+strings.Repeat("x", 1000)))
	if want := "upstream returned HTTP 502: " + strings.Repeat("x", maxSnippet); e.Message != want {
		t.Errorf("long body: Message = %q", e.Message)
	}
}

func FuzzUpstreamError(f *testing.F) {
	for _, c := range upstreamCases {
		f.Add(c.status, c.body)
	}
	f.Fuzz(func(t *testing.T, status int, body string) {
		e := UpstreamError(status, nil, []byte(body))
		if e.Status < 400 || e.Status > 599 {
			t.Fatalf("status %d", e.Status)
		}
		if !json.Valid(e.AppendJSON(nil)) || !json.Valid(e.AppendResponseError(nil)) {
			t.Fatalf("invalid JSON for %q", body)
		}
		if !slices.Contains(responseErrorCodes(t), e.ResponseCode()) {
			t.Fatalf("ResponseCode %q is not in the spec", e.ResponseCode())
		}
		if e.Message == "" {
			t.Fatal("empty message")
		}
	})
}

// responseErrorCodes lists the pinned spec's ResponseErrorCode values.
func responseErrorCodes(t testing.TB) []string {
	root, _ := codec.OpenAI.Payload(codec.ResponsesBody)
	s, err := root.Schema().Lookup("error.code")
	if err != nil {
		t.Fatal(err)
	}
	// and the two the live API sends beyond the spec, which the
	// conformance checker knows (its TestErrorCodesBeyondSpec)
	return append(s.Values(), "context_length_exceeded", "insufficient_quota")
}

// A 200 whose body is an error object (no choices) is the upstream's
// error, with its status and message, not a Response "with no finish
// reason".
func TestConvertErrorBody(t *testing.T) {
	var r Responder
	_, _, err := r.Convert(request(t, `{"model":"m","input":"hi"}`), []byte(`{"error":{"code":503,"message":"No instances available","metadata":{"provider_name":"Example"}}}`), Options{IDs: &SeqIDs{}, Clock: clock})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 503 || ae.Type != "server_error" || !strings.Contains(ae.Message, "No instances available") {
		t.Fatalf("%#v", err)
	}
}
