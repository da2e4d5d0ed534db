package typed

import (
	"fmt"
	"strings"
	"testing"

	"github.com/transponder-dev/transponder/internal/jsontest"
	"github.com/transponder-dev/transponder/mapping"
)

// Every difference between the chat request mapping wrote and what the
// generated type gives back is a warning at its path, whatever the values
// hold ("; " included); past jsontest.MaxDiffs, one warning says the rest
// were not listed, never dropped silently.
func TestChangesWarnings(t *testing.T) {
	warns, err := changes(mapping.OpenRouter, []byte(`{"a":"x; y: z","b":1}`), []byte(`{"a":"x; y: w","b":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0].Path != "a" || !strings.Contains(warns[0].Reason, `"x; y: z" vs "x; y: w"`) {
		t.Errorf("value with \"; \": %+v", warns)
	}

	var out, back strings.Builder
	out.WriteString("{")
	back.WriteString("{")
	for i := range jsontest.MaxDiffs + 5 {
		if i > 0 {
			out.WriteString(",")
			back.WriteString(",")
		}
		fmt.Fprintf(&out, `"k%02d":%d`, i, i)
		fmt.Fprintf(&back, `"k%02d":%d`, i, i+1)
	}
	out.WriteString("}")
	back.WriteString("}")
	warns, err = changes(mapping.OpenRouter, []byte(out.String()), []byte(back.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != jsontest.MaxDiffs+1 {
		t.Fatalf("%d differences: %d warnings, want %d and one for the rest: %+v", jsontest.MaxDiffs+5, len(warns), jsontest.MaxDiffs+1, warns)
	}
	for i, w := range warns[:jsontest.MaxDiffs] {
		if want := fmt.Sprintf("k%02d", i); w.Path != want {
			t.Errorf("warning %d at %q, want %q", i, w.Path, want)
		}
	}
	if last := warns[jsontest.MaxDiffs]; last.Path != "" || !strings.Contains(last.Reason, "more") {
		t.Errorf("last warning %+v, want one that says more differences were not listed", last)
	}
}
