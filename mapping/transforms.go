package mapping

import (
	"strconv"

	"github.com/transponder-dev/transponder/codec"
)

// The transforms mapping/*.yaml names. Each is
//
//	func(c *conv, v codec.Value, path string, dst codec.Ref, key string)
//
// v is the source value at path (present, not null). The transform writes
// the member key of the object dst, or with key "" appends to the array
// dst (an element target: tools[]{function}); it may set sibling members
// (logprobs beside top_logprobs). It warns, through c.warn, for anything
// of v it does not carry. The //transponder:transform line gives the JSON
// kinds it takes and gives; the generator checks them against the specs.

// namespaceSep joins a namespace and a function's name: Codex's MCP tools
// come as namespaces, and chat has none.
const namespaceSep = "__"

// model renames the model by the options' rules.
//
//transponder:transform string -> string
func model(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	if len(c.opts.Models) == 0 {
		c.b.Set(dst, key, v.Raw())
		return
	}
	name, _ := v.Str()
	if m := c.model(name); m != name {
		c.b.SetString(dst, key, m)
		return
	}
	c.b.Set(dst, key, v.Raw())
}

// The include values the gateway honours: the answer's side reads them too.
const (
	IncludeEncryptedReasoning = "reasoning.encrypted_content"
	IncludeLogprobs           = "message.output_text.logprobs"
)

// include: message.output_text.logprobs sets logprobs (chat returns none
// without it); reasoning.encrypted_content is the gateway's, which puts the
// upstream's reasoning in the reasoning items it returns. Every other
// value gets a warning naming it: nothing in a chat answer serves it.
//
//transponder:transform array -> boolean
func include(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	for i, e := range v.Elems() {
		val, _ := e.Str()
		var why string
		switch val {
		case IncludeEncryptedReasoning:
			continue
		case IncludeLogprobs:
			if dialects[c.opts.Dialect].logprobs {
				c.b.SetBool(dst, key, true)
				continue
			}
			why = c.opts.Dialect.String() + " is not asked for log probabilities (its mapping drops top_logprobs)"
		case "web_search_call.results", "web_search_call.action.sources":
			why = "web searches come back as url_citation annotations, not web_search_call items"
		case "file_search_call.results":
			why = "no chat upstream runs file search"
		case "code_interpreter_call.outputs":
			why = "no chat upstream runs the code interpreter"
		case "computer_call_output.output.image_url":
			why = "no chat upstream drives a computer"
		case "message.input_image.image_url":
			why = "the gateway returns no input items (it stores none)"
		default:
			why = "the gateway does not serve it"
			if c.unknownValue(at(path, i, "")) {
				why = "a value the pinned spec's include enum does not know"
			}
		}
		c.warn(at(path, i, ""), strconv.Quote(val)+": "+why+"; nothing is included for it")
	}
}

// unknownValue reports whether the string at path is one its enum does
// not list.
func (c *conv) unknownValue(path string) bool {
	for _, f := range c.doc.Findings() {
		if f.Kind == codec.UnknownValue && f.Path() == path {
			return true
		}
	}
	return false
}

// promptCacheKey sets prompt_cache_key and, unless the request sets its
// own, OpenRouter's session_id: one session stays on one provider, whose
// prompt cache stays warm.
//
//transponder:transform string -> string
func promptCacheKey(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	c.b.Set(dst, key, v.Raw())
	if !present(c.top.sessionID) {
		c.b.SetLit(dst, "session_id", v.Raw())
	}
}

// allowedTools: Responses' {type, mode, tools:[{type, name}]} → chat's
// {type, allowed_tools:{mode, tools:[{type, function:{name}}]}}.
//
//transponder:transform object -> object
func allowedTools(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.b.Object(dst, key)
	c.b.SetJSONLit(tc, "type", `"allowed_tools"`)
	allowed := c.b.ObjectLit(tc, "allowed_tools")
	if m := v.Get("mode"); present(m) {
		c.b.SetLit(allowed, "mode", m.Raw())
	} else {
		c.b.SetJSONLit(allowed, "mode", `"auto"`)
	}
	tools := c.b.ArrayLit(allowed, "tools")
	defer func() {
		if c.b.Len(tools) == 0 {
			// No function may be called: chat says so with none.
			c.b.Set(dst, key, []byte(`"none"`))
			c.warn(path, "no function is among the allowed tools; tool_choice is none")
		}
	}()
	for i, t := range v.Get("tools").Elems() {
		typ, _ := t.Get("type").Str()
		switch typ {
		case "function", "custom":
			el := c.b.AppendObject(tools)
			c.b.SetLit(el, "type", t.Get("type").Raw())
			c.b.SetLit(c.b.Object(el, typ), "name", t.Get("name").Raw())
		case "shell", "apply_patch", "local_shell", "tool_search":
			el := c.b.AppendObject(tools)
			c.b.SetJSONLit(el, "type", `"function"`)
			c.b.SetStringLit(c.b.ObjectLit(el, "function"), "name", typ)
		default:
			c.warn(at(path+".tools", i, ""), "OpenAI's chat allowed_tools lists functions only; "+typ+" is left out of the list")
		}
	}
}

// allowedToolsFilter, for a dialect without allowed_tools: the tools are
// filtered to the allowed ones (when the request is converted) and the
// mode becomes the tool choice.
//
//transponder:transform object -> string
func allowedToolsFilter(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	c.filter = true
	mode := v.Get("mode")
	if !present(mode) {
		c.b.Set(dst, key, []byte(`"auto"`))
		return
	}
	c.b.Set(dst, key, mode.Raw())
}

// customChoice: {type:custom, name} → {type:custom, custom:{name}}.
//
//transponder:transform object -> object
func customChoice(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.b.Object(dst, key)
	c.b.SetJSONLit(tc, "type", `"custom"`)
	c.b.SetLit(c.b.ObjectLit(tc, "custom"), "name", v.Get("name").Raw())
}

// customChoiceAsFunction: a custom tool is a function upstream.
//
//transponder:transform object -> object
func customChoiceAsFunction(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	tc := c.b.Object(dst, key)
	c.b.SetJSONLit(tc, "type", `"function"`)
	c.b.SetLit(c.b.ObjectLit(tc, "function"), "name", v.Get("name").Raw())
}

// forceHosted: chat cannot force a server tool by type; forcing it becomes
// "required" when it is the only tool, "auto" otherwise.
//
//transponder:transform object -> string
func forceHosted(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	if n := len(c.offered()); n == 1 {
		c.b.Set(dst, key, []byte(`"required"`))
		return
	}
	c.b.Set(dst, key, []byte(`"auto"`))
}

// forceVirtual forces the function a client-executed tool became.
//
//transponder:transform object -> object
func forceVirtual(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	typ, _ := v.Get("type").Str()
	tc := c.b.Object(dst, key)
	c.b.SetJSONLit(tc, "type", `"function"`)
	c.b.SetStringLit(c.b.ObjectLit(tc, "function"), "name", typ)
}

// customTool: Responses' flat custom tool → chat's {type:custom,
// custom:{name, description, format}}, a grammar format nested likewise.
//
//transponder:transform object -> object
func customTool(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	el := c.b.AppendObject(dst)
	c.b.SetJSONLit(el, "type", `"custom"`)
	ct := c.b.ObjectLit(el, "custom")
	c.b.SetLit(ct, "name", v.Get("name").Raw())
	if d := v.Get("description"); present(d) {
		c.b.SetLit(ct, "description", d.Raw())
	}
	c.toolExtras(v, path, "custom tools")
	if f := v.Get("format"); present(f) {
		c.customFormat(ct, f)
	}
}

// customFormat: a custom tool's format in OpenAI's chat shape.
func (c *conv) customFormat(ct codec.Ref, f codec.Value) {
	typ, _ := f.Get("type").Str()
	cf := c.b.ObjectLit(ct, "format")
	c.b.SetLit(cf, "type", f.Get("type").Raw())
	if typ == "grammar" {
		g := c.b.ObjectLit(cf, "grammar")
		c.b.SetLit(g, "definition", f.Get("definition").Raw())
		c.b.SetLit(g, "syntax", f.Get("syntax").Raw())
	}
}

// toolExtras warns for the fields of a tool chat has no place for.
func (c *conv) toolExtras(v codec.Value, path, what string) {
	if d, _ := v.Get("defer_loading").Bool(); d {
		c.warn(path+".defer_loading", "chat loads every tool")
	}
	if a := v.Get("allowed_callers"); present(a) {
		c.warn(path+".allowed_callers", "chat has no restriction on who may call "+what)
	}
}

// The parameters of the functions client-executed tools become: those of
// the call items the response side makes of their calls (a local shell
// call's action, a shell call's action, an apply_patch call's operation).
var (
	inputParams   = []byte(`{"type":"object","properties":{"input":{"type":"string"}},"required":["input"],"additionalProperties":false}`)
	shellParams   = []byte(`{"type":"object","properties":{"commands":{"type":"array","items":{"type":"string"}},"timeout_ms":{"type":"integer"},"max_output_length":{"type":"integer"}},"required":["commands"],"additionalProperties":false}`)
	localParams   = []byte(`{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}},"working_directory":{"type":"string"},"timeout_ms":{"type":"integer"},"env":{"type":"object","additionalProperties":{"type":"string"}},"user":{"type":"string"}},"required":["command"],"additionalProperties":false}`)
	patchParams   = []byte(`{"type":"object","properties":{"type":{"type":"string","enum":["create_file","update_file","delete_file"]},"path":{"type":"string"},"diff":{"type":"string"}},"required":["type","path"],"additionalProperties":false}`)
	searchParams  = []byte(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`)
	patchDesc     = []byte(`"Create, update or delete one file. For create_file, diff is the new file's lines, each prefixed with +; for update_file, a V4A diff of the file; delete_file takes no diff."`)
	shellDesc     = []byte(`"Run shell commands on the user's machine, in order; each command is a shell command line."`)
	localDesc     = []byte(`"Run a command on the user's machine; command is its argv."`)
	toolSearchDsc = []byte(`"Search for tools to load."`)
)

// virtualTool: a tool the client executes (custom, shell, local_shell,
// apply_patch, tool_search) becomes a function (see virtual.go); its calls
// come back as the tool's own call items.
//
//transponder:transform object -> object
func virtualTool(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	typ, _ := v.Get("type").Str()
	if e, _ := v.Get("execution").Str(); typ == "tool_search" && e == "server" {
		c.warn(path, "a server-executed tool search runs on OpenAI's platform; left out")
		return
	}
	el := c.b.AppendObject(dst)
	c.b.SetJSONLit(el, "type", `"function"`)
	fn := c.b.ObjectLit(el, "function")
	switch typ {
	case "custom":
		c.customFunction(fn, v, v.Get("name").Raw())
	case "apply_patch":
		c.b.SetJSONLit(fn, "name", `"apply_patch"`)
		c.b.SetLit(fn, "description", patchDesc)
		c.b.SetLit(fn, "parameters", patchParams)
	case "shell":
		c.b.SetJSONLit(fn, "name", `"shell"`)
		c.b.SetLit(fn, "description", shellDesc)
		c.b.SetLit(fn, "parameters", shellParams)
		if e := v.Get("environment"); present(e) {
			c.warn(path+".environment", "the client runs the commands; the environment setting is not carried")
		}
	case "local_shell":
		c.b.SetJSONLit(fn, "name", `"local_shell"`)
		c.b.SetLit(fn, "description", localDesc)
		c.b.SetLit(fn, "parameters", localParams)
	case "tool_search":
		c.b.SetJSONLit(fn, "name", `"tool_search"`)
		if d := v.Get("description"); present(d) {
			c.b.SetLit(fn, "description", d.Raw())
		} else {
			c.b.SetLit(fn, "description", toolSearchDsc)
		}
		if p := v.Get("parameters"); p.Kind() == codec.Object {
			c.b.SetLit(fn, "parameters", p.Raw())
		} else {
			c.b.SetLit(fn, "parameters", searchParams)
		}
	}
	c.toolExtras(v, path, "tools")
}

// customFunction fills the function a custom tool becomes: one string
// parameter input, the grammar (and its syntax) in the description.
func (c *conv) customFunction(fn codec.Ref, v codec.Value, name []byte) {
	c.b.SetLit(fn, "name", name)
	desc := strContents(v.Get("description"))
	if f := v.Get("format"); present(f) {
		if g, _ := f.Get("type").Str(); g == "grammar" {
			desc = append(append([]byte(nil), desc...), `\n\ninput follows this `...)
			desc = append(desc, strContents(f.Get("syntax"))...)
			desc = append(desc, ` grammar:\n`...)
			desc = append(desc, strContents(f.Get("definition"))...)
		}
	}
	if desc != nil {
		c.b.SetLit(fn, "description", c.b.Quote(desc))
	}
	c.b.SetLit(fn, "parameters", inputParams)
}

// namespaceTools: a namespace's functions and custom tools, each under the
// name the tool map gave it (namespace__name, or a hashed form when that
// is too long or taken).
//
//transponder:transform object -> object
func namespaceTools(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	c.namespaceMembers(v, path, true, func(t codec.Value, typ, ns, name, p string) {
		c.namespaceTool(dst, t, typ, ns, name, p)
	})
}

// namespaceTool appends a namespace's function or custom tool under its
// upstream name.
func (c *conv) namespaceTool(dst codec.Ref, t codec.Value, typ, ns, toolName, p string) {
	c.scratch = codec.AppendString(c.scratch[:0], c.upstreamName(typ, ns, toolName))
	name := c.b.Bytes(c.scratch)
	el := c.b.AppendObject(dst)
	switch {
	case typ == "custom" && c.custom():
		c.b.SetJSONLit(el, "type", `"custom"`)
		ct := c.b.ObjectLit(el, "custom")
		c.b.SetLit(ct, "name", name)
		if d := t.Get("description"); present(d) {
			c.b.SetLit(ct, "description", d.Raw())
		}
		if f := t.Get("format"); present(f) {
			c.customFormat(ct, f)
		}
		c.toolExtras(t, p, "tools")
	case typ == "custom":
		c.b.SetJSONLit(el, "type", `"function"`)
		c.customFunction(c.b.ObjectLit(el, "function"), t, name)
		c.toolExtras(t, p, "tools")
	default:
		c.b.SetJSONLit(el, "type", `"function"`)
		fn := c.b.ObjectLit(el, "function")
		c.b.SetLit(fn, "name", name)
		c.functionBody(fn, t, p)
	}
}

// webSearch: Responses' web search tools → OpenRouter's web search
// shorthand (same type), its settings where OpenRouter has them.
//
//transponder:transform object -> object
func webSearch(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	el := c.b.AppendObject(dst)
	c.b.SetLit(el, "type", v.Get("type").Raw())
	if s := v.Get("search_context_size"); present(s) {
		c.b.SetLit(el, "search_context_size", s.Raw())
	}
	if d := v.Get("filters").Get("allowed_domains"); present(d) {
		c.b.SetLit(el, "allowed_domains", d.Raw())
	}
	if loc := v.Get("user_location"); present(loc) {
		ul := c.b.ObjectLit(el, "user_location")
		for _, k := range [...]string{"type", "city", "country", "region", "timezone"} {
			if x := loc.Get(k); present(x) {
				c.b.Set(ul, k, x.Raw())
			}
		}
	}
	if x := v.Get("external_web_access"); present(x) {
		c.warn(path+".external_web_access", "OpenRouter's web search has no cached-only mode")
	}
	if x := v.Get("search_content_types"); present(x) {
		c.warn(path+".search_content_types", "OpenRouter's web search searches text only")
	}
}

// webSearchOptions: OpenAI's chat searches the web through
// web_search_options (search-preview models): context size and location.
//
//transponder:transform object -> object
func webSearchOptions(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	if c.b.Has(dst, key) {
		c.warn(path, "OpenAI's chat has one web_search_options; the first web search tool's are used")
		return
	}
	o := c.b.Object(dst, key)
	if s := v.Get("search_context_size"); present(s) {
		c.b.SetLit(o, "search_context_size", s.Raw())
	}
	if loc := v.Get("user_location"); present(loc) {
		ul := c.b.ObjectLit(o, "user_location")
		c.b.SetJSONLit(ul, "type", `"approximate"`)
		ap := c.b.ObjectLit(ul, "approximate")
		for _, k := range [...]string{"city", "country", "region", "timezone"} {
			if x := loc.Get(k); present(x) {
				c.b.Set(ap, k, x.Raw())
			}
		}
	}
	if c.b.Len(o) == 0 {
		c.b.Set(dst, key, []byte(`{}`))
	}
}

// imageGeneration: OpenRouter's image generation server tool; the OpenAI
// tool's settings (model, size, quality, …) are not its own.
//
//transponder:transform object -> object
func imageGeneration(c *conv, v codec.Value, path string, dst codec.Ref, key string) {
	el := c.b.AppendObject(dst)
	c.b.SetJSONLit(el, "type", `"openrouter:image_generation"`)
}
