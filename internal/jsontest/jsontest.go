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

// MaxDiffs bounds how many differences Diff lists.
const MaxDiffs = 20

// Diff returns "" when a and b are JSON-equal, else every difference (up to
// MaxDiffs), in path order, separated by "; ".
func Diff(a, b []byte) (string, error) {
	va, err := decode(a)
	if err != nil {
		return "", fmt.Errorf("jsontest: first document: %w", err)
	}
	vb, err := decode(b)
	if err != nil {
		return "", fmt.Errorf("jsontest: second document: %w", err)
	}
	var out []string
	diff("$", va, vb, &out)
	return strings.Join(out, "; "), nil
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

func diff(path string, a, b any, out *[]string) {
	if len(*out) >= MaxDiffs {
		return
	}
	if d := diffOne(path, a, b, out); d != "" {
		*out = append(*out, d)
	}
}

// diffOne returns the difference at path itself, after recording those below.
func diffOne(path string, a, b any, out *[]string) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object vs %s", path, kind(b))
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
				*out = append(*out, p+": added")
			case !inB:
				*out = append(*out, p+": missing")
			default:
				diff(p, va, vb, out)
			}
		}
		return ""
	case []any:
		bs, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("%s: array vs %s", path, kind(b))
		}
		if len(a) != len(bs) {
			return fmt.Sprintf("%s: %d vs %d elements", path, len(a), len(bs))
		}
		for i := range a {
			diff(path+"["+strconv.Itoa(i)+"]", a[i], bs[i], out)
		}
		return ""
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: number vs %s", path, kind(b))
		}
		fa, _, errA := big.ParseFloat(string(a), 10, 256, big.ToNearestEven)
		fb, _, errB := big.ParseFloat(string(bn), 10, 256, big.ToNearestEven)
		if errA != nil || errB != nil || fa.Cmp(fb) != 0 {
			return fmt.Sprintf("%s: %s vs %s", path, a, bn)
		}
		return ""
	default:
		if kind(a) != kind(b) {
			return fmt.Sprintf("%s: %s vs %s", path, kind(a), kind(b))
		}
		if a != b {
			return fmt.Sprintf("%s: %v vs %v", path, short(a), short(b))
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
