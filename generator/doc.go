// Package generator will turn the declarative mapping (mapping/*.yaml) into
// typed converters with jennifer. Empty until the mapping issue lands.
package generator
