package codec

// Parse is the package's Parse into d, reused: data as a Value with no
// schema behind it, checked with Valid's scanner (ok false if data is not
// one JSON value). It does not allocate: a stream reader parses each event
// into the one Doc it keeps. The Value, and every Value read from it, is
// valid until d's next use.
func (d *Doc) Parse(data []byte) (Value, bool) {
	*d = Doc{nodes: d.nodes[:0], finds: d.finds[:0], segs: d.segs[:0], npaths: d.npaths[:0], spans: d.spans[:0], conts: d.conts[:0], ents: d.ents[:0], scratch: d.scratch}
	if !Valid(data) {
		return Value{}, false
	}
	d.data = data
	return d.Value(), true
}
