// Package postgen holds the pipeline's post-generation steps: named,
// verified rewrites of ogen's output, for what ogen has no setting for.
// Each step fails when the code it expects is not there, so an ogen upgrade
// that changes its templates stops the pipeline instead of silently undoing
// the step.
package postgen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
)

// Step is what one post-generation step did, for the report.
type Step struct {
	Name   string
	Reason string
	Count  int    // places rewritten or generated
	Detail string // what a place is
}

// SortedMapEncodingStep names the step that SortedMapEncoding performs.
const (
	SortedMapEncodingStep   = "sorted-map-encoding"
	SortedMapEncodingReason = "ogen encodes a Go map (AdditionalProps, map types) by ranging over it, so key order changes from run to run; its encoders iterate the sorted keys instead"
)

// SortedKeysFunc is the helper the rewritten loops call; Helpers defines it.
const SortedKeysFunc = "sortedKeys"

// SortedMapEncoding rewrites, in the encoders (methods Encode and
// encodeFields) of src, every loop over a map
//
//	for k, elem := range X {
//
// into a loop over its sorted keys
//
//	for _, k := range sortedKeys(X) {
//		elem := X[k]
//
// ogen's templates write map loops with a key and a value, and array loops
// with `_` as key; an array loop rewritten by mistake would not compile.
// It returns the rewritten source and the number of loops. It fails when it
// finds fewer than atLeast loops (what ogen's IR says there are: one per
// struct with AdditionalProps or pattern properties, one per map type), or
// when a map loop is left in an encoder.
func SortedMapEncoding(src []byte, atLeast int) ([]byte, int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, 0, fmt.Errorf("postgen: %s: parse: %w", SortedMapEncodingStep, err)
	}
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	for _, rs := range mapLoops(f) {
		key, val := rs.Key.(*ast.Ident), rs.Value.(*ast.Ident)
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		x := string(src[off(rs.X.Pos()):off(rs.X.End())])
		edits = append(edits, edit{
			from: off(rs.For),
			to:   off(rs.Body.Lbrace) + 1,
			text: fmt.Sprintf("for _, %s := range %s(%s) {\n%s := %s[%s]", key.Name, SortedKeysFunc, x, val.Name, x, key.Name),
		})
	}
	if len(edits) < atLeast {
		return nil, 0, fmt.Errorf("postgen: %s: found %d map loops in ogen's encoders, ogen's IR has at least %d: its templates changed; the step needs updating", SortedMapEncodingStep, len(edits), atLeast)
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.from - b.from })
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		out.Write(src[last:e.from])
		out.WriteString(e.text)
		last = e.to
	}
	out.Write(src[last:])
	res, err := format.Source(out.Bytes())
	if err != nil {
		return nil, 0, fmt.Errorf("postgen: %s: rewritten source: %w", SortedMapEncodingStep, err)
	}
	// Verify: no map loop is left in an encoder.
	g, err := parser.ParseFile(token.NewFileSet(), "", res, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("postgen: %s: rewritten source: %w", SortedMapEncodingStep, err)
	}
	if left := len(mapLoops(g)); left > 0 {
		return nil, 0, fmt.Errorf("postgen: %s: %d map loops left after the rewrite", SortedMapEncodingStep, left)
	}
	return res, len(edits), nil
}

// mapLoops returns the range loops with a named key and a value in the
// encoder methods of f.
func mapLoops(f *ast.File) []*ast.RangeStmt {
	var out []*ast.RangeStmt
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Body == nil || (fd.Name.Name != "Encode" && fd.Name.Name != "encodeFields") {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			rs, ok := n.(*ast.RangeStmt)
			if !ok || rs.Value == nil {
				return true
			}
			key, ok1 := rs.Key.(*ast.Ident)
			_, ok2 := rs.Value.(*ast.Ident)
			if ok1 && ok2 && key.Name != "_" {
				out = append(out, rs)
			}
			return true
		})
	}
	return out
}

// EncodeEmptyNilStep names the step that AllowNil performs.
const (
	EncodeEmptyNilStep   = "encode-empty-nil-valid"
	EncodeEmptyNilReason = "ogen's validator rejects a nil array whose nil semantic is \"invalid\" (set by encode-empty-arrays so the encoder writes [] from nil); a nil one is written [], so Validate() accepts it"
)

// Field names a Go struct type and one of its fields.
type Field struct{ Type, Name string }

// AllowNil removes, from the Validate method of each field's type in src,
// ogen's check
//
//	if s.Name == nil {
//		return errors.New("nil is invalid value")
//	}
//
// It fails unless it finds each field's check exactly once.
func AllowNil(src []byte, fields []Field) ([]byte, error) {
	out := src
	for _, f := range fields {
		head := []byte("\nfunc (s *" + f.Type + ") Validate() error {\n")
		start := bytes.Index(out, head)
		if start < 0 {
			return nil, fmt.Errorf("postgen: %s: no Validate method of %s", EncodeEmptyNilStep, f.Type)
		}
		end := len(out)
		if i := bytes.Index(out[start+len(head):], []byte("\nfunc ")); i >= 0 {
			end = start + len(head) + i
		}
		body := out[start:end]
		re := regexp.MustCompile(`\n\t*if s\.` + regexp.QuoteMeta(f.Name) + ` == nil \{\n\t*return errors\.New\("nil is invalid value"\)\n\t*\}`)
		locs := re.FindAllIndex(body, -1)
		if len(locs) != 1 {
			return nil, fmt.Errorf("postgen: %s: %s.%s: %d nil checks in its Validate, want 1", EncodeEmptyNilStep, f.Type, f.Name, len(locs))
		}
		next := slices.Concat(out[:start+locs[0][0]], out[start+locs[0][1]:])
		out = next
	}
	return out, nil
}
