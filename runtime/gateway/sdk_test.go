package gateway_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/gateway/replay"
)

// The official Go SDK (github.com/openai/openai-go/v3 v3.95.0) against the
// gateway on loopback, the gateway against an upstream on loopback: the
// replay upstream, or one that fails as told.

// stack is a gateway over an upstream, and an SDK client of it.
type stack struct {
	gw, up *httptest.Server
	client openai.Client
}

func newStack(t *testing.T, upstream http.Handler, cfg gateway.Config) *stack {
	t.Helper()
	s := &stack{up: httptest.NewServer(upstream)}
	t.Cleanup(s.up.Close)
	cfg.Upstream.BaseURL = s.up.URL + "/api/v1"
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.gw = httptest.NewServer(gateway.New(cfg))
	t.Cleanup(s.gw.Close)
	s.client = openai.NewClient(option.WithBaseURL(s.gw.URL+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
	return s
}

func replayed(t *testing.T, script ...string) http.Handler {
	t.Helper()
	u, err := replay.New(script)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

const recordedText = "Hello from the Transponder replay upstream: this answer was recorded, not generated."

func TestSDKNonStream(t *testing.T) {
	s := newStack(t, replayed(t), gateway.Config{})
	resp, err := s.client.Responses.New(context.Background(), responses.ResponseNewParams{
		Model: "openai/gpt-5.5",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hello")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.OutputText() != recordedText || resp.Status != "completed" || resp.Model != "openai/gpt-5.5" {
		t.Errorf("%q %s %s", resp.OutputText(), resp.Status, resp.Model)
	}
	if resp.Usage.InputTokens != 42 || resp.Usage.TotalTokens != 57 || !strings.HasPrefix(resp.ID, "resp_") {
		t.Errorf("usage %+v, id %s", resp.Usage, resp.ID)
	}
	if fs := conformance.CheckResponse([]byte(resp.RawJSON())); conformance.Violations(fs) > 0 {
		t.Errorf("the Response breaks the checker: %v", fs)
	}
}

// stream runs a streamed request and returns its events, checked.
func stream(t *testing.T, s *stack, params responses.ResponseNewParams) []responses.ResponseStreamEventUnion {
	t.Helper()
	return streamWith(t, s.client, params)
}

// streamWith runs a streamed request with a client and returns its
// events, checked.
func streamWith(t *testing.T, c openai.Client, params responses.ResponseNewParams) []responses.ResponseStreamEventUnion {
	t.Helper()
	st := c.Responses.NewStreaming(context.Background(), params)
	defer st.Close()
	var evs []responses.ResponseStreamEventUnion
	var raw [][]byte
	for st.Next() {
		e := st.Current()
		evs = append(evs, e)
		raw = append(raw, []byte(e.RawJSON()))
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if fs := conformance.Check(raw); conformance.Violations(fs) > 0 {
		t.Fatalf("the stream breaks the checker: %v", fs)
	}
	return evs
}

func TestSDKStream(t *testing.T) {
	for _, rec := range []string{"text", "reasoning", "parallel", "apply_patch"} {
		t.Run(rec, func(t *testing.T) {
			s := newStack(t, replayed(t, rec), gateway.Config{})
			evs := stream(t, s, responses.ResponseNewParams{
				Model: "m",
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("go")},
				Tools: []responses.ToolUnionParam{
					responses.ToolParamOfFunction("exec_command", map[string]any{"type": "object", "properties": map[string]any{"cmd": map[string]any{"type": "string"}}}, false),
					{OfCustom: &responses.CustomToolParam{Name: "apply_patch"}},
				},
			})
			last := evs[len(evs)-1]
			if last.Type != "response.completed" {
				t.Fatalf("last event %s", last.Type)
			}
			out := last.Response.Output
			switch rec {
			case "text":
				if last.Response.OutputText() != recordedText {
					t.Errorf("text %q", last.Response.OutputText())
				}
			case "reasoning":
				if len(out) != 2 || out[0].Type != "reasoning" || last.Response.OutputText() != "The answer is 42." {
					t.Errorf("output %+v", out)
				}
			case "parallel":
				if len(out) != 2 || out[0].AsFunctionCall().Arguments != `{"cmd":"echo one > one.txt"}` || out[1].AsFunctionCall().Arguments != `{"cmd":"echo two > two.txt"}` {
					t.Errorf("output %+v", out)
				}
			case "apply_patch":
				if len(out) != 1 || out[0].Type != "custom_tool_call" || !strings.HasPrefix(out[0].AsCustomToolCall().Input, "*** Begin Patch\n*** Add File: hello.txt\n") {
					t.Errorf("output %+v", out)
				}
			}
		})
	}
}

// A function tool over two stateless turns: the model calls get_weather,
// the client runs it and sends the call and its output back; the model
// answers.
func TestSDKFunctionRoundTrip(t *testing.T) {
	s := newStack(t, replayed(t, "get_weather", "text"), gateway.Config{})
	ctx := context.Background()
	tools := []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}, false)}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("What is the weather in Paris?", responses.EasyInputMessageRoleUser)}
	first, err := s.client.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Output) != 1 || first.Output[0].Type != "function_call" {
		t.Fatalf("first turn: %s", first.RawJSON())
	}
	call := first.Output[0].AsFunctionCall()
	if call.Name != "get_weather" || call.Arguments != `{"city":"Paris"}` || call.CallID != "call_replay_weather" {
		t.Fatalf("call %+v", call)
	}
	p := call.ToParam()
	out := responses.ResponseInputItemParamOfFunctionCallOutput(`{"temperature_c":18}`)
	out.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &p}, out)
	// the stateless second turn streams
	evs := stream(t, s, responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: tools})
	if last := evs[len(evs)-1]; last.Type != "response.completed" || last.Response.OutputText() != recordedText {
		t.Errorf("second turn: %s %q", last.Type, last.Response.OutputText())
	}
}

// failing is an upstream that answers the n-th request as told.
type failing struct {
	status int
	header http.Header
	body   string
	cut    bool // stream a few chunks, then cut the connection
	seen   atomic.Int32
}

func (f *failing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.seen.Add(1)
	if f.cut {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"id":"g","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}` + "\n\n"))
		http.NewResponseController(w).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range f.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write([]byte(f.body))
}

// Upstream errors before the first byte reach the SDK as OpenAI's errors
// (status, type, code, the upstream's message, Retry-After); a cut
// mid-stream ends the stream in response.failed.
func TestSDKErrors(t *testing.T) {
	for _, c := range []struct {
		name       string
		up         *failing
		status     int
		code, msg  string
		retryAfter string
	}{
		{"400", &failing{status: 400, body: `{"error":{"code":400,"message":"This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens."}}`}, 400, "context_length_exceeded", "maximum context length", ""},
		{"429", &failing{status: 429, header: http.Header{"Retry-After": {"7"}}, body: `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min"}}`}, 429, "rate_limit_exceeded", "Rate limit exceeded", "7"},
		{"500", &failing{status: 500, body: `{"error":{"code":500,"message":"Internal Server Error"}}`}, 500, "server_error", "Internal Server Error", ""},
		{"402", &failing{status: 402, body: `{"error":{"code":402,"message":"Insufficient credits"}}`}, 429, "insufficient_quota", "Insufficient credits", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newStack(t, c.up, gateway.Config{})
			params := responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}}
			for _, streaming := range []bool{false, true} {
				var err error
				if streaming {
					st := s.client.Responses.NewStreaming(context.Background(), params)
					for st.Next() {
						t.Errorf("an event before the error: %s", st.Current().Type)
					}
					err = st.Err()
					st.Close()
				} else {
					_, err = s.client.Responses.New(context.Background(), params)
				}
				var ae *openai.Error
				if !errors.As(err, &ae) {
					t.Fatalf("stream %v: %v, want an *openai.Error", streaming, err)
				}
				if ae.StatusCode != c.status || ae.Code != c.code || !strings.Contains(ae.Message, c.msg) {
					t.Errorf("stream %v: %d %q %q", streaming, ae.StatusCode, ae.Code, ae.Message)
				}
				if got := ae.Response.Header.Get("Retry-After"); got != c.retryAfter {
					t.Errorf("stream %v: Retry-After %q, want %q", streaming, got, c.retryAfter)
				}
			}
		})
	}
	t.Run("cut mid-stream", func(t *testing.T) {
		s := newStack(t, &failing{cut: true}, gateway.Config{})
		evs := stream(t, s, responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
		last := evs[len(evs)-1]
		if last.Type != "response.failed" || last.Response.Error.Code != "server_error" {
			t.Errorf("last event %s %+v", last.Type, last.Response.Error)
		}
		if got := last.Response.Output; len(got) != 1 || got[0].AsMessage().Content[0].Text != "Hel" {
			t.Errorf("the text so far is not kept: %+v", got)
		}
	})
}

// Requests the gateway answers itself: stored responses and
// previous_response_id (nothing is stored yet), a bad key.
func TestSDKNotStored(t *testing.T) {
	up := &failing{status: 500}
	s := newStack(t, up, gateway.Config{Keys: []gateway.Key{{Tenant: "team", Key: "sk-test"}}})
	ctx := context.Background()
	check := func(what string, err error, status int, param string) {
		t.Helper()
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != status || ae.Param != param || ae.Message == "" {
			t.Errorf("%s: %v", what, err)
		}
	}
	_, err := s.client.Responses.Get(ctx, "resp_123", responses.ResponseGetParams{})
	check("get", err, 404, "response_id")
	err = s.client.Responses.Delete(ctx, "resp_123")
	check("delete", err, 404, "response_id")
	_, err = s.client.Responses.InputItems.List(ctx, "resp_123", responses.InputItemListParams{})
	check("input items", err, 404, "response_id")
	_, err = s.client.Responses.New(ctx, responses.ResponseNewParams{Model: "m", PreviousResponseID: openai.String("resp_1"), Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	check("previous_response_id", err, 400, "previous_response_id")
	_, err = s.client.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}}, option.WithAPIKey("sk-wrong"))
	check("a wrong key", err, 401, "")
	if n := up.seen.Load(); n != 0 {
		t.Errorf("the upstream was asked %d times", n)
	}
}
