package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
	"github.com/transponder-dev/transponder/runtime/translate"
)

// The secrets of the test: each has a first 8 bytes of its own, which no
// answer, log line or metric has unless the secret leaked.
const (
	keyA     = "gwAlpha7Qz9xK2mP4vL8"          // tenant a's gateway key
	keyB     = "gwBravo3Tn6yH1cR5wJ0"          // tenant b's
	upKey    = "sk-or-v1-upst9f8e7d6c5b4a3928" // the operator's upstream key
	passKey1 = "sk-or-v1-pass1a2b3c4d5e6f7081" // pass-through clients' keys
	passKey2 = "sk-pt2-7c6b5a4938271605"
	wrongKey = "wrongKey-5d4c3b2a1908" // a key no gateway has
)

// echoUpstream is a chat and Responses upstream whose errors quote the
// key it was sent, as real providers' do: whole (#401), cut (#429), in
// OpenRouter's metadata.raw (#500), in a page (#html), mid-stream
// (#midstream). Otherwise it answers as the recorder (chat) or the
// replay (Responses).
type echoUpstream struct {
	chat *recorder
	resp *responsesReplay
}

func (u *echoUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	auth := r.Header.Get("Authorization")
	key, _ := strings.CutPrefix(auth, "Bearer ")
	for _, c := range []struct {
		tag    string
		status int
		body   string
	}{
		{"#401", 401, `{"error":{"message":` + jsonString("Incorrect API key provided: "+auth+". You can find your API key at https://platform.openai.com/account/api-keys.") + `,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		{"#429", 429, `{"error":{"message":` + jsonString("Rate limit reached for key "+key[:min(len(key), 12)]+"… on requests per min") + `,"code":429}}`},
		{"#500", 500, `{"error":{"message":"Provider returned error","code":500,"metadata":{"raw":` + jsonString(`{"error":{"message":"the provider got key `+key+`"}}`) + `,"provider_name":"X"}}}`},
		{"#html", 502, "<html><body>bad gateway for " + auth + "</body></html>"},
	} {
		if bytes.Contains(b, []byte(c.tag)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
			return
		}
	}
	if bytes.Contains(b, []byte("#midstream")) && strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "text/event-stream")
		evs := u.resp.events("azure-text.1")
		for _, e := range evs[:len(evs)-1] {
			_, _ = io.WriteString(w, "data: "+string(e)+"\n\n")
		}
		_, _ = io.WriteString(w, "event: error\ndata: "+`{"type":"error","code":"server_error","param":null,"sequence_number":99,"message":`+jsonString("the provider dropped the stream of key "+key)+"}\n\n")
		return
	}
	if bytes.Contains(b, []byte("#midstream")) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+textChunk("Hel")+"\n\ndata: "+`{"error":{"code":500,"message":`+jsonString("the provider dropped the stream of key "+key)+`}}`+"\n\n")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	if strings.HasSuffix(r.URL.Path, "/responses") {
		u.resp.ServeHTTP(w, r)
		return
	}
	u.chat.ServeHTTP(w, r)
}

// exchanges keeps every answer's status line, headers and body.
type exchanges struct {
	t  *testing.T
	mu sync.Mutex
	b  strings.Builder
}

func (x *exchanges) do(method, url, auth, body string) (*http.Response, []byte) {
	x.t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		x.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.b.WriteString(resp.Status + "\n")
	for k, vs := range resp.Header {
		x.b.WriteString(k + ": " + strings.Join(vs, ", ") + "\n")
	}
	x.b.Write(b)
	x.b.WriteString("\n\n")
	return resp, b
}

// drive runs what a gateway serves with the bearer auth: answers
// (streamed and not, both routes), the upstream's echoing errors, stored
// routes. It checks what it can of each answer; it returns the upstream
// 401's relayed message.
func drive(t *testing.T, x *exchanges, url, auth string) string {
	t.Helper()
	resp, b := x.do("POST", url+"/v1/responses", auth, `{"model":"m","input":"hi"}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var r struct{ ID string }
	_ = json.Unmarshal(b, &r)
	resp, b = x.do("POST", url+"/v1/responses", auth, `{"model":"m","input":"hi","stream":true}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	checkStream(t, b, "response.completed", `"status":"completed"`)
	for _, route := range []string{"/v1/responses/" + r.ID, "/v1/responses/" + r.ID + "/input_items", "/v1/responses/resp_missing"} {
		x.do("GET", url+route, auth, "")
	}
	_, b = x.do("POST", url+"/v1/conversations", auth, `{"metadata":{"k":"v"}}`)
	var c struct{ ID string }
	_ = json.Unmarshal(b, &c)
	x.do("GET", url+"/v1/conversations/"+c.ID, auth, "")
	x.do("DELETE", url+"/v1/responses/"+r.ID, auth, "")
	chat := `{"model":"m","messages":[{"role":"user","content":"#rec:azure-text.1"}]`
	for _, body := range []string{chat + `}`, chat + `,"stream":true}`} {
		if resp, b := x.do("POST", url+"/v1/chat/completions", auth, body); resp.StatusCode != 200 {
			t.Fatalf("chat: %d %s", resp.StatusCode, b)
		}
	}
	var relayed string
	for _, tag := range []string{"#401", "#429", "#500", "#html"} {
		for _, stream := range []string{"false", "true"} {
			resp, b := x.do("POST", url+"/v1/responses", auth, `{"model":"m","input":"`+tag+`","stream":`+stream+`}`)
			if resp.StatusCode < 400 {
				t.Errorf("%s: %d %s", tag, resp.StatusCode, b)
			}
			if tag == "#401" {
				var e struct{ Error struct{ Message string } }
				_ = json.Unmarshal(b, &e)
				relayed = e.Error.Message
			}
			if resp, b := x.do("POST", url+"/v1/chat/completions", auth, `{"model":"m","stream":`+stream+`,"messages":[{"role":"user","content":"`+tag+`"}]}`); resp.StatusCode < 400 {
				t.Errorf("chat %s: %d %s", tag, resp.StatusCode, b)
			}
		}
	}
	resp, b = x.do("POST", url+"/v1/responses", auth, `{"model":"m","input":"#midstream","stream":true}`)
	if resp.StatusCode != 200 {
		t.Fatalf("midstream: %d %s", resp.StatusCode, b)
	}
	checkStream(t, b, "response.failed", `"message":"the provider dropped the stream of key ***"`)
	resp, b = x.do("POST", url+"/v1/chat/completions", auth, `{"model":"m","stream":true,"messages":[{"role":"user","content":"#midstream"}]}`)
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"message":"the provider dropped the stream of key ***"`)) {
		t.Errorf("chat midstream: %d %s", resp.StatusCode, b)
	}
	return relayed
}

// Keys and bearers never appear in the log (at debug), the metrics, or
// any answer's headers or body: after answers, stored routes, both
// routes' upstream errors that quote the key they got (masked), wrong and
// near-miss keys, rate-limited answers, on a gateway with keys and one
// passing bearers through.
func TestSecretsNeverLeak(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), &slog.HandlerOptions{Level: slog.LevelDebug}))
	x := &exchanges{t: t}
	var metrics []string
	gw := func(cfg gateway.Config) string {
		up := httptest.NewServer(&echoUpstream{chat: &recorder{}, resp: newResponsesReplay(t)})
		t.Cleanup(up.Close)
		cfg.Upstream.BaseURL, cfg.Log, cfg.IDs = up.URL+"/api/v1", logger, &translate.SeqIDs{}
		cfg.ResponsesUpstream = gateway.Upstream{BaseURL: up.URL + "/v1", Dialect: mapping.OpenAI} // no key: the client's bearer goes on
		cfg.Store = openStore(t, store.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "store.db")})
		s := httptest.NewServer(gateway.New(cfg))
		t.Cleanup(s.Close)
		return s.URL
	}

	keyed := gw(gateway.Config{
		Upstream: gateway.Upstream{APIKey: upKey},
		Keys:     []gateway.Key{{Tenant: "a", Key: keyA}, {Tenant: "b", Key: keyB}},
		Limits:   []gateway.TenantLimits{{Tenant: "b", RPM: 1, MaxStreams: 1}},
	})
	if got := drive(t, x, keyed, "Bearer "+keyA); got != "Incorrect API key provided: Bearer ***. You can find your API key at https://platform.openai.com/account/api-keys." {
		t.Errorf("the upstream's 401, relayed: %q", got)
	}
	for _, auth := range []string{"", "Bearer ", "Bearer " + wrongKey, "Bearer " + keyA[:len(keyA)-1], "Bearer " + keyA + "0", "Basic " + keyA, "bearer " + keyA, "Bearer " + strings.ToLower(keyA)} {
		if resp, b := x.do("POST", keyed+"/v1/responses", auth, `{"model":"m","input":"hi"}`); resp.StatusCode != 401 {
			t.Errorf("%q: %d %s", auth, resp.StatusCode, b)
		}
		x.do("GET", keyed+"/v1/responses/resp_1", auth, "")
	}
	for i := range 2 {
		if resp, b := x.do("POST", keyed+"/v1/responses", "Bearer "+keyB, `{"model":"m","input":"hi"}`); (resp.StatusCode == 429) != (i == 1) {
			t.Errorf("tenant b, request %d: %d %s", i+1, resp.StatusCode, b)
		}
	}

	passed := gw(gateway.Config{PassThrough: true, Limits: []gateway.TenantLimits{{Tenant: "passthrough", TPM: 1000}}})
	if got := drive(t, x, passed, "Bearer "+passKey1); got != "Incorrect API key provided: Bearer ***. You can find your API key at https://platform.openai.com/account/api-keys." {
		t.Errorf("pass-through: the upstream's 401, relayed: %q", got)
	}
	x.do("GET", passed+"/v1/responses/resp_1", "Bearer "+passKey2, "")
	x.do("POST", passed+"/v1/responses", "", `{"model":"m","input":"hi"}`)

	for _, u := range []string{keyed, passed} {
		metrics = append(metrics, scrape(t, u))
	}
	mu.Lock()
	defer mu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if !strings.Contains(metrics[0], `transponder_errors_total{kind="rate_limited"} 1`) || !strings.Contains(metrics[0], `transponder_errors_total{kind="upstream_401"}`) {
		t.Errorf("the run did not do what it checks: %s", grepLines(metrics[0], "transponder_errors_total"))
	}
	for _, sec := range []string{keyA, keyB, upKey, passKey1, passKey2, wrongKey} {
		for what, text := range map[string]string{"log": logs.String(), "metrics": strings.Join(metrics, "\n"), "answers": x.b.String()} {
			// Any 8 bytes of it, not only its head: a masked prefix
			// would not hide a tail.
			for j := 0; j+8 <= len(sec); j++ {
				if i := strings.Index(text, sec[j:j+8]); i >= 0 {
					t.Errorf("the %s have 8 bytes of the secret (%s): %q", what, sec[j:j+8], text[max(0, i-200):min(len(text), i+60)])
					break
				}
			}
		}
	}
}
