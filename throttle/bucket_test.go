package throttle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

const sec = int64(time.Second)

// drain takes from b at now until it refuses, and returns how many it took.
func drain(b *Bucket, now int64) int64 {
	var n int64
	for b.Take(now) {
		n++
	}
	return n
}

// TestBucketExactCounts overloads a full bucket: after each step of the
// clock the bucket has admitted exactly burst + floor(rate × elapsed).
func TestBucketExactCounts(t *testing.T) {
	rates := []float64{0, 0.001, 0.1, 0.3, 0.5, 1, 1.5, 2.5, 3, 3.3, 7, 9.99, 33.333, 100, 999, 1000, 1234.5678, 9999, 10000, 123456.789, 1e6}
	bursts := []int64{0, 1, 2, 5, 100, 5000}
	steps := []int64{1, 7, 1000, 333333, int64(time.Millisecond), 37 * int64(time.Millisecond), sec}
	for _, rate := range rates {
		for _, burst := range bursts {
			for _, step := range steps {
				l := Limits{Rate: rate, Burst: burst}
				if burst > 0 && rate*float64(step)/1e9 > float64(burst-1) {
					// Draining only every step, the bucket would fill up in
					// between and lose refill: that is not an overload.
					continue
				}
				t.Run(fmt.Sprintf("rate=%g/burst=%d/step=%d", rate, burst, step), func(t *testing.T) {
					start := int64(1_700_000_000) * sec
					b := NewBucket(l, start)
					var got int64
					n := 200
					if step < 1000 {
						n = 2000
					}
					for i := range n {
						now := start + int64(i)*step
						got += drain(b, now)
						if want := expected(l, now-start); got != want {
							t.Fatalf("at elapsed %d ns: admitted %d, want %d", now-start, got, want)
						}
					}
				})
			}
		}
	}
}

// TestBucketMatchesModel drives buckets and the exact model with the same
// random arrivals: every decision is the same.
func TestBucketMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rates := []float64{0, 0.25, 0.7, 1, 3, 3.3, 12.5, 100, 777.7, 10000}
	for _, rate := range rates {
		for _, burst := range []int64{1, 3, 50} {
			t.Run(fmt.Sprintf("rate=%g/burst=%d", rate, burst), func(t *testing.T) {
				l := Limits{Rate: rate, Burst: burst}
				now := int64(42)
				b, m := NewBucket(l, now), newModel(l, now)
				for i := range 20000 {
					// Mostly bursts of arrivals, sometimes long idle gaps.
					switch rng.IntN(10) {
					case 0:
						now += rng.Int64N(10 * sec)
					case 1, 2, 3:
						now += rng.Int64N(sec / 10)
					default:
						now += rng.Int64N(int64(time.Millisecond))
					}
					if got, want := b.Take(now), m.take(now); got != want {
						t.Fatalf("take %d at %d: got %v, model %v (available %v)", i, now, got, want, b.Available(now))
					}
				}
			})
		}
	}
}

func TestBucketRateZeroAndBurstZero(t *testing.T) {
	b := NewBucket(Limits{Rate: 0, Burst: 3}, 0)
	if got := drain(b, 0) + drain(b, 1000*sec) + drain(b, math.MaxInt64); got != 3 {
		t.Errorf("rate 0 burst 3 admitted %d in all, want 3", got)
	}
	b = NewBucket(Limits{Rate: 1000, Burst: 0}, 0)
	if got := drain(b, 0) + drain(b, 1000*sec); got != 0 {
		t.Errorf("burst 0 admitted %d, want 0", got)
	}
	b = NewBucket(Limits{Rate: math.Inf(1), Burst: 1}, 0)
	for i := range 1000 {
		if !b.Take(int64(i)) {
			t.Fatalf("infinite rate refused take %d", i)
		}
	}
	for _, r := range []float64{math.NaN(), -1, math.Inf(-1)} {
		b = NewBucket(Limits{Rate: r, Burst: 2}, 0)
		if got := drain(b, 0) + drain(b, 1000*sec); got != 2 {
			t.Errorf("rate %v burst 2 admitted %d, want 2", r, got)
		}
	}
}

// TestBucketRejectedConsumeNothing: refusals in between change nothing.
func TestBucketRejectedConsumeNothing(t *testing.T) {
	l := Limits{Rate: 3, Burst: 2}
	a, b := NewBucket(l, 0), NewBucket(l, 0)
	var na, nb int64
	for now := int64(0); now < 10*sec; now += int64(time.Millisecond) {
		for range 50 {
			if a.Take(now) {
				na++
			}
		}
		if now%(sec/3) == 0 {
			nb += drain(b, now)
		}
	}
	if want := expected(l, 10*sec-int64(time.Millisecond)); na != want {
		t.Errorf("hammered bucket admitted %d, want %d", na, want)
	}
	if c := a.Counts(); c.Admitted != uint64(na) || c.Rejected != 10000*50-uint64(na) {
		t.Errorf("counts %+v, admitted %d", c, na)
	}
}

func TestBucketLongIdle(t *testing.T) {
	for _, l := range []Limits{{Rate: 7, Burst: 3}, {Rate: 524.287, Burst: 10}, {Rate: 1234.5678, Burst: 10}, {Rate: 0.001, Burst: 1e6}, {Rate: 1e9, Burst: 5}} {
		t.Run(fmt.Sprintf("rate=%g/burst=%d", l.Rate, l.Burst), func(t *testing.T) {
			b := NewBucket(l, 0)
			drain(b, 0)
			fill := int64(float64(l.Burst)/l.Rate*1e9) + 1
			now := int64(0)
			for _, idle := range []int64{sec, 3 * sec, 3600 * sec, 400 * 86400 * sec, 100 * 365 * 86400 * sec} {
				if idle < fill {
					continue
				}
				now += idle
				if got := drain(b, now); got != l.Burst {
					t.Errorf("after %v idle: admitted %d, want a full bucket of %d", time.Duration(idle), got, l.Burst)
				}
				// The refill restarts from there.
				var got int64
				step := min(max(int64(float64(l.Burst-1)/l.Rate*1e9)/2, 1), 1e15)
				for dt := step; dt <= 50*step; dt += step {
					got += drain(b, now+dt)
				}
				if want := expected(l, 50*step) - l.Burst; got != want && !(got == want-1 && !unitsFor(l, 0).exact) {
					t.Errorf("after %v idle: admitted %d in the next %v, want %d", time.Duration(idle), got, time.Duration(50*step), want)
				}
				now += 50 * step
			}
		})
	}
}

// TestBucketRebaseUnderLoad runs a bucket whose word must re-base every few
// seconds for long enough to re-base many times, keeping exact counts.
func TestBucketRebaseUnderLoad(t *testing.T) {
	l := Limits{Rate: 524.287, Burst: 10} // 1e9/rate = 1e12/524287 ns, 524287 prime
	u := unitsFor(l, 0)
	if !u.exact || u.span > 100*sec {
		t.Fatalf("units %+v: want exact with a short span for this test", u)
	}
	b := NewBucket(l, 0)
	var got int64
	end := 20 * u.span
	step := int64(float64(l.Burst-1) / l.Rate * 1e9) // never fills up in between
	for now := int64(0); now <= end; now += step {
		got += drain(b, now)
		if want := expected(l, now); got != want {
			t.Fatalf("at %v: admitted %d, want %d (gen %d)", time.Duration(now), got, want, b.p.Load().gen)
		}
	}
	if g := b.p.Load().gen; g < 15 {
		t.Errorf("only %d re-bases", g)
	}
}

func TestUnitsExact(t *testing.T) {
	for _, r := range []float64{0.001, 0.01, 0.1, 0.25, 0.333, 0.5, 1, 1.5, 2.5, 3, 3.3, 7, 12.34, 99.99, 524.287, 9999, 10000, 123456, 1e6, 1e9, 1e12} {
		for _, burst := range []int64{1, 5000, 10000} {
			if u := unitsFor(Limits{Rate: r, Burst: burst}, 0); !u.exact {
				t.Errorf("rate %g burst %d: not exact (%+v)", r, burst, u)
			}
		}
	}
	// The domain Bucket's documentation promises.
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ digits, minExp int }{{4, -2}, {6, 0}} {
		for range 20000 {
			lo := int64(math.Pow10(c.digits - 1))
			m := lo + rng.Int64N(9*lo)
			exp := c.minExp - (c.digits - 1) + rng.IntN(7) // up to 10^(minExp+6)
			r, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, exp), 64)
			if u := unitsFor(Limits{Rate: r, Burst: 100000}, 0); !u.exact {
				t.Errorf("rate %g burst 100000: not exact", r)
			}
		}
	}
	// Coarsened: still never more than the exact count.
	for _, l := range []Limits{{Rate: 1.23456789012, Burst: 5}, {Rate: 1e-9, Burst: 1 << 30}, {Rate: 1e300, Burst: 3}, {Rate: 5e-324, Burst: 1}} {
		u := unitsFor(l, 0)
		if u.exact {
			t.Errorf("%+v: unexpectedly exact", l)
		}
		b := NewBucket(l, 0)
		var got int64
		for i := range int64(100) {
			now := i * 997 * int64(time.Millisecond)
			for got < 1e6 && b.Take(now) {
				got++
			}
			if want := expected(l, now); got > want {
				t.Fatalf("%+v at %d: admitted %d, more than %d", l, now, got, want)
			}
		}
	}
}

// TestStaleReadingTakesAtLatest: a request that read the clock before
// another took, and reached the bucket after, is not refused for the time
// it waited while the bucket is nearly full.
func TestStaleReadingTakesAtLatest(t *testing.T) {
	for _, l := range []Limits{{Rate: 1e6, Burst: 1e5}, DefaultLimits()} {
		const t0 = int64(1_000_000_000)
		b := NewBucket(l, t0)
		late := t0 + int64(600*time.Millisecond)
		for range 10 {
			if !b.Take(late) {
				t.Fatalf("%+v: take at t0+600ms refused", l)
			}
		}
		if !b.Take(t0) {
			t.Fatalf("%+v: a reading 600 ms older than the latest take was refused with %v tokens left", l, b.Available(late))
		}
		// It took a token as of the later reading, no more.
		if got, want := b.Available(late), float64(l.Burst-11); got < want || got >= want+1 {
			t.Fatalf("%+v: %v tokens left, want %v", l, got, want)
		}
	}
}
