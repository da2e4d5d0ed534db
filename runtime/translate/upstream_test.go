package translate

import (
	"strings"
	"testing"
)

// What the first chunk says of the upstream is kept for the gateway's log
// (later chunks change nothing); OpenRouter's routing report, which the
// Response has no place for, is warned.
func TestUpstream(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi"}`)
	tr := NewChatToResponses(req, Options{IDs: &SeqIDs{}, Clock: clock})
	var events [][]byte
	keep := func(evs []Event) {
		for _, e := range evs {
			events = append(events, append([]byte(nil), e.Data...))
		}
	}
	keep(tr.Start())
	keep(tr.Next([]byte(`{"id":"gen-1","provider":"P","model":"v/m","system_fingerprint":"fp","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`)))
	keep(tr.Next([]byte(`{"id":"gen-2","provider":"Q","model":"v/n","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"openrouter_metadata":{"attempts":[{"provider":"P"}]}}`)))
	keep(tr.Finish())
	checkStream(t, events)
	if got, want := tr.Upstream(), (Upstream{ID: "gen-1", Model: "v/m", Provider: "P", SystemFingerprint: "fp"}); got != want {
		t.Errorf("Upstream %+v, want %+v", got, want)
	}
	var warned bool
	for _, w := range tr.Warnings() {
		warned = warned || strings.HasPrefix(w.Path, "openrouter_metadata")
	}
	if !warned {
		t.Errorf("openrouter_metadata not warned: %v", tr.Warnings())
	}
}
