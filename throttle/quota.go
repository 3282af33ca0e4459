package throttle

import (
	"sync/atomic"
	"time"
)

// QuotaSettings are a usage plan's quota, API Gateway's QuotaSettings.
type QuotaSettings struct {
	// Limit is how many requests a key may make in a period.
	Limit int64
	// Offset is "the number of requests subtracted from the given limit in
	// the initial time period": the period containing the quota's start.
	Offset int64
	// Period is DAY, WEEK or MONTH; NoPeriod counts without limiting.
	Period Period
}

// Unlimited is what Remaining and Usage report for a quota with NoPeriod.
const Unlimited = -1

// logDays is how many days of usage a quota keeps for GetUsage.
const logDays = 90

// Quota counts one API key's requests under one usage plan: the remaining
// quota of the current period, and a log of the last logDays days for
// GetUsage. It is lock-free: any number of goroutines may call its methods,
// and its owner changes its settings (SetSettings, SetRemaining) while they
// do.
type Quota struct {
	cfg atomic.Pointer[quotaConfig]
	win atomic.Pointer[window] // nil without a period
	log atomic.Pointer[[logDays]atomic.Pointer[dayLog]]
	// Written by every refusal, off the line every request reads.
	_        [40]byte
	rejected atomic.Uint64
	_        [56]byte
}

type quotaConfig struct {
	QuotaSettings
	start   int64 // Unix s: the quota's start
	initial int64 // Unix s: start of the period containing it, where Offset applies
}

func newQuotaConfig(s QuotaSettings, start int64) *quotaConfig {
	c := &quotaConfig{QuotaSettings: s, start: start}
	c.initial, _ = s.Period.bounds(start)
	return c
}

// window is one period: its bounds (Unix seconds) and what remains of it.
// Remaining may go below zero when the limit is lowered under what was used;
// it is reported as zero.
type window struct {
	start, end int64
	remaining  atomic.Int64
}

// dayLog is one UTC day's usage: requests admitted, and remaining quota
// granted or withdrawn that day by SetRemaining and SetSettings. win is the
// period the day belongs to.
type dayLog struct {
	day    Day
	win    atomic.Pointer[window]
	used   atomic.Int64
	credit atomic.Int64
}

// NewQuota returns a quota with settings s whose initial period (the one
// Offset applies to) is the one containing start: the usage plan's
// creation, as AWS puts it ("when you first implement a usage plan").
func NewQuota(s QuotaSettings, start time.Time) *Quota {
	q := &Quota{}
	c := newQuotaConfig(s, start.Unix())
	if s.Period != NoPeriod {
		q.win.Store(c.windowAt(start.Unix()))
	}
	q.cfg.Store(c)
	return q
}

// windowAt is a fresh window for the period containing sec.
func (c *quotaConfig) windowAt(sec int64) *window {
	w := &window{}
	w.start, w.end = c.Period.bounds(sec)
	w.remaining.Store(c.limitOf(w.start))
	return w
}

// limitOf is the limit of the period starting at start.
func (c *quotaConfig) limitOf(start int64) int64 {
	if start == c.initial {
		return c.Limit - c.Offset
	}
	return c.Limit
}

// Settings returns the quota's settings.
func (q *Quota) Settings() QuotaSettings { return q.cfg.Load().QuotaSettings }

// Take counts a request at time now against the quota and reports whether
// the quota had room for it. A refused request uses nothing.
func (q *Quota) Take(now time.Time) bool {
	ok := q.take(now)
	if !ok {
		q.rejected.Add(1)
	}
	return ok
}

// Counts returns how many requests the quota refused, and how many it
// admitted over the days its log keeps (what GetUsage can report; the
// admissions are counted there, not twice). A request refused at another
// level of Levels is counted by neither.
func (q *Quota) Counts() Counts {
	c := Counts{Rejected: q.rejected.Load()}
	if ring := q.log.Load(); ring != nil {
		for i := range ring {
			if dl := ring[i].Load(); dl != nil {
				c.Admitted += uint64(dl.used.Load())
			}
		}
	}
	return c
}

// Remaining returns what remains of the current period's quota at now, or
// Unlimited.
func (q *Quota) Remaining(now time.Time) int64 {
	w := q.current(now.Unix())
	if w == nil {
		return Unlimited
	}
	return max(w.remaining.Load(), 0)
}

// SetRemaining sets the remaining quota of the current period to n, as
// UpdateUsage's "replace /remaining" does ("grants a temporary extension to
// the remaining quota"): the next period starts from the limit again. It
// reports false for a quota without a period, which has nothing to set.
func (q *Quota) SetRemaining(n int64, now time.Time) bool {
	sec := now.Unix()
	w := q.current(sec)
	if w == nil {
		return false
	}
	old := w.remaining.Swap(n)
	if dl := q.day(Day(floorDiv(sec, secondsPerDay)), w); dl != nil {
		dl.credit.Add(n - old)
	}
	return true
}

// SetSettings changes the quota's settings at now. Within the same period,
// what was used stays used: the remaining quota moves by the change of the
// limit (and of the offset, in the initial period). A new period (or a quota
// added where there was none) starts with what the days of it so far have
// used already. Requests racing with the change may be counted under either
// settings.
func (q *Quota) SetSettings(s QuotaSettings, now time.Time) {
	old := q.cfg.Load()
	if old.QuotaSettings == s {
		return
	}
	c := newQuotaConfig(s, old.start)
	q.cfg.Store(c)
	sec := now.Unix()
	today := Day(floorDiv(sec, secondsPerDay))
	switch {
	case s.Period == NoPeriod:
		q.win.Store(nil)
	case s.Period == old.Period:
		w := q.current(sec)
		delta := c.limitOf(w.start) - old.limitOf(w.start)
		w.remaining.Add(delta)
		if dl := q.day(today, w); dl != nil {
			dl.credit.Add(delta)
		}
	default:
		w := c.windowAt(sec)
		var used int64
		for d := Day(w.start / secondsPerDay); d <= today; d++ {
			if dl := q.logOf(d); dl != nil {
				used += dl.used.Load()
			}
		}
		w.remaining.Add(-used)
		q.win.Store(w)
		if dl := q.day(today, w); dl != nil {
			dl.win.Store(w)
		}
	}
}

// allow reports whether a take at now would succeed, without taking.
func (q *Quota) allow(now time.Time) bool {
	w := q.current(now.Unix())
	return w == nil || w.remaining.Load() > 0
}

// take takes one request from the quota at now if it has room. Levels
// takes the quota last, so a request it admits is never given back.
func (q *Quota) take(now time.Time) bool {
	sec := now.Unix()
	w := q.current(sec)
	if w != nil {
		for {
			r := w.remaining.Load()
			if r <= 0 {
				return false
			}
			if w.remaining.CompareAndSwap(r, r-1) {
				break
			}
		}
	}
	if w != nil && sec < w.start {
		// A clock read a moment before another goroutine started this
		// period: the request counts in it, so on its first day.
		sec = w.start
	}
	dl := q.day(Day(floorDiv(sec, secondsPerDay)), w)
	if dl != nil {
		dl.used.Add(1)
	}
	return true
}

// current returns the window of the period containing sec, starting a new
// one if sec is past the current one: exactly one goroutine's new window
// is installed, whoever else tried adopts it. A sec before the current
// window (a clock read a moment earlier) uses the current window.
func (q *Quota) current(sec int64) *window {
	w := q.win.Load()
	for w != nil && sec >= w.end {
		nw := q.cfg.Load().windowAt(sec)
		if q.win.CompareAndSwap(w, nw) {
			return nw
		}
		w = q.win.Load()
	}
	return w
}

// day returns day d's log, starting it (in window w) if d is newer than
// the slot's day; nil if d is too old to be kept.
func (q *Quota) day(d Day, w *window) *dayLog {
	ring := q.log.Load()
	if ring == nil {
		q.log.CompareAndSwap(nil, new([logDays]atomic.Pointer[dayLog]))
		ring = q.log.Load()
	}
	slot := &ring[mod(int64(d), logDays)]
	for {
		dl := slot.Load()
		if dl != nil && dl.day >= d {
			if dl.day == d {
				return dl
			}
			return nil
		}
		n := &dayLog{day: d}
		n.win.Store(w)
		if slot.CompareAndSwap(dl, n) {
			return n
		}
	}
}

// logOf returns day d's log if it is kept.
func (q *Quota) logOf(d Day) *dayLog {
	ring := q.log.Load()
	if ring == nil {
		return nil
	}
	if dl := ring[mod(int64(d), logDays)].Load(); dl != nil && dl.day == d {
		return dl
	}
	return nil
}

// DayUsage is one day of GetUsage's log: requests used that day and the
// quota remaining at its end (at now for today; Unlimited without a
// period).
type DayUsage struct {
	Day       Day
	Used      int64
	Remaining int64
}

// Usage returns the daily log from day from to day to, inclusive, as of now:
// GetUsage's [used, remaining] per day. Days older than the log keeps (90)
// report nothing used; a period with no traffic reports its full limit.
func (q *Quota) Usage(from, to Day, now time.Time) []DayUsage {
	if to < from {
		return nil
	}
	cur := q.current(now.Unix())
	today := DayOf(now)
	c := q.cfg.Load()
	out := make([]DayUsage, 0, int(min(to-from+1, 2*logDays)))
	for d := from; d <= to; d++ {
		u := DayUsage{Day: d, Remaining: Unlimited}
		if dl := q.logOf(d); dl != nil {
			u.Used = dl.used.Load()
		}
		if cur != nil {
			u.Remaining = q.remainingAt(d, today, cur, c)
		}
		out = append(out, u)
	}
	return out
}

// remainingAt is the quota remaining at the end of day d: its period's
// remaining now, plus what the later days of that period up to today used,
// less what they were granted.
func (q *Quota) remainingAt(d, today Day, cur *window, c *quotaConfig) int64 {
	w := q.windowOf(d, cur)
	if w == nil {
		start, _ := c.Period.bounds(int64(d) * secondsPerDay)
		return max(c.limitOf(start), 0)
	}
	r := w.remaining.Load()
	last := min(today, Day((w.end-1)/secondsPerDay))
	for e := d + 1; e <= last; e++ {
		if dl := q.logOf(e); dl != nil && dl.win.Load() == w {
			r += dl.used.Load() - dl.credit.Load()
		}
	}
	return max(r, 0)
}

// windowOf finds the window that day d was counted in: the one its log
// names, else the current one, else the one a kept day of the same period
// names.
func (q *Quota) windowOf(d Day, cur *window) *window {
	in := func(w *window, d Day) bool {
		return w != nil && int64(d)*secondsPerDay >= w.start && int64(d)*secondsPerDay < w.end
	}
	if dl := q.logOf(d); dl != nil && in(dl.win.Load(), d) {
		return dl.win.Load()
	}
	if in(cur, d) {
		return cur
	}
	ring := q.log.Load()
	if ring == nil {
		return nil
	}
	for i := range ring {
		if dl := ring[i].Load(); dl != nil {
			if w := dl.win.Load(); in(w, d) {
				return w
			}
		}
	}
	return nil
}
