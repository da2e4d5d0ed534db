package generator

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// A leaf's rule, as the converter runs it: map (through a transform or a
// value table), drop, refuse, omit, and their constants.

// leaf writes what n's rule does with its value val.
func (e *emitter) leaf(n *Node, val string, el *elem) []jen.Code {
	t := n.Leaf
	r := t.Rule
	raw := func() *jen.Statement { return jen.String().Parens(jen.Id(val).Dot("Raw").Call()) }
	var out []jen.Code
	switch r.Kind {
	case Drop:
		return []jen.Code{jen.Comment(e.line(n) + "drop"), jen.Id("c").Dot("drop").Call(jen.Id(val), e.path(n), jen.Lit(r.Reason))}
	case Gateway:
		return []jen.Code{jen.Comment(e.line(n) + "gateway: " + r.Reason)}
	case Omit:
		return []jen.Code{jen.Comment(e.line(n) + "omit → " + r.Target + ": the target's default, left out")}
	case Refuse:
		path := e.path(n)
		if t.Tag != "" {
			path = e.pathRel(n, join(n.Rel, t.Tag))
		}
		// the message, with the value as sent in place of {value}
		parts := strings.Split(r.Reason, "{value}")
		msg := jen.Lit(parts[0])
		for _, p := range parts[1:] {
			msg = msg.Op("+").Add(raw())
			if p != "" {
				msg = msg.Op("+").Lit(p)
			}
		}
		call := jen.Id("c").Dot("refuse").Call(path, msg)
		if r.Unless != "" {
			return []jen.Code{jen.Comment(e.line(n) + "refuse unless " + r.Unless), jen.If(raw().Op("!=").Lit(r.Unless)).Block(call)}
		}
		return []jen.Code{jen.Comment(e.line(n) + "refuse"), call}
	case Set:
		out = append(out, jen.Comment(e.line(n)+"set"))
	case Lossy:
		out = append(out, jen.Comment(e.line(n)+"lossy → "+r.Target))
	default:
		out = append(out, jen.Comment(e.line(n)+"→ "+r.Target))
	}
	var write []jen.Code
	switch {
	case r.Kind == Set:
	case r.Transform != "":
		steps := t.Steps
		lastStep := steps[len(steps)-1]
		var dst, key jen.Code
		if t.Silent {
			// it writes nothing: no target object is made (per chunk, for a stream)
			dst, key = jen.Qual(codecPkg, "Top"), jen.Lit("")
		} else if lastStep.Elem {
			dst = jen.Id("c").Dot("b").Dot("ArrayLit").Call(e.chain(steps[:len(steps)-1], el), jen.Lit(lastStep.Key))
			key = jen.Lit("")
		} else {
			dst, key = e.chain(steps[:len(steps)-1], el), jen.Lit(lastStep.Key)
		}
		write = append(write, jen.Id(r.Transform).Call(jen.Id("c"), jen.Id(val), e.path(n), dst, key))
	case t.Values != nil:
		write = append(write, e.values(n, t, val, el))
	default:
		steps := t.Steps
		write = append(write, jen.Id("c").Dot("put").Call(e.chain(steps[:len(steps)-1], el), jen.Lit(steps[len(steps)-1].Key), jen.Id(val).Dot("Raw").Call()))
	}
	var consts []jen.Code
	for _, k := range t.Consts {
		last := k.Steps[len(k.Steps)-1]
		if last.Elem {
			arr := jen.Id("c").Dot("b").Dot("ArrayLit").Call(e.chain(k.Steps[:len(k.Steps)-1], el), jen.Lit(last.Key))
			consts = append(consts, jen.Id("c").Dot("b").Dot("AppendConst").Call(arr, jen.Lit(k.JSON)))
		} else {
			consts = append(consts, jen.Id("c").Dot("b").Dot("SetJSONLit").Call(e.chain(k.Steps[:len(k.Steps)-1], el), jen.Lit(last.Key), jen.Lit(k.JSON)))
		}
	}
	if r.When != "" && consts != nil {
		consts = []jen.Code{jen.If(raw().Op("==").Lit(r.When)).Block(consts...)}
	}
	var body []jen.Code
	if r.AlsoFirst {
		body = append(append(body, consts...), write...)
	} else {
		body = append(append(body, write...), consts...)
	}
	if r.Kind == Lossy {
		body = append(body, jen.Id("c").Dot("warn").Call(e.path(n), jen.Lit(t.Note)))
	}
	if r.Unless != "" {
		// validated: an entry reads the key, unless the spec at hand lacks
		// it (a stale entry): then it is never there
		if sib, ok := e.root[r.unlessKey()]; ok {
			body = []jen.Code{jen.If(jen.Op("!").Id("present").Call(jen.Id(sib))).Block(body...)}
		}
	}
	return append(out, body...)
}

// values writes a value by a value table: each source value (as its JSON
// is sent) to its target value; any other is warned and left out, or
// becomes the table's otherwise. No allocation but on the warning's path.
func (e *emitter) values(n *Node, t *Target, val string, el *elem) jen.Code {
	steps := t.Steps
	key := steps[len(steps)-1].Key
	dst := func() jen.Code { return e.chain(steps[:len(steps)-1], el) }
	var same []jen.Code // the values carried as they are: one case
	var cases []jen.Code
	for _, p := range t.Values {
		if p.From == p.To && p.Set == nil {
			same = append(same, jen.Lit(p.From))
			continue
		}
		var body []jen.Code
		switch {
		case p.To == "":
		case p.From == p.To:
			body = append(body, jen.Id("c").Dot("put").Call(dst(), jen.Lit(key), jen.Id(val).Dot("Raw").Call()))
		default:
			body = append(body, jen.Id("c").Dot("b").Dot("SetJSONLit").Call(dst(), jen.Lit(key), jen.Lit(p.To)))
		}
		for i, k := range p.Set {
			st := p.setSteps[i]
			body = append(body, jen.Id("c").Dot("b").Dot("SetJSONLit").Call(e.chain(st[:len(st)-1], el), jen.Lit(st[len(st)-1].Key), jen.Lit(k.JSON)))
		}
		cases = append(cases, jen.Case(jen.Lit(p.From)).Block(body...))
	}
	if same != nil {
		cases = append([]jen.Code{jen.Case(same...).Block(jen.Id("c").Dot("put").Call(dst(), jen.Lit(key), jen.Id(val).Dot("Raw").Call()))}, cases...)
	}
	if r := t.Rule; r.Otherwise != "" {
		cases = append(cases, jen.Default().Block(jen.Id("c").Dot("b").Dot("SetJSONLit").Call(dst(), jen.Lit(key), jen.Lit(r.Otherwise))))
	} else {
		cases = append(cases, jen.Default().Block(jen.Id("c").Dot("warn").Call(e.path(n),
			jen.String().Parens(jen.Id(val).Dot("Raw").Call()).Op("+").Lit(" is not a value the mapping carries to "+t.Rule.Target+"; left out"))))
	}
	return jen.Switch(jen.String().Parens(jen.Id(val).Dot("Raw").Call())).Block(cases...)
}
