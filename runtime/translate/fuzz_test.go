package translate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// The fuzzer's bytes are a program over a small vocabulary of chunk parts
// (fzGen), so it explores the structure of a chat stream, not JSON syntax:
// each op is a byte (mod nOps), then its operand bytes.
const (
	opText       = iota // 1 operand: a content piece
	opRefusal           // 1: a refusal piece
	opReasoning         // 1: a reasoning string (bit 0x80: reasoning_content)
	opDetail            // 1: a reasoning_details piece
	opTool              // 3: a tool_calls delta (see fzGen.tool)
	opAnnotation        // 1: a url_citation
	opFinish            // 1: a finish_reason
	opUsage             // 0: a usage-only chunk, choices []
	opError             // 1: a chunk with a top-level error (odd: and finish_reason length)
	opGarbage           // 1: a chunk that is not JSON
	opFlush             // 0: end the chunk
	nOps
)

var (
	fzTexts    = []string{`"Hello"`, `" wor\"ld\\"`, `"line\nbreak"`, `"\u00e9t\u00e9"`, `"😀"`, `"\ud83d\ude00"`, `"</a> & \u0000"`}
	fzRefusals = []string{`"I can't"`, `" \"no\"\n"`}
	fzReasons  = []string{`"Think"`, `"ing \u2026"`, `"\n\"q\""`}
	fzDetails  = []string{
		`{"type":"reasoning.text","text":"step ","format":"anthropic-claude-v1","index":0}`,
		`{"type":"reasoning.text","text":"two\n\u00e9","index":1}`,
		`{"type":"reasoning.summary","summary":"sum \"q\"","index":2}`,
		`{"type":"reasoning.summary","summary":"loose"}`,
		`{"type":"reasoning.encrypted","data":"ZW5j","index":3}`,
		`{"type":"reasoning.text","text":"","signature":"c2ln","index":0}`,
		`{"type":"reasoning.summary","summary":"","index":4}`,
	}
	fzAnns = []string{
		`{"type":"url_citation","url_citation":{"url":"https://e.com","title":"E \"t\"","start_index":0,"end_index":5,"content":"c"}}`,
		`{"type":"url_citation","url":"https://x.org","title":"X","start_index":1,"end_index":2}`,
	}
	fzFinishes = []string{`"stop"`, `"length"`, `"tool_calls"`, `"content_filter"`, `"error"`, `"weird"`, `null`}
	// the upstream names of fuzzRequest's tools (mapping's ToolMap), and one it lacks
	fzTools = []string{"f", "c", "ns__g", "local_shell", "shell", "apply_patch", "zz"}
	// each tool's arguments, the text of the inner JSON (split at any rune)
	fzArgs = [][]string{
		{`{"a":1}`, `{"q":"x\"y\n"}`, `{}`, `{"s":"\u00e9😀"}`},
		{`{"input":"hello"}`, `{"input":"a\nb\\c\"d"}`, `{"input":"\u0041\u00e9\ud83d\ude00!"}`, `{ "input" : "é😀 \t" }`,
			`{"input":""}`, `{"input":"\/\b\f\r\u0000"}`, `{"input":"q\\u0041\\n"}`, `{"input":"x","extra":1}`,
			`{"input":"unterminated\u00`, `plain "text"`, `{"other":"y"}`, `{"input":"bad \x \u12G4"}`},
		{`{"k":"v"}`, `{}`},
		{`{"command":["ls","-la"]}`, `{"command":["echo","hi"],"env":{"A":"1"},"timeout_ms":5}`, `[1,2]`, `{"command":["a"]`},
		{`{"commands":["ls"],"timeout_ms":1000}`, `{}`, `nope`},
		{`{"type":"create_file","path":"a.txt","diff":"+hi\n"}`, `{"type":"delete_file","path":"b"}`, `{"x":1}`},
		{`{"z":true}`, ``},
	}
)

const fuzzRequest = `{"model":"m","input":"hi","include":["reasoning.encrypted_content"],"tools":[` +
	`{"type":"function","name":"f","parameters":{"type":"object"}},{"type":"custom","name":"c"},` +
	`{"type":"namespace","name":"ns","description":"d","tools":[{"type":"function","name":"g","parameters":{"type":"object"}}]},` +
	`{"type":"local_shell"},{"type":"shell"},{"type":"apply_patch"}]}`

// fzCall is what the stream sent of one tool call.
type fzCall struct {
	started, ascii, id, name bool
	tool, variant, off       int    // off: the arguments' bytes sent
	sent                     string // the arguments sent before the stream failed
	idFirst, named           bool   // the id came no later than the name; the name before the stream failed
}

// fzGen turns the fuzzer's bytes into chunks, and predicts the terminal.
type fzGen struct {
	data                         []byte
	chunks                       [][]byte
	fields, calls, details, anns []string // the open chunk's delta
	finish                       string   // and its finish_reason
	tc                           [4]fzCall
	dead                         bool   // an error or a chunk that is not JSON was sent: the stream failed
	first                        string // the first finish_reason before that
}

func (g *fzGen) byte() (b int) {
	if len(g.data) > 0 {
		b, g.data = int(g.data[0]), g.data[1:]
	}
	return b
}

func (g *fzGen) set(key, raw string) {
	for _, f := range g.fields {
		if strings.HasPrefix(f, `"`+key+`":`) {
			g.flush()
			break
		}
	}
	g.fields = append(g.fields, `"`+key+`":`+raw)
}

func (g *fzGen) flush() {
	if len(g.fields)+len(g.calls)+len(g.details)+len(g.anns) == 0 && g.finish == "" {
		return
	}
	d := append([]string{`"role":"assistant"`}, g.fields...)
	for i, v := range [][]string{g.details, g.anns, g.calls} {
		if len(v) > 0 {
			d = append(d, `"`+[]string{"reasoning_details", "annotations", "tool_calls"}[i]+`":[`+strings.Join(v, ",")+`]`)
		}
	}
	fin := ""
	if g.finish != "" {
		fin = `,"finish_reason":` + g.finish
	}
	g.emit(`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{` + strings.Join(d, ",") + `}` + fin + `}]}`)
	g.fields, g.calls, g.details, g.anns, g.finish = nil, nil, nil, nil, ""
}

func (g *fzGen) emit(c string) { g.chunks = append(g.chunks, []byte(c)) }

func (g *fzGen) run() {
	for n := 0; len(g.data) > 0 && n < 200; n++ {
		switch op := g.byte() % nOps; op {
		case opText, opRefusal, opReasoning:
			b, key, vocab := g.byte(), []string{"content", "refusal", "reasoning"}[op], [][]string{fzTexts, fzRefusals, fzReasons}[op]
			if op == opReasoning && b&0x80 != 0 {
				key = "reasoning_content"
			}
			g.set(key, vocab[b%len(vocab)])
		case opDetail:
			g.details = append(g.details, fzDetails[g.byte()%len(fzDetails)])
		case opAnnotation:
			g.anns = append(g.anns, fzAnns[g.byte()%len(fzAnns)])
		case opTool:
			g.tool(g.byte(), g.byte(), g.byte())
		case opFinish:
			if g.finish != "" {
				g.flush()
			}
			g.finish = fzFinishes[g.byte()%len(fzFinishes)]
			if !g.dead && g.first == "" && g.finish != "null" {
				g.first = g.finish
			}
		case opUsage:
			g.flush()
			g.emit(`{"id":"gen-1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,"completion_tokens_details":{"reasoning_tokens":2}}}`)
		case opError, opGarbage: // odd operand: the error after finish_reason length; an SSE comment line
			g.flush()
			g.dead = true
			g.emit([]string{`{"id":"gen-1","choices":[],"error":{"code":502,"message":"x"}}`, `{"choices":[{"delta":`,
				`{"id":"gen-1","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"error":{"code":502,"message":"x"}}`, `: keep-alive`,
			}[g.byte()&1*2+op-opError])
		case opFlush:
			g.flush()
		}
	}
	g.flush()
}

// tool adds a tool_calls delta. b1: the index (&3) and flags, on the first
// delta 0x04 no id yet, 0x08 no name yet, 0x10 pieces \u-escaped to ASCII
// (on the next: send the id, the name); b2 (first delta): the tool and its
// arguments; b3: how many bytes of them (15: the rest).
func (g *fzGen) tool(b1, b2, b3 int) {
	idx := b1 & 3
	c := &g.tc[idx]
	first := !c.started
	if first {
		c.started, c.ascii, c.tool = true, b1&0x10 != 0, b2%len(fzTools)
		c.variant = b2 / len(fzTools) % len(fzArgs[c.tool])
	}
	s := fmt.Sprintf(`{"index":%d`, idx)
	if !c.id && (b1&4 == 0) == first {
		c.id, c.idFirst = true, !c.name
		s += fmt.Sprintf(`,"id":"toolu_%d"`, idx)
	}
	s += `,"type":"function","function":{`
	if !c.name && (b1&8 == 0) == first {
		c.name, c.named = true, !g.dead
		s += `"name":"` + fzTools[c.tool] + `",`
	}
	args, end := fzArgs[c.tool][c.variant], len(fzArgs[c.tool][c.variant])
	if n := b3 % 16; n < 15 {
		end = min(c.off+n, end)
	}
	for end < len(args) && !utf8.RuneStart(args[end]) {
		end++
	}
	piece := args[c.off:end]
	if c.off = end; !g.dead {
		c.sent += piece
	}
	g.calls = append(g.calls, s+`"arguments":`+fzQuote(piece, c.ascii)+`}}`)
}

// fzQuote writes s as a JSON string (ascii: other runes as \u escapes, / as \/).
func fzQuote(s string, ascii bool) string {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || ascii && r == '/':
			b = append(b, '\\', byte(r))
		case r == '\n' && !ascii:
			b = append(b, `\n`...)
		case r < 0x20 || ascii && r > 0x7e:
			for _, u := range utf16.AppendRune(nil, r) {
				b = fmt.Appendf(b, `\u%04x`, u)
			}
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, '"'))
}

var fuzzSeeds = [][]byte{
	{opText, 0, opText, 1, opFlush, opText, 2, opAnnotation, 0, opFinish, 0, opUsage},
	{opReasoning, 0, opReasoning, 1, opFlush, opText, 3, opText, 4, opFinish, 1},
	{opDetail, 0, opDetail, 1, opFlush, opDetail, 2, opDetail, 4, opDetail, 5, opReasoning, 2, opFlush, opText, 5, opFinish, 0},
	{opTool, 0, 1, 3, opTool, 0, 0, 4, opTool, 0, 0, 15, opFinish, 2, opUsage},
	{opTool, 1, 8, 1, opTool, 1, 0, 2, opTool, 1, 0, 15, opTool, 2, 36, 7, opTool, 2, 0, 15, opFinish, 2},
	{opTool, 0x10, 15, 9, opTool, 0, 0, 13, opTool, 0, 0, 15, opTool, 3, 3, 15, opTool, 2, 4, 15, opFinish, 2},
	{opTool, 0x0c, 29, 5, opTool, 0x0c, 0, 6, opTool, 0x0c, 0, 15, opFinish, 2},
	{opRefusal, 0, opRefusal, 1, opText, 6, opFinish, 3, opFlush, opError, 1},
	{opText, 0, opFinish, 1, opFlush, opError, 0, opText, 1},
	{opTool, 1, 0, 4, opTool, 2, 5, 15, opFlush, opTool, 3, 6, 15, opText, 0, opGarbage, 0, opFinish, 0},
	{opReasoning, 0x80, opText, 0, opFinish, 4},
	{opText, 0, opTool, 0, 43, 15, opTool, 1, 3, 15, opTool, 2, 35, 15},
}

// Whatever the chunks, the stream passes the conformance checker and ends
// in exactly one terminal event, the one they call for (failed when they
// fail or never finish); calls keep their arguments, and a custom tool's
// {"input": S} arrives as S, in its deltas and its item.
func FuzzChatToResponses(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	req := request(f, fuzzRequest)
	f.Fuzz(func(t *testing.T, data []byte, cut bool) {
		g, end := &fzGen{data: data}, error(nil)
		if g.run(); cut {
			end = io.ErrUnexpectedEOF
		}
		events := stream(t, req, g.chunks, end) // JSON, and no checker violation
		terminals := map[string]string{"response.completed": "completed", "response.incomplete": "incomplete", "response.failed": "failed"}
		deltas := map[string]string{}
		var e struct {
			Type, Delta string
			Seq         *int   `json:"sequence_number"`
			ItemID      string `json:"item_id"`
			Response    struct{ Status string }
		}
		for i, raw := range events {
			e.Seq, e.Delta = nil, ""
			if err := json.Unmarshal(raw, &e); err != nil || e.Seq == nil || *e.Seq != i {
				t.Fatalf("event %d: sequence_number, want %d: %s", i, i, raw)
			}
			if _, ok := terminals[e.Type]; ok && i != len(events)-1 {
				t.Fatalf("event %d of %d is terminal: %s", i, len(events), raw)
			}
			if e.Type == "response.custom_tool_call_input.delta" {
				deltas[e.ItemID] += e.Delta
			}
		}
		want := map[string]string{"": "failed", `"error"`: "failed", `"length"`: "incomplete", `"content_filter"`: "incomplete"}[g.first]
		if cut || g.dead {
			want = "failed"
		} else if want == "" {
			want = "completed"
		}
		if terminals[e.Type] != want || e.Response.Status != want {
			t.Fatalf("the stream ends in %s (%s), want %s", e.Type, e.Response.Status, want)
		}
		var resp struct {
			Output []struct {
				ID, Type, Input, Arguments, Name, Namespace string
				CallID                                      string `json:"call_id"`
			}
		}
		if err := json.Unmarshal(terminalResponse(t, events), &resp); err != nil {
			t.Fatal(err)
		}
		fn := map[int][2]string{0: {"f", ""}, 2: {"g", "ns"}, 6: {"zz", ""}} // function_call: name, namespace
		for i, c := range g.tc {
			if !c.named || !c.idFirst {
				continue // its item has a call_id of the translator's
			}
			var in struct{ Input *string }
			var m map[string]json.RawMessage
			exact := c.tool == 1 && json.Unmarshal([]byte(c.sent), &m) == nil && len(m) == 1 &&
				json.Unmarshal([]byte(c.sent), &in) == nil && in.Input != nil
			found := 0
			for _, it := range resp.Output {
				if it.CallID != fmt.Sprintf("toolu_%d", i) {
					continue
				}
				found++
				if exact && (it.Type != "custom_tool_call" || it.Input != *in.Input || deltas[it.ID] != *in.Input) {
					t.Fatalf("custom call %d: arguments %q; item %s input %q, deltas %q", i, c.sent, it.Type, it.Input, deltas[it.ID])
				}
				args := c.sent
				if strings.Trim(args, " \t\r\n") == "" {
					args = "{}" // no arguments: {}, as OpenAI's are always JSON
				}
				if w, ok := fn[c.tool]; ok && (it.Type != "function_call" || it.Arguments != args || it.Name != w[0] || it.Namespace != w[1]) {
					t.Fatalf("call %d of %s: arguments %q; item %+v", i, fzTools[c.tool], c.sent, it)
				}
			}
			if found != 1 {
				t.Fatalf("call %d: %d items with its call_id", i, found)
			}
		}
	})
}
