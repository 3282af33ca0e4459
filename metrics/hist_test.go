package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestKeyOrderAndError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, 1, -1, 1e-300, -1e300, 0.5, 2, 3, 1000, 1e-9}
	for range 100000 {
		vals = append(vals, math.Exp(rng.NormFloat64()*20)*float64(1-2*rng.IntN(2)))
	}
	slices.Sort(vals)
	for i, v := range vals {
		k := keyOf(v)
		if i > 0 && k < keyOf(vals[i-1]) {
			t.Fatalf("keyOf(%g)=%d < keyOf(%g)=%d: keys must follow values", v, k, vals[i-1], keyOf(vals[i-1]))
		}
		if got := valueOf(k); v != 0 && math.Abs(got-v)/math.Abs(v) > RelativeError {
			t.Fatalf("valueOf(keyOf(%g)) = %g: relative error %g > %g", v, got, math.Abs(got-v)/math.Abs(v), RelativeError)
		}
	}
}

func TestDenseRange(t *testing.T) {
	for _, tc := range []struct {
		ns   int64
		want uint16
	}{{0, 0}, {-5, 0}, {1, 1}, {1 << 62, denseLen - 1}} {
		if got := denseIndex(tc.ns); got != tc.want {
			t.Errorf("denseIndex(%d) = %d, want %d", tc.ns, got, tc.want)
		}
	}
	for _, ns := range []int64{1000, 123456, 5e6, 1e9, 3e12} {
		ms := float64(ns) / 1e6
		if got := valueOf(denseKey(int(denseIndex(ns)))); math.Abs(got-ms)/ms > RelativeError {
			t.Errorf("%d ns → %g ms", ns, got)
		}
	}
}

func TestPercentileWithinError(t *testing.T) {
	for _, dist := range []struct {
		name string
		gen  func(*rand.Rand) float64
	}{
		{"dist=lognormal", func(r *rand.Rand) float64 { return math.Exp(r.NormFloat64()*1.5 + 3) }},
		{"dist=uniform", func(r *rand.Rand) float64 { return r.Float64() * 1000 }},
		{"dist=bimodal", func(r *rand.Rand) float64 { return float64(1+r.IntN(2)*99) + r.Float64() }},
	} {
		t.Run(dist.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			var acc histAcc
			var h hist
			vals := make([]float64, 20000)
			for i := range vals {
				vals[i] = dist.gen(rng)
				if i%2 == 0 {
					acc.add(keyOf(vals[i]), 1)
				} else {
					h = h.add(keyOf(vals[i]), 1) // through a compacted histogram
				}
			}
			acc.addHist(h)
			slices.Sort(vals)
			for _, p := range []float64{50, 90, 99, 99.9, 100} {
				exact := vals[int(math.Ceil(p/100*float64(len(vals))))-1]
				got := acc.percentile(p, vals[0], vals[len(vals)-1])
				if math.Abs(got-exact)/exact > RelativeError {
					t.Errorf("p%g = %g, exact %g (relative error %.4f > %.4f)", p, got, exact, math.Abs(got-exact)/exact, RelativeError)
				}
			}
		})
	}
}

func TestRingDropsOldest(t *testing.T) {
	r := newRing[int](1, 10)
	for s := int64(100); s < 115; s++ {
		*r.put(s) = int(s)
	}
	for s := int64(100); s < 115; s++ {
		got := r.get(s)
		if s < 105 && got != nil {
			t.Errorf("second %d still held after 15 puts into 10 slots", s)
		}
		if s >= 105 && (got == nil || *got != int(s)) {
			t.Errorf("second %d lost", s)
		}
	}
	if r.put(100) != nil {
		t.Errorf("a put past retention must be refused, not overwrite newer data")
	}
}
