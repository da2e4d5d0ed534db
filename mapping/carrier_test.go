package mapping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// idsRequest is a Responses request whose history has, in order, a call
// and its output for each call_id.
func idsRequest(ids ...string) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"m","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}}}],"input":[{"role":"user","content":"go"}`)
	for _, id := range ids {
		q, _ := json.Marshal(id)
		fmt.Fprintf(&b, `,{"type":"function_call","call_id":%s,"name":"f","arguments":"{}"},{"type":"function_call_output","call_id":%s,"output":"ok"}`, q, q)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// upstreamIDs converts body to d and returns, in order, the ids of the
// tool calls and the tool_call_ids of the tool messages.
func upstreamIDs(t *testing.T, body []byte, d Dialect) (calls, outputs []string, out []byte) {
	t.Helper()
	out, _, err := ResponsesToChat(body, Options{Dialect: d})
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &req); err != nil {
		t.Fatalf("%s: %v\n%s", d, err, out)
	}
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.ID)
		}
		if m.Role == "tool" {
			outputs = append(outputs, m.ToolCallID)
		}
	}
	return calls, outputs, out
}

// Mistral's ids: each call and its output go with one id of 9 letters
// and digits, no two calls share one, the ids that fit pass unchanged,
// and the same request converts to the same bytes.
func TestMistralCallIDs(t *testing.T) {
	foreign := []string{
		"call_HkqzyQeJ2h0Ww8WJ9Ewz3Atn", // OpenAI's
		"toolu_01A09q90qw90lq917835lq9", // Anthropic's
		"fc_1",
		"abcdefgh",   // 8
		"abcdefghij", // 10
		"abcd-efgh",  // 9, not alnum
		"é1234567",   // 9 bytes, not ASCII
	}
	own := []string{"D681PevKs", "a1b2c3d4e", "ZZZZZZZZZ"}
	ids := append(append([]string(nil), foreign...), own...)
	body := idsRequest(ids...)
	calls, outputs, out := upstreamIDs(t, body, Mistral)
	if len(calls) != len(ids) || len(outputs) != len(ids) {
		t.Fatalf("%d calls and %d outputs, want %d of each:\n%s", len(calls), len(outputs), len(ids), out)
	}
	seen := map[string]string{}
	for i, id := range ids {
		up := calls[i]
		if outputs[i] != up {
			t.Errorf("%q: the call goes as %q, its output as %q", id, up, outputs[i])
		}
		if !fitsID(up, 9) {
			t.Errorf("%q goes as %q, not 9 letters and digits", id, up)
		}
		if fitsID(id, 9) && up != id {
			t.Errorf("%q fits and goes as %q", id, up)
		}
		if prev, ok := seen[up]; ok {
			t.Errorf("%q and %q both go as %q", prev, id, up)
		}
		seen[up] = id
	}
	for range 3 {
		if again, _, _ := ResponsesToChat(body, Options{Dialect: Mistral}); !bytes.Equal(again, out) {
			t.Fatalf("the same request converts differently:\n%s\n%s", out, again)
		}
	}
	// A Converter reused (its maps kept) converts as a new one does.
	var cv Converter
	for range 2 {
		if again, _, _ := cv.ResponsesToChat(nil, body, Options{Dialect: Mistral}); !bytes.Equal(again, out) {
			t.Fatalf("a reused converter converts differently:\n%s\n%s", out, again)
		}
	}
}

// A rewrite never takes an id that fits and is sent in the same request,
// before it or after it: the fitting id is the provider's and passes
// unchanged; the rewrite takes the next salt.
func TestMistralCallIDRewriteAvoidsFittingIDs(t *testing.T) {
	const foreign = "call_HkqzyQeJ2h0Ww8WJ9Ewz3Atn"
	first := shortID(foreign, 0, 9) // the rewrite it would get alone
	if !fitsID(first, 9) {
		t.Fatalf("shortID gave %q", first)
	}
	for _, tc := range []struct {
		name string
		ids  []string
	}{
		{"fitting id earlier", []string{first, foreign}},
		{"fitting id later", []string{foreign, first}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, outputs, out := upstreamIDs(t, idsRequest(tc.ids...), Mistral)
			got := map[string]string{}
			for i, id := range tc.ids {
				if calls[i] != outputs[i] {
					t.Errorf("%q: the call goes as %q, its output as %q", id, calls[i], outputs[i])
				}
				got[id] = calls[i]
			}
			if got[first] != first {
				t.Errorf("the fitting id %q goes as %q:\n%s", first, got[first], out)
			}
			if want := shortID(foreign, 1, 9); got[foreign] != want {
				t.Errorf("%q goes as %q, want the next salt's %q:\n%s", foreign, got[foreign], want, out)
			}
		})
	}
}

// shortID's salts give different ids, so the rewrite loop ends.
func TestShortIDSalts(t *testing.T) {
	seen := map[string]int{}
	for salt := range 1000 {
		s := shortID("call_x", salt, 9)
		if !fitsID(s, 9) {
			t.Fatalf("salt %d: %q", salt, s)
		}
		if prev, ok := seen[s]; ok {
			t.Fatalf("salts %d and %d both give %q", prev, salt, s)
		}
		seen[s] = salt
	}
	// Many foreign ids, no two rewritten alike.
	ids := make([]string, 500)
	for i := range ids {
		ids[i] = fmt.Sprintf("call_%d", i)
	}
	calls, _, _ := upstreamIDs(t, idsRequest(ids...), Mistral)
	up := map[string]bool{}
	for _, c := range calls {
		if up[c] {
			t.Fatalf("%q given twice", c)
		}
		up[c] = true
	}
}

// The other dialects (OpenRouter, OpenAI, DeepSeek, …) send the ids as
// the client did.
func TestCallIDsUntouched(t *testing.T) {
	ids := []string{"call_HkqzyQeJ2h0Ww8WJ9Ewz3Atn", "fc_1", "D681PevKs", "abcd-efgh"}
	for d := range Dialect(len(dialects)) {
		if d == Mistral {
			continue
		}
		calls, outputs, out := upstreamIDs(t, idsRequest(ids...), d)
		for i, id := range ids {
			if calls[i] != id || outputs[i] != id {
				t.Errorf("%s: %q goes as %q (call) and %q (output):\n%s", d, id, calls[i], outputs[i], out)
			}
		}
	}
}
