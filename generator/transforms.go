package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// Directive marks a transform in the hand-written files of mapping/:
//
//	// model renames the model by the options' rules.
//	//
//	//transponder:transform string -> string
//	func model(c *conv, v codec.Value, path string, dst codec.Ref, key string) {…}
//
// The kinds are JSON kinds (object, array, string, number, boolean): those
// the transform takes, and those it writes (none: it writes nothing).
const Directive = "//transponder:transform"

// Signature is the parameter list every transform has; its first
// parameter is a pointer to the mapping file's receiver type (conv unless
// the file says otherwise), which the generated converter is a method of.
var Signature = []string{"*conv", "codec.Value", "string", "codec.Ref", "string"}

// ParseTransforms finds the transforms among Go source files (name →
// contents; generated and test files are skipped): the functions with a
// Directive. A directive on a function of the wrong signature, or with
// kinds it cannot read, is an error naming the file and line.
func ParseTransforms(files map[string][]byte) ([]Transform, []error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Transform
	var errs []error
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_gen.go") || strings.HasSuffix(name, "_test.go") || !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, files[name], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Doc == nil {
				continue
			}
			for _, cm := range fn.Doc.List {
				spec, ok := strings.CutPrefix(cm.Text, Directive)
				if !ok {
					continue
				}
				line := fset.Position(cm.Pos()).Line
				errf := func(format string, args ...any) {
					errs = append(errs, &Error{name, line, fmt.Sprintf(format, args...)})
				}
				t := Transform{Name: fn.Name.Name, File: name, Line: line}
				from, to, ok := strings.Cut(spec, "->")
				if !ok {
					errf("%s: want %s <kinds> -> <kinds>", t.Name, Directive)
					continue
				}
				var bad string
				t.From, bad = parseKinds(from)
				if bad == "" {
					t.To, bad = parseKinds(to)
				}
				if bad != "" || len(t.From) == 0 {
					errf("%s: %q is not a JSON kind list (object, array, string, number, boolean)", t.Name, strings.TrimSpace(spec))
					continue
				}
				got := signature(fn)
				if fn.Recv != nil || len(got) != len(Signature) || !strings.HasPrefix(got[0], "*") || strings.Contains(got[0], ".") || !slices.Equal(got[1:], Signature[1:]) || fn.Type.Results != nil {
					errf("%s: a transform is func(%s), not %s", t.Name, strings.Join(Signature, ", "), describe(fn, got))
					continue
				}
				t.Receiver = got[0][1:]
				out = append(out, t)
			}
		}
	}
	return out, errs
}

func parseKinds(s string) ([]codec.Kind, string) {
	var out []codec.Kind
	for _, w := range strings.Fields(s) {
		k, ok := codec.KindByName(w)
		if !ok || k == codec.Null {
			return nil, w
		}
		out = append(out, k)
	}
	return out, ""
}

// signature lists a function's parameter types as written.
func signature(fn *ast.FuncDecl) []string {
	var out []string
	for _, f := range fn.Type.Params.List {
		n := max(len(f.Names), 1)
		for range n {
			out = append(out, exprString(f.Type))
		}
	}
	return out
}

func describe(fn *ast.FuncDecl, params []string) string {
	s := "func"
	if fn.Recv != nil {
		s = "a method"
	}
	s += "(" + strings.Join(params, ", ") + ")"
	if fn.Type.Results != nil {
		s += " with results"
	}
	return s
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return fmt.Sprintf("%T", e)
}
