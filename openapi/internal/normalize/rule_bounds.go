package normalize

import (
	"math"

	"github.com/getkin/kin-openapi/openapi3"
)

// intBounds drops minimum/maximum on integer schemas when the bound does not
// fit an int64 once read as a float64 (the spec writes ±9223372036854775807,
// which rounds to 2^63); the bound says nothing an int64 does not already say.
func intBounds(d *Doc) error {
	out := func(p *float64) bool { return p != nil && (*p >= math.MaxInt64 || *p <= math.MinInt64) }
	for _, n := range d.Nodes() {
		s := n.Schema()
		if s.Type == nil || !s.Type.Includes(openapi3.TypeInteger) {
			continue
		}
		if out(s.Min) {
			d.Hit(n, "dropped minimum %g", *s.Min)
			s.Min = nil
		}
		if out(s.Max) {
			d.Hit(n, "dropped maximum %g", *s.Max)
			s.Max = nil
		}
	}
	return nil
}
