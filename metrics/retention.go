package metrics

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseRetention reads a retention setting (EMULATOR_METRICS_RETENTION):
// "<1-second retention>[,<1-minute retention>]", each a Go duration or a
// whole number of days ("3h,15d", "30m", "1h,2d"). An omitted part keeps its
// default. The 1-minute retention may not be shorter than the 1-second one.
func ParseRetention(s string) (high, low time.Duration, err error) {
	high, low = DefaultHighResRetention, DefaultLowResRetention
	if strings.TrimSpace(s) == "" {
		return high, low, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return 0, 0, fmt.Errorf("metrics: retention %q: want <1-second>[,<1-minute>]", s)
	}
	for i, p := range parts {
		d, err := parseDays(strings.TrimSpace(p))
		if err != nil || d < time.Second {
			return 0, 0, fmt.Errorf("metrics: retention %q: %q is not a duration of a second or more", s, p)
		}
		if i == 0 {
			high = d
		} else {
			low = d
		}
	}
	if low < high {
		return 0, 0, fmt.Errorf("metrics: retention %q: 1-minute data must be kept at least as long as 1-second data", s)
	}
	return high, low, nil
}

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
