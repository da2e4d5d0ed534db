package mapping

// What a conversion is told (Options) and what it tells (Warning, Error).

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/transponder-dev/transponder/codec"
)

// Dialect is the Chat Completions dialect a converter writes: OpenRouter's
// (the default), OpenAI's, or one derived from them by a file of
// mapping/dialects (DeepSeek's, Mistral's, …). The constants and what each
// dialect is are generated (dialects_gen.go).
type Dialect uint8

// dialect is what a dialect is (the generated table dialects).
type dialect struct {
	name string
	base Dialect // OpenRouter or OpenAI: whose chat request it writes
	// customTools: it takes OpenAI's custom tools (else they are
	// functions, virtualized).
	customTools bool
	// carrier is the assistant message's field replayed reasoning goes
	// in ("": the base's way); carrierEvery puts it on every assistant
	// message, else only on those with tool calls (an empty one when the
	// turn replayed none).
	carrier      string
	carrierEvery bool
	// carrierRequired: a tool-call turn without replayed reasoning gets an
	// empty carrier (the provider refuses the turn otherwise).
	carrierRequired bool
	// logprobs: it asks for log probabilities (include's
	// message.output_text.logprobs); its rule for top_logprobs carries it.
	logprobs bool
	// system is the placement of system messages the provider needs, if
	// forceSystem.
	system      SystemMode
	forceSystem bool
	// idLength > 0: tool-call ids must be this many ASCII letters and
	// digits; others are rewritten.
	idLength int
	// strict: the provider refuses fields it does not know; what the
	// dialect's shape table lacks is left out (pruneUnknown).
	strict bool
}

func (d Dialect) String() string {
	if d.valid() {
		return dialects[d].name
	}
	return "dialect(" + strconv.Itoa(int(d)) + ")"
}

// base is OpenRouter or OpenAI: the chat request the dialect writes, and
// the Responses API it names for the reverse direction.
func (d Dialect) base() Dialect { return dialects[d].base }

func (d Dialect) codec() *codec.Dialect { return dialectCodecs[d] }

// dialectCodecs are the shape tables of the dialects, by constant: a
// dialect's own (openapi/manifest.yaml's dialects), else its base's.
var dialectCodecs = func() (out [len(dialects)]*codec.Dialect) {
	for i, d := range dialects {
		for _, name := range []string{d.name, dialects[d.base].name} {
			for _, t := range codec.Dialects {
				if out[i] == nil && t.Name() == name {
					out[i] = t
				}
			}
		}
	}
	return out
}()

// shape are the facts of a dialect's chat request the hand-written
// transforms go by, read from its shape table once: whether an assistant
// message has a refusal, whether there is a developer role, whether a
// text part has a prompt cache breakpoint.
type shape struct{ refusal, developer, breakpoint bool }

var dialectShapes = func() (out [len(dialects)]shape) {
	for i, t := range dialectCodecs {
		root, _ := t.Payload(codec.ChatRequest)
		has := func(p string) bool { _, err := root.Schema().Lookup(p); return err == nil }
		out[i] = shape{
			refusal:    has("messages[]{assistant}.refusal"),
			developer:  has("messages[]{developer}"),
			breakpoint: has("messages[]{user}.content[]{text}.prompt_cache_breakpoint"),
		}
	}
	return out
}()

func (c *conv) shape() shape { return dialectShapes[c.opts.Dialect] }

// Dialects are the names of the chat dialects, in order.
func Dialects() []string {
	out := make([]string, len(dialects))
	for i, d := range dialects {
		out[i] = d.name
	}
	return out
}

// valid reports whether d is one of the dialects.
func (d Dialect) valid() bool { return int(d) < len(dialects) }

// ParseDialect is the dialect of a name; the error lists the known ones.
func ParseDialect(name string) (Dialect, error) {
	for i, d := range dialects {
		if d.name == name {
			return Dialect(i), nil
		}
	}
	return 0, fmt.Errorf("unknown dialect %q (known: %s)", name, strings.Join(Dialects(), ", "))
}

// SystemMode says what the instructions and the system and developer
// messages become.
type SystemMode uint8

const (
	// System: instructions become a leading system message; developer
	// messages stay developer messages.
	System SystemMode = iota
	// Developer: instructions become a leading developer message.
	Developer
	// Merge: the instructions and every system or developer message before
	// the first other message become one first system message (their texts
	// joined by a blank line), which some models require.
	Merge
)

// UnknownTypes says what happens to a value of a type the spec does not
// know (a tool, a tool choice, an input item or content part of a newer
// API than the pinned spec).
type UnknownTypes uint8

const (
	// DropUnknown leaves the value out, with a warning (the default).
	DropUnknown UnknownTypes = iota
	// RejectUnknown fails the request with an invalid_value error naming the
	// type and its path.
	RejectUnknown
)

// ModelRule renames a model. An exact rule applies to the name From; a
// prefix rule to names that start with From, whose prefix it replaces with
// To ("gpt-" → "openai/gpt-").
type ModelRule struct {
	From, To string
	Prefix   bool
}

// Options configure a conversion. The zero Options convert to OpenRouter,
// instructions as a system message, unknown types dropped with a warning,
// model names unchanged.
type Options struct {
	Dialect Dialect
	// Models rename models: the exact rule for the name if there is one,
	// else the prefix rule with the longest prefix; names no rule matches
	// pass through.
	Models       []ModelRule
	System       SystemMode
	UnknownTypes UnknownTypes
	// SessionID is a session key from outside the body (Codex's session-id
	// header): OpenRouter's session_id when the request sets neither
	// session_id nor prompt_cache_key.
	SessionID string
	// UnknownItems says what happens to an input item of a type the spec
	// does not know: by default the request is refused (silently losing
	// history corrupts the conversation).
	UnknownItems UnknownItems
	// Provider, when set, is OpenRouter's provider preferences object
	// (data collection, ZDR, order, …) the operator puts in every request:
	// it replaces one the client sent, with a warning.
	Provider []byte
	// OpenCalls lets the input end with calls that have no output yet
	// (they are left without tool messages): what a stored conversation
	// may hold between two turns, which the gateway checks items against.
	// A request to send upstream never sets it.
	OpenCalls bool
	// Items resolves item_reference input items: the item (its JSON) of an
	// id, or an error wrapping ErrItemNotFound (the request is refused,
	// naming the id), or another error (returned as it is). Without it an
	// item_reference is refused.
	Items func(id string) ([]byte, error)
}

// UnknownItems says what happens to an input item of a type the spec does
// not know.
type UnknownItems uint8

const (
	// RejectUnknownItems refuses the request, naming the type and the
	// item's index (the default).
	RejectUnknownItems UnknownItems = iota
	// DropUnknownItems leaves the item out, with a warning.
	DropUnknownItems
)

// ErrItemNotFound is what Options.Items wraps for an id it does not know.
var ErrItemNotFound = errors.New("item not found")

// Warning is a field of the request that was not carried, or not carried
// whole: its JSON path in the request and why.
type Warning struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Unknown marks a field the spec does not know: its path is the
	// client's (or the upstream's) choice, not a field of the spec (a
	// serving layer counts these apart, not path by path).
	Unknown bool `json:"-"`
}

func (w Warning) String() string { return w.Path + ": " + w.Reason }

// Error is a request the converter refuses, shaped as OpenAI's error
// object: Param is the JSON path of the offending value.
type Error struct {
	Message string
	Param   string
	Code    string // invalid_json, invalid_type, invalid_value, unsupported_parameter, missing_required_parameter
}

func (e *Error) Error() string {
	if e.Param == "" {
		return "mapping: " + e.Message
	}
	return "mapping: " + e.Param + ": " + e.Message
}

// AppendJSON appends OpenAI's error body:
// {"error":{"message":…,"type":"invalid_request_error","param":…,"code":…}}.
func (e *Error) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"error":{"message":`...)
	dst = codec.AppendString(dst, e.Message)
	dst = append(dst, `,"type":"invalid_request_error","param":`...)
	if e.Param == "" {
		dst = append(dst, "null"...)
	} else {
		dst = codec.AppendString(dst, e.Param)
	}
	dst = append(dst, `,"code":`...)
	dst = codec.AppendString(dst, e.Code)
	return append(dst, "}}"...)
}

// system is the placement of system messages: the dialect's, if it needs
// one, else the options'.
func (c *conv) system() SystemMode {
	if d := &dialects[c.opts.Dialect]; d.forceSystem {
		return d.system
	}
	return c.opts.System
}

// custom reports whether the dialect takes OpenAI's custom tools.
func (c *conv) custom() bool { return dialects[c.opts.Dialect].customTools }
