package codec_test

import (
	"github.com/go-faster/jx"
)

// jxIndex is a feasibility probe for the type-first codec of issue 3: one jx
// pass over a payload that finds every object's "type" tag and raw span
// (without decoding strings), then re-emits the payload by copying spans.
// It is not the codec; it bounds what a raw-preserving design costs.
func jxIndex(p, out []byte) ([]byte, error) {
	d := jx.DecodeBytes(p)
	var spans []jx.Raw
	var walk func(d *jx.Decoder, depth int) error
	walk = func(d *jx.Decoder, depth int) error {
		switch d.Next() {
		case jx.Object:
			raw, err := d.Raw()
			if err != nil {
				return err
			}
			spans = append(spans, raw)
			if depth > 3 {
				return nil
			}
			return jx.DecodeBytes(raw).ObjBytes(func(d *jx.Decoder, key []byte) error {
				if string(key) == "type" && d.Next() == jx.String {
					_, err := d.StrBytes()
					return err
				}
				return walk(d, depth+1)
			})
		case jx.Array:
			return d.Arr(func(d *jx.Decoder) error { return walk(d, depth+1) })
		default:
			return d.Skip()
		}
	}
	if err := walk(d, 0); err != nil {
		return nil, err
	}
	return append(out, spans[0]...), nil
}
