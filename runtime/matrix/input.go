package matrix

import (
	"errors"
	"io/fs"
	"path"

	"github.com/transponder-dev/transponder/codec"
	"github.com/transponder-dev/transponder/generator"
)

// Files are where the matrix is committed, from the module root.
const (
	MarkdownFile = "ALIGNMENT.md"
	JSONFile     = "alignment.json"
)

// Compiled are the shape tables compiled into the codec (what `go
// generate` made from the pinned specs), by dialect name.
func Compiled() map[string]*codec.Dialect {
	out := map[string]*codec.Dialect{}
	for _, d := range codec.Dialects {
		out[d.Name()] = d
	}
	return out
}

// Mappings loads mapping/*.yaml of the module whose root is fsys (in name
// order), with the dialects of mapping/dialects added to the files they
// extend (a section each). Only structural errors fail it: entries the
// spec lacks are the sections' stale entries (generator.FindStale), not
// errors.
func Mappings(fsys fs.FS) ([]*generator.File, error) {
	names, err := fs.Glob(fsys, "mapping/*.yaml")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, errors.New("matrix: no mapping/*.yaml")
	}
	var out []*generator.File
	var errs []error
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		f, ferrs := generator.Load(path.Clean(n), data)
		errs = append(errs, ferrs...)
		out = append(out, f)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	ds, errs := generator.LoadDialects(fsys)
	errs = append(errs, generator.ApplyDialects(out, ds)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
