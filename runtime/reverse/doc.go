// Package reverse turns Responses API answers into Chat Completions
// answers: the direction for chat clients in front of a Responses upstream.
//
// Parser is the reusable core: a per-stream state machine that reads a
// Responses event stream, one event's JSON at a time, and yields typed
// Parts — text start/delta/end, refusal deltas, reasoning per summary
// index (and its encrypted_content), tool input start/delta/end and the
// call (function_call, custom_tool_call, and the client-executed built-ins
// apply_patch, shell and local_shell), sources (url_citation and the other
// annotations), provider-executed tool calls and their results
// (web_search, file_search, code_interpreter), items no part covers, the
// finish with usage, and errors. Its state is keyed by output_index, so a
// text keeps one id even when an upstream rotates item ids; unknown event
// types are skipped; memory grows with the output only, and an event costs
// no allocation in the steady state (parts point into the event's bytes
// and into an arena the parser reuses).
//
// ChatStream is one consumer of the parts: it writes OpenAI/OpenRouter
// shaped chat.completion.chunk SSE (role first, content, tool_calls,
// reasoning and reasoning_details, annotations, one finish_reason, usage
// last, [DONE]); an error after the first byte becomes a final chunk
// carrying it as OpenRouter does. Go programs that want the parts (what an
// SDK's Responses adapter does) use Parser directly.
//
// ResponseToChat converts a non-streaming Response into a chat completion.
// What a chat answer cannot carry (hosted tool calls, images, unknown
// items) is listed as warnings, never dropped silently.
//
// Ids come from an injected IDSource and times from an injected clock, so
// output is deterministic under test.
package reverse
