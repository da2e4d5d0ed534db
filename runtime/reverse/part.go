package reverse

// What a Part is: its kinds, tools, usage and fields.

import "github.com/transponder-dev/transponder/runtime/translate"

// Kind is what a Part is.
type Kind uint8

// The kinds of parts. Byte fields of a Part (ID, Delta, Input, Raw, …) are
// valid until the Parser's next call: a consumer copies what it keeps.
const (
	// KindStart: the response began (response.created): ID (the
	// response's id), Model, Created.
	KindStart Kind = iota + 1
	// KindTextStart, KindTextDelta, KindTextEnd: an output message's
	// text, Index its output_index, ID its stable id (the first id the
	// upstream gave the item), Delta a piece of the text as a JSON
	// string's contents, escaped as the upstream sent it; Raw the delta's
	// log probabilities (a JSON array, the chat form's logprobs.content
	// entries), nil when it has none.
	KindTextStart
	KindTextDelta
	KindTextEnd
	// KindRefusalDelta: a piece of a message's refusal (Delta, escaped).
	KindRefusalDelta
	// KindReasoningStart, KindReasoningDelta, KindReasoningEnd: one
	// summary part of a reasoning item (Summary true; Sub its
	// summary_index) or its reasoning text (Summary false; Sub its
	// content_index). ID is the reasoning item's id.
	KindReasoningStart
	KindReasoningDelta
	KindReasoningEnd
	// KindReasoningDone: the reasoning item is whole; Raw is its
	// encrypted_content as a JSON string, nil when it has none; Format and
	// Signature its format and signature (OpenRouter's reasoning item:
	// Anthropic's thinking needs the signature replayed), JSON strings or
	// nil.
	KindReasoningDone
	// KindToolInputStart, KindToolInputDelta, KindToolInputEnd: a call's
	// input streaming, keyed by Index (output_index): ID the call_id,
	// Name, Tool; Delta a piece of the input's JSON text, as a JSON
	// string's contents (escaped) — for a custom tool the input text is
	// {"input": …}, for a built-in its action (operation for apply_patch).
	KindToolInputStart
	KindToolInputDelta
	KindToolInputEnd
	// KindToolCall: a call is whole: ID, Name, Tool, Input (its JSON text
	// as a JSON string's contents, escaped). Provider is true for a call
	// the provider ran (web_search, file_search, code_interpreter): ID is
	// then the item's id, and a KindToolResult follows.
	KindToolCall
	// KindToolResult: what a provider-executed call gave: Raw is the whole
	// output item.
	KindToolResult
	// KindSource: an annotation of the text at Index (Raw, the annotation
	// object: url_citation, file_citation, container_file_citation, …).
	KindSource
	// KindItem: an output item no other part covers (image_generation_call,
	// mcp_call, an unknown type): Raw is the whole item.
	KindItem
	// KindFinish: the response ended: Status (completed, incomplete),
	// Reason (incomplete_details.reason), Usage, Raw the response's
	// service_tier (a JSON string's contents; nil when it has none).
	// Nothing follows.
	KindFinish
	// KindError: the response failed (an error event, response.failed, a
	// stream that ended before its terminal event, an event that is not
	// JSON): Err. Nothing follows.
	KindError
)

var kindNames = [...]string{"", "start", "text-start", "text-delta", "text-end", "refusal-delta",
	"reasoning-start", "reasoning-delta", "reasoning-end", "reasoning-done",
	"tool-input-start", "tool-input-delta", "tool-input-end", "tool-call", "tool-result",
	"source", "item", "finish", "error"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Tool is the kind of tool a call is of.
type Tool uint8

// The tools.
const (
	ToolFunction Tool = iota + 1
	ToolCustom
	ToolApplyPatch // client-executed built-ins: calls a chat client runs
	ToolShell
	ToolLocalShell
	ToolWebSearch // provider-executed
	ToolFileSearch
	ToolCodeInterpreter
)

// Usage is a response's token usage.
type Usage struct {
	Present         bool // the response said
	InputTokens     int64
	CachedTokens    int64 // input_tokens_details.cached_tokens
	CacheWrite      int64 // input_tokens_details.cache_write_tokens
	OutputTokens    int64
	ReasoningTokens int64 // output_tokens_details.reasoning_tokens
	TotalTokens     int64
	Cost            float64 // OpenRouter's cost (credits), when it said
}

// Part is one typed piece of a response. See Kind for which fields each
// kind sets.
type Part struct {
	Kind     Kind
	Index    int // the output item's output_index
	Sub      int // reasoning: the summary (or content) index
	Summary  bool
	Provider bool
	Tool     Tool
	ID       []byte
	Name     []byte
	Delta    []byte
	Input    []byte
	Raw      []byte
	Model    []byte
	// Format, Signature: KindReasoningDone's.
	Format, Signature []byte
	Created           int64
	Status            []byte
	Reason            []byte
	Usage             Usage
	Err               *translate.APIError
}
