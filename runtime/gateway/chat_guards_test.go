package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// The model-aware guards on POST /v1/chat/completions: a client's model,
// renamed by Config.Reverse.Models to a reasoning model, reaches the
// Responses upstream renamed and without temperature or top_p, and the
// client is told so in the warnings header (streamed or not); a model
// without a rule keeps them.
func TestChatGuards(t *testing.T) {
	up := newResponsesReplay(t)
	rsrv := httptest.NewServer(up)
	t.Cleanup(rsrv.Close)
	s := newStack(t, http.NotFoundHandler(), gateway.Config{
		ResponsesUpstream: gateway.Upstream{BaseURL: rsrv.URL + "/v1", Dialect: mapping.OpenAI},
		Reverse:           mapping.ReverseOptions{Models: []mapping.ModelRule{{From: "thinker", To: "openai/o3"}}},
		IDs:               &translate.SeqIDs{},
	})
	for i, c := range []struct {
		model  string
		stream bool
		sent   string // the model the upstream gets
		warned bool
	}{
		{"thinker", false, "openai/o3", true},
		{"thinker", true, "openai/o3", true},
		{"o4-mini", false, "o4-mini", true},
		{"llama-3.3-70b", false, "llama-3.3-70b", false},
	} {
		body := `{"model":"` + c.model + `","stream":` + map[bool]string{true: "true", false: "false"}[c.stream] +
			`,"messages":[{"role":"user","content":"hi #rec:azure-text.1"}],"temperature":0.3,"top_p":0.5}`
		resp, err := http.Post(s.gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", c.model, resp.StatusCode, out)
		}
		reqs := up.requests()
		if len(reqs) != i+1 {
			t.Fatalf("%s: the upstream got %d requests", c.model, len(reqs))
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(reqs[i], &got); err != nil {
			t.Fatal(err)
		}
		if string(got["model"]) != `"`+c.sent+`"` {
			t.Errorf("%s: the upstream got model %s, want %s", c.model, got["model"], c.sent)
		}
		_, temp := got["temperature"]
		_, topP := got["top_p"]
		if temp == c.warned || topP == c.warned {
			t.Errorf("%s: the upstream got temperature %v, top_p %v: %s", c.model, temp, topP, reqs[i])
		}
		var warns []mapping.Warning
		if h := resp.Header.Get(gateway.WarningsHeader); h != "" {
			if err := json.Unmarshal([]byte(h), &warns); err != nil {
				t.Fatalf("%s: header %q: %v", c.model, h, err)
			}
		}
		paths := map[string]string{}
		for _, w := range warns {
			paths[w.Path] = w.Reason
		}
		for _, p := range []string{"temperature", "top_p"} {
			reason, ok := paths[p]
			if ok != c.warned || ok && !strings.Contains(reason, "guard o") {
				t.Errorf("%s: warning for %s: %q (%v), want one: %v; header %v", c.model, p, reason, ok, c.warned, warns)
			}
		}
	}
}
