package specvariant

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-faster/yaml"
)

// Edit is one change to a spec document, at a JSON pointer
// ("/components/schemas/CreateResponse/properties/store"). A spec update
// is a list of them: what a vendor's release removed and added, written
// down so a test can make that release from the pinned one.
type Edit struct {
	Op      Op
	Pointer string
	// Value: for Set, the YAML (or JSON) of the new value; for Drop, the
	// scalar or the $ref to take out of the list at Pointer.
	Value string
}

// Op is what an Edit does.
type Op int

const (
	// Remove deletes the key or list item the pointer names.
	Remove Op = iota
	// Set sets the key the pointer names (added at the end of its map
	// when new) to Value.
	Set
	// Append adds Value to the end of the list the pointer names.
	Append
	// Drop removes from the list the pointer names the items equal to
	// Value: a scalar (an enum value, a required name) or, for a list of
	// schemas, the {$ref: Value} items.
	Drop
)

// Apply parses spec (YAML or JSON), applies the edits in order and
// renders the result as YAML. Every edit must change something: an edit
// that finds nothing to change is an error, so a variant does not drift
// silently away from what it says it removes.
func Apply(spec []byte, edits []Edit) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(spec, &root); err != nil {
		return nil, err
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("specvariant: an empty document")
	}
	for _, e := range edits {
		if err := apply(root.Content[0], e); err != nil {
			return nil, fmt.Errorf("specvariant: %s %s: %w", e.Op, e.Pointer, err)
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (o Op) String() string {
	switch o {
	case Remove:
		return "remove"
	case Set:
		return "set"
	case Append:
		return "append"
	case Drop:
		return "drop"
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

func tokens(pointer string) ([]string, error) {
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("not a JSON pointer")
	}
	parts := strings.Split(pointer[1:], "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// child is n's member key (a map) or item index (a list): its index in
// n.Content (a map: the value's), or -1.
func child(n *yaml.Node, key string) int {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return i + 1
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.Content) {
			return i
		}
	}
	return -1
}

func apply(root *yaml.Node, e Edit) error {
	toks, err := tokens(e.Pointer)
	if err != nil {
		return err
	}
	n := root
	for _, t := range toks[:len(toks)-1] {
		i := child(n, t)
		if i < 0 {
			return fmt.Errorf("no %q", t)
		}
		n = n.Content[i]
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
	}
	last := toks[len(toks)-1]
	i := child(n, last)
	var value *yaml.Node
	if e.Op == Set || e.Op == Append {
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(e.Value), &v); err != nil || len(v.Content) == 0 {
			return fmt.Errorf("value: %v", err)
		}
		value = v.Content[0]
	}
	switch e.Op {
	case Remove:
		switch {
		case i < 0:
			return fmt.Errorf("nothing at %q", last)
		case n.Kind == yaml.MappingNode:
			n.Content = append(n.Content[:i-1], n.Content[i+1:]...)
		default:
			n.Content = append(n.Content[:i], n.Content[i+1:]...)
		}
	case Set:
		switch {
		case i >= 0:
			n.Content[i] = value
		case n.Kind == yaml.MappingNode:
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, value)
		default:
			return fmt.Errorf("not a map")
		}
	case Append, Drop:
		if i < 0 || n.Content[i].Kind != yaml.SequenceNode {
			return fmt.Errorf("no list at %q", last)
		}
		list := n.Content[i]
		if e.Op == Append {
			list.Content = append(list.Content, value)
			break
		}
		kept := list.Content[:0]
		for _, it := range list.Content {
			if !matches(it, e.Value) {
				kept = append(kept, it)
			}
		}
		if len(kept) == len(list.Content) {
			return fmt.Errorf("no item %q", e.Value)
		}
		list.Content = kept
	default:
		return fmt.Errorf("unknown op")
	}
	return nil
}

// matches reports whether a list item is the scalar v or {$ref: v}.
func matches(it *yaml.Node, v string) bool {
	if it.Kind == yaml.ScalarNode {
		return it.Value == v
	}
	if it.Kind == yaml.MappingNode {
		if i := child(it, "$ref"); i >= 0 {
			return it.Content[i].Value == v
		}
	}
	return false
}
