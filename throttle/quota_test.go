package throttle

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestPeriodBounds(t *testing.T) {
	tests := []struct {
		name       string
		p          Period
		at         string
		start, end string
	}{
		{"day/midday", PeriodDay, "2024-03-15T12:00:00Z", "2024-03-15T00:00:00Z", "2024-03-16T00:00:00Z"},
		{"day/first-second", PeriodDay, "2024-03-15T00:00:00Z", "2024-03-15T00:00:00Z", "2024-03-16T00:00:00Z"},
		{"day/last-second", PeriodDay, "2024-03-15T23:59:59Z", "2024-03-15T00:00:00Z", "2024-03-16T00:00:00Z"},
		{"day/year-end", PeriodDay, "2023-12-31T23:59:59Z", "2023-12-31T00:00:00Z", "2024-01-01T00:00:00Z"},
		{"day/before-1970", PeriodDay, "1969-12-31T23:00:00Z", "1969-12-31T00:00:00Z", "1970-01-01T00:00:00Z"},
		{"week/sunday-start", PeriodWeek, "2024-03-17T00:00:00Z", "2024-03-17T00:00:00Z", "2024-03-24T00:00:00Z"},
		{"week/saturday-end", PeriodWeek, "2024-03-23T23:59:59Z", "2024-03-17T00:00:00Z", "2024-03-24T00:00:00Z"},
		{"week/wednesday", PeriodWeek, "2024-03-20T08:00:00Z", "2024-03-17T00:00:00Z", "2024-03-24T00:00:00Z"},
		{"week/across-year", PeriodWeek, "2025-01-01T00:00:00Z", "2024-12-29T00:00:00Z", "2025-01-05T00:00:00Z"},
		{"week/epoch-thursday", PeriodWeek, "1970-01-01T00:00:00Z", "1969-12-28T00:00:00Z", "1970-01-04T00:00:00Z"},
		{"month/31-days", PeriodMonth, "2024-01-31T23:59:59Z", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"},
		{"month/leap-february", PeriodMonth, "2024-02-29T12:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"},
		{"month/february", PeriodMonth, "2023-02-28T23:59:59Z", "2023-02-01T00:00:00Z", "2023-03-01T00:00:00Z"},
		{"month/2100-not-leap", PeriodMonth, "2100-02-28T00:00:00Z", "2100-02-01T00:00:00Z", "2100-03-01T00:00:00Z"},
		{"month/30-days", PeriodMonth, "2024-04-30T23:59:59Z", "2024-04-01T00:00:00Z", "2024-05-01T00:00:00Z"},
		{"month/december", PeriodMonth, "2024-12-31T23:59:59Z", "2024-12-01T00:00:00Z", "2025-01-01T00:00:00Z"},
		{"month/january-first", PeriodMonth, "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, e := tc.p.bounds(utc(tc.at).Unix())
			if got, want := time.Unix(s, 0).UTC(), utc(tc.start); !got.Equal(want) {
				t.Errorf("start %v, want %v", got, want)
			}
			if got, want := time.Unix(e, 0).UTC(), utc(tc.end); !got.Equal(want) {
				t.Errorf("end %v, want %v", got, want)
			}
		})
	}
}

// drainQuota takes from q at now until it refuses.
func drainQuota(q *Quota, now time.Time) int64 {
	var n int64
	for q.Take(now) {
		n++
	}
	return n
}

// TestQuotaPeriods: each period admits its limit, the initial one its limit
// less the offset, and the quota resets exactly at the boundary.
func TestQuotaPeriods(t *testing.T) {
	tests := []struct {
		name     string
		s        QuotaSettings
		start    string
		last     string // the last second of the initial period
		nextLast string // the last second of the next one
	}{
		{"day", QuotaSettings{Limit: 10, Period: PeriodDay}, "2024-02-28T10:00:00Z", "2024-02-28T23:59:59Z", "2024-02-29T23:59:59Z"},
		{"day/offset", QuotaSettings{Limit: 10, Offset: 4, Period: PeriodDay}, "2023-12-31T10:00:00Z", "2023-12-31T23:59:59Z", "2024-01-01T23:59:59Z"},
		{"week", QuotaSettings{Limit: 7, Period: PeriodWeek}, "2024-12-31T10:00:00Z", "2025-01-04T23:59:59Z", "2025-01-11T23:59:59Z"},
		{"week/offset", QuotaSettings{Limit: 7, Offset: 7, Period: PeriodWeek}, "2024-03-17T00:00:00Z", "2024-03-23T23:59:59Z", "2024-03-30T23:59:59Z"},
		{"month/january", QuotaSettings{Limit: 31, Offset: 1, Period: PeriodMonth}, "2024-01-15T00:00:00Z", "2024-01-31T23:59:59Z", "2024-02-29T23:59:59Z"},
		{"month/year-end", QuotaSettings{Limit: 5, Period: PeriodMonth}, "2024-12-01T00:00:00Z", "2024-12-31T23:59:59Z", "2025-01-31T23:59:59Z"},
		{"month/february", QuotaSettings{Limit: 5, Period: PeriodMonth}, "2023-02-10T00:00:00Z", "2023-02-28T23:59:59Z", "2023-03-31T23:59:59Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := NewQuota(tc.s, utc(tc.start))
			first := tc.s.Limit - tc.s.Offset
			if got := q.Remaining(utc(tc.start)); got != first {
				t.Errorf("remaining at start %d, want %d", got, first)
			}
			if got := drainQuota(q, utc(tc.start)) + drainQuota(q, utc(tc.last)); got != first {
				t.Errorf("initial period admitted %d, want %d", got, first)
			}
			next := utc(tc.last).Add(time.Second)
			if got := q.Remaining(next); got != tc.s.Limit {
				t.Errorf("remaining at %v: %d, want %d", next, got, tc.s.Limit)
			}
			if got := drainQuota(q, next) + drainQuota(q, utc(tc.nextLast)); got != tc.s.Limit {
				t.Errorf("next period admitted %d, want %d", got, tc.s.Limit)
			}
			if got := drainQuota(q, utc(tc.nextLast).Add(time.Second)); got != tc.s.Limit {
				t.Errorf("the one after admitted %d, want %d", got, tc.s.Limit)
			}
		})
	}
}

func TestQuotaRejectedUseNothing(t *testing.T) {
	now := utc("2024-05-05T05:00:00Z")
	q := NewQuota(QuotaSettings{Limit: 3, Period: PeriodDay}, now)
	for range 100 {
		q.Take(now)
	}
	if c := q.Counts(); c.Admitted != 3 || c.Rejected != 97 {
		t.Errorf("counts %+v", c)
	}
	u := q.Usage(DayOf(now), DayOf(now), now)
	if len(u) != 1 || u[0].Used != 3 || u[0].Remaining != 0 {
		t.Errorf("usage %+v, want 3 used, 0 remaining", u)
	}
}

// TestQuotaUsage follows the example of AWS's guide: 5000 a day... here a
// weekly quota, used on some days, extended on one (UpdateUsage), with days
// before, between and after.
func TestQuotaUsage(t *testing.T) {
	start := utc("2024-03-17T09:00:00Z") // a Sunday: the week starts
	q := NewQuota(QuotaSettings{Limit: 100, Period: PeriodWeek}, start)
	day := func(i int) time.Time { return start.Add(time.Duration(i) * 24 * time.Hour) }
	take := func(i, n int) {
		for range n {
			if !q.Take(day(i)) {
				t.Fatalf("day %d: refused", i)
			}
		}
	}
	take(0, 10) // Sunday: 10 used, 90 left
	take(2, 20) // Tuesday: 70 left
	if !q.SetRemaining(500, day(3)) {
		t.Fatal("SetRemaining refused")
	}
	take(3, 5)  // Wednesday: extended to 500, 495 left
	take(7, 40) // next Sunday: a new week, 60 left
	now := day(8)
	from, to := DayOf(day(-1)), DayOf(day(9))
	got := q.Usage(from, to, now)
	want := [][2]int64{
		{0, 100}, // Saturday before: a period without traffic
		{10, 90}, {0, 90}, {20, 70}, {5, 495}, {0, 495}, {0, 495}, {0, 495},
		{40, 60}, {0, 60}, // today
		{0, 60}, // tomorrow, same week
	}
	if len(got) != len(want) {
		t.Fatalf("%d days, want %d", len(got), len(want))
	}
	for i, u := range got {
		if u.Day != from+Day(i) || u.Used != want[i][0] || u.Remaining != want[i][1] {
			t.Errorf("%v: [%d, %d], want [%d, %d]", u.Day, u.Used, u.Remaining, want[i][0], want[i][1])
		}
	}
	if got := q.Remaining(now); got != 60 {
		t.Errorf("remaining %d, want 60", got)
	}
}

func TestQuotaSetSettings(t *testing.T) {
	now := utc("2024-06-10T10:00:00Z")
	q := NewQuota(QuotaSettings{Limit: 100, Period: PeriodMonth}, now)
	for range 30 {
		q.Take(now)
	}
	q.SetSettings(QuotaSettings{Limit: 50, Period: PeriodMonth}, now)
	if got := q.Remaining(now); got != 20 {
		t.Errorf("limit 100 → 50 after 30 used: remaining %d, want 20", got)
	}
	q.SetSettings(QuotaSettings{Limit: 20, Period: PeriodMonth}, now)
	if got := drainQuota(q, now); got != 0 {
		t.Errorf("limit 20 after 30 used: admitted %d", got)
	}
	q.SetSettings(QuotaSettings{Limit: 35, Period: PeriodMonth}, now)
	if got := drainQuota(q, now); got != 5 {
		t.Errorf("limit 35 after 30 used: admitted %d, want 5", got)
	}
	// Weekly now: this week has used 35 (all on this day).
	q.SetSettings(QuotaSettings{Limit: 40, Period: PeriodWeek}, now)
	if got := q.Remaining(now); got != 5 {
		t.Errorf("weekly 40 after 35 used this week: remaining %d, want 5", got)
	}
	// No quota: counts only.
	q.SetSettings(QuotaSettings{}, now)
	if got := drainQuotaN(q, now, 1000); got != 1000 || q.Remaining(now) != Unlimited {
		t.Errorf("without a quota: admitted %d of 1000, remaining %d", got, q.Remaining(now))
	}
	if u := q.Usage(DayOf(now), DayOf(now), now); u[0].Used != 1035 || u[0].Remaining != Unlimited {
		t.Errorf("usage %+v", u)
	}
	if q.SetRemaining(5, now) {
		t.Error("SetRemaining without a quota succeeded")
	}
}

func drainQuotaN(q *Quota, now time.Time, n int) int {
	got := 0
	for range n {
		if q.Take(now) {
			got++
		}
	}
	return got
}

// TestQuotaConcurrentRollover hammers a daily quota from many goroutines
// while a fake clock crosses midnights: each day admits exactly its limit,
// the reset happening once per day.
func TestQuotaConcurrentRollover(t *testing.T) {
	const limit, days, workers = 1000, 5, 8
	start := utc("2024-02-27T00:00:00Z")
	q := NewQuota(QuotaSettings{Limit: limit, Offset: 100, Period: PeriodDay}, start)
	var clock atomic.Int64
	clock.Store(start.Unix())
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				q.Take(time.Unix(clock.Load(), 0))
			}
		}()
	}
	for d := range days {
		// Step through the day; wait at its last second until it is used up.
		base := start.Unix() + int64(d)*secondsPerDay
		for _, s := range []int64{0, 3600, 86399} {
			clock.Store(base + s)
			time.Sleep(time.Millisecond)
		}
		for q.Remaining(time.Unix(base+86399, 0)) > 0 {
			time.Sleep(time.Millisecond)
		}
	}
	stop.Store(true)
	wg.Wait()
	u := q.Usage(DayOf(start), DayOf(start)+days-1, time.Unix(clock.Load(), 0))
	for i, du := range u {
		want := int64(limit)
		if i == 0 {
			want -= 100
		}
		if du.Used != want || du.Remaining != 0 {
			t.Errorf("%v: [%d, %d], want [%d, 0]", du.Day, du.Used, du.Remaining, want)
		}
	}
	if c := q.Counts(); c.Admitted != days*limit-100 {
		t.Errorf("admitted %d, want %d", c.Admitted, days*limit-100)
	}
}

func TestDay(t *testing.T) {
	for _, s := range []string{"1970-01-01", "2016-01-31", "2024-02-29", "1969-12-31"} {
		d, err := ParseDay(s)
		if err != nil {
			t.Fatal(err)
		}
		if d.String() != s {
			t.Errorf("%s → %d → %s", s, d, d)
		}
	}
	if _, err := ParseDay("2016-13-01"); err == nil {
		t.Error("month 13 parsed")
	}
	if d := DayOf(utc("2016-01-31T23:59:59Z")); d.String() != "2016-01-31" {
		t.Errorf("DayOf: %v", d)
	}
	if p, ok := ParsePeriod("WEEK"); !ok || p != PeriodWeek || p.String() != "WEEK" {
		t.Errorf("ParsePeriod(WEEK) = %v %v", p, ok)
	}
	if _, ok := ParsePeriod("week"); ok {
		t.Error("lower case period parsed")
	}
	_ = fmt.Sprint()
}

// TestPeriodBoundsProperties checks bounds at random times over four
// centuries: the period contains the time, starts at 00:00 UTC on a Sunday
// (week) or the 1st (month), and the next one starts where it ends.
func TestPeriodBoundsProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lo, hi := utc("1900-01-01T00:00:00Z").Unix(), utc("2300-01-01T00:00:00Z").Unix()
	for range 100000 {
		sec := lo + rng.Int64N(hi-lo)
		for _, p := range []Period{PeriodDay, PeriodWeek, PeriodMonth} {
			s, e := p.bounds(sec)
			st, et := time.Unix(s, 0).UTC(), time.Unix(e, 0).UTC()
			ok := s <= sec && sec < e && st.Hour() == 0 && st.Minute() == 0 && st.Second() == 0
			switch p {
			case PeriodDay:
				ok = ok && et.Equal(st.AddDate(0, 0, 1))
			case PeriodWeek:
				ok = ok && st.Weekday() == WeekStart && et.Equal(st.AddDate(0, 0, 7))
			case PeriodMonth:
				ok = ok && st.Day() == 1 && et.Equal(st.AddDate(0, 1, 0))
			}
			if s2, _ := p.bounds(e); s2 != e {
				ok = false
			}
			if !ok {
				t.Fatalf("%v at %v: [%v, %v)", p, time.Unix(sec, 0).UTC(), st, et)
			}
		}
	}
}
