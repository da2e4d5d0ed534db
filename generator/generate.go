package generator

import (
	"io/fs"
	"path"
	"strings"
)

// Files is an in-memory file set: a file's name in the package directory
// → its contents.
type Files map[string][]byte

// Generate runs the pipeline for one mapping file of a package directory
// (name: "responses_chat.yaml"): load it, find the transforms in the
// directory's Go files, validate the mapping against the shape tables of
// the pinned specs (completely: every field of the source has an entry),
// build the IR for each target dialect and emit the converters. It reads
// fsys only; the files it returns ("responses_chat_gen.go") are for the
// caller to write or compare.
func Generate(fsys fs.FS, name string) (Files, []error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, []error{err}
	}
	sources := map[string][]byte{}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, []error{err}
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		if sources[e.Name()], err = fs.ReadFile(fsys, e.Name()); err != nil {
			return nil, []error{err}
		}
	}
	pkg := "mapping"
	display := path.Join(pkg, name)
	f, errs := Load(display, data)
	if errs != nil {
		return nil, errs
	}
	transforms, errs := ParseTransforms(prefixed(pkg, sources))
	if errs != nil {
		return nil, errs
	}
	c, errs := Validate(f, transforms, true)
	if errs != nil {
		return nil, errs
	}
	var convs []*Converter
	for _, t := range f.To {
		cv, errs := Build(c, t.Dialect)
		if errs != nil {
			return nil, errs
		}
		convs = append(convs, cv)
	}
	stem := strings.TrimSuffix(name, path.Ext(name))
	src, err := Emit(pkg, camel(stem), display, convs)
	if err != nil {
		return nil, []error{err}
	}
	return Files{stem + "_gen.go": src}, nil
}

func prefixed(dir string, files map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for n, b := range files {
		out[path.Join(dir, n)] = b
	}
	return out
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
