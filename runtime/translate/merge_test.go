package translate

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/codec"
)

// A detail's pieces merged with the fast path (a piece that is the last
// one with other contents in its joining string) give what merging each
// member gives, over random streams of pieces: the same keys in other
// orders, values that change, come empty or go, a second string that
// joins, text that is not a string, escapes in and around the text, a key
// twice in a piece.
func TestDetailMergeSkeleton(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 5))
	texts := []string{"", "a", "Some thought, \\\"quoted\\\".", "\\n", "x\\u00e9y", "\\\\", "\\\"", "  ", "é"}
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	value := func(k string) string {
		switch k {
		case "type":
			return pick(`"reasoning.text"`, `"reasoning.text"`, `"reasoning.summary"`)
		case "text":
			return pick(`"`+pick(texts...)+`"`, `"`+pick(texts...)+`"`, `"`+pick(texts...)+`"`, `null`, `7`)
		case "summary":
			return `"` + pick(texts...) + `"`
		case "data":
			return `"` + pick("", "QUJD", "ZGVm") + `"`
		case "format":
			return pick(`"anthropic-claude-v1"`, `"unknown"`, `"unknowx"`, `""`, `null`)
		case "signature":
			return pick(`""`, `"sig"`, `"gis"`, `null`)
		}
		return `0`
	}
	// A stream's pieces keep their other values but now and then one (to
	// one of the same length, too, before the text or after it); the text
	// (or summary) changes each time.
	vals := map[string]string{}
	piece := func(order []string) string {
		var ms []string
		for _, k := range order {
			v, ok := vals[k]
			if !ok || k == "text" || k == "summary" || r.IntN(8) == 0 {
				v = value(k)
				vals[k] = v
			}
			ms = append(ms, `"`+k+`":`+v)
		}
		return "{" + strings.Join(ms, ",") + "}"
	}
	orders := [][]string{
		{"type", "text", "format", "index"},
		{"type", "text", "format", "index"},
		{"type", "text", "signature", "format", "index"},
		{"index", "format", "text", "type"},
		{"type", "signature", "text", "index"},
		{"type", "summary", "format", "index"},
		{"type", "text", "summary", "index"},
		{"type", "text", "data", "index"},
		{"type", "format", "index"},
		// A key twice (a detail of a type the spec does not know is not
		// checked for that): the joining one, another.
		{"type", "text", "text", "index"},
		{"type", "summary", "format", "summary"},
		{"type", "text", "format", "format"},
	}
	fast := 0
	for stream := range 3000 {
		var ref, got detail
		clear(vals)
		ref.index, got.index = 0, 0
		order := orders[r.IntN(len(orders))]
		for n := range 1 + r.IntN(12) {
			if r.IntN(6) == 0 {
				order = orders[r.IntN(len(orders))]
			}
			p := piece(order)
			v, ok := codec.Parse([]byte(p))
			if !ok {
				t.Fatalf("bad piece %s", p)
			}
			// The string that joins, as ReasoningDetail chooses it.
			text, summary := v.Get("text"), v.Get("summary")
			s := text
			if summary.Exists() {
				s = summary
				if text.Exists() {
					s = codec.Value{}
				}
			}
			if got.skelOK && s.Kind() == codec.String {
				// (the fast path's condition, to count it taken)
				at, sr := s.Offset()-v.Offset(), s.Raw()
				if at == got.cat && len(p)-len(sr) == len(got.skel)-2 && p[:at] == string(got.skel[:at]) && p[at+len(sr):] == string(got.skel[at+2:]) {
					fast++
				}
			}
			ref.merge(v, codec.Value{}) // never the fast path
			got.merge(v, s)
			want, have := string(ref.appendJSON(nil)), string(got.appendJSON(nil))
			if want != have {
				t.Fatalf("stream %d, piece %d %s:\n got %s\nwant %s", stream, n, p, have, want)
			}
		}
	}
	if fast == 0 {
		t.Fatal("no piece took the fast path")
	}
	t.Logf("%d pieces merged by the fast path", fast)
}

// A reasoning detail of a type the spec does not know, naming text twice,
// streamed in two pieces: its encrypted_content holds the details as JSON
// (the merge's fast path once appended a string to the number the second
// text had left in its member). The review's case.
func TestDetailRepeatedKeyStream(t *testing.T) {
	req := request(t, `{"model":"m","input":"hi","include":["reasoning.encrypted_content"]}`)
	chunk := func(s string) []byte {
		return []byte(`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.foo","text":"` + s + `","text":5,"index":0}]}}]}`)
	}
	tr := NewChatToResponses(req, Options{IDs: &SeqIDs{}, Clock: clock})
	tr.Start()
	tr.Next(chunk("a"))
	tr.Next(chunk("b"))
	evs := tr.Next([]byte(`{"id":"gen-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))
	evs = append(evs, tr.Finish()...)
	var e struct {
		Response struct {
			Output []struct {
				Encrypted string `json:"encrypted_content"`
			}
		}
	}
	if err := json.Unmarshal(evs[len(evs)-1].Data, &e); err != nil || len(e.Response.Output) == 0 {
		t.Fatalf("%v %s", err, evs[len(evs)-1].Data)
	}
	enc, ok := strings.CutPrefix(e.Response.Output[0].Encrypted, "transponder.reasoning_details.v1:")
	if !ok {
		t.Fatalf("encrypted_content %q", e.Response.Output[0].Encrypted)
	}
	details, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"type":"reasoning.foo","text":5,"index":0}]`; string(details) != want {
		t.Errorf("encrypted_content holds %s, want %s", details, want)
	}
}
