package generator

import (
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Files is an in-memory file set: a file's path from the module root →
// its contents.
type Files map[string][]byte

// Generate runs the pipeline for one mapping file (file:
// "mapping/responses_chat.yaml") of the module whose root is fsys: load
// it, find the transforms in its directory's Go files, validate the
// mapping against the shape tables of the pinned specs (completely: every
// field of the source has an entry), build the IR for each target dialect
// and emit the converters (mapping/responses_chat_gen.go), and resolve
// every mapped path to the Go fields ogen generated (gen/<dialect>/
// go_names.txt) for the typed form's compile-time references
// (mapping/typed/responses_chat_fields_gen.go). It reads fsys only; the
// files it returns are for the caller to write or compare. The entries
// the spec at hand lacks are not errors: they are returned as stale (for
// the caller to report), and left out of both files.
func Generate(fsys fs.FS, file string) (Files, []Stale, []error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, nil, []error{err}
	}
	dir, name := path.Split(file)
	dir = path.Clean(dir)
	sources := map[string][]byte{}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, nil, []error{err}
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		p := path.Join(dir, e.Name())
		if sources[p], err = fs.ReadFile(fsys, p); err != nil {
			return nil, nil, []error{err}
		}
	}
	pkg := path.Base(dir)
	f, errs := Load(file, data)
	if errs != nil {
		return nil, nil, errs
	}
	ds, errs := LoadDialects(fsys)
	if errs != nil {
		return nil, nil, errs
	}
	derrs := ApplyDialects([]*File{f}, ds) // reported with the file's own
	f.UsedElsewhere = map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || e.Name() == name || path.Ext(e.Name()) != ".yaml" {
			continue
		}
		p := path.Join(dir, e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, nil, []error{err}
		}
		other, errs := Load(p, data)
		if errs != nil {
			continue // its own generation reports them
		}
		_ = ApplyDialects([]*File{other}, ds)
		for _, e := range append(other.Entries, other.Extras...) {
			for _, r := range e.Rules {
				if r.Transform != "" {
					f.UsedElsewhere[r.Transform] = true
				}
			}
		}
	}
	transforms, errs := ParseTransforms(sources)
	if errs != nil {
		return nil, nil, errs
	}
	// A declared file's completeness is its tests' (against the pinned
	// specs) and the alignment matrix's: a field a spec update adds to
	// what the hand-written runtime reads shows there as unmapped, and
	// does not stop go generate, which has nothing to generate from it.
	c, errs := Validate(f, transforms, !f.Declared())
	if errs = append(derrs, errs...); len(errs) > 0 {
		return nil, FindStale(f, dialects), errs
	}
	if f.Declared() {
		return nil, c.Stale, nil // declared only: a test of the runtime holds it to its word
	}
	var convs []*Converter
	for _, t := range f.To {
		cv, errs := Build(c, t.Dialect)
		if errs != nil {
			return nil, c.Stale, errs
		}
		convs = append(convs, cv)
	}
	stem := strings.TrimSuffix(name, path.Ext(name))
	src, err := Emit(pkg, camel(stem), file, f.receiver(), convs)
	if err != nil {
		return nil, c.Stale, []error{err}
	}
	names := map[string]*GoNames{}
	for _, s := range append([]Side{f.From}, f.To...) {
		if names[s.Dialect] != nil || Derived(s.Dialect) {
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join("gen", s.Dialect, "go_names.txt"))
		if err != nil {
			return nil, c.Stale, []error{err}
		}
		if names[s.Dialect], err = ParseGoNames(b); err != nil {
			return nil, c.Stale, []error{err}
		}
	}
	fields, errs := EmitFields("typed", file, c, names)
	if errs != nil {
		return nil, c.Stale, errs
	}
	out := Files{path.Join(dir, stem+"_gen.go"): src, path.Join(dir, "typed", stem+"_fields_gen.go"): fields}
	if slices.ContainsFunc(f.To, func(s Side) bool { return s.Payload == "chat request" }) && f.From.Payload == "responses request" {
		tab, err := EmitDialects(pkg, camel(stem), f, ds, c)
		if err != nil {
			return nil, c.Stale, []error{err}
		}
		out[path.Join(dir, "dialects_gen.go")] = tab
	}
	return out, c.Stale, nil
}

// camel turns responses_chat into responsesChat.
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
