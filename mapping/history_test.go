package mapping_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
)

// The reasoning the gateway emits, replayed by a client over several tool
// turns, reaches the upstream as the reasoning_details it came as, byte
// for byte, each turn's on its assistant message.
func TestReasoningRoundTrip(t *testing.T) {
	// reasoning_details as OpenRouter returns them (shapes of the recorded
	// streams in ../shared/corpus/chat-sse: Anthropic text with a
	// signature, OpenAI encrypted, a summary), escapes and non-ASCII
	// included.
	turns := [][]byte{
		[]byte(`[{"type":"reasoning.text","text":"The user wants \"Paris\"\u2014so: call get_weather.\n","signature":"EqQBCkYIBxgCKkB+/=","format":"anthropic-claude-v1","index":0}]`),
		[]byte(`[{"type":"reasoning.summary","summary":"**Checking** été","id":"rs_1","format":"openai-responses-v1","index":0},{"type":"reasoning.encrypted","data":"gAAAAABpCCSIBxdevbk-8QtJuf4C6mgqDwXa","id":"rs_1","format":"openai-responses-v1","index":1}]`),
		[]byte(`[{"type":"reasoning.text","text":"","signature":"","format":"anthropic-claude-v1","index":0},{"type":"reasoning.text","text":"a","format":"unknown","index":1,"id":null}]`),
		[]byte(`[]`),
	}
	var in bytes.Buffer
	in.WriteString(`{"model":"m","include":["reasoning.encrypted_content"],"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}}}],"input":[{"role":"user","content":"go"}`)
	for i, d := range turns {
		item, ok := mapping.AppendReasoningItem(nil, fmt.Sprintf("rs_%d", i), d, true)
		if !ok {
			t.Fatalf("turn %d: details refused", i)
		}
		fmt.Fprintf(&in, `,%s,{"type":"function_call","call_id":"call_%d","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_%d","output":"ok"}`, item, i, i)
	}
	in.WriteString(`]}`)

	out, warns, err := mapping.ResponsesToChat(in.Bytes(), mapping.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	validChat(t, codec.OpenRouter, out)
	var chat struct {
		Messages []struct {
			Role             string          `json:"role"`
			ReasoningDetails json.RawMessage `json:"reasoning_details"`
			ToolCalls        []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &chat); err != nil {
		t.Fatal(err)
	}
	turn := 0
	for _, m := range chat.Messages {
		if m.Role != "assistant" {
			continue
		}
		want := turns[turn]
		if string(want) == "[]" {
			want = nil // nothing to carry: no reasoning_details
		}
		if !bytes.Equal(m.ReasoningDetails, want) {
			t.Errorf("turn %d: reasoning_details\n got %s\nwant %s", turn, m.ReasoningDetails, want)
		}
		if len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != fmt.Sprintf("call_%d", turn) {
			t.Errorf("turn %d: tool calls %v", turn, m.ToolCalls)
		}
		turn++
	}
	if turn != len(turns) {
		t.Errorf("%d assistant messages, want %d", turn, len(turns))
	}

	// The item the gateway emits is a valid Responses reasoning item, whose
	// readable parts are the details' summaries and texts.
	item, _ := mapping.AppendReasoningItem(nil, "rs_x", turns[1], false)
	want := `{"id":"rs_x","type":"reasoning","summary":[{"type":"summary_text","text":"**Checking** été"}],"encrypted_content":null}`
	if string(item) != want {
		t.Errorf("item\n got %s\nwant %s", item, want)
	}
	if _, ok := mapping.AppendReasoningItem(nil, "rs_x", []byte(`{"type":"reasoning.text"}`), true); ok {
		t.Error("details that are not an array accepted")
	}
	if out, ok := mapping.AppendReasoningItem([]byte("x"), "rs_x", []byte(`[{},1]`), true); ok || string(out) != "x" {
		t.Errorf("details with a non-object: ok %v, dst %q (want it unchanged)", ok, out)
	}
	for _, bad := range []string{mapping.ReasoningPrefix + "!!", mapping.ReasoningPrefix + "e30", "gAAAAA"} {
		if _, ok := mapping.DecodeReasoning(bad); ok {
			t.Errorf("DecodeReasoning(%q) ok", bad)
		}
	}
}

// The tool map gives back, for every function name the upstream is
// offered, the tool of the request it stands for; the names are valid
// function names, distinct, and the same on every conversion.
func TestToolMap(t *testing.T) {
	body := readCase(t, "namespace_names")
	for _, d := range dialects {
		m, err := mapping.ToolMapOf(body, mapping.Options{Dialect: d.d})
		if err != nil {
			t.Fatal(err)
		}
		out, _, _ := mapping.ResponsesToChat(body, mapping.Options{Dialect: d.d})
		var chat struct {
			Tools []struct {
				Type     string `json:"type"`
				Function struct{ Name string }
				Custom   struct{ Name string }
			}
		}
		if err := json.Unmarshal(out, &chat); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tool := range chat.Tools {
			name := tool.Function.Name + tool.Custom.Name
			vt, ok := m.Lookup(name)
			if !ok {
				t.Errorf("%s: upstream tool %q not in the map", d.d, name)
				continue
			}
			if len(name) > mapping.MaxFunctionName {
				t.Errorf("%s: %q is longer than %d", d.d, name, mapping.MaxFunctionName)
			}
			if vt.Custom != (tool.Type == "custom") {
				t.Errorf("%s: %q: custom %v, upstream type %s", d.d, name, vt.Custom, tool.Type)
			}
			got = append(got, fmt.Sprintf("%s %s/%s", vt.Type, vt.Namespace, vt.ToolName))
		}
		want := []string{
			"function /docs__search",
			"function docs/search",
			"function docs/fetch",
			"custom docs/query",
			"function mcp__a_remarkably_long_server_name_for_a_model_context_protocol/read_resource_with_a_long_name",
			"function my.server/get",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: tools\n got %q\nwant %q", d.d, got, want)
		}
	}

	// Namespaced names never collide, however alike the tools are: many
	// namespaces and names sharing long prefixes and differing only in
	// characters the scheme replaces.
	r := rand.New(rand.NewPCG(1, 2))
	var tools []string
	seen := map[string]bool{}
	for len(tools) < 400 {
		ns := strings.Repeat("server", 1+r.IntN(12)) + []string{".", "-", "_", "/"}[r.IntN(4)] + fmt.Sprint(r.IntN(20))
		fn := strings.Repeat("tool", 1+r.IntN(10)) + []string{".", "-", "_", " "}[r.IntN(4)] + fmt.Sprint(r.IntN(5))
		if seen[ns+"\x00"+fn] {
			continue
		}
		seen[ns+"\x00"+fn] = true
		tools = append(tools, fmt.Sprintf(`{"type":"namespace","name":%q,"tools":[{"type":"function","name":%q,"parameters":{"type":"object","properties":{}}}]}`, ns, fn))
	}
	body = []byte(`{"model":"m","input":"hi","tools":[` + strings.Join(tools, ",") + `]}`)
	m, err := mapping.ToolMapOf(body, mapping.Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	clone := m.Clone() // indexed (past 16 tools) as the map is
	for _, vt := range m.Tools() {
		if back, ok := clone.LookupBytes([]byte(vt.Name)); !ok || back != vt {
			t.Errorf("%q: the clone's lookup gives %+v", vt.Name, back)
		}
		if names[vt.Name] {
			t.Errorf("%q twice", vt.Name)
		}
		names[vt.Name] = true
		if len(vt.Name) > mapping.MaxFunctionName || strings.Trim(vt.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("%q is not a valid function name", vt.Name)
		}
		if back, ok := m.Lookup(vt.Name); !ok || back != vt {
			t.Errorf("%q: lookup gives %+v", vt.Name, back)
		}
	}
	if len(names) != len(tools) {
		t.Errorf("%d names for %d tools", len(names), len(tools))
	}
	again, _ := mapping.ToolMapOf(body, mapping.Options{})
	if fmt.Sprint(again.Tools()) != fmt.Sprint(m.Tools()) {
		t.Error("a second conversion names the tools differently")
	}
}

// The recorded Codex requests keep everything: every tool is offered
// upstream (under a name the map knows), and the second turn's reasoning,
// call and output reach the chat request.
func TestCodexRequests(t *testing.T) {
	corpus, err := fixtures.Corpus(fixtures.SharedDir(".."))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range corpus {
		if !strings.HasPrefix(p.Name, "requests/codex-") {
			continue
		}
		n++
		var req struct {
			Tools []struct {
				Type, Name string
				Tools      []struct{ Name string }
			}
			Input []struct {
				Type string
			}
		}
		if err := json.Unmarshal(p.Data, &req); err != nil {
			t.Fatal(err)
		}
		var cv mapping.Converter
		out, warns, err := cv.ResponsesToChat(nil, p.Data, mapping.Options{SessionID: "s"})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		m := cv.ToolMap()
		var chat struct {
			Tools []struct {
				Type     string
				Function struct{ Name string }
			}
			Messages []struct {
				Role             string
				ReasoningDetails []struct{ Type, Format string } `json:"reasoning_details"`
				ToolCalls        []struct {
					ID       string
					Function struct{ Name string }
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			}
		}
		if err := json.Unmarshal(out, &chat); err != nil {
			t.Fatal(err)
		}
		offered := map[string]bool{}
		for _, tool := range chat.Tools {
			offered[tool.Type+" "+tool.Function.Name] = true
		}
		for _, tool := range req.Tools {
			switch tool.Type {
			case "namespace":
				for _, f := range tool.Tools {
					if !slicesHas(m.Tools(), func(vt mapping.VirtualTool) bool {
						return vt.Namespace == tool.Name && vt.ToolName == f.Name && offered["function "+vt.Name]
					}) {
						t.Errorf("%s: %s/%s not offered", p.Name, tool.Name, f.Name)
					}
				}
			case "web_search":
				if !offered["web_search "] {
					t.Errorf("%s: web_search not offered", p.Name)
				}
			default:
				name := tool.Name
				if name == "" {
					name = tool.Type
				}
				if vt, ok := m.Lookup(name); !ok || vt.Type != tool.Type || !offered["function "+name] {
					t.Errorf("%s: %s %s not offered (%+v)", p.Name, tool.Type, name, vt)
				}
			}
		}
		var calls, outputs, reasoning int
		for _, msg := range chat.Messages {
			calls += len(msg.ToolCalls)
			if msg.Role == "tool" {
				outputs++
			}
			for _, d := range msg.ReasoningDetails {
				if d.Format != "openai-responses-v1" {
					t.Errorf("%s: reasoning of format %q", p.Name, d.Format)
				}
				reasoning++
			}
		}
		var wantCalls, wantReasoning int
		for _, it := range req.Input {
			switch it.Type {
			case "function_call":
				wantCalls++
			case "reasoning":
				wantReasoning++
			}
		}
		if calls != wantCalls || outputs != wantCalls || (wantReasoning > 0) != (reasoning > 0) {
			t.Errorf("%s: %d calls, %d outputs, %d reasoning details; want %d calls and outputs, reasoning %v", p.Name, calls, outputs, reasoning, wantCalls, wantReasoning > 0)
		}
		for _, w := range warns {
			// What Codex sends that chat cannot carry, and only that.
			if !strings.HasPrefix(w.Path, "tools[") && w.Path != "client_metadata" {
				t.Errorf("%s: unexpected warning %s", p.Name, w)
			}
		}
	}
	if n != 3 {
		t.Fatalf("%d Codex requests, want 3", n)
	}
}

func slicesHas[T any](s []T, f func(T) bool) bool {
	for _, x := range s {
		if f(x) {
			return true
		}
	}
	return false
}

// Options.Items: an error other than not-found is the caller's, returned
// as it is; an item that is itself a reference is refused.
func TestItemLookupErrors(t *testing.T) {
	body := []byte(`{"model":"m","input":[{"type":"item_reference","id":"x"}]}`)
	boom := errors.New("store down")
	_, _, err := mapping.ResponsesToChat(body, mapping.Options{Items: func(string) ([]byte, error) { return nil, boom }})
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want the store's error", err)
	}
	_, _, err = mapping.ResponsesToChat(body, mapping.Options{Items: func(string) ([]byte, error) {
		return []byte(`{"type":"item_reference","id":"x"}`), nil
	}})
	var me *mapping.Error
	if !errors.As(err, &me) || me.Param != "input[0].id" {
		t.Errorf("got %v, want an error at input[0].id", err)
	}
}

func readCase(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + "/request.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// OpenCalls lets the input end with calls that have no output yet (what a
// stored conversation holds between turns); a call without output before
// later input stays refused.
func TestOpenCalls(t *testing.T) {
	ends := `{"model":"m","input":[{"role":"user","content":"weather?"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]}`
	if _, _, err := mapping.ResponsesToChat([]byte(ends), mapping.Options{}); err == nil {
		t.Fatal("a call without output was accepted without OpenCalls")
	}
	out, _, err := mapping.ResponsesToChat([]byte(ends), mapping.Options{OpenCalls: true})
	if err != nil || !strings.Contains(string(out), `"tool_calls"`) || strings.Contains(string(out), `"role":"tool"`) {
		t.Fatalf("with OpenCalls: %s %v", out, err)
	}
	later := `{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"role":"user","content":"and?"}]}`
	if _, _, err := mapping.ResponsesToChat([]byte(later), mapping.Options{OpenCalls: true}); err == nil || !strings.Contains(err.Error(), "No tool output found") {
		t.Fatalf("a call left open before later input: %v", err)
	}
}
