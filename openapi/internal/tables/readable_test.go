package tables

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readable is the Go a table was rendered as, its refs resolved against
// its text and lists: each schema as `{name: "Req", kind: kindObject,
// mask: mObject, props: []prop{{"effort", 2, false}}, nreq: 1}`, each
// component as `{"Alias", 2}`; what the tests read (the refs themselves
// are offsets no one checks by eye). A ref outside its text or list fails
// the test.
func readable(t *testing.T, src string) string {
	t.Helper()
	block := func(v string) string { // the body of var <x><v> = [...]T{ … }
		i := strings.Index(src, v+" = [...]")
		if i < 0 {
			t.Fatalf("no %s in the table", v)
		}
		b := src[i:]
		return b[strings.Index(b, "{\n")+2 : strings.Index(b, "\n}\n")]
	}
	prefix := src[strings.Index(src, "components: ")+len("components: ") : strings.Index(src, "Components[:]")]
	var text strings.Builder
	constDecl := src[strings.Index(src, "const "+prefix+"Text = "):]
	for _, q := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).FindAllString(constDecl, -1) {
		s, err := strconv.Unquote(q)
		if err != nil {
			t.Fatalf("text %s: %v", q, err)
		}
		text.WriteString(s)
	}
	refRe := regexp.MustCompile(`ref\{(\d+), (\d+)\}`)
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	str := func(m []string) string {
		off, n := num(m[1]), num(m[2])
		if off+n > text.Len() {
			t.Fatalf("ref{%d, %d} outside the text (%d bytes)", off, n, text.Len())
		}
		return text.String()[off : off+n]
	}
	lines := func(v string) []string {
		var out []string
		for _, l := range strings.Split(block(v), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	props, cases, values := lines(prefix+"Props"), lines(prefix+"Cases"), lines(prefix+"Values")
	ints := strings.Fields(strings.ReplaceAll(block(prefix+"Ints"), ",", " "))
	run := func(l []string, m []string) []string {
		off, n := num(m[1]), num(m[2])
		if off+n > len(l) {
			t.Fatalf("ref{%d, %d} outside a list of %d", off, n, len(l))
		}
		return l[off : off+n]
	}
	entry := regexp.MustCompile(`^\{ref\{(\d+), (\d+)\}, (.*)\},`) // a prop's or a case's
	var out strings.Builder
	for _, l := range lines(prefix + "Components") {
		m := entry.FindStringSubmatch(l)
		fmt.Fprintf(&out, "{%q, %s}\n", str(m), m[3])
	}
	field := regexp.MustCompile(`(name|props|values|alts|tag|cases|untagged): ref\{(\d+), (\d+)\}`)
	for _, l := range lines(prefix + "Schemas") {
		l = l[strings.Index(l, "{"):]
		l = strings.Replace(l, "enum: true, ", "", 1)
		l = field.ReplaceAllStringFunc(l, func(f string) string {
			m := field.FindStringSubmatch(f)
			r := m[1:] // name, off, n → r[0] the field
			switch r[0] {
			case "name", "tag":
				return fmt.Sprintf("%s: %q", r[0], str(r))
			case "props", "cases":
				var parts []string
				for _, e := range run(map[string][]string{"props": props, "cases": cases}[r[0]], r) {
					m := entry.FindStringSubmatch(e)
					parts = append(parts, fmt.Sprintf("{%q, %s}", str(m), m[3]))
				}
				typ := map[string]string{"props": "prop", "cases": "tagCase"}[r[0]]
				return fmt.Sprintf("%s: []%s{%s}", r[0], typ, strings.Join(parts, ", "))
			case "values":
				var parts []string
				for _, e := range run(values, r) {
					parts = append(parts, strconv.Quote(str(refRe.FindStringSubmatch(e))))
				}
				return fmt.Sprintf("values: []string{%s}", strings.Join(parts, ", "))
			}
			return fmt.Sprintf("%s: []int32{%s}", r[0], strings.Join(run(ints, r), ", "))
		})
		out.WriteString(strings.TrimSuffix(l, ",") + "\n")
	}
	return out.String()
}
