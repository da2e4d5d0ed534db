package normalize

// DefaultExt keeps a schema's default where ogen does not read it.
const DefaultExt = "x-spec-default"

// defaultsAside moves every "default" into x-spec-default. ogen fills defaults
// while decoding, so a round trip would add fields the client never sent
// (n:1, store:false, parallel_tool_calls:true), and it cannot generate object
// or complex defaults at all. The value stays in the spec for the matrix.
func defaultsAside(d *Doc) error {
	for _, n := range d.Nodes() {
		s := n.Schema()
		if s.Default == nil {
			continue
		}
		if s.Extensions == nil {
			s.Extensions = map[string]any{}
		}
		s.Extensions[DefaultExt] = s.Default
		s.Default = nil
		d.Hit(n, "default moved aside")
	}
	return nil
}
