package generator

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// GoNames is the table of the Go names ogen gave a spec's fields and
// variants (gen/<dialect>/go_names.txt, written by the spec pipeline): the
// generator resolves wire paths to Go selectors with it, for the
// compile-time references of the typed form.
type GoNames struct {
	types    map[string]string       // type → struct, sum, kinds, generic <ref>, alias <ref>, other
	fields   map[[2]string][2]string // (type, json key) → (Go field, ref)
	variants map[[2]string][3]string // (type, tag value) → (Go field, ref, const)
	kinds    map[[2]string][2]string // (type, JSON kind) → (Go field, ref)
}

// ParseGoNames reads a go_names.txt.
func ParseGoNames(data []byte) (*GoNames, error) {
	n := &GoNames{types: map[string]string{}, fields: map[[2]string][2]string{}, variants: map[[2]string][3]string{}, kinds: map[[2]string][2]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		w := strings.Fields(sc.Text())
		if len(w) == 0 || strings.HasPrefix(w[0], "#") {
			continue
		}
		ok := true
		switch {
		case w[0] == "T" && len(w) >= 3:
			n.types[w[1]] = strings.Join(w[2:], " ")
		case w[0] == "F" && len(w) == 5:
			n.fields[[2]string{w[1], w[2]}] = [2]string{w[3], w[4]}
		case w[0] == "V" && len(w) == 6:
			n.variants[[2]string{w[1], w[2]}] = [3]string{w[3], w[4], w[5]}
		case w[0] == "K" && len(w) == 5:
			n.kinds[[2]string{w[1], w[2]}] = [2]string{w[3], w[4]}
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("go names: line %d: %q", line, sc.Text())
		}
	}
	return n, sc.Err()
}

// Selector is a wire path resolved to Go: the selector expression from a
// value of the root type, and the sum-type constants of the variants on
// the way (their tag values).
type Selector struct {
	Expr   string   // ".Tools.Value[0].FunctionTool.Name"
	Consts []string // "FunctionToolTool"
}

// Resolve turns a wire path (codec.Schema.Lookup's) from the Go type root
// into a Go selector.
func (n *GoNames) Resolve(root, path string) (Selector, error) {
	if _, ok := n.types[root]; !ok {
		return Selector{}, fmt.Errorf("ogen made no type %s", root)
	}
	var sel Selector
	ref := root
	fail := func(format string, args ...any) (Selector, error) {
		return Selector{}, fmt.Errorf("%s: ogen's %s: %s", path, ref, fmt.Sprintf(format, args...))
	}
	for _, step := range codec.SplitPath(path) {
		key, sels := splitStep(step)
		if key != "" {
			ref = n.deref(ref, &sel)
			f, ok := n.fields[[2]string{ref, key}]
			if !ok {
				return fail("no field for %q", key)
			}
			sel.Expr += "." + f[0]
			ref = f[1]
		}
		for sels != "" {
			ref = n.deref(ref, &sel)
			if strings.HasPrefix(sels, "[]") {
				sels = sels[2:]
				if !strings.HasPrefix(ref, "[]") {
					return fail("not a slice")
				}
				sel.Expr += "[0]"
				ref = ref[2:]
				continue
			}
			end := strings.IndexByte(sels, '}')
			v := sels[1:end]
			sels = sels[end+1:]
			kind := n.types[ref]
			if kind == "kinds" {
				if k, ok := n.kinds[[2]string{ref, v}]; ok {
					sel.Expr += "." + k[0]
					ref = k[1]
					continue
				}
				k, ok := n.kinds[[2]string{ref, "object"}]
				if !ok || isKindName(v) {
					return fail("no variant for %q", v)
				}
				sel.Expr += "." + k[0] // a tag value through a union by JSON kind
				ref = n.deref(k[1], &sel)
				kind = n.types[ref]
			}
			switch {
			case kind == "sum":
				vv, ok := n.variants[[2]string{ref, v}]
				if !ok {
					return fail("no variant for %q", v)
				}
				sel.Expr += "." + vv[0]
				if vv[2] != "-" {
					sel.Consts = append(sel.Consts, vv[2])
				}
				ref = vv[1]
			case isKindName(v):
				// a union ogen made a single type of (X or null)
			case kind == "struct":
				// a single-variant union ogen made the variant itself
			default:
				return fail("no variant for %q", v)
			}
		}
	}
	return sel, nil
}

// deref steps through optional wrappers (.Value), aliases and pointers.
func (n *GoNames) deref(ref string, sel *Selector) string {
	for range 16 {
		ref = strings.TrimPrefix(ref, "*")
		k := n.types[ref]
		switch {
		case strings.HasPrefix(k, "generic "):
			sel.Expr += ".Value"
			ref = strings.TrimPrefix(k, "generic ")
		case strings.HasPrefix(k, "alias "):
			ref = strings.TrimPrefix(k, "alias ")
		default:
			return ref
		}
	}
	return ref
}
