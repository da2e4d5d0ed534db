// Package runtime holds what runs above the mapping:
//
//   - runtime/translate: the answer back, chat → Responses: the streaming
//     state machine (chat SSE chunks → Responses events) and the
//     non-streamed Response, with the error table clients act on;
//   - runtime/conformance: the stream conformance checker every Responses
//     stream Transponder emits passes;
//   - runtime/matrix: the alignment matrix (ALIGNMENT.md, alignment.json),
//     computed from the shape tables and the mapping YAML;
//   - runtime/gateway: the reference gateway (transponder serve), the
//     Responses API over an upstream's Chat Completions, and its replay
//     upstream (runtime/gateway/replay).
package runtime
