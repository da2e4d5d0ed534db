package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
)

// The compatibility levels of the README, level 2 and 3: structured
// outputs, and each client-executed built-in tool over a full tool loop.

// scripted is an upstream that answers a chat request whose last message
// is not a tool result with a call of the first tool it is offered (with
// args), else with the text answer; streamed or not, as asked. It keeps
// every request.
type scripted struct {
	args   string // the call's arguments (JSON text)
	answer string // the text answer
	mu     sync.Mutex
	seen   [][]byte
}

func (u *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.seen = append(u.seen, b)
	u.mu.Unlock()
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"code":400,"message":"bad request"}}`, 400)
		return
	}
	var delta, message, finish string
	if req.Messages[len(req.Messages)-1].Role != "tool" && len(req.Tools) > 0 {
		name, _ := json.Marshal(req.Tools[0].Function.Name)
		args, _ := json.Marshal(u.args)
		call := `{"index":0,"id":"call_lvl","type":"function","function":{"name":` + string(name) + `,"arguments":` + string(args) + `}}`
		delta = `{"role":"assistant","content":null,"tool_calls":[` + call + `]}`
		message = `{"role":"assistant","content":null,"tool_calls":[` + strings.Replace(call, `"index":0,`, "", 1) + `]}`
		finish = "tool_calls"
	} else {
		text, _ := json.Marshal(u.answer)
		delta = `{"role":"assistant","content":` + string(text) + `}`
		message = delta
		finish = "stop"
	}
	usage := `"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}`
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":`+message+`,"finish_reason":"`+finish+`"}],`+usage+`}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, `data: {"id":"g","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`+delta+`,"finish_reason":null}]}`+"\n\n")
	_, _ = io.WriteString(w, `data: {"id":"g","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"`+finish+`"}],`+usage+`}`+"\n\n")
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

func (u *scripted) last() []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen[len(u.seen)-1]
}

// Level 2: a json_schema text format reaches the upstream as its
// response_format with the schema byte for byte, the Response echoes the
// format, and the SDK reads the answer as the JSON it asked for, streamed
// (through the checker) and not.
func TestLevel2StructuredOutput(t *testing.T) {
	up := &scripted{answer: `{"city":"Paris","temperature_c":18}`}
	s := newStack(t, up, gateway.Config{})
	schema := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}, "temperature_c": map[string]any{"type": "integer"}},
		"required":             []string{"city", "temperature_c"},
		"additionalProperties": false,
	}
	params := responses.ResponseNewParams{
		Model: "m",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris as JSON")},
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "weather", Schema: schema, Strict: openai.Bool(true)},
		}},
	}
	wantSchema, _ := json.Marshal(schema)
	for _, streamed := range []bool{false, true} {
		var resp *responses.Response
		if streamed {
			evs := stream(t, s, params)
			last := evs[len(evs)-1]
			if last.Type != "response.completed" {
				t.Fatalf("last event %s", last.Type)
			}
			resp = &last.Response
		} else {
			r, err := s.client.Responses.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			resp = r
			if fs := conformance.CheckResponse([]byte(r.RawJSON())); conformance.Violations(fs) > 0 {
				t.Errorf("the Response breaks the checker: %v", fs)
			}
		}
		var got struct {
			City         string `json:"city"`
			TemperatureC int    `json:"temperature_c"`
		}
		if err := json.Unmarshal([]byte(resp.OutputText()), &got); err != nil || got.City != "Paris" || got.TemperatureC != 18 {
			t.Errorf("stream %v: the answer %q (%v)", streamed, resp.OutputText(), err)
		}
		if f := resp.Text.Format; f.Type != "json_schema" || f.Name != "weather" || !f.Strict {
			t.Errorf("stream %v: the echoed format %s", streamed, f.RawJSON())
		}
		var chat struct {
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string          `json:"name"`
					Strict bool            `json:"strict"`
					Schema json.RawMessage `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.Unmarshal(up.last(), &chat); err != nil {
			t.Fatal(err)
		}
		rf := chat.ResponseFormat
		if rf.Type != "json_schema" || rf.JSONSchema.Name != "weather" || !rf.JSONSchema.Strict || !bytes.Equal(rf.JSONSchema.Schema, wantSchema) {
			t.Errorf("stream %v: upstream response_format %+v, schema %s, want %s", streamed, rf, rf.JSONSchema.Schema, wantSchema)
		}
	}
}

// Level 3: each client-executed built-in tool over a full loop, as Codex
// runs it. Turn 1 (streamed, through the checker): the upstream calls the
// tool's function and the client gets the tool's own item. Turn 2 (not
// streamed): the client sends that item back with its output; upstream,
// the call is the assistant's tool call and the output the tool message
// that answers it, under the same name and call id; the answer completes.
func TestLevel3BuiltinToolLoop(t *testing.T) {
	for _, c := range []struct {
		name, tool, args string
		item             string // the item type the client gets
		check            string // a member of the item that must be in it
		output           string // the output item the client sends back (%s: the call id)
	}{
		{"function in a namespace", `{"type":"namespace","name":"github","description":"GitHub","tools":[{"type":"function","name":"create_issue","parameters":{"type":"object","properties":{"title":{"type":"string"}}}}]}`,
			`{"title":"bug"}`, "function_call", `"namespace":"github"`, `{"type":"function_call_output","call_id":%s,"output":"created #1"}`},
		{"custom (freeform apply_patch)", `{"type":"custom","name":"apply_patch","description":"Edit files.","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}`,
			`{"input":"*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"}`, "custom_tool_call", `"input":"*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"`, `{"type":"custom_tool_call_output","call_id":%s,"output":"Success."}`},
		{"local_shell", `{"type":"local_shell"}`,
			`{"command":["ls","-l"],"working_directory":"/tmp"}`, "local_shell_call", `"command":["ls","-l"]`, `{"type":"local_shell_call_output","id":%s,"output":"total 0"}`},
		{"shell", `{"type":"shell"}`,
			`{"commands":["pwd"],"timeout_ms":1000}`, "shell_call", `"commands":["pwd"]`, `{"type":"shell_call_output","call_id":%s,"output":[{"stdout":"/tmp\n","stderr":"","outcome":{"type":"exit","exit_code":0}}]}`},
		{"apply_patch", `{"type":"apply_patch"}`,
			`{"type":"create_file","path":"a.txt","diff":"+hi\n"}`, "apply_patch_call", `"operation":{"type":"create_file","path":"a.txt","diff":"+hi\n"}`, `{"type":"apply_patch_call_output","call_id":%s,"status":"completed","output":"Created a.txt"}`},
		{"tool_search", `{"type":"tool_search","execution":"client","description":"Find tools.","parameters":{"type":"object","properties":{"query":{"type":"string"}}}}`,
			`{"query":"calendar"}`, "tool_search_call", `"arguments":{"query":"calendar"}`, `{"type":"tool_search_output","call_id":%s,"execution":"client","status":"completed","tools":[{"type":"function","name":"create_event","parameters":{"type":"object"}}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := &scripted{args: c.args, answer: "done"}
			s := newStack(t, up, gateway.Config{})
			user := `{"role":"user","content":"go"}`
			first := `{"model":"m","stream":true,"input":[` + user + `],"tools":[` + c.tool + `]}`
			resp, out := do(t, s.gw.URL, "", first)
			if resp.StatusCode != 200 {
				t.Fatalf("turn 1: %d %s", resp.StatusCode, out)
			}
			var events [][]byte
			rd := sse.NewReader(bytes.NewReader(out))
			for rd.Next() {
				events = append(events, append([]byte(nil), rd.Event().Data...))
			}
			if fs := conformance.Check(events); conformance.Violations(fs) > 0 {
				t.Fatalf("turn 1 breaks the checker: %v", fs)
			}
			var done struct {
				Type     string `json:"type"`
				Response struct {
					Output []json.RawMessage `json:"output"`
				} `json:"response"`
			}
			if err := json.Unmarshal(events[len(events)-1], &done); err != nil || done.Type != "response.completed" || len(done.Response.Output) != 1 {
				t.Fatalf("turn 1 ended with %s", events[len(events)-1])
			}
			item := done.Response.Output[0]
			var head struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			}
			_ = json.Unmarshal(item, &head)
			compact := new(bytes.Buffer)
			_ = json.Compact(compact, item)
			if head.Type != c.item || head.CallID != "call_lvl" || !strings.Contains(compact.String(), c.check) {
				t.Fatalf("turn 1: the client got %s, want a %s with %s", item, c.item, c.check)
			}

			callID, _ := json.Marshal(head.CallID)
			output := strings.Replace(c.output, "%s", string(callID), 1)
			second := `{"model":"m","input":[` + user + `,` + string(item) + `,` + output + `],"tools":[` + c.tool + `]}`
			resp, out = do(t, s.gw.URL, "", second)
			if resp.StatusCode != 200 {
				t.Fatalf("turn 2: %d %s", resp.StatusCode, out)
			}
			if fs := conformance.CheckResponse(out); conformance.Violations(fs) > 0 {
				t.Errorf("turn 2 breaks the checker: %v", fs)
			}
			var r2 responses.Response
			if err := json.Unmarshal(out, &r2); err != nil || r2.Status != "completed" || r2.OutputText() != "done" {
				t.Errorf("turn 2: %s", out)
			}
			var chat struct {
				Tools []struct {
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				} `json:"tools"`
				Messages []struct {
					Role       string `json:"role"`
					ToolCallID string `json:"tool_call_id"`
					ToolCalls  []struct {
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(up.last(), &chat); err != nil {
				t.Fatal(err)
			}
			m := chat.Messages
			if len(m) != 3 || m[1].Role != "assistant" || len(m[1].ToolCalls) != 1 || m[2].Role != "tool" || len(chat.Tools) == 0 {
				t.Fatalf("turn 2 upstream: %s", up.last())
			}
			call := m[1].ToolCalls[0]
			if call.ID != "call_lvl" || m[2].ToolCallID != "call_lvl" || call.Function.Name != chat.Tools[0].Function.Name {
				t.Errorf("turn 2 upstream: the call %+v, the output's id %q, the tool %q", call, m[2].ToolCallID, chat.Tools[0].Function.Name)
			}
			// What the upstream sent comes back (the item may have added
			// what the spec requires of it: a shell action's
			// max_output_length, a local shell action's env).
			var sent, got map[string]any
			_ = json.Unmarshal([]byte(c.args), &sent)
			if err := json.Unmarshal([]byte(call.Function.Arguments), &got); err != nil {
				t.Fatalf("turn 2 upstream: the replayed call's arguments %s: %v", call.Function.Arguments, err)
			}
			for k, v := range sent {
				if !jsonEqual(v, got[k]) {
					t.Errorf("turn 2 upstream: the replayed call's arguments %s, want those of %s", call.Function.Arguments, c.args)
				}
			}
			if c.item == "tool_search_call" && (len(chat.Tools) != 2 || chat.Tools[1].Function.Name != "create_event") {
				t.Errorf("turn 2 upstream: the tool the search loaded is not offered: %s", up.last())
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
