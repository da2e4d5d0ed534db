package mapping_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/mapping"
)

// OpenAI's limits on both directions: just over each is refused naming
// its path and code; just at each is converted.
func TestLimits(t *testing.T) {
	meta := func(n, klen, vlen int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			k := fmt.Sprintf("k%d", i)
			if klen > 0 {
				k = strings.Repeat("k", klen)
			}
			fmt.Fprintf(&b, `%q:%q`, k, strings.Repeat("é", vlen)) // characters, not bytes
		}
		return `"metadata":{` + b.String() + `}`
	}
	for _, c := range []struct {
		chat        bool
		extra       string // top-level members beside model and input/messages
		param, code string // "": converted
	}{
		{false, meta(16, 0, 512), "", ""},
		{false, meta(17, 0, 1), "metadata", "object_above_max_properties"},
		{false, meta(1, 64, 1), "", ""},
		{false, meta(1, 65, 1), "metadata", "string_above_max_length"},
		{false, meta(1, 0, 513), "metadata.k0", "string_above_max_length"},
		{true, meta(17, 0, 1), "metadata", "object_above_max_properties"},
		{true, `"metadata":{"k":true}`, "metadata.k", "invalid_type"},
		{false, `"tools":[{"type":"function","name":"` + strings.Repeat("a", 64) + `","parameters":{"type":"object"}}]`, "", ""},
		{false, `"tools":[{"type":"function","name":"` + strings.Repeat("a", 65) + `"}]`, "tools[0].name", "string_above_max_length"},
		{false, `"tools":[{"type":"custom","name":"a.b"}]`, "tools[0].name", "invalid_value"},
		{false, `"tools":[{"type":"function","name":"f","parameters":{"type":"string"}}]`, "tools[0].parameters", "invalid_function_parameters"},
		// the schema's type read as it is written first, compact (…"object", or …"object"}),
		// and otherwise by its members
		{false, `"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}}}]`, "", ""},
		{false, `"tools":[{"type":"function","name":"f","parameters":{ "type" : "object" }}]`, "", ""},
		{false, `"tools":[{"type":"function","name":"f","parameters":{"properties":{},"type":"object"}}]`, "", ""},
		{false, `"tools":[{"type":"function","name":"f","parameters":{"type":"objects"}}]`, "tools[0].parameters", "invalid_function_parameters"},
		{false, `"tools":[{"type":"function","name":"f","parameters":{"type":"object\u0073"}}]`, "tools[0].parameters", "invalid_function_parameters"},
		{false, `"tools":[{"type":"function","name":"f","parameters":{"type": "array","type":"object"}}]`, "tools[0].parameters", "invalid_function_parameters"},
		{true, `"tools":[{"type":"function","function":{"name":"a b"}}]`, "tools[0].function.name", "invalid_value"},
		{true, `"tools":[{"type":"function","function":{"name":"f","parameters":[]}}]`, "tools[0].function.parameters", "invalid_type"},
		{false, `"max_output_tokens":1,"temperature":2,"top_p":0,"top_logprobs":0`, "", ""},
		{false, `"max_output_tokens":0`, "max_output_tokens", "integer_below_min_value"},
		{false, `"max_output_tokens":-99999999999999999999`, "max_output_tokens", "integer_below_min_value"},
		{false, `"max_output_tokens":99999999999999999999`, "max_output_tokens", "integer_above_max_value"},
		{false, `"temperature":-1e400`, "temperature", "decimal_below_min_value"},
		{true, `"max_completion_tokens":-1`, "max_completion_tokens", "integer_below_min_value"},
		{true, `"top_p":1.5`, "top_p", "decimal_above_max_value"},
		{true, `"presence_penalty":-3`, "presence_penalty", "decimal_below_min_value"},
		{true, `"frequency_penalty":2.5`, "frequency_penalty", "decimal_above_max_value"},
		{true, `"max_tokens":0`, "max_tokens", "integer_below_min_value"},
		{true, `"max_tokens":1,"frequency_penalty":-2,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`, "", ""},
	} {
		var err error
		if c.chat {
			var rc mapping.ReverseConverter
			_, _, err = rc.ChatToResponses(nil, []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],`+c.extra+`}`), mapping.ReverseOptions{})
		} else {
			var cv mapping.Converter
			_, _, err = cv.ResponsesToChat(nil, []byte(`{"model":"m","input":"hi",`+c.extra+`}`), mapping.Options{})
		}
		var me *mapping.Error
		switch {
		case c.param == "" && err != nil:
			t.Errorf("%.80s: refused: %v", c.extra, err)
		case c.param != "" && (!errors.As(err, &me) || me.Param != c.param || me.Code != c.code):
			t.Errorf("%.80s: %v, want %s %s", c.extra, err, c.param, c.code)
		}
	}
}
