// Package jsontest compares JSON documents for tests: objects key by key
// regardless of order, numbers by value, arrays in order; nothing missing,
// nothing added. Diff names the first difference by its JSON path.
package jsontest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// MaxDiffs bounds how many differences Diff and Differences list.
const MaxDiffs = 20

// Difference is one place two JSON documents differ: its JSON path ("$",
// "$.input[0].type") and what differs there ("added", "missing",
// "1 vs 2", "object vs string").
type Difference struct {
	Path string
	What string
}

func (d Difference) String() string { return d.Path + ": " + d.What }

// Diff returns "" when a and b are JSON-equal, else every difference (up to
// MaxDiffs), in path order, separated by "; ". (A value may hold "; ":
// callers that take the differences apart use Differences.)
func Diff(a, b []byte) (string, error) {
	ds, _, err := Differences(a, b)
	if err != nil {
		return "", err
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return strings.Join(out, "; "), nil
}

// Differences returns the differences between a and b in path order, at
// most MaxDiffs of them; truncated reports that there are more.
func Differences(a, b []byte) (ds []Difference, truncated bool, err error) {
	va, err := decode(a)
	if err != nil {
		return nil, false, fmt.Errorf("jsontest: first document: %w", err)
	}
	vb, err := decode(b)
	if err != nil {
		return nil, false, fmt.Errorf("jsontest: second document: %w", err)
	}
	diff("$", va, vb, &ds)
	if len(ds) > MaxDiffs {
		return ds[:MaxDiffs], true, nil
	}
	return ds, false, nil
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

// diff records the differences at and below path; it stops once there are
// more than MaxDiffs, so Differences can tell there are more.
func diff(path string, a, b any, out *[]Difference) {
	if len(*out) > MaxDiffs {
		return
	}
	if d := diffOne(path, a, b, out); d != "" {
		*out = append(*out, Difference{Path: path, What: d})
	}
}

// diffOne returns what differs at path itself, after recording the
// differences below it.
func diffOne(path string, a, b any, out *[]Difference) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("object vs %s", kind(b))
		}
		keys := make([]string, 0, len(a)+len(bm))
		for k := range a {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := a[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			va, inA := a[k]
			vb, inB := bm[k]
			p := path + "." + k
			switch {
			case !inA:
				*out = append(*out, Difference{Path: p, What: "added"})
			case !inB:
				*out = append(*out, Difference{Path: p, What: "missing"})
			default:
				diff(p, va, vb, out)
			}
		}
		return ""
	case []any:
		bs, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("array vs %s", kind(b))
		}
		if len(a) != len(bs) {
			return fmt.Sprintf("%d vs %d elements", len(a), len(bs))
		}
		for i := range a {
			diff(path+"["+strconv.Itoa(i)+"]", a[i], bs[i], out)
		}
		return ""
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return fmt.Sprintf("number vs %s", kind(b))
		}
		fa, _, errA := big.ParseFloat(string(a), 10, 256, big.ToNearestEven)
		fb, _, errB := big.ParseFloat(string(bn), 10, 256, big.ToNearestEven)
		if errA != nil || errB != nil || fa.Cmp(fb) != 0 {
			return fmt.Sprintf("%s vs %s", a, bn)
		}
		return ""
	default:
		if kind(a) != kind(b) {
			return fmt.Sprintf("%s vs %s", kind(a), kind(b))
		}
		if a != b {
			return fmt.Sprintf("%v vs %v", short(a), short(b))
		}
		return ""
	}
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number:
		return "number"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func short(v any) string {
	s := fmt.Sprintf("%q", fmt.Sprint(v))
	if v == nil {
		return "null"
	}
	if len(s) > 60 {
		s = s[:57] + `..."`
	}
	return s
}
