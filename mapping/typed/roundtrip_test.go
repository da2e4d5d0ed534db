package typed_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/gen/openai"
	"github.com/transponder-dev/transponder/gen/openrouter"
	"github.com/transponder-dev/transponder/internal/fixtures"
	"github.com/transponder-dev/transponder/internal/jsontest"
)

type ogenCodec[T any] interface {
	*T
	UnmarshalJSON([]byte) error
	MarshalJSON() ([]byte, error)
}

// roundTrip decodes data into a T, encodes it, and encodes it again: the
// two encodings must be the same bytes.
func roundTrip[T any, P ogenCodec[T]](t *testing.T, data []byte) []byte {
	t.Helper()
	var v T
	if err := P(&v).UnmarshalJSON(data); err != nil {
		t.Fatalf("decode: %v\n%s", err, data)
	}
	out, err := P(&v).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	again, err := P(&v).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(out) {
		t.Fatalf("encoding twice gave different bytes:\n%s\n%s", out, again)
	}
	return out
}

func sameJSON(t *testing.T, want, got []byte) {
	t.Helper()
	d, err := jsontest.Diff(want, got)
	if err != nil {
		t.Fatal(err)
	}
	if d != "" {
		t.Errorf("re-encoded JSON differs: %s\n in: %s\nout: %s", d, want, got)
	}
}

// Keys the spec does not declare survive a typed round trip at every depth:
// the request, an input message and its content part, a function_call item,
// a function tool, reasoning, text.format; a Response, its output items,
// their content and usage. Values are carried as the bytes that came.
func TestUnknownFieldsSurvive(t *testing.T) {
	req := `{"model":"m","foo_unknown":{"a":1},"zz_last":[1,{"b":null}],` +
		`"input":[` +
		`{"type":"message","role":"user","x_msg":true,"content":[{"type":"input_text","text":"hi","x_part":{"deep":{"deeper":[1,2]}}}]},` +
		`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}","x_fc":{"b":[1,2]}},` +
		`{"type":"function_call_output","call_id":"c1","output":"ok","x_out":"v"}],` +
		`"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"strict":true,"x_tool":"v"},{"type":"web_search","x_ws":1}],` +
		`"reasoning":{"effort":"low","x_r":1},` +
		`"text":{"format":{"type":"json_schema","name":"n","schema":{"type":"object"},"x_fmt":2},"x_text":3}}`
	sameJSON(t, []byte(req), roundTrip[openai.CreateResponse](t, []byte(req)))

	resp := `{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","x_billing":{"payer":"me"},` +
		`"output":[` +
		`{"type":"message","id":"msg_1","role":"assistant","status":"completed","x_item":1,"content":[{"type":"output_text","text":"hi","annotations":[],"logprobs":[],"x_ct":[true]}]},` +
		`{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}","status":"completed","x_fc":"z"},` +
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"s","x_sum":0}],"x_rs":{}}],` +
		`"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3,"cost":0.5,"input_tokens_details":{"cached_tokens":0,"x_d":1},"output_tokens_details":{"reasoning_tokens":0}}}`
	sameJSON(t, []byte(resp), roundTrip[openai.Response](t, []byte(resp)))

	// The undeclared keys follow the declared ones, in sorted order.
	out := string(roundTrip[openai.CreateResponse](t, []byte(`{"zeta":1,"model":"m","alpha":2}`)))
	if want := `{"model":"m","alpha":2,"zeta":1}`; out != want {
		t.Errorf("got %s, want %s", out, want)
	}

	// A message without "type" decodes as the message variant; the union's
	// encoder writes the discriminator (known) and nothing else changes.
	in := `{"model":"m","input":[{"role":"user","content":"hi","x":{"y":1}}]}`
	d, err := jsontest.Diff([]byte(in), roundTrip[openai.CreateResponse](t, []byte(in)))
	if err != nil || d != "$.input[0].type: added" {
		t.Errorf("type-less message: %q %v", d, err)
	}
}

// Every recorded Responses request and Response body decodes into the ogen
// type and re-encodes to JSON equal to it (same members and values; the
// encoder writes declared fields in ogen's order, then undeclared keys in
// sorted order), and encoding twice gives the same bytes.
func TestCorpusRoundTrip(t *testing.T) {
	dir := fixtures.SharedDir(filepath.Join("..", ".."))
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("no shared corpus at %s (set SHARED_DIR)", dir)
	}
	all, err := fixtures.Corpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range all {
		if strings.Contains(p.Name, ".part") {
			continue
		}
		switch p.Kind {
		case codec.ResponsesRequest:
			t.Run(p.Name, func(t *testing.T) { sameJSON(t, p.Data, roundTrip[openai.CreateResponse](t, p.Data)) })
		case codec.ResponsesBody:
			t.Run(p.Name, func(t *testing.T) { sameJSON(t, p.Data, roundTrip[openai.Response](t, p.Data)) })
		default:
			continue
		}
		n++
	}
	if n == 0 {
		t.Fatal("no Responses requests or bodies in the corpus")
	}
	t.Logf("%d requests and Response bodies", n)
}

// A request that lacks an array the spec requires round-trips without it,
// unless the object is one a server makes (rule required-arrays: an item of
// a Response's output, or a part of one, which a request may replay, and
// what only a server writes): that gets the array as [], as the server
// writes it — exactly that, nothing else. Request-only objects (a tool
// choice, an input message, a shell call's action) get nothing added.
func TestRequestRoundTripAddsNothing(t *testing.T) {
	cases := map[string]struct{ body, added string }{
		"chat-shaped allowed_tools tool_choice": {body: `{"model":"m","tools":[{"type":"function","name":"f","parameters":{}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"f"}}]}}}`},
		"input message without content":         {body: `{"model":"m","input":[{"type":"message","role":"user"}]}`},
		"shell call without commands":           {body: `{"model":"m","input":[{"type":"shell_call","call_id":"c","action":{}}]}`},
		// what a tool_search_output (a server's output item) carries
		"namespace tool without tools": {body: `{"model":"m","tools":[{"type":"namespace","name":"ns","description":"d"}]}`, added: "$.tools[0].tools: added"},
		"file_search tool without ids": {body: `{"model":"m","tools":[{"type":"file_search"}]}`, added: "$.tools[0].vector_store_ids: added"},
		"replayed output_text":         {body: `{"model":"m","input":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}]}`, added: "$.input[0].content[0].annotations: added; $.input[0].content[0].logprobs: added"},
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			body := []byte(c.body)
			if d, err := jsontest.Diff(body, roundTrip[openai.CreateResponse](t, body)); err != nil || d != c.added {
				t.Errorf("openai: %q %v, want %q", d, err, c.added)
			}
			if c.added == "" {
				sameJSON(t, body, roundTrip[openrouter.ResponsesRequest](t, body))
			}
		})
	}
}
