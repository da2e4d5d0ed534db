package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	conv := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := convert(args, strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	req := filepath.Join("..", "..", "mapping", "testdata", "sampling", "request.json")
	code, out, warns := conv("", req, "--dialect", "openai")
	var chat struct {
		Model     string `json:"model"`
		Verbosity string `json:"verbosity"`
	}
	if err := json.Unmarshal([]byte(out), &chat); code != 0 || err != nil || chat.Model != "gpt-5.1" || chat.Verbosity != "low" || warns != "" {
		t.Errorf("openai: exit %d, %v, %q, warnings %q", code, err, out, warns)
	}
	code, out, warns = conv("", "--dialect", "openrouter", req)
	if code != 0 || !strings.Contains(out, `"session_id":"conv-42"`) || !strings.Contains(out, `"verbosity":"low"`) || !strings.Contains(warns, "warning: safety_identifier: OpenRouter's ChatRequest has no safety_identifier\n") {
		t.Errorf("openrouter: exit %d, %q, warnings %q", code, out, warns)
	}
	code, out, _ = conv(`{"model":"m","input":"x","background":true}`, "-")
	if code != 1 || !strings.Contains(out, `"code":"unsupported_parameter"`) {
		t.Errorf("refused: exit %d, %q", code, out)
	}
	unknown := `{"model":"m","input":[{"role":"user","content":"x"},{"type":"hologram_call"}]}`
	if code, out, _ = conv(unknown, "-"); code != 1 || !strings.Contains(out, `"param":"input[1]"`) {
		t.Errorf("unknown item: exit %d, %q", code, out)
	}
	if code, _, warns = conv(unknown, "--drop-unknown-items", "-"); code != 0 || !strings.Contains(warns, "warning: input[1]:") {
		t.Errorf("unknown item dropped: exit %d, warnings %q", code, warns)
	}
	ns := filepath.Join("..", "..", "mapping", "testdata", "namespace_names", "request.json")
	if code, _, warns = conv("", "--tool-map", ns); code != 0 || !strings.Contains(warns, `{"name":"docs__search_0df879a9","type":"function","namespace":"docs","tool_name":"search"}`) {
		t.Errorf("tool map: exit %d, %q", code, warns)
	}
	if code, _, _ = conv("", "--dialect", "bedrock"); code != 2 {
		t.Errorf("bad dialect: exit %d", code)
	}
}
