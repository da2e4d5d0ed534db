package reverse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/internal/fixtures"
)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n got %s\nwant %s", name, got, want)
	}
}

// midStreamError: text went out, then the upstream's error event.
var midStreamError = [][]byte{
	[]byte(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","created_at":1,"status":"in_progress","model":"gpt-x","output":[]}}`),
	[]byte(`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`),
	[]byte(`{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}`),
	[]byte(`{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_rotated","output_index":0,"content_index":0,"delta":"lo \"x\""}`),
	[]byte(`{"type":"error","sequence_number":4,"code":"server_error","message":"The model broke off.","param":null}`),
	[]byte(`{"type":"response.failed","sequence_number":5,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model broke off."}}}`),
}

// TestGoldenChunks: the chat chunks of a text, a tool call, a reasoning
// and a mid-stream error stream.
func TestGoldenChunks(t *testing.T) {
	for _, c := range []struct{ name, file string }{
		{"text", "vercel-azure-text.1.jsonl"},
		{"tool-call", "vercel-azure-tool-call.1.jsonl"},
		{"reasoning", "vercel-openai-reasoning-encrypted-content.1.part0.jsonl"},
		{"custom-tool", "vercel-openai-custom-tool.1.jsonl"},
		{"web-search", "vercel-openai-web-search-tool.1.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, st := chat(events(t, filepath.Join(corpusDir(t), c.file)))
			readChat(t, out)
			w, _ := json.Marshal(st.Warnings())
			golden(t, c.name+".sse", append(append(out, "warnings: "...), w...))
		})
	}
	t.Run("error", func(t *testing.T) {
		out, st := chat(midStreamError)
		a := readChat(t, out)
		if !a.failed || a.finish != "error" || a.text != `Hello "x"` || st.Err() != nil {
			t.Fatalf("mid-stream error: %+v, err %v", a, st.Err())
		}
		golden(t, "error.sse", out)
	})
	t.Run("error-before-first-byte", func(t *testing.T) {
		out, st := chat(events(t, filepath.Join(corpusDir(t), "vercel-openai-error.1.jsonl")))
		if len(out) != 0 || st.Err() == nil || st.Err().Status != 429 || st.Err().Code != "insufficient_quota" {
			t.Fatalf("an error before the first byte is the status: out %q, err %+v", out, st.Err())
		}
	})
}

// TestGoldenCompletion: the non-streaming Responses bodies of the corpus
// as chat completions.
func TestGoldenCompletion(t *testing.T) {
	dir := filepath.Join(fixtures.SharedDir(filepath.Join("..", "..")), "corpus", "responses-json")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatal("no recorded responses")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out, warns, err := ResponseToChat(data, opts())
			if err != nil {
				t.Fatal(err)
			}
			var cc struct {
				Choices []struct {
					Message struct {
						Content   *string
						ToolCalls []struct{ Function struct{ Arguments string } } `json:"tool_calls"`
					}
					FinishReason string `json:"finish_reason"`
				}
			}
			if err := json.Unmarshal(out, &cc); err != nil || len(cc.Choices) != 1 {
				t.Fatalf("not a chat completion: %v: %s", err, out)
			}
			for _, tc := range cc.Choices[0].Message.ToolCalls {
				if !json.Valid([]byte(tc.Function.Arguments)) {
					t.Errorf("arguments not JSON: %s", tc.Function.Arguments)
				}
			}
			w, _ := json.Marshal(warns)
			golden(t, name+".json", append(append(out, "\nwarnings: "...), w...))
		})
	}
	t.Run("failed", func(t *testing.T) {
		_, _, err := ResponseToChat([]byte(`{"id":"r","status":"failed","error":{"code":"rate_limit_exceeded","message":"slow down"},"output":[]}`), opts())
		if err == nil || !strings.Contains(err.Error(), "rate_limit_exceeded") {
			t.Fatalf("a failed response is its error: %v", err)
		}
	})
	t.Run("incomplete", func(t *testing.T) {
		out, _, err := ResponseToChat([]byte(`{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","id":"m","content":[{"type":"output_text","text":"cut","annotations":[]}]}]}`), opts())
		if err != nil || !bytes.Contains(out, []byte(`"finish_reason":"length"`)) {
			t.Fatalf("max_output_tokens is length: %s %v", out, err)
		}
	})
}
