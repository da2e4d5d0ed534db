// Package specupdate holds the test of a spec update done as a user does
// it: variants of the pinned specs (fields, variants, enum values and
// event types removed and added; an OpenAPI 3.0 rendering; OpenRouter's
// late-2025 constructs), each put in a copy of the module, pinned with
// `transponder pin`'s code, regenerated with `go generate ./...`, built,
// used to convert the recorded Codex requests, and its alignment matrix
// diffed against the pinned one — with no edit by hand. Its test is slow
// (a generation and a build per variant); the figures it logs are those of
// the README's "Updating a spec".
package specupdate
