package throttle

import (
	"math"
	"math/big"
	"testing"
)

// FuzzBucket drives a bucket with arbitrary limits and a sequence of takes,
// give-backs and limit changes over arbitrary time steps, next to the exact
// model: nothing overflows or panics, the bucket never admits what the
// model refuses, and with exact units and no change of limits it decides
// exactly as the model.
func FuzzBucket(f *testing.F) {
	f.Add(3.3, int64(5), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add(0.5, int64(1), []byte{0, 0, 0, 40, 0, 0})
	f.Add(10000.0, int64(5000), []byte{9, 9, 9, 9, 200, 1, 1})
	f.Add(1234.5678, int64(10), []byte{3, 3, 3, 3, 3, 3, 251, 252, 253})
	f.Add(0.0, int64(3), []byte{1, 1, 1, 1, 1})
	f.Add(math.Inf(1), int64(2), []byte{1, 2})
	f.Add(1e300, int64(1<<50), []byte{7, 7, 7})
	f.Add(5e-324, int64(-4), []byte{7, 7, 7})
	f.Add(math.NaN(), int64(math.MaxInt64), []byte{7, 250})
	f.Fuzz(func(t *testing.T, rate float64, burst int64, ops []byte) {
		if len(ops) > 300 {
			ops = ops[:300]
		}
		l := Limits{Rate: rate, Burst: burst}
		now := int64(1) << 60
		b, m := NewBucket(l, now), newModel(l, now)
		u := unitsFor(l, now)
		lockstep := u.exact && u.shift == 0 && burst <= maxBurst
		steps := [...]int64{0, 1, 7, 1000, 333_333, 1e6, 1e9, 1e12, 1e15, 1e17}
		for i, op := range ops {
			now = min(now+steps[int(op)%len(steps)]*int64(1+op/40), math.MaxInt64/2)
			switch {
			case op >= 250: // change limits
				nl := Limits{Rate: []float64{0, 0.5, 3.3, 1000, 1e-6, rate}[op-250], Burst: int64(op%7) + burst%3}
				b.SetLimits(nl, now)
				m.setLimits(nl, now)
				lockstep = false
			case op >= 200: // take and give back
				r, ok := b.take(now)
				if ok {
					b.refund(r)
				}
			default:
				got := b.Take(now)
				want := m.take(now)
				if got && !want {
					t.Fatalf("op %d at %d: admitted, the model refuses (%+v, units %+v)", i, now, l, u)
				}
				if lockstep && got != want {
					t.Fatalf("op %d at %d: got %v, model %v (%+v, units %+v)", i, now, got, want, l, u)
				}
				if want && !got {
					m.level.Add(m.level, big.NewRat(1, 1)) // keep the model with the bucket
				}
			}
			if a := b.Available(now); a < 0 || a > float64(min(max(b.Limits().Burst, 0), maxBurst)) || math.IsNaN(a) {
				t.Fatalf("op %d: %v tokens, burst %d", i, a, b.Limits().Burst)
			}
		}
	})
}
