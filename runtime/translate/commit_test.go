package translate

import (
	"encoding/json"
	"errors"
	"testing"
)

var commitChunks = []string{
	`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
}

func runCommit(t *testing.T, req *Request, commit func([]byte) error) [][]byte {
	t.Helper()
	tr := NewChatToResponses(req, Options{IDs: &SeqIDs{}, Clock: clock, Commit: commit})
	var out [][]byte
	add := func(evs []Event) {
		for _, e := range evs {
			out = append(out, append([]byte(nil), e.Data...))
		}
	}
	add(tr.Start())
	for _, c := range commitChunks {
		add(tr.Next([]byte(c)))
	}
	add(tr.Finish())
	return out
}

// The Response committed is the one the terminal event carries, once; a
// commit that fails turns the stream's end into response.failed carrying
// its reason (and the stream still passes the checker).
func TestCommit(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi","store":true}`)
	req.Stored, req.Conversation = true, "conv_1"
	var got [][]byte
	events := runCommit(t, req, func(resp []byte) error { got = append(got, append([]byte(nil), resp...)); return nil })
	checkStream(t, events)
	if len(got) != 1 {
		t.Fatalf("committed %d times, want once", len(got))
	}
	term := terminalResponse(t, events)
	if string(term) != string(got[0]) {
		t.Fatalf("committed %s\nthe terminal event carries %s", got[0], term)
	}
	var r struct {
		Status       string
		Store        bool
		Conversation struct{ ID string }
	}
	if err := json.Unmarshal(term, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "completed" || !r.Store || r.Conversation.ID != "conv_1" {
		t.Fatalf("status %q store %v conversation %q, want completed, true, conv_1", r.Status, r.Store, r.Conversation.ID)
	}

	calls := 0
	failing := request(t, `{"model":"m","input":"hi"}`)
	failing.Stored = true // it was to be stored: the failed Response says it is not
	events = runCommit(t, failing, func([]byte) error { calls++; return errors.New("the store is down") })
	checkStream(t, events)
	var f struct {
		Type     string
		Response struct {
			Status, CompletedAt any
			Error               struct{ Code, Message string }
			Store               bool
		}
	}
	if err := json.Unmarshal(events[len(events)-1], &f); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || f.Type != "response.failed" || f.Response.Status != "failed" || f.Response.CompletedAt != nil || f.Response.Error.Message != "the store is down" || f.Response.Store {
		t.Fatalf("after a failed commit (%d calls): %s", calls, events[len(events)-1])
	}
	for _, e := range events[:len(events)-1] {
		var ev struct{ Type string }
		_ = json.Unmarshal(e, &ev)
		if ev.Type == "response.completed" {
			t.Fatal("response.completed went out although the commit failed")
		}
	}
}

// Abandon closes what is open (items close as they do when a stream
// fails) and commits the Response, with what was streamed, as cancelled.
func TestAbandon(t *testing.T) {
	var got []byte
	tr := NewChatToResponses(request(t, `{"model":"m","input":"hi"}`), Options{IDs: &SeqIDs{}, Clock: clock, Commit: func(b []byte) error { got = append([]byte(nil), b...); return nil }})
	tr.Start()
	tr.Next([]byte(commitChunks[0]))
	final := tr.Abandon()
	if string(final) != string(got) {
		t.Fatalf("Abandon returned %s, committed %s", final, got)
	}
	var r struct {
		Status string
		Output []struct {
			Status  string
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal(final, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "cancelled" || len(r.Output) != 1 || r.Output[0].Content[0].Text != "Hel" {
		t.Fatalf("abandoned: %s", final)
	}
	if evs := tr.Finish(); len(evs) != 0 {
		t.Fatalf("events after Abandon: %v", evs)
	}
}
