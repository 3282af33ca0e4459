package throttle

import (
	"math/bits"
	"sync/atomic"
)

// Limits are a token bucket's limits, API Gateway's ThrottleSettings.
type Limits struct {
	// Rate is the refill rate in requests per second (rateLimit). It may be
	// fractional. Zero (or negative, or NaN) means no refill: the bucket
	// admits Burst requests in all. +Inf refills instantly.
	Rate float64
	// Burst is the bucket's size (burstLimit); the bucket starts full. Zero
	// or negative admits nothing.
	Burst int64
}

// AWS's defaults for a stage's method throttling and for an account.
const (
	DefaultRate  = 10000
	DefaultBurst = 5000
)

// DefaultLimits are AWS's default limits for a stage's methods and for an
// account: 10000 requests per second, bursts of 5000.
func DefaultLimits() Limits { return Limits{Rate: DefaultRate, Burst: DefaultBurst} }

// Bucket is a token bucket with API Gateway's semantics: Burst tokens at
// most, refilled continuously at Rate per second, one token per admitted
// request. It is lock-free: any number of goroutines may call its methods.
//
// Times are nanoseconds on one timeline chosen by the caller (UnixNano, or a
// monotonic reading). A reading earlier than one already used (another
// goroutine's, taken a moment before) sees no more tokens than there were
// at the later one.
//
// Decisions are exact: every one is the decision of the ideal bucket (the
// rate read as the decimal the client sent), so under overload from full
// the requests admitted by elapsed time e number exactly
// Burst + floor(Rate × e). This holds for every rate of 0.01 or more with up
// to four significant digits (0.5, 3.3, 1234, 10000) and every rate of 1 or
// more with up to six, with bursts up to 100,000, and for most others;
// the rest round toward fewer tokens, never more (see unitsFor).
//
// The state is one word: the theoretical arrival time (GCRA's virtual
// scheduling: the time at which the bucket would be full again) in integer
// units relative to the params' base, updated by CompareAndSwap.
type Bucket struct {
	state atomic.Uint64
	// latest is the latest time reading a take used, to within
	// latestGrain; a take with an earlier reading takes at latest instead.
	latest atomic.Int64
	p      atomic.Pointer[params]
	// The counters are written by every request, the state read by every
	// one: on separate cache lines, refusals under overload leave the
	// state's line shared between cores instead of bouncing it.
	_         [48]byte
	admitted  atomic.Uint64
	throttled atomic.Uint64
	_         [48]byte
}

// params are a bucket's limits and units, replaced whole on a limit change
// or a re-base. gen counts the replacements; the state word carries its low
// bits, so a word still in the previous params' terms is recognised and
// converted (from: a copy, so that no chain of old params stays reachable)
// before anyone uses it.
type params struct {
	limits Limits
	gen    uint64
	units
	from *units
}

// NewBucket returns a full bucket with limits l at time now.
func NewBucket(l Limits, now int64) *Bucket {
	b := &Bucket{}
	b.p.Store(&params{limits: l, units: unitsFor(l, now)})
	// rel 0 at base now: the bucket is full (its tat is now).
	return b
}

// Limits returns the bucket's current limits.
func (b *Bucket) Limits() Limits { return b.p.Load().limits }

// Take takes a token at time now and reports whether there was one. A
// rejected request takes nothing.
func (b *Bucket) Take(now int64) bool {
	_, ok := b.take(now)
	if ok {
		b.admitted.Add(1)
	} else {
		b.throttled.Add(1)
	}
	return ok
}

// Counts are how many requests a bucket or a quota admitted and rejected.
type Counts struct {
	Admitted uint64
	Rejected uint64
}

// Counts returns how many requests the bucket admitted and throttled. A
// request admitted here but rejected at another level of Levels is counted
// by neither.
func (b *Bucket) Counts() Counts {
	return Counts{Admitted: b.admitted.Load(), Rejected: b.throttled.Load()}
}

// Available returns how many tokens the bucket holds at time now,
// fractional part included.
func (b *Bucket) Available(now int64) float64 {
	p, w := b.current(now)
	switch {
	case p.none:
		return 0
	case p.a == 0:
		return float64(p.burst)
	}
	whole, part := p.debt(w&relMask, now)
	// A jump written at the ceiling of a coarse unit may run a unit past
	// the window: never below zero.
	return max(float64(p.burst)-float64(whole)-float64(part)/float64(p.a), 0)
}

// SetLimits changes the bucket's limits at time now, atomically with
// respect to every Take. The bucket keeps its current level (tokens held),
// capped at the new burst, and refills from there at the new rate: a
// bucket that was full stays full, a drained one stays drained. AWS
// documents no behaviour here ("best effort"); this one neither grants nor
// forfeits tokens beyond the new burst.
func (b *Bucket) SetLimits(l Limits, now int64) {
	for {
		p := b.p.Load()
		if p.limits == l {
			return
		}
		if b.state.Load()>>genShift != p.gen&genMask {
			b.finish(p, now)
			continue
		}
		if b.transition(p, l, now) {
			return
		}
	}
}

// receipt is what refund needs to give back a token: the word the take
// replaced, the word it wrote, and a token's units.
type receipt struct {
	prev, word uint64
	a          uint64
}

// allow reports whether a take at now would succeed, without taking.
func (b *Bucket) allow(now int64) bool {
	p := b.p.Load()
	w := b.state.Load()
	switch {
	case p.none:
		return false
	case p.a == 0 || w>>genShift != p.gen&genMask:
		return true // take decides once the word is converted
	}
	tf, _, ok := p.at(now)
	if !ok {
		return true // long idle: full
	}
	rel := w & relMask
	return max(rel, tf)+p.a-tf <= p.window
}

// current returns the parameters and the state word in the same terms,
// first converting a word a change of limits left in older terms.
func (b *Bucket) current(now int64) (*params, uint64) {
	for {
		p := b.p.Load()
		w := b.state.Load()
		if w>>genShift == p.gen&genMask {
			return p, w
		}
		b.finish(p, now)
	}
}

// latestGrain is how far latest may lag the latest reading: it is
// written at most once per grain, not by every take.
const latestGrain = int64(100_000) // 100 µs

// take takes a token at time now if there is one. A reading earlier than
// one a take already used (a request that waited on a busy machine between
// reading the clock and reaching here) takes at that later reading: it
// sees the tokens there were then, no more and no fewer, where measuring
// the bucket's debt from the earlier reading would refuse it for the
// time it waited.
func (b *Bucket) take(now int64) (receipt, bool) {
	if l := b.latest.Load(); now < l {
		now = l
	} else if now-l >= latestGrain {
		b.latest.CompareAndSwap(l, now)
	}
	for {
		p, w := b.current(now)
		switch {
		case p.none:
			return receipt{}, false
		case p.a == 0:
			return receipt{}, true
		}
		tf, tc, ok := p.at(now)
		if !ok {
			b.transition(p, p.limits, now) // re-base at now
			continue
		}
		rel := w & relMask
		// GCRA: admit iff max(tat, now) + a is within the window ahead of now.
		if max(rel, tf)+p.a-tf > p.window {
			return receipt{}, false
		}
		tag := w >> tagShift & tagMask
		next := rel
		if rel < tc {
			// The bucket was full and the refill beyond it is lost: a
			// token taken before this point can no longer be given back.
			next, tag = tc, (tag+1)&tagMask
		}
		nw := (p.gen&genMask)<<genShift | tag<<tagShift | (next + p.a)
		if b.state.CompareAndSwap(w, nw) {
			return receipt{prev: w, word: nw, a: p.a}, true
		}
	}
}

// refund gives back the token r took, as if that request had not come: a
// request admitted here and rejected by a later level consumes nothing.
//
// If no one has taken since, the previous word comes back exactly. If others
// took since, one token's units come off the arrival time. If the bucket
// was full at some take since (the jump tag moved) or its params changed,
// the token was already forgotten and nothing is given back. The one
// inexact case: another request took after this one at a moment when,
// without this one, the bucket would have been full; giving back then
// credits that request's lost refill, under one token, early.
func (b *Bucket) refund(r receipt) {
	if r.a == 0 {
		return
	}
	for {
		w := b.state.Load()
		if w == r.word {
			if b.state.CompareAndSwap(w, r.prev) {
				return
			}
			continue
		}
		if w>>tagShift != r.word>>tagShift || w&relMask < r.a {
			return // gen or jump tag moved
		}
		if b.state.CompareAndSwap(w, w-r.a) {
			return
		}
	}
}

// transition replaces params p by new ones with limits l and base now, if p
// is still current, and converts the state word.
func (b *Bucket) transition(p *params, l Limits, now int64) bool {
	from := p.units
	np := &params{limits: l, gen: p.gen + 1, units: unitsFor(l, now), from: &from}
	if !b.p.CompareAndSwap(p, np) {
		return false
	}
	b.finish(np, now)
	return true
}

// finish converts the state word into p's terms if it is still in its
// predecessor's. Any goroutine that finds the word behind helps, so no one
// waits on the one that replaced the params.
func (b *Bucket) finish(p *params, now int64) {
	if p.from == nil {
		return // the first params: no word was ever in other terms
	}
	for {
		w := b.state.Load()
		if w>>genShift != (p.gen-1)&genMask {
			return
		}
		if b.state.CompareAndSwap(w, convert(p, w, now)) {
			return
		}
	}
}

// convert re-expresses word w, in p.from's terms, in p's: the level at now
// is kept, capped at the new burst (a re-base keeps it exactly). A fraction
// of a token that the new units cannot express is rounded toward fewer
// tokens.
func convert(p *params, w uint64, now int64) uint64 {
	from, to := p.from, &p.units
	whole, part := from.debt(w&relMask, now)
	var d uint64
	if n := int64(whole) + to.burst - from.burst; n >= 0 && to.a > 0 {
		d = uint64(n) * to.a
		if part > 0 {
			hi, lo := bits.Mul64(part, to.a)
			q, rem := bits.Div64(hi, lo, from.a)
			if rem > 0 {
				q++
			}
			d += q
		}
		d = min(d, to.window)
	}
	_, t, ok := to.at(now)
	if !ok {
		t = 0
	}
	tag := w >> tagShift & tagMask
	return (p.gen&genMask)<<genShift | tag<<tagShift | (t + d)
}
