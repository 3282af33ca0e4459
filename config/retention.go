package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Retention is how long metrics are kept at 1-second (High) and at
// 1-minute (Low) resolution.
type Retention struct{ High, Low time.Duration }

// String spells r as EMULATOR_METRICS_RETENTION does ("3h,15d").
func (r Retention) String() string { return spellDuration(r.High) + "," + spellDuration(r.Low) }

func spellDuration(d time.Duration) string {
	switch {
	case d > 0 && d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d > 0 && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d > 0 && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

// DefaultMetricsRetention is CloudWatch's: 1-second data for three hours,
// 1-minute data for fifteen days.
var DefaultMetricsRetention = Retention{3 * time.Hour, 15 * 24 * time.Hour}

// ParseRetention reads a retention setting (EMULATOR_METRICS_RETENTION):
// "<1-second retention>[,<1-minute retention>]", each a Go duration or a
// whole number of days ("3h,15d", "30m", "1h,2d"). An omitted part keeps its
// default. The 1-minute retention may not be shorter than the 1-second one;
// each has a ceiling (MaxHighResRetention, MaxLowResRetention), since every
// series holds an index the size of its retention.
func ParseRetention(s string) (high, low time.Duration, err error) {
	high, low = DefaultMetricsRetention.High, DefaultMetricsRetention.Low
	if strings.TrimSpace(s) == "" {
		return high, low, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return 0, 0, fmt.Errorf("retention %q: want <1-second>[,<1-minute>]", s)
	}
	for i, p := range parts {
		d, err := parseDays(strings.TrimSpace(p))
		if err != nil || d < time.Second {
			return 0, 0, fmt.Errorf("retention %q: %q is not a duration of a second or more", s, p)
		}
		if i == 0 {
			high = d
		} else {
			low = d
		}
	}
	if high > MaxHighResRetention || low > MaxLowResRetention {
		return 0, 0, fmt.Errorf("retention %q: at most %v of 1-second and %v of 1-minute data", s, MaxHighResRetention, MaxLowResRetention)
	}
	if low < high {
		return 0, 0, fmt.Errorf("retention %q: 1-minute data must be kept at least as long as 1-second data", s)
	}
	return high, low, nil
}

// The retention ceilings: a day of 1-second data, and 63 days of 1-minute
// data (CloudWatch keeps 5-minute data that long).
const (
	MaxHighResRetention = 24 * time.Hour
	MaxLowResRetention  = 63 * 24 * time.Hour
)

func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 3650 {
			return 0, fmt.Errorf("bad days %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
