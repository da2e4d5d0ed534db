package reverse

// The reverse answer's mapping, mapping/responses_chat_answer.yaml, is
// declared only (converter: none): nothing is generated from it, so these
// tests hold it to what this package does.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/generator"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/mapping"
)

const declaredFile = "mapping/responses_chat_answer.yaml"

func declared(t *testing.T) *generator.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(declaredFile)))
	if err != nil {
		t.Fatal(err)
	}
	f, errs := generator.Load(declaredFile, data)
	if errs != nil {
		t.Fatal(errs)
	}
	if !f.Declared() {
		t.Fatalf("%s: not converter: none (a generated converter needs no agreement test)", declaredFile)
	}
	return f
}

// everyItem is a Response with every output item, annotation and top-level
// field the mapping has a map, lossy or drop entry for (what the corpus
// lacks): its input, not its expected output.
const everyItem = `{"id":"resp_1","object":"response","created_at":1,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},
"model":"gpt-x","service_tier":"flex","moderation":{"input":{"type":"moderation_result","flagged":false,"model":"omni"}},
"output":[
{"type":"reasoning","id":"rs_1","status":"completed","summary":[{"type":"summary_text","text":"S"}],"content":[{"type":"reasoning_text","text":"R"}],"encrypted_content":"gAAA"},
{"type":"message","id":"msg_1","role":"assistant","status":"completed","phase":"commentary","content":[
 {"type":"output_text","text":"Hi","logprobs":[{"token":"Hi","logprob":-0.1,"bytes":[72,105],"top_logprobs":[]}],"annotations":[
  {"type":"url_citation","url":"https://x.test","title":"X","start_index":0,"end_index":2},
  {"type":"file_citation","file_id":"file_1","filename":"a.txt","index":0},
  {"type":"container_file_citation","container_id":"cntr_1","file_id":"file_2","filename":"b.txt","start_index":0,"end_index":1},
  {"type":"file_path","file_id":"file_3","index":0}]},
 {"type":"refusal","refusal":"no"}]},
{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"a\":1}","status":"completed"},
{"type":"custom_tool_call","id":"ct_1","call_id":"call_2","name":"c","input":"some \"text\""},
{"type":"apply_patch_call","id":"ap_1","call_id":"call_3","status":"completed","operation":{"type":"delete_file","path":"a.txt"}},
{"type":"shell_call","id":"sh_1","call_id":"call_4","status":"completed","action":{"commands":["ls"]},"environment":{"type":"local"}},
{"type":"local_shell_call","id":"ls_1","call_id":"call_5","status":"completed","action":{"type":"exec","command":["ls"],"env":{}}},
{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}},
{"type":"file_search_call","id":"fs_1","status":"completed","queries":["q"],"results":null},
{"type":"code_interpreter_call","id":"ci_1","status":"completed","code":"print(1)","container_id":"cntr_1","outputs":[]},
{"type":"image_generation_call","id":"ig_1","status":"completed","result":"AAAA"},
{"type":"computer_call","id":"cu_1","call_id":"call_6","status":"completed","action":{"type":"screenshot"},"pending_safety_checks":[]},
{"type":"mcp_call","id":"mc_1","server_label":"s","name":"n","arguments":"{}"},
{"type":"mcp_list_tools","id":"ml_1","server_label":"s","tools":[]},
{"type":"mcp_approval_request","id":"ma_1","server_label":"s","name":"n","arguments":"{}"},
{"type":"tool_search_call","id":"ts_1","call_id":"call_7","arguments":{},"execution":"client","status":"completed"},
{"type":"tool_search_output","id":"to_1","call_id":"call_7","tools":[],"execution":"client","status":"completed"},
{"type":"additional_tools","id":"at_1","role":"developer","tools":[]},
{"type":"compaction","id":"cp_1","encrypted_content":"x"},
{"type":"program","id":"pg_1","call_id":"call_8","code":"x","fingerprint":"f"},
{"type":"function_call_output","id":"fo_1","call_id":"call_1","output":"r"},
{"type":"custom_tool_call_output","id":"co_1","call_id":"call_2","output":"r"},
{"type":"apply_patch_call_output","id":"ao_1","call_id":"call_3","status":"completed","output":"r"},
{"type":"shell_call_output","id":"so_1","call_id":"call_4","output":[]},
{"type":"local_shell_call_output","id":"lo_1","output":"r"},
{"type":"computer_call_output","id":"uo_1","call_id":"call_6","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AAAA"}},
{"type":"mcp_approval_response","id":"mr_1","approval_request_id":"ma_1","approve":true},
{"type":"program_output","id":"po_1","call_id":"call_8","result":"r"}],
"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4,"cache_write_tokens":2},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":17}}`

// answerInputs are the Responses to check the mapping with: the recorded
// ones (responses-json), the terminal Response of every recorded stream,
// and everyItem.
func answerInputs(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{"everyItem": []byte(everyItem)}
	shared := fixtures.SharedDir(filepath.Join("..", ".."))
	bodies, _ := filepath.Glob(filepath.Join(shared, "corpus", "responses-json", "*.json"))
	for _, f := range bodies {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = data
	}
	streams, _ := filepath.Glob(filepath.Join(corpusDir(t), "*.jsonl"))
	for _, f := range streams {
		for _, e := range events(t, f) {
			var head struct {
				Type     string
				Response json.RawMessage
			}
			if json.Unmarshal(e, &head) == nil && (head.Type == "response.completed" || head.Type == "response.incomplete") {
				out[filepath.Base(f)+" (terminal)"] = head.Response
			}
		}
	}
	if len(bodies) == 0 || len(streams) == 0 {
		t.Fatalf("no recorded Responses (%d) or streams (%d)", len(bodies), len(streams))
	}
	return out
}

// found is a value at a wire path, with its concrete path (indexes
// instead of [] and selectors).
type found struct {
	path string
	v    any
}

// at lists the values at a wire path of the mapping format (keys, [] for
// each element, {variant} for an element of that type, or of that JSON
// kind for a union of kinds).
func at(v any, path string) []found {
	cur := []found{{"", v}}
	for _, step := range codec.SplitPath(path) {
		key, sels := step, ""
		if j := strings.IndexAny(step, "[{"); j >= 0 {
			key, sels = step[:j], step[j:]
		}
		var next []found
		for _, c := range cur {
			if key == "" {
				next = append(next, c)
				continue
			}
			if m, ok := c.v.(map[string]any); ok {
				if x, ok := m[key]; ok {
					p := key
					if c.path != "" {
						p = c.path + "." + key
					}
					next = append(next, found{p, x})
				}
			}
		}
		for sels != "" {
			var sel []found
			if strings.HasPrefix(sels, "[]") {
				for _, c := range next {
					a, _ := c.v.([]any)
					for i, e := range a {
						sel = append(sel, found{c.path + "[" + strconv.Itoa(i) + "]", e})
					}
				}
				sels = sels[2:]
			} else {
				end := strings.IndexByte(sels, '}')
				name := sels[1:end]
				for _, c := range next {
					if isVariant(c.v, name) {
						sel = append(sel, c)
					}
				}
				sels = sels[end+1:]
			}
			next = sel
		}
		cur = next
	}
	return cur
}

func isVariant(v any, name string) bool {
	switch name {
	case "string":
		_, ok := v.(string)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	m, ok := v.(map[string]any)
	return ok && m["type"] == name
}

// carries reports whether a value says something (not null, "", 0,
// false, [] or {}), as the forward converters' drops warn.
func carries(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// under reports whether concrete path p is at or below q.
func under(p, q string) bool {
	return strings.HasPrefix(p, q) && (len(p) == len(q) || p[len(q)] == '.' || p[len(q)] == '[')
}

// TestPinnedSpecDeclaredComplete: responses_chat_answer.yaml has an entry
// for every field and variant of the pinned spec's Response and an events:
// entry for every type of its stream event union (go generate does not
// require it of a declared file: a spec update's new field is the
// matrix's unmapped row, and this test's failure under the pinned specs).
func TestPinnedSpecDeclaredComplete(t *testing.T) {
	f := declared(t)
	if _, errs := generator.Validate(f, nil, true); errs != nil {
		t.Errorf("%s does not cover the pinned spec: %v", declaredFile, errs)
	}
	ev, _ := codec.OpenAI.Payload(codec.ResponsesEvent)
	byType := map[string]generator.Event{}
	for _, e := range f.Events {
		byType[e.Type] = e
	}
	for v := range ev.Schema().Variants() {
		if _, ok := byType[v.Value]; !ok {
			t.Errorf("%s: no events: entry for %s", declaredFile, v.Value)
		}
	}
}

// TestDeclaredAnswer: over the recorded Responses, the terminal Response
// of every recorded stream and a Response with every item, each map and
// lossy entry of responses_chat_answer.yaml whose source carries something
// produces its target in ResponseToChat's chat completion (for both
// target dialects: the runtime writes one completion for either), each
// drop entry present gives a warning at or above its path, and every
// warning is a drop entry's. Each map, lossy and drop entry is seen at
// least once.
func TestDeclaredAnswer(t *testing.T) {
	f := declared(t)
	seen := map[string]bool{}
	inputs := answerInputs(t)
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			out, warns, err := ResponseToChat(inputs[name], opts())
			if err != nil {
				t.Fatal(err)
			}
			var resp, chat any
			if err := json.Unmarshal(inputs[name], &resp); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &chat); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			explained := make([]bool, len(warns))
			for _, e := range f.Entries {
				var present []found
				for _, v := range at(resp, e.Path) {
					if carries(v.v) {
						present = append(present, v)
					}
				}
				if len(present) == 0 {
					continue
				}
				for _, d := range f.To {
					r, _ := e.RuleFor(d.Dialect)
					switch r.Kind {
					case generator.Map, generator.Lossy:
						seen[e.Path] = true
						if !slices.ContainsFunc(at(chat, r.Target), func(v found) bool { return carries(v.v) }) {
							t.Errorf("%s:%d: %s (%s) → %s %s: the chat completion has none:\n%s", declaredFile, r.Line, e.Path, present[0].path, d.Dialect, r.Target, out)
						}
					case generator.Drop:
						seen[e.Path] = true
						for _, p := range present {
							i := slices.IndexFunc(warns, func(w mapping.Warning) bool { return under(p.path, w.Path) })
							if i < 0 {
								t.Errorf("%s:%d: %s dropped, but %s gives no warning (warnings %v)", declaredFile, r.Line, e.Path, p.path, warns)
								continue
							}
							for j, w := range warns {
								if under(p.path, w.Path) {
									explained[j] = true
								}
							}
						}
					}
				}
			}
			for i, w := range warns {
				if !explained[i] {
					t.Errorf("warning %s (%s): no drop entry of %s says so", w.Path, w.Reason, declaredFile)
				}
			}
		})
	}
	for _, e := range f.Entries {
		r, _ := e.RuleFor(f.To[0].Dialect)
		if r.Kind != generator.Gateway && !seen[e.Path] {
			t.Errorf("%s:%d: %s (%s) is in none of the Responses checked: add it to everyItem", declaredFile, e.Line, e.Path, r.Kind)
		}
	}
}

// readEvent is an event of type typ with every member the parser reads,
// about output item 0 (an item of the kind its type speaks of, item), and
// the events that put the parser where typ comes: the response begun and
// the item added.
func readEvent(typ string) (prefix []string, event string) {
	items := map[string]string{
		"message":   `{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}`,
		"reasoning": `{"type":"reasoning","id":"rs_1","summary":[]}`,
		"function":  `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"","status":"in_progress"}`,
		"custom":    `{"type":"custom_tool_call","id":"ct_1","call_id":"call_2","name":"c","input":""}`,
		"done":      `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"x","annotations":[]}]}`,
	}
	ctx := ""
	switch {
	case strings.Contains(typ, "output_text"), strings.Contains(typ, "refusal"), strings.Contains(typ, "content_part"):
		ctx = "message"
	case strings.Contains(typ, "reasoning"):
		ctx = "reasoning"
	case strings.Contains(typ, "function_call_arguments"):
		ctx = "function"
	case strings.Contains(typ, "custom_tool_call_input"):
		ctx = "custom"
	}
	item := items[ctx]
	switch typ {
	case "response.output_item.added":
		item = items["function"]
	case "response.output_item.done":
		item = items["done"]
	}
	if item == "" {
		item = items["message"]
	}
	created := `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"m","status":"in_progress","output":[]}}`
	switch typ {
	case "response.created", "response.in_progress", "response.queued":
	default:
		prefix = append(prefix, created)
	}
	if ctx != "" {
		prefix = append(prefix, `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":`+items[ctx]+`}`)
	}
	if typ == "response.reasoning_summary_part.done" {
		prefix = append(prefix, `{"type":"response.reasoning_summary_part.added","sequence_number":2,"output_index":0,"item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":""}}`)
	}
	status := strings.TrimPrefix(typ, "response.")
	index := `"content_index":0`
	if strings.Contains(typ, "summary") {
		index = `"summary_index":0`
	}
	event = `{"type":"` + typ + `","sequence_number":3,"output_index":0,"item_id":"` + itemID(item) + `",` + index +
		`,"delta":"x","text":"x","arguments":"{}","input":"x","refusal":"x","logprobs":[]` +
		`,"annotation":{"type":"url_citation","url":"https://x.test","title":"X","start_index":0,"end_index":1}` +
		`,"part":{"type":"output_text","text":"x","annotations":[]},"item":` + item +
		`,"response":{"id":"resp_1","model":"m","status":"` + status + `","output":[],"error":{"code":"server_error","message":"m"},"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}` +
		`,"code":"server_error","message":"m","param":null}`
	return prefix, event
}

func itemID(item string) string {
	var v struct{ ID string }
	_ = json.Unmarshal([]byte(item), &v)
	return v.ID
}

// TestDeclaredEvents: the parser makes parts of each type marked read (in the place its type speaks of) and
// none of each type marked ignore (in any place), and removing the ignored
// events from every recorded stream changes no chat chunk or warning.
func TestDeclaredEvents(t *testing.T) {
	f := declared(t)
	ignored := map[string]bool{}
	for _, e := range f.Events {
		switch {
		case e.Read != "":
			prefix, event := readEvent(e.Type)
			var p Parser
			for _, x := range prefix {
				p.Next([]byte(x))
			}
			if parts := p.Next([]byte(event)); len(parts) == 0 {
				t.Errorf("%s:%d: %s is read (%s), but the parser makes nothing of it after %d events", declaredFile, e.Line, e.Type, e.Read, len(prefix))
			}
		case e.Ignore != "":
			ignored[e.Type] = true
			_, event := readEvent(e.Type)
			for _, ctx := range []string{"response.created", "response.reasoning_summary_part.done", "response.output_text.delta", "response.reasoning_text.delta", "response.function_call_arguments.delta", "response.custom_tool_call_input.delta"} {
				prefix, _ := readEvent(ctx)
				var p Parser
				for _, x := range prefix {
					p.Next([]byte(x))
				}
				if parts := p.Next([]byte(event)); len(parts) != 0 {
					t.Errorf("%s:%d: %s is ignored (%s), but after %d events the parser makes %s", declaredFile, e.Line, e.Type, e.Ignore, len(prefix), dump(parts))
				}
			}
		default:
			t.Errorf("%s:%d: %s: neither read nor ignore", declaredFile, e.Line, e.Type)
		}
	}
	streams, _ := filepath.Glob(filepath.Join(corpusDir(t), "*.jsonl"))
	skipped := 0
	for _, s := range streams {
		all := events(t, s)
		var kept [][]byte
		for _, e := range all {
			var head struct{ Type string }
			_ = json.Unmarshal(e, &head)
			if ignored[head.Type] {
				skipped++
				continue
			}
			kept = append(kept, e)
		}
		a, ca := chat(all)
		b, cb := chat(kept)
		wa, _ := json.Marshal(ca.Warnings())
		wb, _ := json.Marshal(cb.Warnings())
		if string(a) != string(b) || string(wa) != string(wb) {
			t.Errorf("%s: without its ignored events the chat stream differs:\n%s\n%s\nvs\n%s\n%s", filepath.Base(s), a, wa, b, wb)
		}
	}
	if skipped == 0 {
		t.Error("no recorded stream has an ignored event")
	}
}
