package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/runtime/conformance"
	"github.com/transponder-dev/transponder/runtime/gateway"
	"github.com/transponder-dev/transponder/runtime/store"
)

// answerTransport is an upstream in process (no network): every chat
// request gets a short answer, streamed when it asks for a stream.
type answerTransport struct{}

func (answerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	if bytes.Contains(body, []byte(`"stream":true`)) {
		resp.Header.Set("Content-Type", "text/event-stream")
		resp.Body = io.NopCloser(strings.NewReader("data: " + textChunk("Hi") + "\n\ndata: " + stopChunk + "\n\ndata: [DONE]\n\n"))
		return resp, nil
	}
	resp.Header.Set("Content-Type", "application/json")
	resp.Body = io.NopCloser(strings.NewReader(`{"id":"g","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`))
	return resp, nil
}

// storeRoutes are the routes that read or write the store, by the fuzz
// input's op (mod their count): method, path ({id} and {item} filled in).
var storeRoutes = []struct{ method, path string }{
	{"POST", "/v1/conversations"},
	{"GET", "/v1/conversations/{id}"},
	{"POST", "/v1/conversations/{id}"},
	{"DELETE", "/v1/conversations/{id}"},
	{"GET", "/v1/conversations/{id}/items"},
	{"POST", "/v1/conversations/{id}/items"},
	{"GET", "/v1/conversations/{id}/items/{item}"},
	{"DELETE", "/v1/conversations/{id}/items/{item}"},
	{"POST", "/v1/responses"},
	{"GET", "/v1/responses/{id}"},
	{"DELETE", "/v1/responses/{id}"},
	{"GET", "/v1/responses/{id}/input_items"},
}

// FuzzStoreInput: the store's input paths, through the gateway's routes
// (in process, over a SQLite store): ids, items, query strings and
// bodies that create, continue (previous_response_id, conversation,
// item_reference), page through, update and delete stored objects. In
// the fuzz input, $conv, $resp and $item stand for the ids of a
// conversation, a response and an item stored first, so that mutations
// reach stored objects. Whatever comes in, the answer is never a 5xx (the
// upstream always answers), its body is JSON (an OpenAI-shaped error when
// it is not a 200) or a stream that passes the conformance checker.
func FuzzStoreInput(f *testing.F) {
	st := openStore(f, store.Config{Driver: "sqlite", DSN: filepath.Join(f.TempDir(), "store.db")})
	gw := gateway.New(gateway.Config{
		Upstream: gateway.Upstream{BaseURL: "http://upstream.invalid", Client: &http.Client{Transport: answerTransport{}}},
		Store:    st,
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	do := func(method, path, query string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://gw"+path, bytes.NewReader(body))
		req.URL.RawQuery = query
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		return rec
	}
	idOf := func(rec *httptest.ResponseRecorder, path ...string) string {
		var v any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			f.Fatalf("%d %s", rec.Code, rec.Body)
		}
		for _, p := range path {
			switch x := v.(type) {
			case map[string]any:
				v = x[p]
			case []any:
				v = x[0]
			}
		}
		s, _ := v.(string)
		return s
	}
	conv := idOf(do("POST", "/v1/conversations", "", []byte(`{"metadata":{"k":"v"},"items":[{"type":"message","role":"user","content":"hello"}]}`)), "id")
	item := idOf(do("GET", "/v1/conversations/"+conv+"/items", "", nil), "data", "0", "id")
	resp := idOf(do("POST", "/v1/responses", "", []byte(`{"model":"m","input":"hi","conversation":"`+conv+`"}`)), "id")
	if conv == "" || item == "" || resp == "" {
		f.Fatalf("the stored objects the fuzzer starts from: %q %q %q", conv, item, resp)
	}
	ids := strings.NewReplacer("$conv", conv, "$resp", resp, "$item", item)

	f.Add(uint8(0), "", "", "", []byte(`{"metadata":{"a":"b"},"items":[{"type":"message","role":"user","content":"x"}]}`))
	f.Add(uint8(1), "$conv", "", "", []byte(nil))
	f.Add(uint8(2), "$conv", "", "", []byte(`{"metadata":{"k":"w"}}`))
	f.Add(uint8(4), "$conv", "", "limit=1&order=asc&after=$item", []byte(nil))
	f.Add(uint8(4), "$conv", "", "limit=-1&order=sideways", []byte(nil))
	f.Add(uint8(5), "$conv", "", "", []byte(`{"items":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"y"}]}]}`))
	f.Add(uint8(6), "$conv", "$item", "", []byte(nil))
	f.Add(uint8(7), "$conv", "$item", "", []byte(nil))
	f.Add(uint8(8), "", "", "", []byte(`{"model":"m","input":"again","previous_response_id":"$resp","stream":true}`))
	f.Add(uint8(8), "", "", "", []byte(`{"model":"m","input":[{"type":"item_reference","id":"$item"}],"conversation":{"id":"$conv"}}`))
	f.Add(uint8(8), "", "", "", []byte(`{"model":"m","input":"x","previous_response_id":"resp_\u0000"}`))
	f.Add(uint8(9), "$resp", "", "include[]=message.input_image.image_url", []byte(nil))
	f.Add(uint8(9), "resp_\xff", "", "", []byte(nil))
	f.Add(uint8(11), "$resp", "", "limit=101&order=desc&after=nope", []byte(nil))
	f.Add(uint8(10), "$resp", "", "", []byte(nil))
	f.Add(uint8(3), "$conv", "", "", []byte(nil))
	f.Fuzz(func(t *testing.T, op uint8, id, item, query string, body []byte) {
		route := storeRoutes[int(op)%len(storeRoutes)]
		path := strings.NewReplacer("{id}", url.PathEscape(ids.Replace(id)), "{item}", url.PathEscape(ids.Replace(item))).Replace(route.path)
		rec := do(route.method, path, ids.Replace(query), []byte(ids.Replace(string(body))))
		got := rec.Body.Bytes()
		if rec.Code >= 500 {
			t.Fatalf("%s %s?%s %q: %d %s", route.method, path, query, body, rec.Code, got)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			rep, err := conformance.CheckStream(bytes.NewReader(got))
			if err != nil || conformance.Violations(rep.Findings) > 0 {
				t.Fatalf("%s %s %q: the stream breaks the checker: %v %v\n%s", route.method, path, body, err, rep.Findings, got)
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("%s %s?%s %q: %d, not JSON: %q", route.method, path, query, body, rec.Code, got)
		}
		if rec.Code != http.StatusOK {
			var e struct {
				Error *struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
				} `json:"error"`
			}
			if json.Unmarshal(got, &e) != nil || e.Error == nil || e.Error.Message == "" || e.Error.Type == "" {
				t.Fatalf("%s %s?%s %q: %d, not an OpenAI error: %s", route.method, path, query, body, rec.Code, got)
			}
		}
	})
}
