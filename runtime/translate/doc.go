// Package translate turns Chat Completions answers into Responses API
// answers: a chat completion into a Response object (ChatToResponse), and
// a chat stream into a Responses stream (ChatToResponses, a per-stream
// state machine), for the request a client sent to the Responses API and
// mapping converted.
//
// What maps field by field (usage, finish reasons, the message's fields)
// is declared in mapping/chat_responses.yaml and chat_chunk_responses.yaml
// and generated into mapping; this package keeps the state: output items in
// the order their content arrives (reasoning, message, tool calls), their
// ids, the stream's events and their sequence numbers, and the Response
// object echoing the client's request.
//
// Tool calls come back as the Responses items the client's tools make
// (function_call with its namespace, custom_tool_call, local_shell_call,
// shell_call, apply_patch_call, tool_search_call) through the request's
// mapping.ToolMap. Reasoning comes back as a reasoning item in the form
// mapping replays byte for byte (mapping/reasoning.go); its
// encrypted_content only when the request's include asks for
// reasoning.encrypted_content.
//
// Warnings that arise from the upstream's answer (a field the Response
// cannot carry, a call of a tool the request did not offer, a custom
// tool's arguments that were not {"input": …}) are listed in the
// Response's member "transponder_warnings" ([{path, reason}], absent when
// there are none) — in a stream, the terminal event's response. The
// request's own warnings are known before the first byte (the gateway
// sends them as a header).
//
// Ids come from an injected IDSource and times from an injected clock, so
// output is deterministic under test.
package translate
