// Package mapping will hold the declarative Responses ↔ Chat Completions
// mapping (YAML) and the converters generated from it.
package mapping
