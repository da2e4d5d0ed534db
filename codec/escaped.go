package codec

// Long strings dense with escapes (a call's arguments, a file's contents,
// JSON in a string: an escape every 8 bytes of the 193 KB bench request)
// read 64 bytes at a time: masks of the block's backslashes, quotes and
// other special bytes, the escaped bytes worked out from the backslashes
// with arithmetic (simdjson's way, on words), so that an escape costs no
// branch of its own. str hands a string over past its first 64 bytes, at
// the third escape within 33 bytes; escaped hands it back after 64 bytes
// without one. A short string, or prose with an escape now and then (a
// model's answer: \n every 100 bytes), stays with str's loop, for which a
// block is more work than its bytes.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

const (
	low7 = 0x7f7f7f7f7f7f7f7f
	odd  = 0xaaaaaaaaaaaaaaaa // the odd bits of a block's mask
	// minEscapedRun is how far into a string an escape must be for str to
	// hand the rest to escaped.
	minEscapedRun = 64
)

// other has the high bit set of exactly the bytes of w that are control
// characters or non-ASCII (bits8's third value, masked; apart, for the
// blocks that have such bytes, which need no backslashes and quotes).
func other(w uint64) uint64 { return (w | ^(w&low7 + lo*0x60)) & hi }

// gather packs the high bits of w's bytes into 8 bits, byte i's as bit i.
func gather(w uint64) uint64 { return (w >> 7) * 0x0102040810204080 >> 56 }

// masks returns the masks of blk's backslashes, quotes and other special
// bytes (control characters, non-ASCII), byte i's as bit i: bits8 for
// each word, written out (a loop keeps its state on the stack, and is 8%
// slower on the 193 KB request).
func masks(blk *[64]byte, c *maskConsts) (bs, qs, xs uint64) {
	var b, q, x uint64
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[0:]), c)
	bs, qs, xs = bs|b, qs|q, xs|x
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[8:]), c)
	bs, qs, xs = bs|b<<8, qs|q<<8, xs|x
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[16:]), c)
	bs, qs, xs = bs|b<<16, qs|q<<16, xs|x
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[24:]), c)
	bs, qs, xs = bs|b<<24, qs|q<<24, xs|x
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[32:]), c)
	bs, qs, xs = bs|b<<32, qs|q<<32, xs|x
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[40:]), c)
	bs, qs, xs = bs|b<<40, qs|q<<40, xs|x
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[48:]), c)
	bs, qs, xs = bs|b<<48, qs|q<<48, xs|x
	b, q, x = bits8(binary.LittleEndian.Uint64(blk[56:]), c)
	bs, qs, xs = bs|b<<56, qs|q<<56, xs|x
	if xs &= c.hi; xs != 0 { // seldom: mostly ASCII
		xs = 0
		for k := 0; k < 64; k += 8 {
			xs |= gather(other(binary.LittleEndian.Uint64(blk[k&56:]))) << k
		}
	}
	return ^bs &^ xs, ^qs &^ xs, xs
}

// bits8 returns the bytes of w that are not backslashes and not quotes,
// 8 bits each (byte i's as bit i), and a word whose high bits are those
// of its other special bytes (its other bits are noise, which masks
// drops). An ASCII byte of t is zero exactly if the high bit of
// t&low7 + low7 is clear; a non-ASCII byte whose low 7 bits are a
// backslash's or a quote's (0xdc, 0xa2) passes for one too, and masks
// takes those out with the exact mask of the other bytes. gather packs
// them. The constants are read from c: as constants, each use would load
// one anew, with a 10-byte instruction.
func bits8(w uint64, c *maskConsts) (bs, qs, xs uint64) {
	t, u := w^c.bs, w^c.qs
	bs = (t&c.low7 + c.low7) & c.hi >> 7 * c.gather >> 56
	qs = (u&c.low7 + c.low7) & c.hi >> 7 * c.gather >> 56
	return bs, qs, w | ^(w&c.low7 + c.ctl)
}

// maskConsts are the constants bits8 reads (escapeConsts, never written).
type maskConsts struct{ bs, qs, low7, hi, ctl, gather uint64 }

var escapeConsts = maskConsts{lo * '\\', lo * '"', low7, hi, lo * 0x60, 0x0102040810204080}

// escaped reads the string that str has read up to i, a backslash: it
// returns the index of the closing quote (ok) if the rest of the string is
// valid, else a place from which str's loop goes on (next ≥ i: not inside
// a UTF-8 sequence nor right after an escaping backslash, though maybe in
// the hex digits of a \u escape, which str reads as the plain bytes they
// are; and before anything invalid, which str reports). It reads whole
// blocks of 64 bytes, leaving str the data's last bytes short of one, and
// hands back after a block without an escape.
func escaped(d []byte, i int) (next int, ok bool) {
	var carry uint64 // 1: the block's first byte is escaped
	var cont uint    // the block's first bytes end a UTF-8 sequence begun before it
	next = i
	for base := i; base+64 <= len(d); base += 64 {
		bs, qs, xs := masks((*[64]byte)(d[base:base+64]), &escapeConsts)
		xs &^= 1<<cont - 1
		// The bytes escaped: after each odd run of backslashes (the run
		// carried in from the block before included).
		starts := bs &^ carry
		codes := ((starts<<1 | odd) - starts) ^ odd
		esc := codes ^ (bs | carry)
		raw := qs
		qs &^= esc
		in := ^uint64(0) // the block's bytes in the string
		if qs != 0 {
			in = 1<<bits.TrailingZeros64(qs) - 1
		}
		// The escaped quotes and backslashes are valid; the rest looked at.
		for e := esc & in &^ (bs | raw); e != 0; e &= e - 1 {
			p := base + bits.TrailingZeros64(e)
			if c := d[p]; unescaped[c] == 0 {
				if _, ok := hex4(d[p+1:]); c != 'u' || !ok {
					return next, false
				}
			}
		}
		// What is left of xs is unescaped (an escaped one is an invalid
		// escape, above): control characters, UTF-8 to check.
		cont = 0
		for x := xs & in; x != 0; {
			p := bits.TrailingZeros64(x)
			if d[base+p] < utf8.RuneSelf {
				return base + p, false
			}
			r, size := utf8.DecodeRune(d[base+p:])
			if r == utf8.RuneError && size <= 1 {
				return base + p, false
			}
			if end := p + size; end < 64 {
				x &^= 1<<end - 1
			} else {
				cont, x, next = uint(end-64), 0, base+p
			}
		}
		if qs != 0 {
			return base + bits.TrailingZeros64(qs), true
		}
		// (A block ending in a UTF-8 sequence carries no escape: its last
		// byte is not a backslash.)
		carry = (codes & bs) >> 63
		if cont == 0 {
			if bs == 0 {
				// No escape in 64 bytes: no longer dense; str's loop
				// reads on.
				return base + 64, false
			}
			next = base + 64 - int(carry)
		}
	}
	return next, false
}
