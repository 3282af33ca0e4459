package metrics

import "slices"

// promBuckets are the upper bounds, in seconds, of the latency histograms
// exposed to Prometheus. A request is counted in a bucket by the midpoint of
// its fine bucket, so a latency within 1.6% of a bound may land on either
// side of it.
var promBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// totals are a group's counts since it began, for Prometheus counters.
type totals struct {
	class        [6]uint64
	lat, integ   int64      // nanoseconds
	latB, integB [15]uint64 // per promBuckets, the last past them all
}

func (t *totals) add(r *rslot) {
	for i, c := range r.class {
		t.class[i] += uint64(c)
	}
	t.lat += r.lat.sum
	t.integ += r.integ.sum
	for m, b := range [2]*[15]uint64{&t.latB, &t.integB} {
		for _, x := range r.h[m] {
			i, _ := slices.BinarySearch(promBuckets, valueOf(x.key)/1000)
			b[i] += uint64(x.n)
		}
	}
}
