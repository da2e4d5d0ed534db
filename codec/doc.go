// Package codec is the JSON layer the converters use, above the generated
// types in gen/ and below mapping/: forward-compatible, deterministic
// decoding and encoding of requests, responses and stream events.
//
// Its subpackage sse frames Server-Sent Events.
package codec
