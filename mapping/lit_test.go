package mapping_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLiteralKeys: the Builder writes the keys of its …Lit methods (and
// ObjectOnce's) without a check, so every call of one in the module —
// and of the conversions' put methods, which forward their key to one
// and only generated code calls — passes a string literal that JSON
// writes as it is (the generator checks the keys it emits; this checks
// the hand-written calls too, and any added later). A key from a payload
// goes through the methods that check.
func TestLiteralKeys(t *testing.T) {
	lit := map[string]bool{"ObjectLit": true, "ArrayLit": true, "SetLit": true, "SetNewLit": true, "SetJSONLit": true, "SetStringLit": true, "ObjectOnce": true, "put": true}
	calls := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (name == "gen" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		called := map[*ast.SelectorExpr]bool{} // the selectors called, not taken as values
		ast.Inspect(f, func(n ast.Node) bool {
			if fn, ok := n.(*ast.FuncDecl); ok && fn.Recv != nil {
				if fn.Name.Name == "put" && dir == filepath.Join("..", "mapping") {
					return false // the conversions' put methods: forward the key their (generated) callers give
				}
				if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok && isIdent(star.X, "Builder") && dir == filepath.Join("..", "codec") {
					return false // the Builder's own methods, forwarding their key
				}
			}
			if sel, ok := n.(*ast.SelectorExpr); ok && lit[sel.Sel.Name] && !called[sel] && (sel.Sel.Name != "put" || dir == filepath.Join("..", "mapping")) {
				// A method value (f := b.SetLit) would be called with keys
				// this test does not see.
				t.Errorf("%s: %s taken as a value: its calls' keys go unchecked", fset.Position(sel.Pos()), sel.Sel.Name)
				return true
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if ok {
				called[sel] = true
			}
			if !ok || !lit[sel.Sel.Name] || len(call.Args) < 2 || sel.Sel.Name == "put" && dir != filepath.Join("..", "mapping") {
				return true // (put: the mapping's, not another package's)
			}
			if sel.Sel.Name == "put" && !strings.HasSuffix(path, "_gen.go") {
				t.Errorf("%s: put, generated code's, called by hand-written code", fset.Position(call.Pos()))
			}
			calls++
			b, ok := call.Args[1].(*ast.BasicLit)
			key, err := "", error(nil)
			if ok && b.Kind == token.STRING {
				key, err = strconv.Unquote(b.Value)
			}
			if !ok || b.Kind != token.STRING || err != nil || key != strings.Trim(strconv.QuoteToASCII(key), `"`) || strings.ContainsAny(key, `"\`) {
				t.Errorf("%s: %s's key is not a plain string literal", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 100 {
		t.Errorf("only %d calls of the …Lit methods found: is the walk looking at the module?", calls)
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
