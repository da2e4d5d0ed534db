// Package chatsum adds the chunks of a chat stream up to the chat
// completion they make: what the test upstreams (runtime/gateway/replay,
// internal/fakeupstream) answer a request that is not streamed, each in
// its provider's shape.
package chatsum

import (
	"encoding/json"
	"strings"
)

// Call is a tool call, its arguments joined.
type Call struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Fn   struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Sum is what the chunks add up to: the last id, model, provider,
// fingerprint and creation time a chunk gave; the texts joined; the reasoning details
// and tool calls (by index) in order; the last finish reason (stop if
// none) and usage (nil if none).
type Sum struct {
	ID, Model, Provider, SystemFingerprint string
	Created                                int64
	Content, Reasoning, ReasoningContent   string
	ReasoningDetails                       []json.RawMessage
	Calls                                  []*Call
	Finish                                 string
	Usage                                  json.RawMessage
}

// Add sums chunks (each a chat.completion.chunk's JSON; others are
// skipped).
func Add(chunks [][]byte) Sum {
	var (
		s                            = Sum{Finish: "stop"}
		content, reasoning, rcontent strings.Builder
		byIndex                      = map[int64]*Call{}
	)
	for _, raw := range chunks {
		var c struct {
			ID                string          `json:"id"`
			Model             string          `json:"model"`
			Provider          string          `json:"provider"`
			SystemFingerprint string          `json:"system_fingerprint"`
			Created           int64           `json:"created"`
			Usage             json.RawMessage `json:"usage"`
			Choices           []struct {
				Delta struct {
					Content          *string           `json:"content"`
					Reasoning        *string           `json:"reasoning"`
					ReasoningContent *string           `json:"reasoning_content"`
					ReasoningDetails []json.RawMessage `json:"reasoning_details"`
					ToolCalls        []struct {
						Index int64  `json:"index"`
						ID    string `json:"id"`
						Fn    struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		for _, f := range []struct {
			to *string
			v  string
		}{{&s.ID, c.ID}, {&s.Model, c.Model}, {&s.Provider, c.Provider}, {&s.SystemFingerprint, c.SystemFingerprint}} {
			if f.v != "" {
				*f.to = f.v
			}
		}
		if c.Created != 0 {
			s.Created = c.Created
		}
		if len(c.Usage) > 0 && string(c.Usage) != "null" {
			s.Usage = c.Usage
		}
		for _, ch := range c.Choices {
			d := ch.Delta
			for _, p := range []struct {
				b *strings.Builder
				s *string
			}{{&content, d.Content}, {&reasoning, d.Reasoning}, {&rcontent, d.ReasoningContent}} {
				if p.s != nil {
					p.b.WriteString(*p.s)
				}
			}
			s.ReasoningDetails = append(s.ReasoningDetails, d.ReasoningDetails...)
			for _, tc := range d.ToolCalls {
				cl := byIndex[tc.Index]
				if cl == nil {
					cl = &Call{Type: "function"}
					byIndex[tc.Index] = cl
					s.Calls = append(s.Calls, cl)
				}
				if tc.ID != "" {
					cl.ID = tc.ID
				}
				if tc.Fn.Name != "" {
					cl.Fn.Name = tc.Fn.Name
				}
				cl.Fn.Arguments += tc.Fn.Arguments
			}
			if ch.FinishReason != nil {
				s.Finish = *ch.FinishReason
			}
		}
	}
	s.Content, s.Reasoning, s.ReasoningContent = content.String(), reasoning.String(), rcontent.String()
	return s
}
