package apigateway

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/puzpuzpuz/xsync/v3"
)

// Usage is the usage log GetUsage reads and the data plane fills: requests
// counted per (account, region, plan, API key, UTC day), and the extra
// quota UpdateUsage grants per quota period. It is lock-free (a concurrent
// map of atomic counters), lives in memory only and starts empty on every
// start, as SPEC.md says.
type Usage struct {
	counts *xsync.MapOf[usageKey, *atomic.Int64]
	// grants are the extra requests granted for the period starting on
	// usageKey.day.
	grants *xsync.MapOf[usageKey, *atomic.Int64]
}

type usageKey struct {
	account, region, plan, key string
	day                        int64 // days since the Unix epoch, UTC
}

// NewUsage returns an empty usage log.
func NewUsage() *Usage {
	return &Usage{
		counts: xsync.NewMapOf[usageKey, *atomic.Int64](),
		grants: xsync.NewMapOf[usageKey, *atomic.Int64](),
	}
}

func newCounter() *atomic.Int64 { return new(atomic.Int64) }

// dayNumber is t's UTC day as a count of days since 1970-01-01.
func dayNumber(t time.Time) int64 {
	return floorDiv(t.Unix(), 86400)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// dayTime is the midnight (UTC) starting day n.
func dayTime(n int64) time.Time { return time.Unix(n*86400, 0).UTC() }

// Record counts one request of key under plan on t's (UTC) day.
func (u *Usage) Record(sc awswire.Scope, planID, keyID string, t time.Time) {
	c, _ := u.counts.LoadOrCompute(usageKey{sc.Account, sc.Region, planID, keyID, dayNumber(t)}, newCounter)
	c.Add(1)
}

// Used is the number of requests of key under plan counted on t's day.
func (u *Usage) Used(sc awswire.Scope, planID, keyID string, t time.Time) int64 {
	return u.usedOn(sc, planID, keyID, dayNumber(t))
}

func (u *Usage) usedOn(sc awswire.Scope, planID, keyID string, day int64) int64 {
	if c, ok := u.counts.Load(usageKey{sc.Account, sc.Region, planID, keyID, day}); ok {
		return c.Load()
	}
	return 0
}

// usedBetween sums the counts of days [from, to].
func (u *Usage) usedBetween(sc awswire.Scope, planID, keyID string, from, to int64) int64 {
	var n int64
	for d := from; d <= to; d++ {
		n += u.usedOn(sc, planID, keyID, d)
	}
	return n
}

func (u *Usage) granted(sc awswire.Scope, planID, keyID string, periodStart int64) int64 {
	if c, ok := u.grants.Load(usageKey{sc.Account, sc.Region, planID, keyID, periodStart}); ok {
		return c.Load()
	}
	return 0
}

// Remaining is what is left of quota q for key under plan in the period
// holding t: the limit, less what the period used up to t's day, plus what
// UpdateUsage granted for the period. It is never negative.
func (u *Usage) Remaining(sc awswire.Scope, planID, keyID string, q QuotaSettings, t time.Time) int64 {
	day := dayNumber(t)
	start, _ := quotaPeriod(q, day)
	return u.remainingOn(sc, planID, keyID, q, start, day)
}

func (u *Usage) remainingOn(sc awswire.Scope, planID, keyID string, q QuotaSettings, start, day int64) int64 {
	r := q.Limit - u.usedBetween(sc, planID, keyID, start, day) + u.granted(sc, planID, keyID, start)
	return max(r, 0)
}

// SetRemaining makes the remaining quota of key under plan, in the period
// holding t, equal to remaining, by granting (or taking back) the
// difference for that period only. Concurrent requests counted meanwhile
// still count.
func (u *Usage) SetRemaining(sc awswire.Scope, planID, keyID string, q QuotaSettings, t time.Time, remaining int64) {
	day := dayNumber(t)
	start, _ := quotaPeriod(q, day)
	used := u.usedBetween(sc, planID, keyID, start, day)
	c, _ := u.grants.LoadOrCompute(usageKey{sc.Account, sc.Region, planID, keyID, start}, newCounter)
	c.Store(remaining - (q.Limit - used))
}

// Forget drops what the log holds for the plan (for one of its keys only
// when keyID is not ""), when the plan or the link goes away.
func (u *Usage) Forget(sc awswire.Scope, planID, keyID string) {
	drop := func(k usageKey, _ *atomic.Int64) bool {
		if k.account == sc.Account && k.region == sc.Region && k.plan == planID && (keyID == "" || k.key == keyID) {
			u.counts.Delete(k)
			u.grants.Delete(k)
		}
		return true
	}
	u.counts.Range(drop)
	u.grants.Range(drop)
}

// Reset empties the log (an emulator reset).
func (u *Usage) Reset() {
	u.counts.Clear()
	u.grants.Clear()
}

// quotaPeriod returns the first and last day of the quota period holding
// day. A WEEK starts on weekday Offset (0 is Sunday); a MONTH starts
// Offset days after the first of the month (at most on its last day); a
// DAY is the day itself.
func quotaPeriod(q QuotaSettings, day int64) (start, end int64) {
	switch q.Period {
	case PeriodWeek:
		// 1970-01-01 was a Thursday (weekday 4).
		weekday := (day%7 + 7 + 4) % 7
		off := ((q.Offset % 7) + 7) % 7
		start = day - ((weekday-off)%7+7)%7
		return start, start + 6
	case PeriodMonth:
		t := dayTime(day)
		first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		s := monthStart(first, q.Offset)
		if s.After(t) {
			s = monthStart(first.AddDate(0, -1, 0), q.Offset)
		}
		next := monthStart(time.Date(s.Year(), s.Month()+1, 1, 0, 0, 0, 0, time.UTC), q.Offset)
		return dayNumber(s), dayNumber(next) - 1
	}
	return day, day
}

// monthStart is the day a monthly period starting in first's month begins.
func monthStart(first time.Time, offset int64) time.Time {
	last := first.AddDate(0, 1, -1).Day() - 1
	off := int(min(max(offset, 0), int64(last)))
	return first.AddDate(0, 0, off)
}

// KeyUsage is one API key's usage over days: [used, remaining] per day.
type KeyUsage struct {
	KeyID string
	Days  [][2]int64
}

// maxUsageDays bounds a GetUsage range, so that no request builds an
// unbounded reply.
const maxUsageDays = 366

// GetUsage reports, for each API key of the plan (only keyID when it is not
// ""), ordered by key id, the requests used and the quota remaining on each
// day from start to end (UTC, inclusive). Remaining counts down through
// each quota period; without a quota it is 0.
func (s *Service) GetUsage(sc awswire.Scope, planID, keyID string, start, end time.Time) ([]KeyUsage, error) {
	u := s.usage
	p, ok := s.UsagePlan(sc, planID)
	if !ok {
		return nil, planNotFound()
	}
	from, to := dayNumber(start), dayNumber(end)
	if to < from {
		return nil, BadRequest("The end date must not be before the start date")
	}
	if to-from >= maxUsageDays {
		return nil, BadRequest("The date range must not exceed %d days", maxUsageDays)
	}
	ids := slices.Clone(p.KeyIDs)
	slices.Sort(ids)
	out := make([]KeyUsage, 0, len(ids))
	for _, id := range ids {
		if keyID != "" && id != keyID {
			continue
		}
		out = append(out, KeyUsage{KeyID: id, Days: u.days(sc, planID, id, p.Plan.Quota, from, to)})
	}
	return out, nil
}

// days builds the [used, remaining] pairs of days [from, to], keeping a
// running total per quota period.
func (u *Usage) days(sc awswire.Scope, planID, keyID string, q *QuotaSettings, from, to int64) [][2]int64 {
	out := make([][2]int64, 0, to-from+1)
	var periodStart, periodEnd, usedSoFar int64
	periodEnd = from - 1
	for d := from; d <= to; d++ {
		used := u.usedOn(sc, planID, keyID, d)
		if q == nil {
			out = append(out, [2]int64{used, 0})
			continue
		}
		if d > periodEnd {
			periodStart, periodEnd = quotaPeriod(*q, d)
			usedSoFar = u.usedBetween(sc, planID, keyID, periodStart, d-1)
		}
		usedSoFar += used
		remaining := max(q.Limit-usedSoFar+u.granted(sc, planID, keyID, periodStart), 0)
		out = append(out, [2]int64{used, remaining})
	}
	return out
}

// usagePatch is the one path UpdateUsage accepts.
var usagePatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/remaining", []string{"replace"}},
}}

// UpdateUsage grants an API key of a plan extra quota for the current
// period: "replace /remaining" sets what remains. It reports the period
// (first and last day) and the key's [used, remaining] over it.
func (s *Service) UpdateUsage(sc awswire.Scope, planID, keyID string, ops []PatchOp) (start, end time.Time, ku KeyUsage, err error) {
	u := s.usage
	var v Validation
	v.PatchOps("updateUsageInput", ops)
	if err := v.Err(); err != nil {
		return start, end, ku, err
	}
	p, ok := s.UsagePlan(sc, planID)
	if !ok {
		return start, end, ku, planNotFound()
	}
	if !slices.Contains(p.KeyIDs, keyID) {
		return start, end, ku, keyNotFound()
	}
	if err := usagePatch.Check(ops); err != nil {
		return start, end, ku, err
	}
	q := p.Plan.Quota
	if q == nil {
		return start, end, ku, BadRequest("Usage plan %s has no quota to extend", planID)
	}
	values := make([]int64, len(ops))
	for i, o := range ops {
		n, err := ParseInt(o)
		if err != nil {
			return start, end, ku, err
		}
		if n < 0 {
			return start, end, ku, BadRequest("Invalid remaining quota specified: %d", n)
		}
		values[i] = n
	}
	now := s.now()
	for _, n := range values {
		u.SetRemaining(sc, planID, keyID, *q, now, n)
	}
	day := dayNumber(now)
	from, to := quotaPeriod(*q, day)
	used := u.usedBetween(sc, planID, keyID, from, day)
	ku = KeyUsage{KeyID: keyID, Days: [][2]int64{{used, u.remainingOn(sc, planID, keyID, *q, from, day)}}}
	return dayTime(from), dayTime(to), ku, nil
}
