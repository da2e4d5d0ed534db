// Package generator turns the declarative mapping (mapping/*.yaml) into
// typed converters with jennifer, as a pipeline: Load (the YAML, with
// structural errors at their lines) → ParseTransforms (the hand-written
// functions marked //transponder:transform, signatures checked) → Validate
// (every path is well formed, every target dialect has a rule, mapped
// values fit their targets or go through a transform whose kinds fit,
// value tables and constants fit the source's and the target's enums,
// lossy rules state their loss, transforms are used, every field of the
// source has an entry; what the shape tables of the spec at hand lack —
// an entry's path, a rule's target, a targets: path, an event type, or an
// extra the spec made a field — is stale (FindStale): reported, left out,
// never an error) → Build (the IR: the source as a tree of objects, arrays and
// unions with a rule at each leaf, per target dialect) → Emit (Go source).
//
// Generate runs the whole pipeline over an fs.FS and returns the files in
// memory; internal/cmd/mapgen writes them (go:generate in mapping/).
package generator
