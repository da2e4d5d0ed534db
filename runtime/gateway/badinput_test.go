package gateway_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite" // to count the store's rows

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// Bad input at the HTTP level, on both routes and the stored-response
// routes: each case is answered with OpenAI's error (exact status, type,
// code, param), reaches no upstream and stores nothing.

// countingUpstream counts the requests it gets and answers a fixed chat
// completion (the setup's one stored response).
type countingUpstream struct{ n atomic.Int64 }

func (u *countingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	u.n.Add(1)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
}

// badCase is one bad request and its answer. route is "R" (POST
// /v1/responses), "C" (POST /v1/chat/completions), or a method and path
// of the stored routes ("{id}" is the setup's stored response). strict
// serves it with RejectUnknown and DropUnknownItems (the other policies).
type badCase struct {
	name, route, body string
	strict            bool
	status            int
	typ, code, param  string
}

const (
	R = "R"
	C = "C"
)

func badInputCases() []badCase {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	meta := func(n, klen, vlen int) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			k := fmt.Sprintf("k%d", i)
			if klen > 0 {
				k = strings.Repeat("k", klen)
			}
			fmt.Fprintf(&b, `%q:%q`, k, strings.Repeat("v", max(vlen, 1)))
		}
		return b.String() + `}`
	}
	fn := func(name, params string) string {
		return `{"model":"m","input":"hi","tools":[{"type":"function","name":"` + name + `","parameters":` + params + `}]}`
	}
	long := strings.Repeat("a", 65)
	inv := "invalid_request_error"
	return []badCase{
		// POST /v1/responses: the body
		{"not JSON", R, `hello`, false, 400, inv, "invalid_json", ""},
		{"truncated JSON", R, `{"model":"m","input":"hi"`, false, 400, inv, "invalid_json", ""},
		{"an array", R, `[{"model":"m"}]`, false, 400, inv, "invalid_json", ""},
		{"empty body", R, ``, false, 400, inv, "invalid_json", ""},
		{"invalid UTF-8 in a string", R, "{\"model\":\"m\",\"input\":\"h\xffi\"}", false, 400, inv, "invalid_json", "input"},
		{"a NUL byte in a string", R, "{\"model\":\"m\",\"input\":\"h\x00i\"}", false, 400, inv, "invalid_json", "input"},
		// named by the value it is in, 128 bytes of path down at most
		{"10,000-deep nesting in input", R, `{"model":"m","input":` + deep + `}`, false, 400, inv, "invalid_json", "input" + strings.Repeat("[0]", 41)},
		{"10,000-deep nesting in metadata", R, `{"model":"m","input":"hi","metadata":{"k":` + deep + `}}`, false, 400, inv, "invalid_json", "metadata.k" + strings.Repeat("[0]", 39)},
		{"duplicate keys", R, `{"model":"m","input":"hi","input":5}`, false, 400, inv, "invalid_json", ""},
		// wrong type at each level
		{"model a number", R, `{"model":5,"input":"hi"}`, false, 400, inv, "invalid_type", "model"},
		{"model with CR/LF", R, `{"model":"m\r\nX-Evil: 1","input":"hi"}`, false, 400, inv, "invalid_value", "model"},
		{"input a number", R, `{"model":"m","input":5}`, false, 400, inv, "invalid_type", "input"},
		{"input empty", R, `{"model":"m","input":[]}`, false, 400, inv, "empty_array", "input"},
		{"an item a string", R, `{"model":"m","input":["hi"]}`, false, 400, inv, "invalid_type", "input[0]"},
		{"a part a number", R, `{"model":"m","input":[{"role":"user","content":[5]}]}`, false, 400, inv, "invalid_type", "input[0].content[0]"},
		{"tools an object", R, `{"model":"m","input":"hi","tools":{}}`, false, 400, inv, "invalid_type", "tools"},
		{"tool_choice a number", R, `{"model":"m","input":"hi","tool_choice":5}`, false, 400, inv, "invalid_type", "tool_choice"},
		{"text.format a string", R, `{"model":"m","input":"hi","text":{"format":"json"}}`, false, 400, inv, "invalid_type", "text.format"},
		{"reasoning a string", R, `{"model":"m","input":"hi","reasoning":"high"}`, false, 400, inv, "invalid_type", "reasoning"},
		{"metadata an array", R, `{"model":"m","input":"hi","metadata":[]}`, false, 400, inv, "invalid_type", "metadata"},
		{"metadata value a number", R, `{"model":"m","input":"hi","metadata":{"k":5}}`, false, 400, inv, "invalid_type", "metadata.k"},
		// numbers
		{"max_output_tokens -1", R, `{"model":"m","input":"hi","max_output_tokens":-1}`, false, 400, inv, "integer_below_min_value", "max_output_tokens"},
		{"max_output_tokens 1e400", R, `{"model":"m","input":"hi","max_output_tokens":1e400}`, false, 400, inv, "invalid_type", "max_output_tokens"},
		{"max_output_tokens 2^70", R, `{"model":"m","input":"hi","max_output_tokens":1180591620717411303424}`, false, 400, inv, "integer_above_max_value", "max_output_tokens"},
		{"temperature 1e400", R, `{"model":"m","input":"hi","temperature":1e400}`, false, 400, inv, "decimal_above_max_value", "temperature"},
		// unknown types, both policies
		{"unknown item type", R, `{"model":"m","input":[{"type":"hologram"}]}`, false, 400, inv, "invalid_value", "input[0]"},
		{"unknown item type, dropped: no input left", R, `{"model":"m","input":[{"type":"hologram"}]}`, true, 400, inv, "missing_required_parameter", "input"},
		{"unknown tool type, rejected", R, `{"model":"m","input":"hi","tools":[{"type":"teleport"}]}`, true, 400, inv, "invalid_value", "tools[0].type"},
		{"unknown part type, rejected", R, `{"model":"m","input":[{"role":"user","content":[{"type":"input_smell"}]}]}`, true, 400, inv, "invalid_value", "input[0].content[0].type"},
		// calls
		{"duplicate call ids", R, `{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]}`, false, 400, inv, "invalid_value", "input[1].call_id"},
		{"a call without a call id", R, `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, false, 400, inv, "missing_required_parameter", "input[0].call_id"},
		{"an output of no call", R, `{"model":"m","input":[{"type":"function_call_output","call_id":"nope","output":"x"}]}`, false, 400, inv, "invalid_value", "input[0]"},
		// tools
		{"tool name over 64", R, fn(long, `{"type":"object"}`), false, 400, inv, "string_above_max_length", "tools[0].name"},
		{"tool name with a space", R, fn("get weather", `{"type":"object"}`), false, 400, inv, "invalid_value", "tools[0].name"},
		{"parameters a string", R, fn("f", `"x"`), false, 400, inv, "invalid_type", "tools[0].parameters"},
		{"parameters not an object schema", R, fn("f", `{"type":"string"}`), false, 400, inv, "invalid_function_parameters", "tools[0].parameters"},
		// metadata limits
		{"metadata 17 keys", R, `{"model":"m","input":"hi","metadata":` + meta(17, 0, 1) + `}`, false, 400, inv, "object_above_max_properties", "metadata"},
		{"metadata key of 65", R, `{"model":"m","input":"hi","metadata":` + meta(1, 65, 1) + `}`, false, 400, inv, "string_above_max_length", "metadata"},
		{"metadata value of 513", R, `{"model":"m","input":"hi","metadata":{"k":"` + strings.Repeat("v", 513) + `"}}`, false, 400, inv, "string_above_max_length", "metadata.k"},
		// stored state
		{"previous_response_id unknown", R, `{"model":"m","input":"hi","previous_response_id":"resp_nope"}`, false, 400, inv, "previous_response_not_found", "previous_response_id"},
		{"previous_response_id with a NUL", R, `{"model":"m","input":"hi","previous_response_id":"resp_\u0000"}`, false, 400, inv, "invalid_value", "previous_response_id"},
		{"previous_response_id of invalid UTF-8", R, "{\"model\":\"m\",\"input\":\"hi\",\"previous_response_id\":\"resp_\xff\"}", false, 400, inv, "invalid_json", "previous_response_id"}, // not JSON (RFC 8259 §8.1)
		{"conversation with a NUL", R, `{"model":"m","input":"hi","conversation":"conv_\u0000"}`, false, 400, inv, "invalid_value", "conversation"},
		{"an item reference with a NUL", R, `{"model":"m","input":[{"type":"item_reference","id":"msg_\u0000"}]}`, false, 400, inv, "invalid_value", "input[0].id"},
		{"previous_response_id a number", R, `{"model":"m","input":"hi","previous_response_id":5}`, false, 400, inv, "invalid_type", "previous_response_id"},

		{"streamed: tool name over 64", R, `{"model":"m","input":"hi","stream":true,"tools":[{"type":"function","name":"` + long + `"}]}`, false, 400, inv, "string_above_max_length", "tools[0].name"},
		{"stream a string", R, `{"model":"m","input":"hi","stream":"yes"}`, false, 400, inv, "invalid_type", "stream"},
		{"store a string", R, `{"model":"m","input":"hi","store":"no"}`, false, 400, inv, "invalid_type", "store"},
		{"conversation a number", R, `{"model":"m","input":"hi","conversation":5}`, false, 400, inv, "invalid_type", "conversation"},
		{"conversation unknown", R, `{"model":"m","input":"hi","conversation":"conv_nope"}`, false, 400, inv, "conversation_not_found", "conversation"},
		{"an item reference to nothing", R, `{"model":"m","input":[{"type":"item_reference","id":"msg_nope"}]}`, false, 400, inv, "invalid_value", "input[0].id"},
		{"tool_choice of no tool", R, `{"model":"m","input":"hi","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"g"}}`, false, 400, inv, "invalid_value", "tool_choice.name"},

		// POST /v1/chat/completions
		{"chat: not JSON", C, `hello`, false, 400, inv, "invalid_json", ""},
		{"chat: truncated JSON", C, `{"model":"m","messages":[`, false, 400, inv, "invalid_json", "messages[0]"},
		{"chat: invalid UTF-8", C, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"h\xffi\"}]}", false, 400, inv, "invalid_json", "messages[0].content"},
		{"chat: 10,000-deep nesting", C, `{"model":"m","messages":` + deep + `}`, false, 400, inv, "invalid_json", "messages" + strings.Repeat("[0]", 40)},
		{"chat: duplicate keys", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"messages":5}`, false, 400, inv, "invalid_json", ""},
		{"chat: model a number", C, `{"model":5,"messages":[{"role":"user","content":"hi"}]}`, false, 400, inv, "invalid_type", "model"},
		{"chat: model with CR/LF", C, `{"model":"m\r\n","messages":[{"role":"user","content":"hi"}]}`, false, 400, inv, "invalid_value", "model"},
		{"chat: messages a string", C, `{"model":"m","messages":"hi"}`, false, 400, inv, "invalid_type", "messages"},
		{"chat: messages empty", C, `{"model":"m","messages":[]}`, false, 400, inv, "empty_array", "messages"},
		{"chat: a message a number", C, `{"model":"m","messages":[5]}`, false, 400, inv, "invalid_type", "messages[0]"},
		{"chat: unknown role", C, `{"model":"m","messages":[{"role":"wizard","content":"hi"}]}`, false, 400, inv, "invalid_value", "messages[0].role"},
		{"chat: a part a number", C, `{"model":"m","messages":[{"role":"user","content":[5]}]}`, false, 400, inv, "invalid_type", "messages[0].content[0]"},
		{"chat: tools a string", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":"x"}`, false, 400, inv, "invalid_type", "tools"},
		{"chat: tool name with a space", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"get weather"}}]}`, false, 400, inv, "invalid_value", "tools[0].function.name"},
		{"chat: max_tokens -1", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":-1}`, false, 400, inv, "integer_below_min_value", "max_tokens"},
		{"chat: response_format a string", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":"json"}`, false, 400, inv, "invalid_type", "response_format"},
		{"chat: metadata 17 keys", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":` + meta(17, 0, 1) + `}`, false, 400, inv, "object_above_max_properties", "metadata"},
		{"chat: streamed, messages empty", C, `{"model":"m","stream":true,"messages":[]}`, false, 400, inv, "empty_array", "messages"},
		{"chat: stream a string", C, `{"model":"m","stream":"yes","messages":[{"role":"user","content":"hi"}]}`, false, 400, inv, "invalid_type", "stream"},
		{"chat: temperature 1e400", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":1e400}`, false, 400, inv, "decimal_above_max_value", "temperature"},
		{"chat: parameters not an object schema", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"array"}}}]}`, false, 400, inv, "invalid_function_parameters", "tools[0].function.parameters"},
		{"chat: metadata value of 513", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":{"k":"` + strings.Repeat("v", 513) + `"}}`, false, 400, inv, "string_above_max_length", "metadata.k"},
		{"chat: unknown tool type", C, `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"teleport"}]}`, false, 400, inv, "invalid_value", "tools[0].type"},
		{"chat: unknown part type", C, `{"model":"m","messages":[{"role":"user","content":[{"type":"smell"}]}]}`, false, 400, inv, "invalid_value", "messages[0].content[0].type"},
		{"chat: a tool message answering no call", C, `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"nope","content":"x"}]}`, false, 400, inv, "invalid_value", "messages[1].tool_call_id"},
		{"chat: duplicate tool call ids", C, `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, false, 400, inv, "invalid_value", "messages[1].tool_calls[1].id"},
		{"chat: a tool message without tool_call_id", C, `{"model":"m","messages":[{"role":"tool","content":"x"}]}`, false, 400, inv, "missing_required_parameter", "messages[0].tool_call_id"},

		// the stored-response routes
		{"get: unknown id", "GET /v1/responses/resp_nope", ``, false, 404, inv, "", "response_id"},
		{"get: an id of 300 bytes", "GET /v1/responses/resp_" + strings.Repeat("x", 300), ``, false, 404, inv, "", "response_id"},
		{"get: an id with CR/LF", "GET /v1/responses/resp_%0D%0AX-Evil:%201", ``, false, 404, inv, "", "response_id"},
		{"get: include unknown", "GET /v1/responses/{id}?include=nope", ``, false, 400, inv, "invalid_value", "include"},
		{"delete: unknown id", "DELETE /v1/responses/resp_nope", ``, false, 404, inv, "", "response_id"},
		{"items: unknown id", "GET /v1/responses/resp_nope/input_items", ``, false, 404, inv, "", "response_id"},
		{"get: an id with a NUL", "GET /v1/responses/resp_%00", ``, false, 404, inv, "", "response_id"},
		{"get: an id of invalid UTF-8", "GET /v1/responses/resp_%FF", ``, false, 404, inv, "", "response_id"},
		{"delete: an id with a NUL", "DELETE /v1/responses/resp_%00", ``, false, 404, inv, "", "response_id"},
		{"items: an id of invalid UTF-8", "GET /v1/responses/resp_%FF/input_items", ``, false, 404, inv, "", "response_id"},
		{"items: after with a NUL", "GET /v1/responses/{id}/input_items?after=msg_%00", ``, false, 400, inv, "invalid_value", "after"},
		{"items: limit=0", "GET /v1/responses/{id}/input_items?limit=0", ``, false, 400, inv, "integer_below_min_value", "limit"},
		{"items: limit=-1", "GET /v1/responses/{id}/input_items?limit=-1", ``, false, 400, inv, "integer_below_min_value", "limit"},
		{"items: limit=abc", "GET /v1/responses/{id}/input_items?limit=abc", ``, false, 400, inv, "invalid_type", "limit"},
		{"items: limit=101", "GET /v1/responses/{id}/input_items?limit=101", ``, false, 400, inv, "integer_above_max_value", "limit"},
		{"items: order=sideways", "GET /v1/responses/{id}/input_items?order=sideways", ``, false, 400, inv, "invalid_value", "order"},
		{"items: after=unknown", "GET /v1/responses/{id}/input_items?after=msg_nope", ``, false, 400, inv, "invalid_value", "after"},

		// the Conversations routes: an id that cannot name one is not found
		{"conversation: unknown id", "GET /v1/conversations/conv_nope", ``, false, 404, inv, "", "conversation_id"},
		{"conversation: an id with a NUL", "GET /v1/conversations/conv_%00", ``, false, 404, inv, "", "conversation_id"},
		{"conversation update: an id of invalid UTF-8", "POST /v1/conversations/conv_%FF", `{"metadata":{}}`, false, 404, inv, "", "conversation_id"},
		{"conversation delete: an id with a NUL", "DELETE /v1/conversations/conv_%00", ``, false, 404, inv, "", "conversation_id"},
		{"conversation items: an id of invalid UTF-8", "GET /v1/conversations/conv_%FF/items", ``, false, 404, inv, "", "conversation_id"},
		{"conversation items: after with a NUL", "GET /v1/conversations/{conv}/items?after=msg_%00", ``, false, 400, inv, "invalid_value", "after"},
		{"conversation add: an id with a NUL", "POST /v1/conversations/conv_%00/items", `{"items":[{"role":"user","content":"x"}]}`, false, 404, inv, "", "conversation_id"},
		{"conversation item: an id of invalid UTF-8", "GET /v1/conversations/conv_%FF/items/msg_1", ``, false, 404, inv, "", "conversation_id"},
		{"conversation item: an item with a NUL", "GET /v1/conversations/{conv}/items/msg_%00", ``, false, 404, inv, "", "item_id"},
		{"conversation item delete: an id with a NUL", "DELETE /v1/conversations/conv_%00/items/msg_1", ``, false, 404, inv, "", "conversation_id"},
		{"conversation item delete: an item of invalid UTF-8", "DELETE /v1/conversations/{conv}/items/msg_%FF", ``, false, 404, inv, "", "item_id"},
	}
}

func TestBadInput(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "store.db")
	st := encodingStore{openStore(t, store.Config{Driver: "sqlite", DSN: dsn})}
	up, rup := &countingUpstream{}, &countingUpstream{}
	rsrv := httptest.NewServer(rup)
	t.Cleanup(rsrv.Close)
	cfg := gateway.Config{Store: st, IDs: &translate.SeqIDs{}, MaxBody: 1 << 20,
		ResponsesUpstream: gateway.Upstream{BaseURL: rsrv.URL + "/v1", Dialect: mapping.OpenAI}}
	lax := newStack(t, up, cfg)
	cfg.Mapping.UnknownTypes, cfg.Mapping.UnknownItems = mapping.RejectUnknown, mapping.DropUnknownItems
	strict := newStack(t, up, cfg)

	// One stored response, for the routes that page its input.
	resp, b := do(t, lax.gw.URL, "", `{"model":"m","input":"hi"}`)
	var stored struct{ ID string }
	if err := json.Unmarshal(b, &stored); err != nil || resp.StatusCode != 200 || stored.ID == "" {
		t.Fatalf("setup: %d %s", resp.StatusCode, b)
	}
	// And one conversation, for its items' routes.
	var conv struct{ ID string }
	if code, b := convCreate(t, lax.gw.URL); code != 200 || json.Unmarshal(b, &conv) != nil || conv.ID == "" {
		t.Fatalf("setup: %d %s", code, b)
	}
	rows := countRows(t, dsn)
	sent := up.n.Load()

	cases := badInputCases()
	if len(cases) < 40 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := lax.gw.URL
			if c.strict {
				base = strict.gw.URL
			}
			method, path := http.MethodPost, "/v1/responses"
			switch c.route {
			case R:
			case C:
				path = "/v1/chat/completions"
			default:
				method, path, _ = strings.Cut(c.route, " ")
				path = strings.NewReplacer("{id}", stored.ID, "{conv}", conv.ID).Replace(path)
			}
			req, _ := http.NewRequestWithContext(context.Background(), method, base+path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			checkOpenAIError(t, resp.StatusCode, b, c.status, c.typ, c.code, c.param)
		})
	}
	// A body over MaxBody (1 MiB here) of 64 MiB: 413, and the gateway
	// stops reading it at the limit (what the client wrote is bounded by
	// the limit and the loopback's buffers, not the body).
	for _, path := range []string{"/v1/responses", "/v1/chat/completions"} {
		t.Run("a body over the limit "+path, func(t *testing.T) {
			body := &countingReader{left: 64 << 20}
			req, _ := http.NewRequest(http.MethodPost, lax.gw.URL+path, body)
			req.ContentLength = -1 // chunked: the gateway cannot know the size before reading
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			checkOpenAIError(t, resp.StatusCode, b, 413, "invalid_request_error", "", "")
			if n := body.read.Load(); n > 16<<20 {
				t.Errorf("the client wrote %d bytes of the body before the answer", n)
			}
		})
	}
	// A declared Content-Length over MaxBody is refused from the headers:
	// the client need not send a byte of the body.
	for _, path := range []string{"/v1/responses", "/v1/chat/completions"} {
		t.Run("a declared length over the limit "+path, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(lax.gw.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, 64<<20)
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer before the body: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			checkOpenAIError(t, resp.StatusCode, b, 413, "invalid_request_error", "", "")
		})
	}
	// CR/LF inside a header value: net/http refuses the request before any
	// handler (a plain 400 of its own, not an OpenAI object); it reaches
	// neither upstream.
	for _, path := range []string{"/v1/responses", "/v1/chat/completions"} {
		t.Run("a header value with CR/LF "+path, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(lax.gw.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			body := `{"model":"m","input":"hi","messages":[{"role":"user","content":"hi"}]}`
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nSession-Id: a\rX-Evil: 1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 400 {
				t.Errorf("status %d", resp.StatusCode)
			}
		})
	}

	if n := up.n.Load() - sent; n != 0 {
		t.Errorf("the chat upstream got %d requests", n)
	}
	if n := rup.n.Load(); n != 0 {
		t.Errorf("the Responses upstream got %d requests", n)
	}
	if got := countRows(t, dsn); got != rows {
		t.Errorf("rows after the table %v, before %v", got, rows)
	}
}

func convCreate(t *testing.T, base string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(base+"/v1/conversations", "application/json", strings.NewReader(`{"items":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// countingReader is a body of left bytes that counts what was read of it.
type countingReader struct {
	left int64
	read atomic.Int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), r.left))
	clear(p[:n])
	r.left -= int64(n)
	r.read.Add(int64(n))
	return n, nil
}

// checkOpenAIError checks an answer is OpenAI's error object with the
// status, type, code and param wanted (null for "").
func checkOpenAIError(t *testing.T, status int, body []byte, wantStatus int, typ, code, param string) {
	t.Helper()
	var e struct {
		Error *struct {
			Message     string
			Type        string
			Param, Code *string
		}
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || e.Error.Message == "" {
		t.Fatalf("%d %q: not an OpenAI error object", status, clipped(body))
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if status != wantStatus || e.Error.Type != typ || str(e.Error.Code) != code || str(e.Error.Param) != param {
		t.Errorf("got %d %s code=%q param=%q, want %d %s code=%q param=%q (%s)", status, e.Error.Type, str(e.Error.Code), str(e.Error.Param), wantStatus, typ, code, param, clipped([]byte(e.Error.Message)))
	}
}

func clipped(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// countRows counts the rows of the store's tables.
func countRows(t *testing.T, dsn string) [4]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dsn+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n [4]int
	for i, table := range []string{"responses", "items", "conversations", "conversation_items"} {
		if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n[i]); err != nil {
			t.Fatal(err)
		}
	}
	return n
}
