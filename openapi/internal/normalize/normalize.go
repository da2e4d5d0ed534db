// Package normalize rewrites a pruned OpenAPI document into a form ogen can
// generate completely, without ignore_not_implemented.
//
// Each rewrite is a named Rule with a one-line reason. Rules are structural:
// they match shapes (a union of strings, a discriminator without mapping), not
// schema names, so a spec update keeps generating. Every schema a rule touches
// is recorded as a Hit; a rule with no hits is stale and is reported, not fatal.
package normalize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// Rule is one named rewrite.
type Rule struct {
	Name   string
	Reason string
	Apply  func(d *Doc) error
}

// Hit is one place a rule changed.
type Hit struct {
	Rule    string
	Schema  string // the component schema the place belongs to ("" for an operation's inline schema)
	Pointer string // JSON pointer of the place, from the document root
	Detail  string
}

// Doc is a document being normalized, with the hits recorded so far.
type Doc struct {
	T    *openapi3.T
	hits []Hit
	rule string
}

// Node is one schema in the document: a component schema, or an inline schema
// anywhere below a component or an operation.
type Node struct {
	Ref       *openapi3.SchemaRef
	Component string // owning component schema name, "" under an operation
	Pointer   string // JSON pointer from the document root
}

// Schema returns the node's schema value.
func (n Node) Schema() *openapi3.Schema { return n.Ref.Value }

// Hit records that the current rule changed n.
func (d *Doc) Hit(n Node, format string, args ...any) {
	d.hits = append(d.hits, Hit{Rule: d.rule, Schema: n.Component, Pointer: n.Pointer, Detail: fmt.Sprintf(format, args...)})
}

// Nodes returns every schema of the document that is written inline (not a
// $ref), once each, in a fixed order: component schemas by name, depth first,
// then operations by path and method. The slice is a snapshot; rules may
// rewrite the nodes it holds.
func (d *Doc) Nodes() []Node {
	nodes, _ := d.walk()
	return nodes
}

// RefNodes returns every $ref in the document (the slots that hold them), in
// the order of Nodes.
func (d *Doc) RefNodes() []Node {
	_, refs := d.walk()
	return refs
}

func (d *Doc) walk() (out, refs []Node) {
	if d.T.Components == nil {
		d.T.Components = &openapi3.Components{}
	}
	if d.T.Components.Schemas == nil {
		d.T.Components.Schemas = openapi3.Schemas{}
	}
	seen := map[*openapi3.Schema]bool{}
	var visit func(n Node)
	visit = func(n Node) {
		if n.Ref == nil {
			return
		}
		if n.Ref.Ref != "" {
			refs = append(refs, n)
			return
		}
		if n.Ref.Value == nil || seen[n.Ref.Value] {
			return
		}
		seen[n.Ref.Value] = true
		out = append(out, n)
		walk.Children(n.Ref.Value, func(slot walk.Slot, c *openapi3.SchemaRef) {
			visit(Node{Ref: c, Component: n.Component, Pointer: n.Pointer + "/" + slot})
		})
	}
	for _, name := range walk.SortedKeys(d.T.Components.Schemas) {
		visit(Node{Ref: d.T.Components.Schemas[name], Component: name, Pointer: "/components/schemas/" + walk.Escape(name)})
	}
	for _, op := range walk.Operations(d.T) {
		base := "/paths/" + walk.Escape(op.Path) + "/" + strings.ToLower(op.Method)
		walk.OperationSchemas(op.Op, func(string, string) {}, func(where string, s *openapi3.SchemaRef) {
			visit(Node{Ref: s, Pointer: base + "/" + where})
		})
	}
	return out, refs
}

// Resolve follows $ref chains and returns the schema a reference denotes.
func (d *Doc) Resolve(r *openapi3.SchemaRef) *openapi3.Schema {
	for i := 0; r != nil && i < 32; i++ {
		if r.Ref == "" {
			return r.Value
		}
		name := walk.ComponentName(r.Ref)
		next, ok := d.T.Components.Schemas[name]
		if !ok {
			return r.Value
		}
		if next == r {
			return r.Value
		}
		r = next
	}
	if r == nil {
		return nil
	}
	return r.Value
}

// AddComponent adds a component schema under a free name derived from want and
// returns the reference to it.
func (d *Doc) AddComponent(want string, s *openapi3.Schema) *openapi3.SchemaRef {
	name := want
	for i := 2; d.T.Components.Schemas[name] != nil; i++ {
		name = fmt.Sprintf("%s%d", want, i)
	}
	d.T.Components.Schemas[name] = &openapi3.SchemaRef{Value: s}
	return &openapi3.SchemaRef{Ref: walk.SchemaPrefix + name, Value: s}
}

// Report is the outcome of Normalize: every hit, and which rules were stale.
type Report struct {
	Rules []RuleReport
}

// RuleReport is one rule's part of the report.
type RuleReport struct {
	Name   string
	Reason string
	Hits   []Hit
}

// Stale reports whether the rule matched nothing.
func (r RuleReport) Stale() bool { return len(r.Hits) == 0 }

// StaleRules returns the names of the rules that matched nothing.
func (r Report) StaleRules() []string {
	var out []string
	for _, rr := range r.Rules {
		if rr.Stale() {
			out = append(out, rr.Name)
		}
	}
	return out
}

// Normalize applies rules to doc in order.
func Normalize(doc *openapi3.T, rules []Rule) (Report, error) {
	d := &Doc{T: doc}
	var rep Report
	for _, r := range rules {
		d.rule = r.Name
		d.hits = nil
		if err := r.Apply(d); err != nil {
			return Report{}, fmt.Errorf("normalize: rule %s: %w", r.Name, err)
		}
		hits := slices.Clone(d.hits)
		slices.SortStableFunc(hits, func(a, b Hit) int { return strings.Compare(a.Pointer, b.Pointer) })
		rep.Rules = append(rep.Rules, RuleReport{Name: r.Name, Reason: r.Reason, Hits: hits})
	}
	return rep, nil
}
