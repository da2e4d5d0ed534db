package mapping

import "testing"

// The guards allocate nothing when no rule matches, nor when the rule
// that matches finds nothing to drop.
func TestGuardsNoAlloc(t *testing.T) {
	for _, model := range []string{"llama-3.3-70b", "openai/o3", "gpt-4o", "a-model-name-longer-than-thirty-two-bytes"} {
		var rc ReverseConverter
		body := []byte(`{"model":"` + model + `","messages":[{"role":"user","content":"x"}],"max_tokens":5,"service_tier":"default","reasoning_effort":"low"}`)
		if _, _, err := rc.ChatToResponses(nil, body, ReverseOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, rc.c.guard); n != 0 {
			t.Errorf("%s: %v allocations", model, n)
		}
	}
}
