package throttle

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLevelsPrecedence(t *testing.T) {
	now := utc("2024-05-01T12:00:00Z")
	ns := now.UnixNano()
	tests := []struct {
		name     string
		levels   func() Levels
		decision Decision
		level    Level
	}{
		{"none", func() Levels { return Levels{} }, Admitted, LevelNone},
		{"all-open", func() Levels {
			return Levels{Client: NewBucket(Limits{1, 1}, ns), Quota: NewQuota(QuotaSettings{Limit: 1, Period: PeriodDay}, now),
				Stage: NewBucket(Limits{1, 1}, ns), Account: NewBucket(DefaultLimits(), ns)}
		}, Admitted, LevelNone},
		{"client", func() Levels {
			return Levels{Client: NewBucket(Limits{1, 0}, ns), Quota: NewQuota(QuotaSettings{Limit: 0, Period: PeriodDay}, now),
				Stage: NewBucket(Limits{1, 0}, ns), Account: NewBucket(Limits{1, 0}, ns)}
		}, Throttled, LevelClient},
		{"stage", func() Levels {
			return Levels{Client: NewBucket(Limits{1, 1}, ns), Quota: NewQuota(QuotaSettings{Limit: 0, Period: PeriodDay}, now),
				Stage: NewBucket(Limits{1, 0}, ns), Account: NewBucket(Limits{1, 0}, ns)}
		}, Throttled, LevelStage},
		{"account", func() Levels {
			return Levels{Client: NewBucket(Limits{1, 1}, ns), Quota: NewQuota(QuotaSettings{Limit: 0, Period: PeriodDay}, now),
				Stage: NewBucket(Limits{1, 1}, ns), Account: NewBucket(Limits{1, 0}, ns)}
		}, Throttled, LevelAccount},
		{"quota-after-throttles", func() Levels {
			return Levels{Client: NewBucket(Limits{1, 1}, ns), Quota: NewQuota(QuotaSettings{Limit: 5, Offset: 5, Period: PeriodDay}, now),
				Stage: NewBucket(Limits{1, 1}, ns), Account: NewBucket(Limits{1, 1}, ns)}
		}, QuotaExceeded, LevelQuota},
		{"stage-only", func() Levels { return Levels{Stage: NewBucket(Limits{0, 0}, ns)} }, Throttled, LevelStage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.levels()
			before := snapshot(l, ns)
			d, lv := l.Take(now)
			if d != tc.decision || lv != tc.level {
				t.Fatalf("got %v at %v, want %v at %v", d, lv, tc.decision, tc.level)
			}
			after := snapshot(l, ns)
			for i := range before.tokens {
				consumed := before.tokens[i] - after.tokens[i]
				if d == Admitted && before.present[i] && consumed != 1 || d != Admitted && consumed != 0 {
					t.Errorf("level %d: %v consumed %v", i, d, consumed)
				}
			}
		})
	}
}

type levelState struct {
	tokens  [4]float64 // client, stage, account, quota remaining
	present [4]bool
}

func snapshot(l Levels, ns int64) levelState {
	var s levelState
	for i, b := range []*Bucket{l.Client, l.Stage, l.Account} {
		if b != nil {
			s.tokens[i], s.present[i] = b.Available(ns), true
		}
	}
	if l.Quota != nil {
		s.tokens[3], s.present[3] = float64(l.Quota.Remaining(time.Unix(0, ns))), true
	}
	return s
}

// TestLevelsRefusedConsumeNothing: a client hammering a tight stage limit
// spends on its own bucket exactly what the stage admitted.
func TestLevelsRefusedConsumeNothing(t *testing.T) {
	start := utc("2024-05-01T12:00:00Z")
	ns := start.UnixNano()
	l := Levels{
		Client: NewBucket(Limits{Rate: 100, Burst: 50}, ns),
		Quota:  NewQuota(QuotaSettings{Limit: 1000, Period: PeriodDay}, start),
		Stage:  NewBucket(Limits{Rate: 10, Burst: 5}, ns),
	}
	var admitted int64
	for i := range 1000 {
		now := start.Add(time.Duration(i) * time.Millisecond)
		for range 10 {
			if d, _ := l.Take(now); d == Admitted {
				admitted++
			}
		}
	}
	end := start.Add(999 * time.Millisecond)
	if want := expected(Limits{Rate: 10, Burst: 5}, end.UnixNano()-ns); admitted != want {
		t.Errorf("admitted %d, want %d", admitted, want)
	}
	m := newModel(Limits{Rate: 100, Burst: 50}, ns)
	m.level.Sub(m.level, ratInt(admitted))
	m.refill(end.UnixNano())
	if got, want := l.Client.Available(end.UnixNano()), ratFloat(m.level); got != want {
		t.Errorf("client bucket holds %v, want %v", got, want)
	}
	if got := l.Quota.Remaining(end); got != 1000-admitted {
		t.Errorf("quota remaining %d, want %d", got, 1000-admitted)
	}
	if c := l.Client.Counts(); c.Admitted != uint64(admitted) || c.Rejected != 0 {
		t.Errorf("client counts %+v", c)
	}
	if c := l.Stage.Counts(); c.Admitted != uint64(admitted) || c.Rejected != 10000-uint64(admitted) {
		t.Errorf("stage counts %+v", c)
	}
	// Over quota: the buckets keep their tokens.
	l.Quota.SetRemaining(0, end)
	later := end.Add(time.Hour)
	before := snapshot(l, later.UnixNano())
	if d, lv := l.Take(later); d != QuotaExceeded || lv != LevelQuota {
		t.Errorf("over quota: %v at %v", d, lv)
	}
	if after := snapshot(l, later.UnixNano()); after != before {
		t.Errorf("a request over quota changed %+v to %+v", before, after)
	}
}

// TestRefund: a token given back restores the bucket as if the request had
// not come, whether others took since or the bucket filled up since.
func TestRefund(t *testing.T) {
	l := Limits{Rate: 3, Burst: 4}
	t.Run("untouched", func(t *testing.T) {
		b := NewBucket(l, 0)
		b.Take(0)
		before := b.state.Load()
		r, _ := b.take(sec / 10)
		b.refund(r)
		if b.state.Load() != before {
			t.Errorf("word %x, want %x", b.state.Load(), before)
		}
	})
	t.Run("others-took-since", func(t *testing.T) {
		b, ref := NewBucket(l, 0), NewBucket(l, 0)
		b.Take(0)
		ref.Take(0)
		r, _ := b.take(sec / 10)
		b.Take(sec / 5)
		ref.Take(sec / 5)
		b.refund(r)
		for _, now := range []int64{sec / 5, sec, 10 * sec} {
			if got, want := b.Available(now), ref.Available(now); got != want {
				t.Errorf("at %d: %v tokens, want %v", now, got, want)
			}
		}
	})
	t.Run("filled-up-since", func(t *testing.T) {
		b, ref := NewBucket(l, 0), NewBucket(l, 0)
		r, _ := b.take(0)
		b.Take(10 * sec) // full again: the jump forgets r's token
		ref.Take(10 * sec)
		b.refund(r)
		if got, want := b.Available(10*sec), ref.Available(10*sec); got != want {
			t.Errorf("%v tokens, want %v", got, want)
		}
	})
	t.Run("limits-changed-since", func(t *testing.T) {
		b := NewBucket(l, 0)
		r, _ := b.take(0)
		b.SetLimits(Limits{Rate: 3, Burst: 10}, 0)
		b.refund(r)
		if got := b.Available(0); got != 3 {
			t.Errorf("%v tokens, want the 3 kept through the change", got)
		}
	})
}

// TestSetLimits: the level is kept, capped at the new burst, and refills at
// the new rate.
func TestSetLimits(t *testing.T) {
	tests := []struct {
		name     string
		from, to Limits
		take     int64   // taken at 0 before the change at 0
		want     float64 // tokens right after
		after    int64   // admitted over the next second, draining every ms
	}{
		{"same-shape", Limits{10, 10}, Limits{10, 10}, 4, 6, 16},
		{"burst-up", Limits{10, 10}, Limits{10, 100}, 4, 6, 16},
		{"burst-down-capped", Limits{10, 10}, Limits{10, 3}, 4, 3, 13},
		{"burst-down-below-level", Limits{10, 10}, Limits{10, 8}, 4, 6, 16},
		{"rate-up", Limits{10, 10}, Limits{1000, 10}, 10, 0, 1000},
		{"rate-down", Limits{1000, 10}, Limits{0.5, 10}, 10, 0, 0},
		{"to-frozen", Limits{10, 10}, Limits{0, 10}, 4, 6, 6},
		{"from-frozen", Limits{0, 10}, Limits{10, 10}, 4, 6, 16},
		{"to-zero", Limits{10, 10}, Limits{10, 0}, 4, 0, 0},
		{"from-zero", Limits{10, 0}, Limits{10, 5}, 0, 0, 10},
		{"fractional-rates", Limits{3.3, 7}, Limits{0.7, 7}, 7, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBucket(tc.from, 0)
			for range tc.take {
				b.Take(0)
			}
			b.SetLimits(tc.to, 0)
			if got := b.Available(0); got != tc.want {
				t.Errorf("after the change: %v tokens, want %v", got, tc.want)
			}
			if b.Limits() != tc.to {
				t.Errorf("limits %+v", b.Limits())
			}
			var got int64
			for ms := int64(0); ms <= 1000; ms++ {
				got += drain(b, ms*int64(time.Millisecond))
			}
			if got != tc.after {
				t.Errorf("admitted %d over the next second, want %d", got, tc.after)
			}
		})
	}
}

// hammer runs workers that call take in a loop at the fake clock's time
// while the clock moves in steps; at each step it waits until drained says
// the limits are used up at that time. It returns what take admitted.
func hammer(t *testing.T, workers int, start, step int64, steps int, take func(now int64) bool, drained func(now int64) bool) int64 {
	t.Helper()
	var clock atomic.Int64
	clock.Store(start)
	var admitted atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if take(clock.Load()) {
					admitted.Add(1)
				} else {
					runtime.Gosched() // let the clock move
				}
			}
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for i := range steps {
		now := start + int64(i)*step
		clock.Store(now)
		for !drained(now) {
			if time.Now().After(deadline) {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("step %d never drained", i)
			}
			runtime.Gosched()
		}
	}
	stop.Store(true)
	wg.Wait()
	// A worker may have held a token it then gave back (refused at a later
	// level) while drained looked: take what is left at the last step.
	last := start + int64(steps-1)*step
	for take(last) {
		admitted.Add(1)
	}
	return admitted.Load()
}

func TestHammerBucket(t *testing.T) {
	for _, l := range []Limits{{Rate: 1000, Burst: 100}, {Rate: 3.3, Burst: 5}, {Rate: 0.5, Burst: 2}, {Rate: 0, Burst: 50}} {
		t.Run(fmt.Sprintf("rate=%g/burst=%d", l.Rate, l.Burst), func(t *testing.T) {
			step := int64(float64(l.Burst-1) / max(l.Rate, 1) * 1e9 / 3)
			const steps = 300
			b := NewBucket(l, 0)
			got := hammer(t, 8, 0, step, steps, b.Take, func(now int64) bool { return !b.allow(now) })
			if want := expected(l, int64(steps-1)*step); got != want {
				t.Errorf("admitted %d, want %d", got, want)
			}
			if c := b.Counts(); c.Admitted != uint64(got) {
				t.Errorf("counted %d admitted, took %d", c.Admitted, got)
			}
		})
	}
}

// TestHammerLevels: clients hammer a client limit, a stage limit and a
// quota at once. The stage binds first, then the client bucket, drained by
// what the stage let through, then the quota: the admitted count is exact
// at every stage of it.
func TestHammerLevels(t *testing.T) {
	start := utc("2024-05-01T12:00:00Z")
	ns := start.UnixNano()
	client, stage := Limits{Rate: 200, Burst: 100}, Limits{Rate: 300, Burst: 30}
	const quota = 500
	l := Levels{
		Client:  NewBucket(client, ns),
		Quota:   NewQuota(QuotaSettings{Limit: quota, Period: PeriodDay}, start),
		Stage:   NewBucket(stage, ns),
		Account: NewBucket(DefaultLimits(), ns),
	}
	step := int64(time.Millisecond)
	const steps = 2000
	got := hammer(t, 8, ns, step, steps,
		func(now int64) bool { d, _ := l.Take(time.Unix(0, now)); return d == Admitted },
		func(now int64) bool {
			return !l.Client.allow(now) || !l.Stage.allow(now) || !l.Quota.allow(time.Unix(0, now))
		})
	e := int64(steps-1) * step
	want := min(expected(client, e), expected(stage, e), quota)
	if got != want {
		t.Errorf("admitted %d, want %d", got, want)
	}
	for name, c := range map[string]Counts{"client": l.Client.Counts(), "stage": l.Stage.Counts(), "account": l.Account.Counts(), "quota": l.Quota.Counts()} {
		if c.Admitted != uint64(got) {
			t.Errorf("%s counted %d admitted, want %d", name, c.Admitted, got)
		}
	}
	if r := l.Quota.Remaining(start); r != quota-got {
		t.Errorf("quota remaining %d, want %d", r, quota-got)
	}
}

// TestHammerSetLimits changes a loaded bucket's limits back and forth: it
// admits exactly what the exact model does, the level carried across each
// change.
func TestHammerSetLimits(t *testing.T) {
	a, c := Limits{Rate: 1000, Burst: 50}, Limits{Rate: 250, Burst: 10}
	b, m := NewBucket(a, 0), newModel(a, 0)
	step := int64(time.Millisecond)
	var total int64
	now := int64(0)
	for seg := range 6 {
		l := a
		if seg%2 == 1 {
			l = c
		}
		b.SetLimits(l, now)
		m.setLimits(l, now)
		got := hammer(t, 4, now, step, 100, b.Take, func(now int64) bool { return !b.allow(now) })
		var want int64
		for i := range int64(100) {
			for m.take(now + i*step) {
				want++
			}
		}
		if got != want {
			t.Errorf("segment %d (%+v): admitted %d, want %d", seg, l, got, want)
		}
		total += got
		now += 100 * step
	}
	if c := b.Counts(); c.Admitted != uint64(total) {
		t.Errorf("counted %d, want %d", c.Admitted, total)
	}
}

// TestRealTime hammers a bucket for two seconds of real time: what it
// admitted is within 1% of burst + rate × elapsed.
func TestRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("two seconds of real time")
	}
	l := Limits{Rate: 5000, Burst: 100}
	start := time.Now()
	b := NewBucket(l, start.UnixNano())
	var admitted atomic.Int64
	var last atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				now := time.Now()
				if now.Sub(start) > 2*time.Second {
					return
				}
				if b.Take(now.UnixNano()) {
					admitted.Add(1)
					last.Store(max(last.Load(), now.UnixNano()))
				}
			}
		}()
	}
	wg.Wait()
	want := float64(l.Burst) + l.Rate*float64(last.Load()-start.UnixNano())/1e9
	if got := float64(admitted.Load()); got < want*0.99 || got > want*1.01 {
		t.Errorf("admitted %v in %v, want %v ± 1%%", got, time.Duration(last.Load()-start.UnixNano()), want)
	}
}

// TestSetLimitsWhileLoaded flips a bucket's limits while workers hammer it:
// no race, and no more admitted than the larger limits could ever give.
func TestSetLimitsWhileLoaded(t *testing.T) {
	a, c := Limits{Rate: 2000, Burst: 40}, Limits{Rate: 3.3, Burst: 5}
	b := NewBucket(a, 0)
	step := int64(time.Millisecond)
	const steps = 400
	var flips int
	got := hammer(t, 4, 0, step, steps, b.Take, func(now int64) bool {
		if now/step%20 == 0 && flips < int(now/step/20)+1 {
			flips++
			if flips%2 == 0 {
				b.SetLimits(a, now)
			} else {
				b.SetLimits(c, now)
			}
		}
		return !b.allow(now)
	})
	if max := expected(a, (steps-1)*step); got > max || got < 40 {
		t.Errorf("admitted %d, want between 40 and %d", got, max)
	}
	if c := b.Counts(); c.Admitted != uint64(got) {
		t.Errorf("counted %d, took %d", c.Admitted, got)
	}
	if g := b.p.Load().gen; g < 10 {
		t.Errorf("only %d changes", g)
	}
}

// TestLevelsNoAllocs: the data plane builds Levels per request on its stack.
func TestLevelsNoAllocs(t *testing.T) {
	now := utc("2024-05-01T12:00:00Z")
	ns := now.UnixNano()
	c, s, a := NewBucket(Limits{1e9, 1 << 40}, ns), NewBucket(Limits{1e9, 1 << 40}, ns), NewBucket(DefaultLimits(), ns)
	q := NewQuota(QuotaSettings{Limit: 1 << 40, Period: PeriodWeek}, now)
	if n := testing.AllocsPerRun(1000, func() {
		l := Levels{Client: c, Quota: q, Stage: s, Account: a}
		l.Take(now)
	}); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
}
