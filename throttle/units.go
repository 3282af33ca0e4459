package throttle

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// The state word of a bucket: a generation tag, a jump tag and the
// theoretical arrival time (tat) in units since the params' base.
const (
	relBits  = 52
	tagBits  = 8
	genBits  = 64 - relBits - tagBits
	relMask  = 1<<relBits - 1
	tagMask  = 1<<tagBits - 1
	genMask  = 1<<genBits - 1
	tagShift = relBits
	genShift = relBits + tagBits
)

// relLimit bounds how far after its base a state may reach; the room above
// it keeps max(tat, now) + a from overflowing the field.
const relLimit = 1 << (relBits - 1)

// maxBurst bounds a bucket's size. AWS's burstLimit is a 32-bit integer;
// the bound keeps burst × units-per-token representable.
const maxBurst = 1 << 40

// maxMul is the finest time unit, 1/maxMul ns. A rate whose emission
// interval needs a finer one is rounded down (to a slower rate).
const maxMul = 1 << 20

// minSpan is how long, at least, a bucket goes between re-bases (each one
// allocates its params). Parameters that cannot reach it are coarsened.
const minSpan = 1 << 31 // ≈ 2.1 s

// units says how a bucket's time and tokens map to the integers of its
// state word: time now is (now-base)×mul >> shift units, a token costs a
// units, and the bucket holds window = burst×a units.
type units struct {
	base   int64  // ns on the caller's timeline: unit 0
	mul    uint64 // a unit is 2^shift/mul ns
	a      uint64 // units per token; 0 means unlimited refill
	window uint64 // burst × a
	burst  int64
	span   int64 // ns after base within which time fits the word
	shift  uint8
	frozen bool // no refill: time does not advance
	none   bool // burst 0: admits nothing
	exact  bool // a is the emission interval exactly
}

// unitsFor derives a bucket's units from its limits.
//
// The rate is read as the decimal the client sent (the shortest decimal that
// round-trips the float64: 3.3, not 3.29999…), so that 3.3 tokens/s over
// 10 s is exactly 33. The emission interval 1e9/rate ns is then an exact
// fraction A/B, and the finest units are 1/B ns, in which every admission
// decision is the exact token-bucket decision. When the window (burst
// tokens) does not fit the word in those, units of 2^s/B ns that still
// divide A are used: decisions stay exact, and only a refill restarting
// from a full bucket is rounded up to the next unit (under 2^s/B ns late).
// Only when no such units fit (a rate with many significant digits, a tiny
// rate with a huge burst) is the interval itself rounded up: never more
// tokens than the exact bucket.
func unitsFor(l Limits, base int64) units {
	burst := min(max(l.Burst, 0), maxBurst)
	u := units{base: base, burst: burst, none: burst == 0, mul: 1, span: math.MaxInt64}
	frozen := func() units {
		u.frozen, u.mul, u.shift, u.a, u.window = true, 1, 0, 1, uint64(burst)
		u.exact = !(l.Rate > 0)
		return u
	}
	switch {
	case math.IsInf(l.Rate, 1):
		u.exact = true
		return u // a = 0: refills instantly
	case !(l.Rate > 0): // zero, negative or NaN
		return frozen()
	}
	t, ok := interval(l.Rate)
	if !ok {
		return frozen()
	}
	if a, b := t.Num(), t.Denom(); a.IsUint64() && b.IsUint64() && b.Uint64() <= maxMul {
		a, b := a.Uint64(), b.Uint64()
		for s := uint(0); s < 62 && a>>s<<s == a; s++ {
			if u.fit(a>>s, b, s) {
				u.exact = true
				return u
			}
		}
	}
	// Round the interval up, in the finest units that fit.
	for mul := uint64(maxMul); mul > 1; mul >>= 1 {
		if a, ok := ceilScaled(t, mul, 0); ok && u.fit(a, mul, 0) {
			return u
		}
	}
	for shift := uint(0); shift < 62; shift++ {
		if a, ok := ceilScaled(t, 1, shift); ok && u.fit(a, 1, shift) {
			return u
		}
	}
	// Slower than one token per 2^62 ns at this burst: no refill.
	return frozen()
}

// fit sets u's units if a token of a units, a unit being 2^shift/mul ns,
// leaves the word room for at least minSpan of time.
func (u *units) fit(a, mul uint64, shift uint) bool {
	hi, w := bits.Mul64(a, uint64(u.burst))
	if hi != 0 || w > relLimit/2 || a > relLimit/4 {
		return false
	}
	room := uint64(relLimit) - w - a // units of time the word can still hold
	// span = room × 2^shift / mul ns, and at most 2^62/mul so that
	// (now-base)×mul never overflows.
	hi, lo := bits.Mul64(room, 1<<shift)
	span := uint64(math.MaxInt64)
	if hi < mul {
		span, _ = bits.Div64(hi, lo, mul)
	}
	span = min(span, 1<<62/mul)
	if span < minSpan {
		return false
	}
	u.a, u.mul, u.shift, u.window, u.span = a, mul, uint8(shift), w, int64(span)
	return true
}

// interval is the emission interval 1e9/rate in ns as an exact fraction of
// the rate's shortest decimal form.
func interval(rate float64) (*big.Rat, bool) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(rate, 'g', -1, 64))
	if !ok || r.Sign() <= 0 {
		return nil, false
	}
	return r.Inv(r).Mul(r, big.NewRat(1e9, 1)), true
}

// ceilScaled is ceil(t × mul / 2^shift) if it fits in a uint64 and is at
// least 1.
func ceilScaled(t *big.Rat, mul uint64, shift uint) (uint64, bool) {
	num := new(big.Int).Mul(t.Num(), new(big.Int).SetUint64(mul))
	den := new(big.Int).Lsh(t.Denom(), shift)
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsUint64() {
		return 0, false
	}
	return max(q.Uint64(), 1), true
}

// at is the time now in units: floor for deciding (a later fill), ceil for
// writing a jump (a later start). ok is false when now is beyond the span
// from the base and the bucket must re-base first. A now before the base
// (another goroutine's clock read a little earlier) counts as the base.
func (u *units) at(now int64) (floor, ceil uint64, ok bool) {
	if u.frozen || u.a == 0 || now <= u.base {
		return 0, 0, true
	}
	dn := uint64(now) - uint64(u.base)
	if dn > uint64(u.span) {
		return 0, 0, false
	}
	t := dn * u.mul
	return t >> u.shift, (t + 1<<u.shift - 1) >> u.shift, true
}

// elapsed is the time now in units, floored, saturating: it works at any
// distance from the base.
func (u *units) elapsed(now int64) uint64 {
	if u.frozen || u.a == 0 || now <= u.base {
		return 0
	}
	hi, lo := bits.Mul64(uint64(now)-uint64(u.base), u.mul)
	if u.shift > 0 {
		lo = lo>>u.shift | hi<<(64-u.shift)
		hi >>= u.shift
	}
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// debt is how far the state rel is ahead of now, in tokens: whole tokens and
// the remaining units. A state behind now is a full bucket (no debt).
func (u *units) debt(rel uint64, now int64) (whole, part uint64) {
	if u.a == 0 {
		return 0, 0
	}
	t := u.elapsed(now)
	if rel <= t {
		return 0, 0
	}
	d := rel - t
	return d / u.a, d % u.a
}
