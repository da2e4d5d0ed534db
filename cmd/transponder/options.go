package main

import (
	"fmt"

	"github.com/transponder-dev/transponder/mapping"
)

// The mapping options by the names the CLI flags and the config file use
// (transponder convert, transponder serve).

// parseDialect is a chat dialect by name (mapping/dialects adds to
// openrouter, the default, and openai); the error lists them all.
func parseDialect(s string) (mapping.Dialect, error) {
	if s == "" {
		return mapping.OpenRouter, nil
	}
	d, err := mapping.ParseDialect(s)
	if err != nil {
		return 0, fmt.Errorf("dialect: %w", err)
	}
	return d, nil
}

// parseResponsesDialect is the dialect of a Responses upstream: OpenAI's
// or OpenRouter's Responses API.
func parseResponsesDialect(s string) (mapping.Dialect, error) {
	switch s {
	case "", "openrouter":
		return mapping.OpenRouter, nil
	case "openai":
		return mapping.OpenAI, nil
	}
	return 0, fmt.Errorf("dialect %q: a Responses upstream speaks openai or openrouter", s)
}

func parseSystem(s string) (mapping.SystemMode, error) {
	switch s {
	case "", "system":
		return mapping.System, nil
	case "developer":
		return mapping.Developer, nil
	case "merge":
		return mapping.Merge, nil
	}
	return 0, fmt.Errorf("system %q (system, developer or merge)", s)
}

func parseUnknownTypes(s string) (mapping.UnknownTypes, error) {
	switch s {
	case "", "drop":
		return mapping.DropUnknown, nil
	case "reject":
		return mapping.RejectUnknown, nil
	}
	return 0, fmt.Errorf("unknown_types %q (drop or reject)", s)
}

func parseUnknownItems(s string) (mapping.UnknownItems, error) {
	switch s {
	case "", "reject":
		return mapping.RejectUnknownItems, nil
	case "drop":
		return mapping.DropUnknownItems, nil
	}
	return 0, fmt.Errorf("unknown_items %q (reject or drop)", s)
}
