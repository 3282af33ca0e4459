package bench

import (
	"math"
	"math/bits"
)

// The histogram is log-linear, like HdrHistogram: values below 2*histSub are
// kept exactly, and each power of two above that is split into histSub
// linear sub-buckets, so any recorded value is off by at most 1/histSub
// (1.6%). It covers the whole uint64 range, so nothing is clamped.
const (
	histSubBits = 6
	histSub     = 1 << histSubBits // sub-buckets per power of two
	// histBuckets: 2*histSub exact buckets, then histSub per shift 1..64-histSubBits-1.
	histBuckets = 2*histSub + (64-histSubBits-1)*histSub
)

// histogram records latencies in nanoseconds. It is not safe for concurrent
// use: each worker owns one and they are merged once the run is over, which
// keeps recording to an array increment with no locks or atomics.
type histogram struct {
	counts [histBuckets]uint64
	total  uint64
	sum    uint64 // nanoseconds; overflows only after ~584 years of latency
	max    uint64
}

// histIndex returns the bucket of v.
func histIndex(v uint64) int {
	if v < 2*histSub {
		return int(v)
	}
	// shift makes v>>shift land in [histSub, 2*histSub).
	shift := bits.Len64(v) - (histSubBits + 1)
	top := v >> uint(shift)
	return 2*histSub + (shift-1)*histSub + int(top-histSub)
}

// histBounds returns the smallest and largest value that land in bucket i.
func histBounds(i int) (lo, hi uint64) {
	if i < 2*histSub {
		return uint64(i), uint64(i)
	}
	shift := uint((i-2*histSub)/histSub + 1)
	top := uint64((i-2*histSub)%histSub + histSub)
	lo = top << shift
	hi = lo + (1 << shift) - 1
	return lo, hi
}

func (h *histogram) record(v uint64) {
	h.counts[histIndex(v)]++
	h.total++
	h.sum += v
	if v > h.max {
		h.max = v
	}
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
	h.sum += o.sum
	if o.max > h.max {
		h.max = o.max
	}
}

// quantile returns the value at quantile q (0..1): the midpoint of the bucket
// holding the ceil(q*total)-th smallest value, never above the recorded max.
func (h *histogram) quantile(q float64) uint64 {
	if h.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.total)))
	if rank < 1 {
		rank = 1
	}
	if rank > h.total {
		rank = h.total
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := histBounds(i)
			return min(lo+(hi-lo)/2, h.max)
		}
	}
	return h.max
}

func (h *histogram) mean() uint64 {
	if h.total == 0 {
		return 0
	}
	return h.sum / h.total
}
