// Package generator turns the declarative mapping (mapping/*.yaml) into
// typed converters with jennifer: load → validate → IR → emit.
//
// So far (issue 5 in progress): the mapping format and its loader (Load:
// structural errors with file and line), and the validator (Validate:
// every path resolves in the shape tables of the pinned specs, every
// target dialect has a rule, mapped values fit their targets or name a
// transform, lossy rules state their loss, transforms exist and are used,
// extras are not spec fields, and with completeness every field of the
// source has an entry). The IR and the emitter come next.
package generator
