package gateway_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/transponder-dev/transponder/codec/sse"
	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/gateway/replay"
)

// Every request of mapping's golden cases, sent to the gateway streamed and
// not, answered by each recording of the replay upstream: what the gateway
// emits passes the conformance checker (the Response, the stream, its
// terminal Response), and a request the mapping refuses is refused before
// the upstream is asked, with OpenAI's error shape and a 4xx, never a 5xx.
//
// A case with options.json was converted under options the gateway's
// default configuration does not set (a store for item references, the
// reject policies): only the absence of 5xx and the checker hold for it.
func TestMappingCasesConform(t *testing.T) {
	dirs, err := filepath.Glob("../../mapping/testdata/*/request.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no mapping cases (%v)", err)
	}
	recs := replay.Names()
	stacks := map[string]*stack{}
	for _, rec := range recs {
		stacks[rec] = newStack(t, replayed(t, rec), gateway.Config{})
	}
	answered := 0
	for _, path := range dirs {
		dir := filepath.Dir(path)
		name := filepath.Base(dir)
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(dir, "options.json"))
		hasOptions := statErr == nil
		wantErr, _ := os.ReadFile(filepath.Join(dir, "openrouter.error.json"))
		t.Run(name, func(t *testing.T) {
			for _, rec := range recs {
				for _, streamed := range []bool{false, true} {
					resp, out := do(t, stacks[rec].gw.URL, "", string(withStream(t, body, streamed)))
					what := rec
					if streamed {
						what += "/stream"
					}
					if resp.StatusCode >= 500 {
						t.Fatalf("%s: %d %s", what, resp.StatusCode, out)
					}
					if resp.StatusCode != 200 {
						checkRefusal(t, what, resp.StatusCode, out, wantErr, hasOptions)
						continue
					}
					if len(wantErr) > 0 && !hasOptions {
						t.Fatalf("%s: answered 200, the mapping refuses it: %s", what, wantErr)
					}
					answered++
					if !streamed {
						if fs := conformance.CheckResponse(out); conformance.Violations(fs) > 0 {
							t.Errorf("%s: the Response breaks the checker: %v", what, fs)
						}
						continue
					}
					var events [][]byte
					rd := sse.NewReader(bytes.NewReader(out))
					for rd.Next() {
						events = append(events, append([]byte(nil), rd.Event().Data...))
					}
					if fs := conformance.Check(events); conformance.Violations(fs) > 0 {
						t.Errorf("%s: the stream breaks the checker: %v", what, fs)
					}
				}
			}
		})
	}
	if answered == 0 {
		t.Fatal("no case was answered")
	}
}

// withStream sets the request's stream member (JSON that does not parse is
// sent as it is: the gateway's refusal is the point).
func withStream(t *testing.T, body []byte, stream bool) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	m["stream"] = json.RawMessage(map[bool]string{true: "true", false: "false"}[stream])
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkRefusal checks an error answer: OpenAI's shape, and the mapping's
// own error (message, param, code) where the case has one and no options.
func checkRefusal(t *testing.T, what string, status int, out, want []byte, hasOptions bool) {
	t.Helper()
	var got struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Error.Message == "" || got.Error.Type == "" {
		t.Fatalf("%s: %d, not an OpenAI error: %s", what, status, out)
	}
	if hasOptions {
		return
	}
	if len(want) == 0 {
		// What the gateway itself refuses, before the mapping: fields it
		// does not serve yet.
		if status == 400 && deref(got.Error.Code) == "unsupported_parameter" && gatewayRefuses[deref(got.Error.Param)] {
			return
		}
		t.Fatalf("%s: refused (%d %s), the mapping converts it", what, status, out)
	}
	var wrapped struct {
		Error struct {
			Message string  `json:"message"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(want, &wrapped); err != nil {
		t.Fatal(err)
	}
	w := wrapped.Error
	// A body that is not JSON is refused by the gateway before the
	// mapping sees it, in the gateway's words: its code is the mapping's.
	sameWords := deref(w.Code) == "invalid_json" || got.Error.Message == w.Message && deref(got.Error.Param) == deref(w.Param)
	if status != 400 || !sameWords || deref(got.Error.Code) != deref(w.Code) {
		t.Errorf("%s: %d %s, want 400 with %s", what, status, out, want)
	}
}

// gatewayRefuses are the request fields the gateway answers with
// unsupported_parameter itself (no store yet).
var gatewayRefuses = map[string]bool{"previous_response_id": true}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
