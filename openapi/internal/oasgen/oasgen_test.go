package oasgen

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/ogen-go/ogen/gen/ir"

	"github.com/transponder-dev/transponder/openapi/internal/normalize"
	"github.com/transponder-dev/transponder/openapi/internal/postgen"
)

const okSpec = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
"paths":{"/x":{"post":{"operationId":"x","requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Req"}}}},
  "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Req"}}}}}}}},
"components":{"schemas":{
  "Req":{"type":"object","properties":{"item":{"$ref":"#/components/schemas/Item"},"name":{"type":"string"}}},
  "Msg":{"type":"object","properties":{"type":{"type":"string","enum":["message"]},"text":{"type":"string"}}},
  "Ref":{"type":"object","required":["type"],"properties":{"type":{"type":"string","enum":["ref"]},"id":{"type":"string"}}},
  "Item":{"oneOf":[{"$ref":"#/components/schemas/Msg"},{"$ref":"#/components/schemas/Ref"}],
    "discriminator":{"propertyName":"type","mapping":{"message":"#/components/schemas/Msg","ref":"#/components/schemas/Ref"}}}}}}`

func TestGenerate(t *testing.T) {
	out, err := Generate([]byte(okSpec), "api", map[string]string{"Item": "Msg"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"Req", "Msg", "Ref", "Item"} {
		if out.Types[c] == "" {
			t.Errorf("no Go type for %s: %v", c, out.Types)
		}
	}
	if !out.Defaults["Item"] {
		t.Error("default variant not applied")
	}
	// The names table: Item's variant "message" is its field Msg, with the
	// constant ogen's template writes.
	names := string(out.Files[NamesFile])
	for _, line := range []string{"\nT Item sum\n", "\nV Item message Msg Msg MsgItem\n", "\nT Req struct\n"} {
		if !strings.Contains(names, line) {
			t.Errorf("%s has no line %q:\n%s", NamesFile, line, names)
		}
	}
	var sources []string
	for name, src := range out.Files {
		if name == NamesFile {
			continue
		}
		if !strings.HasPrefix(name, "oas_") || !strings.HasSuffix(name, "_gen.go") {
			t.Errorf("unexpected file %s", name)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !ast.IsGenerated(f) {
			t.Errorf("%s not marked generated", name)
		}
		sources = append(sources, string(src))
	}
	all := strings.Join(sources, "\n")
	// The default variant replaces ogen's "unable to detect sum type variant"
	// for Item: an object without "type" decodes as Msg.
	if !strings.Contains(all, "s.Type = MsgItem") {
		t.Error("Item's decoder has no default variant")
	}
	// No client, no server: types and JSON codecs only.
	for _, f := range []string{"oas_client_gen.go", "oas_server_gen.go", "oas_handlers_gen.go"} {
		if _, ok := out.Files[f]; ok {
			t.Errorf("%s generated", f)
		}
	}
}

// Nothing ogen cannot generate is skipped: every unsupported construct is
// collected and generation fails.
func TestNotImplementedFails(t *testing.T) {
	bad := strings.Replace(okSpec, `"name":{"type":"string"}`,
		`"name":{"anyOf":[{"type":"string"},{"type":"string","enum":["a"]}]}`, 1)
	_, err := Generate([]byte(bad), "api", nil)
	var ni *NotImplementedError
	if !errors.As(err, &ni) {
		t.Fatalf("want NotImplementedError, got %v", err)
	}
	if !strings.Contains(err.Error(), "complex anyOf") {
		t.Errorf("error does not name the construct: %v", err)
	}
}

// A tagged field whose *ir.Type another, untagged, field shares gets its own
// copy: the untagged field still leaves a nil out (and its validator takes
// one).
func TestEncodeEmptySharedType(t *testing.T) {
	shared := &ir.Type{Kind: ir.KindArray, Item: &ir.Type{Kind: ir.KindPrimitive, Primitive: ir.String}, NilSemantic: ir.NilOptional}
	tag := ir.Tag{JSON: "a", ExtraTags: map[string]string{normalize.EncodeEmptyTag: normalize.EncodeEmpty}}
	server := &ir.Type{Kind: ir.KindStruct, Name: "Server", Fields: []*ir.Field{{Name: "A", Type: shared, Tag: tag}}}
	client := &ir.Type{Kind: ir.KindStruct, Name: "Client", Fields: []*ir.Field{{Name: "A", Type: shared, Tag: ir.Tag{JSON: "a"}}}}
	fields, err := encodeEmpty(map[string]*ir.Type{"Server": server, "Client": client})
	if err != nil {
		t.Fatal(err)
	}
	if want := []postgen.Field{{Type: "Server", Name: "A"}}; !slices.Equal(fields, want) {
		t.Errorf("fields %v, want %v", fields, want)
	}
	if got := server.Fields[0].Type.NilSemantic; got != ir.NilInvalid {
		t.Errorf("tagged field: nil %s, want %s", got, ir.NilInvalid)
	}
	if got := client.Fields[0].Type.NilSemantic; got != ir.NilOptional {
		t.Errorf("untagged field sharing the type: nil %s, want %s", got, ir.NilOptional)
	}
}
