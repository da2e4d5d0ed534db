package codec

import "math/bits"

// AppendInt appends n in decimal, as strconv.AppendInt(dst, n, 10) does:
// the digits written where they go, two at a time, without strconv's
// buffer on the stack and the copy from it (a Response writes a dozen
// numbers — its times, usage, ids' counters — and every event its
// sequence number).
func AppendInt(dst []byte, n int64) []byte {
	u := uint64(n)
	if n < 0 {
		dst = append(dst, '-')
		u = -u
	}
	if u < 10 {
		return append(dst, byte('0'+u))
	}
	w := decimalLen(u)
	l := len(dst)
	if cap(dst)-l < w {
		dst = append(dst[:l:l], make([]byte, w)...)
	}
	dst = dst[:l+w]
	out := dst[l:]
	i := w
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		out[i], out[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		out[0], out[1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		out[0] = byte('0' + u)
	}
	return dst
}

// decimalLen is the number of decimal digits of u (≥ 1).
func decimalLen(u uint64) int {
	// log10(2) ≈ 1233/4096: the digits of 2^(bits-1), one fewer at most.
	n := (bits.Len64(u) * 1233) >> 12
	if n < len(pow10) && u >= pow10[n] {
		n++
	}
	return max(n, 1)
}

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
