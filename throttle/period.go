package throttle

import (
	"fmt"
	"time"
)

// Period is a quota's period, API Gateway's QuotaPeriodType.
type Period uint8

// The periods. NoPeriod is a plan without a quota: requests are counted,
// never refused.
const (
	NoPeriod Period = iota
	PeriodDay
	PeriodWeek
	PeriodMonth
)

// ParsePeriod reads AWS's spelling of a period: DAY, WEEK or MONTH.
func ParsePeriod(s string) (Period, bool) {
	switch s {
	case "DAY":
		return PeriodDay, true
	case "WEEK":
		return PeriodWeek, true
	case "MONTH":
		return PeriodMonth, true
	}
	return NoPeriod, false
}

// String returns AWS's spelling of p, or "" for NoPeriod.
func (p Period) String() string {
	switch p {
	case PeriodDay:
		return "DAY"
	case PeriodWeek:
		return "WEEK"
	case PeriodMonth:
		return "MONTH"
	}
	return ""
}

// WeekStart is the day a WEEK quota resets, at 00:00 UTC. AWS documents only
// "UTC week"; its API reference once described offset as the day the period
// starts, "with a time period of WEEK, an offset of 0 starts on Sunday", so a
// week with no such shift starts on Sunday.
const WeekStart = time.Sunday

const secondsPerDay = 86400

// bounds returns the period containing the Unix time sec: [start, end) in
// Unix seconds, on UTC calendar boundaries.
func (p Period) bounds(sec int64) (start, end int64) {
	day := floorDiv(sec, secondsPerDay)
	switch p {
	case PeriodWeek:
		// 1970-01-01, day 0, was a Thursday.
		back := mod(day+int64(time.Thursday)-int64(WeekStart), 7)
		start = (day - back) * secondsPerDay
		return start, start + 7*secondsPerDay
	case PeriodMonth:
		y, m, _ := time.Unix(sec, 0).UTC().Date()
		first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return first.Unix(), first.AddDate(0, 1, 0).Unix()
	default:
		return day * secondsPerDay, (day + 1) * secondsPerDay
	}
}

// Day is a UTC calendar day, counted from 1970-01-01.
type Day int64

// DayOf returns the UTC day of t.
func DayOf(t time.Time) Day { return Day(floorDiv(t.Unix(), secondsPerDay)) }

// ParseDay reads a day as GetUsage's startDate and endDate spell it,
// 2016-01-31.
func ParseDay(s string) (Day, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, fmt.Errorf("throttle: day %q: %w", s, err)
	}
	return DayOf(t), nil
}

// String spells d as GetUsage does, 2016-01-31.
func (d Day) String() string { return d.Time().Format(time.DateOnly) }

// Time returns 00:00 UTC of d.
func (d Day) Time() time.Time { return time.Unix(int64(d)*secondsPerDay, 0).UTC() }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mod(a, b int64) int64 { return a - floorDiv(a, b)*b }
