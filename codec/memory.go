package codec

// firstMemory is what a new Doc's first Decode starts with: enough for a
// small payload (a stream's chunk, a short request), in one allocation
// rather than one for each list, and again for each time it grows.
type firstMemory struct {
	ents       [32]ent
	conts      [8]cont
	segs       [8]pathSeg
	npaths     [16]seg
	nodes      [4]nodeRec
	path       [12]seg
	steps      [12]int32
	undeclared [8]seg
}

func (d *Doc) firstMemory() {
	m := new(firstMemory)
	d.ents, d.conts, d.segs, d.npaths, d.nodes = m.ents[:0], m.conts[:0], m.segs[:0], m.npaths[:0], m.nodes[:0]
	x := &d.scratch
	x.path, x.steps, x.undeclared = m.path[:0], m.steps[:0], m.undeclared[:0]
}

// hintMemory is what a Doc's second Decode starts its hints with (the
// first learns none: a Doc decoding once, as a fresh conversion's, has
// no use for them): enough for a chat stream's chunks (seven depths, a
// schema each, and the usage's details beside the choice).
type hintMemory struct {
	sets  [8]hintSet
	hints [10]hint
}

func (x *decoder) hintMemory() {
	m := new(hintMemory)
	x.hints, x.spare = m.sets[:0], m.hints[:0]
}
