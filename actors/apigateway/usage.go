package apigateway

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/throttle"
)

// The usage GetUsage reports is each (plan, key) link's quota log
// (KeyLimits.Quota): requests counted per UTC day by the data plane, in
// memory only, starting empty on every start (docs/apigateway.md).

// periodDays returns the first and last day of the quota period of p
// holding day: the day itself, the week from Sunday, the calendar month
// (throttle's periods, on UTC boundaries).
func periodDays(p string, day throttle.Day) (start, end throttle.Day) {
	t := day.Time()
	switch p {
	case PeriodWeek:
		start = day - throttle.Day((int(t.Weekday())-int(throttle.WeekStart)+7)%7)
		return start, start + 6
	case PeriodMonth:
		first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		return throttle.DayOf(first), throttle.DayOf(first.AddDate(0, 1, -1))
	}
	return day, day
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
	p, ok := s.UsagePlan(sc, planID)
	if !ok {
		return nil, planNotFound()
	}
	from, to := throttle.DayOf(start), throttle.DayOf(end)
	if to < from {
		return nil, BadRequest("The end date must not be before the start date")
	}
	if to-from >= maxUsageDays {
		return nil, BadRequest("The date range must not exceed %d days", maxUsageDays)
	}
	now := s.now()
	ids := slices.Clone(p.KeyIDs)
	slices.Sort(ids)
	out := make([]KeyUsage, 0, len(ids))
	for _, id := range ids {
		if keyID != "" && id != keyID {
			continue
		}
		days := make([][2]int64, 0, to-from+1)
		if k, ok := s.KeyLimits(sc, planID, id); ok {
			for _, u := range k.Quota.Usage(from, to, now) {
				days = append(days, [2]int64{u.Used, max(u.Remaining, 0)})
			}
		} else {
			// Not expected (the owner makes them before it publishes the
			// link, and on restore): nothing used.
			for range to - from + 1 {
				days = append(days, [2]int64{0, quotaLimit(p.Plan.Quota)})
			}
		}
		out = append(out, KeyUsage{KeyID: id, Days: days})
	}
	return out, nil
}

func quotaLimit(q *QuotaSettings) int64 {
	if q == nil {
		return 0
	}
	return q.Limit
}

// usagePatch is the one path UpdateUsage accepts.
var usagePatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/remaining", []string{"replace"}},
}}

// UpdateUsage grants an API key of a plan extra quota for the current
// period: "replace /remaining" sets what remains. It reports the period
// (first and last day) and the key's [used, remaining] over it.
func (s *Service) UpdateUsage(sc awswire.Scope, planID, keyID string, ops []PatchOp) (start, end time.Time, ku KeyUsage, err error) {
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
	k, ok := s.KeyLimits(sc, planID, keyID)
	if !ok {
		return start, end, ku, keyNotFound()
	}
	now := s.now()
	for _, n := range values {
		k.Quota.SetRemaining(n, now)
	}
	today := throttle.DayOf(now)
	from, to := periodDays(q.Period, today)
	var used int64
	for _, u := range k.Quota.Usage(from, today, now) {
		used += u.Used
	}
	ku = KeyUsage{KeyID: keyID, Days: [][2]int64{{used, max(k.Quota.Remaining(now), 0)}}}
	return from.Time(), to.Time(), ku, nil
}

// UsageToday lists every linked key's usage today (UTC) — the day's
// admitted requests, and the current period's quota left (-1 without a
// quota) — ordered by scope, plan and key, for /_emulator/metrics.
func (s *Service) UsageToday() []metrics.KeyUsage {
	var out []metrics.KeyUsage
	now := s.now()
	day := throttle.DayOf(now)
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		d.limits.Range(func(k limitsKey, l *KeyLimits) bool {
			u := metrics.KeyUsage{Account: sc.Account, Region: sc.Region, PlanID: k.plan, KeyID: k.key,
				Remaining: l.Quota.Remaining(now)}
			if days := l.Quota.Usage(day, day, now); len(days) == 1 {
				u.Used = days[0].Used
			}
			out = append(out, u)
			return true
		})
		return true
	})
	slices.SortFunc(out, func(a, b metrics.KeyUsage) int {
		return cmp.Or(strings.Compare(a.Account, b.Account), strings.Compare(a.Region, b.Region),
			strings.Compare(a.PlanID, b.PlanID), strings.Compare(a.KeyID, b.KeyID))
	})
	return out
}
