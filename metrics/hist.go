package metrics

import "math"

// Histogram buckets are log-linear on the float64 bit pattern: the 11
// exponent bits and the top subBits mantissa bits of |v| name a bucket, so
// every power of two is cut into 32 equal parts. A bucket's width is at most
// 1/32 of its lower bound, so its midpoint is within 1/64 (1.6%) of any value
// in it. Computing a key costs a few bit operations (no logarithm), and keys
// are ordered as the values are (negative values get negative keys), so
// histograms of any values merge by adding counts per key.
const subBits = 5

// RelativeError bounds the relative error of a percentile estimate.
const RelativeError = 1.0 / (1 << (subBits + 1))

// keyOf returns v's bucket: 0 for zero (and NaN), ±k for ±v.
func keyOf(v float64) int32 {
	if v == 0 || v != v {
		return 0
	}
	k := int32((math.Float64bits(v)<<1)>>(64-11-subBits)) + 1
	if v < 0 {
		return -k
	}
	return k
}

// valueOf returns the midpoint of bucket k, the value a percentile reports.
func valueOf(k int32) float64 {
	if k == 0 {
		return 0
	}
	neg := k < 0
	if neg {
		k = -k
	}
	lo := math.Float64frombits(uint64(k-1) << (64 - 12 - subBits))
	hi := math.Float64frombits(uint64(k) << (64 - 12 - subBits))
	v := lo + (hi-lo)/2
	if math.IsInf(hi, 0) {
		v = lo
	}
	if neg {
		return -v
	}
	return v
}

// The request path counts latencies in milliseconds into a dense array of
// atomic counters, one per bucket from 2^-10 ms (about 1 µs) to 2^22 ms
// (about 70 minutes); index 0 is zero, and values outside the range are
// clamped to its ends (Minimum and Maximum stay exact, and a percentile is
// clamped to them).
var (
	denseLo = keyOf(math.Ldexp(1, -10))
	denseHi = keyOf(math.Ldexp(1, 22)) // exclusive
)

const denseLen = 1 + 32<<subBits

// denseIndex returns the dense slot of a latency in nanoseconds.
func denseIndex(ns int64) uint16 {
	if ns <= 0 {
		return 0
	}
	k := keyOf(float64(ns) / 1e6)
	switch {
	case k < denseLo:
		k = denseLo
	case k >= denseHi:
		k = denseHi - 1
	}
	return uint16(k - denseLo + 1)
}

// denseKey is the bucket key of dense slot i.
func denseKey(i int) int32 {
	if i == 0 {
		return 0
	}
	return denseLo + int32(i) - 1
}

// bin is one non-empty bucket of a compacted histogram.
type bin struct {
	key int32
	n   uint32
}

// hist is a compacted histogram: its non-empty buckets, ordered by key.
type hist []bin

// merge returns the sum of h and o; it allocates only when o adds a key.
func (h hist) merge(o hist) hist {
	if len(o) == 0 {
		return h
	}
	if len(h) == 0 {
		return append(hist(nil), o...)
	}
	out := make(hist, 0, len(h)+len(o))
	i, j := 0, 0
	for i < len(h) && j < len(o) {
		switch {
		case h[i].key < o[j].key:
			out = append(out, h[i])
			i++
		case h[i].key > o[j].key:
			out = append(out, o[j])
			j++
		default:
			out = append(out, bin{h[i].key, h[i].n + o[j].n})
			i++
			j++
		}
	}
	out = append(out, h[i:]...)
	return append(out, o[j:]...)
}

// add returns h with c more at key k.
func (h hist) add(k int32, c uint32) hist {
	if c == 0 {
		return h
	}
	return h.merge(hist{{k, c}})
}

// histAcc sums histograms over a period: a dense window of counts over the
// keys seen so far, since a series' values usually span few buckets.
type histAcc struct {
	lo    int32
	n     []uint64
	total uint64
}

func (a *histAcc) reset() {
	clear(a.n)
	a.n = a.n[:0]
	a.total = 0
}

func (a *histAcc) add(k int32, c uint64) {
	if c == 0 {
		return
	}
	switch {
	case len(a.n) == 0:
		a.lo = k
		a.n = append(a.n, c)
	case k < a.lo:
		grow := int(a.lo - k)
		a.n = append(a.n, make([]uint64, grow)...)
		copy(a.n[grow:], a.n)
		clear(a.n[:grow])
		a.lo = k
		a.n[0] = c
	case int(k-a.lo) >= len(a.n):
		a.n = append(a.n, make([]uint64, int(k-a.lo)+1-len(a.n))...)
		a.n[k-a.lo] = c
	default:
		a.n[k-a.lo] += c
	}
	a.total += c
}

func (a *histAcc) addHist(h hist) {
	for _, b := range h {
		a.add(b.key, uint64(b.n))
	}
}

// percentile returns the p-th percentile (0 < p <= 100): the midpoint of the
// bucket holding the sample of rank ceil(p% of the count), clamped to
// [lo, hi], the exact extremes.
func (a *histAcc) percentile(p, lo, hi float64) float64 {
	rank := uint64(math.Ceil(p / 100 * float64(a.total)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	v := hi
	for i, c := range a.n {
		seen += c
		if seen >= rank {
			v = valueOf(a.lo + int32(i))
			break
		}
	}
	return min(max(v, lo), hi)
}
