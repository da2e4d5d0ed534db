// Package runtime will hold the streaming state machines, the stream
// conformance checker and the alignment matrix.
package runtime
