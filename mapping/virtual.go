package mapping

// Client-executed tools as chat functions, and the map back.
//
// Chat upstreams run their tool loop on functions. Every tool the client
// executes — functions, functions in a namespace, custom (freeform) tools,
// local_shell, shell, apply_patch, a client tool_search — is offered as a
// function (for OpenAI's chat a custom tool stays custom), and its calls
// and outputs travel as tool_calls and tool messages under that name. The
// ToolMap says, for each name the upstream sees, which tool it is: the
// response side restores custom_tool_call, local_shell_call, a
// function_call with its namespace, … from it. It is computed from the
// request alone (ToolMapOf), so a stateless gateway needs nothing else.

import (
	"hash/fnv"
	"strconv"

	"github.com/transponder-dev/transponder/codec"
)

// MaxFunctionName is the longest function name chat upstreams take
// (OpenAI's ^[a-zA-Z0-9_-]{1,64}$).
const MaxFunctionName = 64

// VirtualTool is a tool of the request as the upstream sees it.
type VirtualTool struct {
	// Name is the function's (or, for OpenAI's chat, the custom tool's)
	// name upstream: what tool calls name.
	Name string `json:"name"`
	// Type is the Responses tool type: function, custom, local_shell,
	// shell, apply_patch or tool_search.
	Type string `json:"type"`
	// Namespace is the namespace of a function or custom tool offered in
	// one ("" for the others).
	Namespace string `json:"namespace,omitempty"`
	// ToolName is the name of a function or custom tool in the request
	// ("" for the built-ins, whose name is their type).
	ToolName string `json:"tool_name,omitempty"`
	// Custom: the upstream sees a custom tool (OpenAI's chat), whose calls
	// carry the input as it is; otherwise a function, whose calls of a
	// custom tool carry {"input": …}.
	Custom bool `json:"custom,omitempty"`
}

// ToolMap lists the tools of a request in the order the upstream is
// offered them (the request's tools, then those that input items load).
type ToolMap struct {
	tools []VirtualTool
	// Past indexAt tools, indexes: names (Name → index) and keys ((Type,
	// Namespace, ToolName) → the first such). Below, a scan finds a tool
	// as fast, and a request's map costs no allocation of its own.
	indexed bool
	names   map[string]int32
	keys    map[toolKey]int32
}

// indexAt is how many tools a map has before it indexes them.
const indexAt = 16

type toolKey struct{ typ, ns, name string }

// Tools is the list (the map's memory: do not modify it).
func (m *ToolMap) Tools() []VirtualTool { return m.tools }

// Lookup finds the tool an upstream tool call names.
func (m *ToolMap) Lookup(name string) (VirtualTool, bool) {
	if i, ok := m.byName(name); ok {
		return m.tools[i], true
	}
	return VirtualTool{}, false
}

// LookupBytes is Lookup of a name given as bytes (without a copy).
func (m *ToolMap) LookupBytes(name []byte) (VirtualTool, bool) {
	if m.indexed {
		if i, ok := m.names[string(name)]; ok {
			return m.tools[i], true
		}
		return VirtualTool{}, false
	}
	for _, t := range m.tools {
		if t.Name == string(name) {
			return t, true
		}
	}
	return VirtualTool{}, false
}

func (m *ToolMap) byName(name string) (int32, bool) {
	if m.indexed {
		i, ok := m.names[name]
		return i, ok
	}
	for i := range m.tools {
		if m.tools[i].Name == name {
			return int32(i), true
		}
	}
	return 0, false
}

// Clone is a copy that outlives the Converter that made m.
func (m *ToolMap) Clone() ToolMap {
	var c ToolMap
	m.CloneTo(&c)
	return c
}

// CloneTo makes dst a copy of m (as Clone) in dst's memory: a pooled
// Request's map (translate.RequestPool).
func (m *ToolMap) CloneTo(dst *ToolMap) {
	dst.reset()
	dst.tools = append(dst.tools, m.tools...)
	if m.indexed {
		dst.index()
	}
}

func (m *ToolMap) reset() {
	m.tools = m.tools[:0]
	m.indexed = false
	clearMap(m.names)
	clearMap(m.keys)
}

// index makes the indexes of the tools so far.
func (m *ToolMap) index() {
	if m.names == nil {
		m.names, m.keys = make(map[string]int32, len(m.tools)), make(map[toolKey]int32, len(m.tools))
	}
	m.indexed = true
	for i, t := range m.tools {
		m.indexTool(int32(i), t)
	}
}

func (m *ToolMap) indexTool(i int32, t VirtualTool) {
	m.names[t.Name] = i
	if _, ok := m.keys[toolKey{t.Type, t.Namespace, t.ToolName}]; !ok {
		m.keys[toolKey{t.Type, t.Namespace, t.ToolName}] = i
	}
}

// find is the tool of a type, namespace and name, if offered.
func (m *ToolMap) find(typ, ns, name string) (VirtualTool, bool) {
	if m.indexed {
		if i, ok := m.keys[toolKey{typ, ns, name}]; ok {
			return m.tools[i], true
		}
		return VirtualTool{}, false
	}
	for _, t := range m.tools {
		if t.Type == typ && t.Namespace == ns && t.ToolName == name {
			return t, true
		}
	}
	return VirtualTool{}, false
}

// add offers a tool under its own name (plain tools); ok false if the name
// is taken by another tool.
func (m *ToolMap) add(t VirtualTool) (dup, ok bool) {
	if i, taken := m.byName(t.Name); taken {
		return m.tools[i] == t, false
	}
	m.tools = append(m.tools, t)
	switch {
	case m.indexed:
		m.indexTool(int32(len(m.tools)-1), t)
	case len(m.tools) > indexAt:
		m.index()
	}
	return false, true
}

// addNamespaced offers a tool of a namespace under a name of its own:
// namespace__name when that is a valid function name no other tool has,
// else a shortened, sanitized form with a hash of both names (see
// virtualName). The same tool offered twice keeps its first name.
func (m *ToolMap) addNamespaced(t VirtualTool) (vt VirtualTool, added bool) {
	if old, ok := m.find(t.Type, t.Namespace, t.ToolName); ok {
		return old, false
	}
	for salt := 0; ; salt++ {
		t.Name = virtualName(t.Namespace, t.ToolName, salt)
		if _, taken := m.byName(t.Name); !taken {
			break
		}
	}
	m.add(t)
	return t, true
}

// virtualName is the upstream name of a namespace's tool: namespace__name
// if that fits the function-name rules; else the sanitized name cut to
// leave room for "_" and 8 hex digits of a hash of both names (and salt,
// after a collision), which keeps distinct tools apart.
func virtualName(ns, name string, salt int) string {
	full := ns + namespaceSep + name
	if salt == 0 && len(full) <= MaxFunctionName && validName(full) {
		return full
	}
	b := make([]byte, 0, MaxFunctionName)
	for i := 0; i < len(full) && len(b) < MaxFunctionName-9; i++ {
		c := full[i]
		if !nameByte(c) {
			c = '_'
		}
		b = append(b, c)
	}
	h := fnv.New32a()
	h.Write([]byte(ns))
	h.Write([]byte{0})
	h.Write([]byte(name))
	if salt > 0 {
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, int64(salt), 10))
	}
	b = append(b, '_')
	sum := h.Sum32()
	const hexd = "0123456789abcdef"
	for i := 28; i >= 0; i -= 4 {
		b = append(b, hexd[sum>>uint(i)&0xf])
	}
	return string(b)
}

// nameByte reports whether a function's name may have byte c
// ([a-zA-Z0-9_-]; checkToolName's pattern too): a table's load, where the
// five ranges compared cost ~80 instructions a name.
func nameByte(c byte) bool { return nameBytes[c] }

var nameBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
	}
	return t
}()

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// ToolMapOf is the map of the tools of a request converted with opts: the
// response side's way back from upstream names to Responses tools.
func ToolMapOf(body []byte, opts Options) (ToolMap, error) {
	var cv Converter
	if _, _, err := cv.ResponsesToChat(nil, body, opts); err != nil {
		return ToolMap{}, err
	}
	return cv.c.tools.Clone(), nil
}

// ToolMap is the map of the tools of the Converter's last conversion,
// valid until its next one (Clone keeps it).
func (cv *Converter) ToolMap() *ToolMap { return &cv.c.tools }

// Request is the request the Converter's last conversion read, decoded
// (reading it steps over nothing a second time), as the mapping read it:
// chat-shaped tools and tool choice in the Responses shape (FlatRequest),
// item references resolved. It is valid until the next conversion; after
// one that failed it may be the zero Value. The answer's translation
// reads what a Response echoes from it (translate.RequestOf), so a
// request is parsed once.
func (cv *Converter) Request() codec.Value {
	if !cv.c.decoded || cv.c.pending { // pending: read by Decode, not converted
		return codec.Value{}
	}
	return cv.c.doc.Value()
}
