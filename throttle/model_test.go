package throttle

import (
	"math"
	"math/big"
	"strconv"
)

// model is the token bucket in exact rational arithmetic: the level refills
// continuously at rate, capped at burst, and a take needs one whole token.
type model struct {
	rate  *big.Rat // tokens per ns
	burst *big.Rat
	level *big.Rat
	last  int64
}

func newModel(l Limits, now int64) *model {
	r := new(big.Rat)
	if math.IsInf(l.Rate, 1) {
		r.SetInt64(math.MaxInt64) // refills instantly
	} else if l.Rate > 0 {
		r.SetString(strconv.FormatFloat(l.Rate, 'g', -1, 64))
		r.Quo(r, big.NewRat(1e9, 1))
	}
	b := big.NewRat(max(l.Burst, 0), 1)
	return &model{rate: r, burst: b, level: new(big.Rat).Set(b), last: now}
}

func (m *model) refill(now int64) {
	if m.rate.Cmp(big.NewRat(math.MaxInt64, 1)) == 0 {
		m.level.Set(m.burst) // an infinite rate keeps the bucket full
		return
	}
	if now > m.last {
		add := new(big.Rat).Mul(m.rate, big.NewRat(now-m.last, 1))
		m.level.Add(m.level, add)
		if m.level.Cmp(m.burst) > 0 {
			m.level.Set(m.burst)
		}
		m.last = now
	}
}

// setLimits keeps the level, capped at the new burst.
func (m *model) setLimits(l Limits, now int64) {
	m.refill(now)
	n := newModel(l, now)
	m.rate, m.burst = n.rate, n.burst
	if m.level.Cmp(m.burst) > 0 {
		m.level.Set(m.burst)
	}
}

func (m *model) take(now int64) bool {
	if m.rate.Cmp(big.NewRat(math.MaxInt64, 1)) == 0 && m.burst.Sign() > 0 {
		return true
	}
	m.refill(now)
	if m.level.Cmp(big.NewRat(1, 1)) < 0 {
		return false
	}
	m.level.Sub(m.level, big.NewRat(1, 1))
	return true
}

// expected is burst + floor(rate × elapsed) for a rate read as its shortest
// decimal.
func expected(l Limits, elapsed int64) int64 {
	if l.Burst <= 0 {
		return 0 // a bucket of size 0 never holds a token
	}
	if !(l.Rate > 0) {
		return max(l.Burst, 0)
	}
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(l.Rate, 'g', -1, 64))
	r.Mul(r, big.NewRat(elapsed, 1e9))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() || q.Int64() > 1<<62 {
		return 1 << 62
	}
	return l.Burst + q.Int64()
}

func ratInt(n int64) *big.Rat { return big.NewRat(n, 1) }

func ratFloat(r *big.Rat) float64 { f, _ := r.Float64(); return f }
