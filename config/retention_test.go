package config

import (
	"testing"
	"time"
)

func TestParseRetention(t *testing.T) {
	for _, tc := range []struct {
		in        string
		high, low time.Duration
		bad       bool
	}{
		{"", DefaultMetricsRetention.High, DefaultMetricsRetention.Low, false},
		{"30m", 30 * time.Minute, DefaultMetricsRetention.Low, false},
		{"1h,2d", time.Hour, 48 * time.Hour, false},
		{"3h, 15d", 3 * time.Hour, 15 * 24 * time.Hour, false},
		{"2d,1h", 0, 0, true},
		{"x", 0, 0, true},
		{"1h,2h,3h", 0, 0, true},
		{"0s", 0, 0, true},
		{"25h", 0, 0, true},
		{"1h,64d", 0, 0, true},
		{"24h,63d", 24 * time.Hour, 63 * 24 * time.Hour, false},
	} {
		t.Run("in="+tc.in, func(t *testing.T) {
			h, l, err := ParseRetention(tc.in)
			if (err != nil) != tc.bad || (!tc.bad && (h != tc.high || l != tc.low)) {
				t.Errorf("ParseRetention(%q) = %v, %v, %v", tc.in, h, l, err)
			}
		})
	}
}
