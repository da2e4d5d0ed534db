// Package openapi turns the pinned upstream OpenAPI descriptions into the Go
// types in gen/: load (kin-openapi) → prune to the operations we serve →
// overlay the fields real traffic carries → normalize with named rewrite rules
// → generate with ogen. Every stage is a pure function of the spec bytes; the
// result is a set of files in memory plus a report of every rewrite.
//
// The manifest (manifest.yaml, embedded) pins each spec by URL and sha256 and
// lists the operations kept. Specs are read from a directory (SPECS_DIR); a
// file whose checksum differs from the pin is an error that shows both hashes,
// so a spec update is always explicit.
package openapi
