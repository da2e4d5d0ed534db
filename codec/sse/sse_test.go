package sse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct{ typ, id, data string }

func readAll(t *testing.T, r io.Reader) ([]got, error) {
	t.Helper()
	sr := NewReader(r)
	var out []got
	for sr.Next() {
		e := sr.Event()
		out = append(out, got{e.Type, e.ID, string(e.Data)})
	}
	return out, sr.Err()
}

func TestReader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []got
	}{
		{"openrouter keep-alives and DONE",
			": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {\"a\":1}\n\ndata: [DONE]\n\n",
			[]got{{"", "", `{"a":1}`}, {"", "", "[DONE]"}}},
		{"responses events",
			"event: response.created\ndata: {\"type\":\"response.created\"}\n\nevent: response.completed\ndata: {}\n\n",
			[]got{{"response.created", "", `{"type":"response.created"}`}, {"response.completed", "", "{}"}}},
		{"multi-line data", "data: a\ndata: b\ndata:\ndata:  c\n\n", []got{{"", "", "a\nb\n\n c"}}},
		{"CRLF", "event: x\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n", []got{{"x", "", "1"}, {"", "", "2"}}},
		{"lone CR", "data: 1\r\rdata: 2\r\r", []got{{"", "", "1"}, {"", "", "2"}}},
		{"no trailing blank line", "data: 1\n\ndata: 2", []got{{"", "", "1"}, {"", "", "2"}}},
		{"no trailing newline after CRLF", "data: 1\r\n", []got{{"", "", "1"}}},
		{"BOM, id, retry, unknown field, no space", "\ufeffid: 7\nretry: 100\nfoo: bar\ndata:x\n\n", []got{{"", "7", "x"}}},
		{"field without colon", "data\n\n", []got{{"", "", ""}}},
		{"event without data is not dispatched", "event: ping\n\nevent: a\ndata: 1\n\nevent: tail\n", []got{{"a", "", "1"}}},
		{"empty", "", nil},
		{"only comments", ": a\n: b", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Byte by byte too: lines and events across read boundaries.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				out, err := readAll(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if len(out) != len(tc.want) {
					t.Fatalf("got %d events %q, want %q", len(out), out, tc.want)
				}
				for i := range out {
					if out[i] != tc.want[i] {
						t.Errorf("event %d = %+v, want %+v", i, out[i], tc.want[i])
					}
				}
			}
		})
	}
}

func TestDone(t *testing.T) {
	for data, want := range map[string]bool{"[DONE]": true, " [DONE] ": true, `{"a":1}`: false, "[DONE]x": false} {
		if got := (Event{Data: []byte(data)}).Done(); got != want {
			t.Errorf("Done(%q) = %v", data, got)
		}
	}
}

func TestLargeEvent(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // the buffer grows to it
	out, err := readAll(t, strings.NewReader("data: "+big+"\n\ndata: 2\n\n"))
	if err != nil || len(out) != 2 || out[0].data != big || out[1].data != "2" {
		t.Fatalf("err %v, %d events", err, len(out))
	}
}

func TestErrors(t *testing.T) {
	boom := errors.New("boom")
	sr := NewReader(io.MultiReader(strings.NewReader("data: 1\n\n"), iotest.ErrReader(boom)))
	if !sr.Next() || string(sr.Event().Data) != "1" {
		t.Fatal("first event lost")
	}
	if sr.Next() || !errors.Is(sr.Err(), boom) {
		t.Fatalf("read error not reported: %v", sr.Err())
	}
	// Over MaxEventSize: one data line, two.
	big := strings.Repeat("x", MaxEventSize/2+1)
	for _, in := range []string{"data: " + big + big + "\n\n", "data: " + big + "\ndata: " + big + "\n\n"} {
		sr := NewReader(strings.NewReader(in))
		if sr.Next() || !errors.Is(sr.Err(), ErrEventTooLarge) {
			t.Errorf("%d bytes: %v", len(in), sr.Err())
		}
	}
}

func TestAppendEvent(t *testing.T) {
	b := AppendEvent(nil, "response.created", []byte(`{"a":1}`))
	b = AppendEvent(b, "", []byte("[DONE]"))
	want := "event: response.created\ndata: {\"a\":1}\n\ndata: [DONE]\n\n"
	if string(b) != want {
		t.Fatalf("got %q", b)
	}
	out, err := readAll(t, bytes.NewReader(b))
	if err != nil || len(out) != 2 || out[0] != (got{"response.created", "", `{"a":1}`}) {
		t.Fatalf("does not read back: %v %q", err, out)
	}
}

// The recorded OpenRouter streams: every data line is one event, comments
// and [DONE] included as the format says.
func TestCorpusStreams(t *testing.T) {
	dir := os.Getenv("SHARED_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "corpus", "chat-sse", "*.sse"))
	bench, _ := filepath.Glob(filepath.Join(dir, "bench", "*.sse"))
	files = append(files, bench...)
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("no recorded streams")
		}
		t.Skip("no recorded streams (set SHARED_DIR)")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dataLines := bytes.Count(raw, []byte("\ndata:")) + map[bool]int{true: 1}[bytes.HasPrefix(raw, []byte("data:"))]
		out, err := readAll(t, bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(out) != dataLines {
			t.Errorf("%s: %d events, %d data lines", filepath.Base(f), len(out), dataLines)
		}
		done := 0
		for _, e := range out {
			if (Event{Data: []byte(e.data)}).Done() {
				done++
			}
		}
		if strings.Contains(f, "chat") || strings.Contains(f, "d_chat") {
			if done != 1 || !(Event{Data: []byte(out[len(out)-1].data)}).Done() {
				t.Errorf("%s: want one [DONE], last; got %d", filepath.Base(f), done)
			}
		}
	}
}

// Whatever the input, the reader neither panics nor loops, and it reads the
// same events however the bytes arrive (whole, one at a time, in halves).
func FuzzReader(f *testing.F) {
	for _, s := range []string{"data: 1\n\n", ": c\r\ndata: a\rdata: b\n", "event: x\ndata:\n\n", "\ufeffdata: [DONE]", "data: a\r\n\r\nevent: e\nid: 1\ndata: b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err := readAll(t, bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(whole) > len(in) {
			t.Fatalf("%d events from %d bytes", len(whole), len(in))
		}
		for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader(in)), iotest.HalfReader(bytes.NewReader(in))} {
			parts, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) != len(whole) {
				t.Fatalf("%d events whole, %d in pieces", len(whole), len(parts))
			}
			for i := range whole {
				if whole[i] != parts[i] {
					t.Fatalf("event %d: %+v whole, %+v in pieces", i, whole[i], parts[i])
				}
			}
		}
	})
}

// A stream held open holds little: the buffer stays at the size of its
// longest line, and gives back what one large event took once the stream
// goes on with small ones. An event of one data line is not copied.
func TestReaderMemory(t *testing.T) {
	small := "data: " + strings.Repeat("s", 300) + "\n\n"
	big := "data: " + strings.Repeat("b", 200<<10) + "\n\n"
	in := strings.Repeat(small, 50) + big + strings.Repeat(small, 50)
	r := NewReader(iotest.OneByteReader(strings.NewReader(in))) // as slow as a network can be
	for i := 0; r.Next(); i++ {
		switch {
		case i == 49 && cap(r.buf) > minBuffer:
			t.Fatalf("after 50 events of %d bytes the buffer is %d bytes", len(small), cap(r.buf))
		case i == 50 && len(r.Event().Data) != 200<<10:
			t.Fatalf("the large event has %d bytes", len(r.Event().Data))
		case i == 100 && cap(r.buf) > minBuffer:
			t.Fatalf("after the large event, small ones left the buffer at %d bytes", cap(r.buf))
		case i > 50 && cap(r.data) >= keepBuffer:
			t.Fatalf("event %d: the large event's copy is still held (%d bytes)", i, cap(r.data))
		}
	}
	if r.Err() != nil || r.events != 101 {
		t.Fatalf("%d events, %v", r.events, r.Err())
	}
	// Large events one after another: the buffer stays grown, not
	// regrown for each.
	bigs := strings.Repeat(big, 20)
	if allocs := testing.AllocsPerRun(5, func() {
		r := NewReader(&eventReader{bigs})
		for r.Next() {
		}
	}); allocs > 30 {
		t.Errorf("%v allocations to read 20 events of 200 KB", allocs)
	}
	allocs := testing.AllocsPerRun(10, func() {
		r := NewReader(strings.NewReader(strings.Repeat(small, 100)))
		for r.Next() {
		}
	})
	if allocs > 4 { // the reader, its buffer (and the test's string)
		t.Errorf("%v allocations to read 100 events", allocs)
	}
}

// eventReader gives one event per Read, as a network often does.
type eventReader struct{ s string }

func (e *eventReader) Read(p []byte) (int, error) {
	if e.s == "" {
		return 0, io.EOF
	}
	n := len(e.s)
	if i := strings.Index(e.s, "\n\n"); i >= 0 {
		n = i + 2
	}
	n = copy(p, e.s[:n])
	e.s = e.s[n:]
	return n, nil
}
