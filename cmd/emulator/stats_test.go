package main

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bounds are the emulator's latency buckets, +Inf last.
var bounds = []string{"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "+Inf"}

// hist writes one latency series from counts per bucket (not cumulative),
// given by bucket index.
func hist(labels string, counts map[int]int) string {
	var b strings.Builder
	cum := 0
	for i, le := range bounds {
		cum += counts[i]
		fmt.Fprintf(&b, "emulator_apigateway_latency_seconds_bucket{%s,le=%q} %d\n", labels, le, cum)
	}
	fmt.Fprintf(&b, "emulator_apigateway_latency_seconds_sum{%s} 0\n", labels)
	fmt.Fprintf(&b, "emulator_apigateway_latency_seconds_count{%s} %d\n", labels, cum)
	return b.String()
}

const (
	petsUS    = `account="000000000000",region="us-east-1",kind="rest",api="pets",stage="dev",method="GET",route="/pets"`
	petsEU    = `account="000000000000",region="eu-west-1",kind="rest",api="pets",stage="dev",method="GET",route="/pets"`
	petsNone  = `account="000000000000",region="us-east-1",kind="rest",api="pets",stage="dev",method="",route=""`
	petsProd  = `account="000000000000",region="us-east-1",kind="rest",api="pets",stage="prod",method="GET",route="/pets"`
	orders    = `account="000000000000",region="us-east-1",kind="rest",api="orders",stage="dev",method="POST",route="/orders"`
	httpAPI   = `account="000000000000",region="us-east-1",kind="http",api="a1b2c3",stage="$default",method="GET",route="GET /x"`
	typeLines = "# HELP emulator_apigateway_requests_total Requests.\n# TYPE emulator_apigateway_requests_total counter\n"
)

// prevText is a first scrape: no quota family yet, pets in two regions,
// requests that matched no method, an idle stage.
var prevText = typeLines +
	`emulator_apigateway_requests_total{` + petsUS + `,status_class="2xx"} 100
emulator_apigateway_requests_total{` + petsUS + `,status_class="4xx"} 10
emulator_apigateway_requests_total{` + petsEU + `,status_class="2xx"} 50
emulator_apigateway_requests_total{` + petsNone + `,status_class="4xx"} 5
emulator_apigateway_requests_total{` + petsProd + `,status_class="2xx"} 7
emulator_apigateway_requests_total{` + orders + `,status_class="2xx"} 3
emulator_apigateway_requests_total{` + httpAPI + `,status_class="5xx"} 1
# TYPE emulator_apigateway_latency_seconds histogram
` + hist(petsUS, map[int]int{2: 110}) + hist(petsEU, map[int]int{3: 50}) + hist(petsNone, map[int]int{0: 5}) +
	hist(petsProd, map[int]int{4: 7}) + hist(orders, map[int]int{5: 3}) + hist(httpAPI, map[int]int{14: 1}) +
	`# TYPE emulator_apigateway_throttled_total counter
emulator_apigateway_throttled_total{` + petsUS + `} 8
# TYPE emulator_apigateway_throttle_enforced gauge
emulator_apigateway_throttle_enforced 1
`

// curText is the next scrape, two seconds later: pets/dev +84 requests
// (40 2xx and 20 4xx in us-east-1, 20 2xx in eu-west-1, 4 unmatched), 16
// throttled (4 of them in a new series), 2 over quota (a new family);
// orders +2, the HTTP API +2 (5xx, slower than any bucket), prod idle.
var curText = typeLines +
	`emulator_apigateway_requests_total{` + petsUS + `,status_class="2xx"} 140
emulator_apigateway_requests_total{` + petsUS + `,status_class="4xx"} 30
emulator_apigateway_requests_total{` + petsEU + `,status_class="2xx"} 70
emulator_apigateway_requests_total{` + petsNone + `,status_class="4xx"} 9
emulator_apigateway_requests_total{` + petsProd + `,status_class="2xx"} 7
emulator_apigateway_requests_total{` + orders + `,status_class="2xx"} 5
emulator_apigateway_requests_total{` + httpAPI + `,status_class="5xx"} 3
# TYPE emulator_apigateway_latency_seconds histogram
` + hist(petsUS, map[int]int{2: 140, 3: 30}) + hist(petsEU, map[int]int{3: 70}) + hist(petsNone, map[int]int{0: 9}) +
	hist(petsProd, map[int]int{4: 7}) + hist(orders, map[int]int{5: 4, 8: 1}) + hist(httpAPI, map[int]int{14: 3}) +
	`# TYPE emulator_apigateway_throttled_total counter
emulator_apigateway_throttled_total{` + petsUS + `} 20
emulator_apigateway_throttled_total{` + petsEU + `} 4
# TYPE emulator_apigateway_quota_exceeded_total counter
emulator_apigateway_quota_exceeded_total{` + petsUS + `} 2
# TYPE emulator_apigateway_throttle_enforced gauge
emulator_apigateway_throttle_enforced 1
# TYPE emulator_apigateway_usage_plan_used_requests gauge
emulator_apigateway_usage_plan_used_requests{account="000000000000",region="us-east-1",plan="p1",key="k2"} 3
emulator_apigateway_usage_plan_used_requests{account="000000000000",region="us-east-1",plan="p1",key="k1"} 42
emulator_apigateway_usage_plan_used_requests{account="000000000000",region="us-east-1",plan="p0",key="k9"} 1
# TYPE emulator_apigateway_usage_plan_remaining_requests gauge
emulator_apigateway_usage_plan_remaining_requests{account="000000000000",region="us-east-1",plan="p1",key="k2"} 97
emulator_apigateway_usage_plan_remaining_requests{account="000000000000",region="us-east-1",plan="p1",key="k1"} 58
`

// wantRows are the rates from prevText to curText over two seconds. pets/dev's
// 84 latencies: 4 ≤ 1ms, 30 in (2.5ms, 5ms], 50 in (5ms, 10ms], so p50 is
// 5ms + 5ms·(42−34)/50 and p99 5ms + 5ms·(83.16−34)/50.
var wantRows = []statsRow{
	{statsKey: statsKey{"rest", "pets", "dev"}, Requests: 42, Admitted: 33, Throttled: 8, Quota: 1, C4xx: 12, C5xx: 0, P50: 0.0058, P99: 0.009916},
	{statsKey: statsKey{"http", "a1b2c3", "$default"}, Requests: 1, Admitted: 1, C5xx: 1, P50: 30, P99: 30},
	{statsKey: statsKey{"rest", "orders", "dev"}, Requests: 1, Admitted: 1, P50: 0.05, P99: 0.495},
	{statsKey: statsKey{"rest", "pets", "prod"}, P50: math.NaN(), P99: math.NaN()},
}

func mustParse(t *testing.T, text string) *statsSnapshot {
	t.Helper()
	s, err := parseStats(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parseStats: %v", err)
	}
	return s
}

// sameRows compares rows, latencies to a nanosecond.
func sameRows(t *testing.T, got, want []statsRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d:\n%+v", len(got), len(want), got)
	}
	near := func(a, b float64) bool {
		return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-9
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.statsKey != w.statsKey || !near(g.Requests, w.Requests) || !near(g.Admitted, w.Admitted) ||
			!near(g.Throttled, w.Throttled) || !near(g.Quota, w.Quota) || !near(g.C4xx, w.C4xx) ||
			!near(g.C5xx, w.C5xx) || !near(g.P50, w.P50) || !near(g.P99, w.P99) {
			t.Errorf("row %d = %+v\nwant     %+v", i, g, w)
		}
	}
}

func TestParseStats(t *testing.T) {
	s := mustParse(t, curText)
	if !s.enforced {
		t.Error("enforced = false")
	}
	// Two regions of pets/dev and the unmatched requests are distinct
	// series of the same line.
	n := 0
	for _, c := range s.counters {
		if c.key == (statsKey{"rest", "pets", "dev"}) && c.what != cThrottled && c.what != cQuota {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d request series of pets/dev, want 4", n)
	}
	if len(s.latency) != 6 {
		t.Errorf("%d latency series, want 6", len(s.latency))
	}
	// Series are named by their labels in name order.
	h := s.latency[famLatency+"\xffaccount\xfe000000000000\xffapi\xfepets\xffkind\xferest\xffmethod\xfe\xffregion\xfeus-east-1\xffroute\xfe\xffstage\xfedev"]
	if h.key != (statsKey{"rest", "pets", "dev"}) || len(h.buckets) != 15 || !math.IsInf(h.buckets[14].le, 1) || h.buckets[0].count != 9 {
		t.Errorf("unmatched latency series = %+v", h)
	}
	want := []statsKeyUsage{
		{Region: "us-east-1", Plan: "p0", Key: "k9", Used: 1, Remaining: math.NaN()},
		{Region: "us-east-1", Plan: "p1", Key: "k1", Used: 42, Remaining: 58},
		{Region: "us-east-1", Plan: "p1", Key: "k2", Used: 3, Remaining: 97},
	}
	if len(s.usage) != len(want) {
		t.Fatalf("usage = %+v", s.usage)
	}
	for i, u := range s.usage {
		w := want[i]
		if u.Region != w.Region || u.Plan != w.Plan || u.Key != w.Key || u.Used != w.Used ||
			(u.Remaining != w.Remaining && !(math.IsNaN(u.Remaining) && math.IsNaN(w.Remaining))) {
			t.Errorf("usage[%d] = %+v, want %+v", i, u, w)
		}
	}
}

func TestParseStatsLabelOrder(t *testing.T) {
	a := mustParse(t, `emulator_apigateway_throttled_total{api="x",stage="s",region="r"} 1`+"\n")
	b := mustParse(t, `emulator_apigateway_throttled_total{region="r",stage="s",api="x"} 1`+"\n")
	if !reflect.DeepEqual(keys(a.counters), keys(b.counters)) {
		t.Errorf("the same series under two names: %q and %q", keys(a.counters), keys(b.counters))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestParseStatsMissingFamilies: an emulator that has served nothing yet
// exposes only the gauge; one without # TYPE lines parses as untyped.
func TestParseStatsMissingFamilies(t *testing.T) {
	for _, text := range []string{
		"",
		"# TYPE emulator_apigateway_throttle_enforced gauge\nemulator_apigateway_throttle_enforced 0\n",
		"# HELP emulator_apigateway_requests_total Requests.\n# TYPE emulator_apigateway_requests_total counter\n",
	} {
		s := mustParse(t, text)
		if s.enforced || len(s.counters) != 0 || len(s.latency) != 0 || len(s.usage) != 0 {
			t.Errorf("parse(%q) = %+v", text, s)
		}
		if rows := diffStats(s, s, time.Second); len(rows) != 0 {
			t.Errorf("rows of nothing: %+v", rows)
		}
	}
	// Requests only, untyped: rates, no throttling, no latency.
	prev := mustParse(t, `emulator_apigateway_requests_total{kind="rest",api="a",stage="s",status_class="2xx"} 1`+"\n")
	cur := mustParse(t, `emulator_apigateway_requests_total{kind="rest",api="a",stage="s",status_class="2xx"} 5`+"\n")
	sameRows(t, diffStats(prev, cur, 2*time.Second), []statsRow{
		{statsKey: statsKey{"rest", "a", "s"}, Requests: 2, Admitted: 2, P50: math.NaN(), P99: math.NaN()},
	})
}

func TestParseStatsError(t *testing.T) {
	if _, err := parseStats(strings.NewReader("emulator_apigateway_requests_total{kind=\"rest\" 1\n")); err == nil {
		t.Error("no error for a broken exposition")
	}
}

func TestDiffStats(t *testing.T) {
	sameRows(t, diffStats(mustParse(t, prevText), mustParse(t, curText), 2*time.Second), wantRows)
}

// TestDiffStatsNotEnforced: with throttling only counted, every request
// was admitted.
func TestDiffStatsNotEnforced(t *testing.T) {
	prev := mustParse(t, strings.Replace(prevText, "throttle_enforced 1", "throttle_enforced 0", 1))
	cur := mustParse(t, strings.Replace(curText, "throttle_enforced 1", "throttle_enforced 0", 1))
	rows := diffStats(prev, cur, 2*time.Second)
	if rows[0].API != "pets" || rows[0].Admitted != 42 || rows[0].Throttled != 8 || rows[0].Quota != 1 {
		t.Errorf("pets/dev = %+v, want 42 admitted of 42, 8 throttled, 1 over quota", rows[0])
	}
}

// TestDiffStatsReset: after a restart or a reset every counter starts
// again from zero; what it shows then is counted from zero, never
// negative, and a series the reset dropped counts for nothing.
func TestDiffStatsReset(t *testing.T) {
	prev := mustParse(t, curText)
	after := typeLines + `emulator_apigateway_requests_total{` + petsUS + `,status_class="2xx"} 6
emulator_apigateway_requests_total{` + petsUS + `,status_class="4xx"} 2
# TYPE emulator_apigateway_latency_seconds histogram
` + hist(petsUS, map[int]int{6: 8}) + `# TYPE emulator_apigateway_throttled_total counter
emulator_apigateway_throttled_total{` + petsUS + `} 2
emulator_apigateway_throttle_enforced 1
`
	// 8 latencies in (50ms, 100ms]: p50 = 50ms + 50ms·4/8.
	sameRows(t, diffStats(prev, mustParse(t, after), 2*time.Second), []statsRow{
		{statsKey: statsKey{"rest", "pets", "dev"}, Requests: 4, Admitted: 3, Throttled: 1, C4xx: 1, P50: 0.075, P99: 0.0995},
	})
	// One series reset while another one of the same line went on.
	mixed := strings.Replace(curText, `status_class="2xx"} 140`, `status_class="2xx"} 10`, 1)
	rows := diffStats(prev, mustParse(t, mixed), time.Second)
	if rows[0].API != "pets" || rows[0].Stage != "dev" || rows[0].Requests != 10 {
		t.Errorf("pets/dev = %+v, want 10 requests/s (the reset series from zero, the others unchanged)", rows[0])
	}
}

func TestBucketQuantile(t *testing.T) {
	inf := math.Inf(1)
	b := func(pairs ...float64) []statsBucket {
		var out []statsBucket
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, statsBucket{pairs[i], pairs[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		q       float64
		buckets []statsBucket
		want    float64
	}{
		{"first bucket starts at zero", 0.5, b(0.001, 4, 0.0025, 4, inf, 4), 0.0005},
		{"interpolated", 0.5, b(0.001, 0, 0.0025, 0, 0.005, 10, inf, 10), 0.00375},
		{"p99", 0.99, b(0.1, 50, 0.2, 100, inf, 100), 0.198},
		{"rank on a bound", 0.5, b(1, 5, 2, 10, inf, 10), 1},
		{"in +Inf: highest finite bound", 0.99, b(1, 1, 30, 1, inf, 3), 30},
		{"no observation", 0.5, b(1, 0, inf, 0), math.NaN()},
		{"no +Inf bucket", 0.5, b(1, 3), math.NaN()},
		{"no bucket", 0.5, nil, math.NaN()},
		{"non-monotonic sums kept monotonic", 0.75, b(1, 2, 2, 1, 3, 4, inf, 4), 2.5},
	} {
		got := bucketQuantile(tc.q, tc.buckets)
		if !(math.IsNaN(got) && math.IsNaN(tc.want)) && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: quantile(%v) = %v, want %v", tc.name, tc.q, got, tc.want)
		}
	}
}

func TestRenderStats(t *testing.T) {
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	var b strings.Builder
	err := renderStats(&b, statsView{Endpoint: "http://127.0.0.1:4566", Interval: time.Second, At: at, Enforced: true,
		Rows:  wantRows,
		Usage: mustParse(t, curText).usage})
	if err != nil {
		t.Fatal(err)
	}
	want := `emulator stats  http://127.0.0.1:4566  2026-01-02 15:04:05  every 1s  throttling enforced (429)

API     STAGE     KIND  REQ/S  ADMITTED/S  THROTTLED/S  QUOTA/S  4XX/S  5XX/S  P50    P99
pets    dev       rest  42.0   33.0        8.0          1.0      12.0   0.0    5.8ms  9.92ms
a1b2c3  $default  http  1.0    1.0         0.0          0.0      0.0    1.0    30s    30s
orders  dev       rest  1.0    1.0         0.0          0.0      0.0    0.0    50ms   495ms
pets    prod      rest  0.0    0.0         0.0          0.0      0.0    0.0    -      -

USAGE PLAN  KEY  USED  REMAINING
p0          k9   1     -
p1          k1   42    58
p1          k2   3     97
`
	if b.String() != want {
		t.Errorf("render:\n%s\nwant:\n%s", b.String(), want)
	}

	for _, tc := range []struct {
		name string
		v    statsView
		want string
	}{
		{"waiting", statsView{Waiting: true, Interval: time.Second}, "(first rates in 1s)\n"},
		{"nothing yet", statsView{}, "(no requests to a deployed API yet)\n"},
		{"no such API", statsView{API: "nope"}, "(no requests to an API named \"nope\" yet)\n"},
		{"not enforced", statsView{}, "throttling counted only (not enforced)\n"},
		{"error", statsView{Endpoint: "http://x", Interval: time.Second, Err: fmt.Errorf("cannot reach the emulator at http://x: boom")},
			"error: cannot reach the emulator at http://x: boom (retrying every 1s)\n"},
	} {
		var b strings.Builder
		if err := renderStats(&b, tc.v); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: render lacks %q:\n%s", tc.name, tc.want, b.String())
		}
	}
}

func TestFmtLatency(t *testing.T) {
	for in, want := range map[float64]string{0.0005: "500µs", 0.0058: "5.8ms", 0.012345: "12.3ms", 0.4975: "498ms", 2.5: "2.5s", 30: "30s"} {
		if got := fmtLatency(in); got != want {
			t.Errorf("fmtLatency(%v) = %q, want %q", in, got, want)
		}
	}
}

// fakeClock makes scrapes two seconds apart, whatever the scheduler does.
func fakeClock(t *testing.T) time.Time {
	t0 := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	var n atomic.Int64
	old := statsNow
	statsNow = func() time.Time { return t0.Add(time.Duration(n.Add(1)-1) * 2 * time.Second) }
	t.Cleanup(func() { statsNow = old })
	return t0
}

// metricsServer serves the texts in turn, the last one from then on, and
// counts the scrapes.
func metricsServer(t *testing.T, texts ...string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/_emulator/metrics" {
			http.NotFound(w, r)
			return
		}
		i := min(int(n.Add(1))-1, len(texts)-1)
		if texts[i] == "" {
			http.Error(w, "not now", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(texts[i]))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func noEnv(string) (string, bool) { return "", false }

// fields splits output lines into their columns.
func fields(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var f []string // nil for an empty line
		f = append(f, strings.Fields(l)...)
		rows = append(rows, f)
	}
	return rows
}

// TestStatsCommand runs `emulator stats --no-stream` as main does against
// a server whose counters move between the two scrapes.
func TestStatsCommand(t *testing.T) {
	fakeClock(t)
	srv, scrapes := metricsServer(t, prevText, curText)
	var out, errs strings.Builder
	start := time.Now()
	code := cli([]string{"stats", "--endpoint", srv.URL + "/", "--no-stream", "--interval", "50ms"}, nil, &out, &errs, noEnv)
	if code != 0 || errs.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("returned after %v, before one interval", d)
	}
	if n := scrapes.Load(); n != 2 {
		t.Errorf("%d scrapes, want 2", n)
	}
	got := fields(out.String())
	want := [][]string{
		{"emulator", "stats", srv.URL, "2026-01-02", "15:04:07", "every", "50ms", "throttling", "enforced", "(429)"},
		nil,
		{"API", "STAGE", "KIND", "REQ/S", "ADMITTED/S", "THROTTLED/S", "QUOTA/S", "4XX/S", "5XX/S", "P50", "P99"},
		{"pets", "dev", "rest", "42.0", "33.0", "8.0", "1.0", "12.0", "0.0", "5.8ms", "9.92ms"},
		{"a1b2c3", "$default", "http", "1.0", "1.0", "0.0", "0.0", "0.0", "1.0", "30s", "30s"},
		{"orders", "dev", "rest", "1.0", "1.0", "0.0", "0.0", "0.0", "0.0", "50ms", "495ms"},
		{"pets", "prod", "rest", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "-", "-"},
		nil,
		{"USAGE", "PLAN", "KEY", "USED", "REMAINING"},
		{"p0", "k9", "1", "-"},
		{"p1", "k1", "42", "58"},
		{"p1", "k2", "3", "97"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("output:\n%s\nwant (columns):\n%q", out.String(), want)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("the screen is cleared outside a terminal")
	}

	// --api keeps one API's rows.
	fakeClock(t)
	srv, _ = metricsServer(t, prevText, curText)
	out.Reset()
	if code := cli([]string{"stats", "--endpoint", srv.URL, "--no-stream", "--interval", "10ms", "--api", "pets"}, nil, &out, &errs, noEnv); code != 0 {
		t.Fatalf("--api: exit %d, stderr %q", code, errs.String())
	}
	got = fields(out.String())
	if len(got) < 5 || got[3][0] != "pets" || got[4][0] != "pets" || got[4][1] != "prod" || got[5] != nil {
		t.Errorf("--api pets:\n%s", out.String())
	}
}

// TestStatsUnreachable: one line naming the endpoint, exit 1, nothing on
// stdout.
func TestStatsUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close()
	var out, errs strings.Builder
	code := cli([]string{"stats", "--endpoint", endpoint, "--no-stream", "--interval", "10ms"}, nil, &out, &errs, noEnv)
	msg := errs.String()
	if code != 1 || out.Len() != 0 || strings.Count(msg, "\n") != 1 ||
		!strings.HasPrefix(msg, "emulator stats: cannot reach the emulator at "+endpoint+": ") || !strings.Contains(msg, "refused") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), msg)
	}

	// Something that is not the emulator's metrics.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	errs.Reset()
	code = cli([]string{"stats", "--endpoint", srv.URL, "--no-stream"}, nil, &out, &errs, noEnv)
	if code != 1 || !strings.Contains(errs.String(), srv.URL+"/_emulator/metrics answered 404") {
		t.Errorf("404: exit %d, stderr %q", code, errs.String())
	}
	// A body that is not Prometheus text.
	broken, _ := metricsServer(t, "{not prometheus}\n")
	errs.Reset()
	code = cli([]string{"stats", "--endpoint", broken.URL, "--no-stream"}, nil, &out, &errs, noEnv)
	if code != 1 || !strings.HasPrefix(errs.String(), "emulator stats: "+broken.URL+"/_emulator/metrics: ") || strings.Count(errs.String(), "\n") != 1 {
		t.Errorf("broken: exit %d, stderr %q", code, errs.String())
	}
}

// frames records what statsStream writes and stops it after n writes.
type frames struct {
	mu     sync.Mutex
	got    []string
	n      int
	cancel func()
}

func (f *frames) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, string(p))
	if len(f.got) == f.n {
		f.cancel()
	}
	return len(p), nil
}

// TestStatsStream: every frame clears the screen; a failed scrape shows in
// the header and is retried; the first good scrape waits for the second.
func TestStatsStream(t *testing.T) {
	fakeClock(t)
	srv, _ := metricsServer(t, "", prevText, curText)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &frames{n: 3, cancel: cancel}
	c := statsConfig{endpoint: srv.URL, interval: 10 * time.Millisecond}
	s := newScraper(c.endpoint)
	defer s.close()
	if err := statsStream(ctx, s, c, f); err != nil {
		t.Fatalf("statsStream: %v", err)
	}
	if len(f.got) != 3 {
		t.Fatalf("%d frames, want 3", len(f.got))
	}
	for i, want := range []string{
		"error: " + srv.URL + "/_emulator/metrics answered 500 Internal Server Error",
		"(first rates in 10ms)",
		"pets    dev       rest  42.0   33.0        8.0",
	} {
		if !strings.HasPrefix(f.got[i], clearScreen) || !strings.Contains(f.got[i], want) {
			t.Errorf("frame %d lacks %q:\n%q", i, want, f.got[i])
		}
	}
}

func TestStatsEndpoint(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(name string) (string, bool) {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == name {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	for _, tc := range []struct {
		name, flag string
		lookup     func(string) (string, bool)
		want, err  string
	}{
		{"default", "", noEnv, "http://127.0.0.1:4566", ""},
		{"host and port", "", env("EMULATOR_HOST", "0.0.0.0", "EMULATOR_PORT", "4999"), "http://127.0.0.1:4999", ""},
		{"EMULATOR_ENDPOINT", "", env("EMULATOR_ENDPOINT", "http://emu:1234/", "EMULATOR_PORT", "4999"), "http://emu:1234", ""},
		{"flag wins", "https://x:1", env("EMULATOR_ENDPOINT", "http://emu:1234"), "https://x:1", ""},
		{"picked port", "", env("EMULATOR_PORT", "0"), "", `EMULATOR_PORT="0"`},
		{"bad port", "", env("EMULATOR_PORT", "port"), "", `EMULATOR_PORT="port"`},
		{"bad flag", "localhost:4566", noEnv, "", `--endpoint="localhost:4566"`},
		{"bad variable", "", env("EMULATOR_ENDPOINT", "ftp://x"), "", `EMULATOR_ENDPOINT="ftp://x"`},
	} {
		got, err := statsEndpoint(tc.flag, tc.lookup)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %q, %v; want %q, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// TestStatsCommandLine: help on stdout with exit 0; a wrong command line
// exits 2 without scraping.
func TestStatsCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"help"}, 0, "emulator stats [flags]", ""},
		{[]string{"help", "stats"}, 0, "usage: emulator stats", ""},
		{[]string{"stats", "-h"}, 0, "--no-stream", ""},
		{[]string{"stats", "--interval", "0s"}, 2, "", "emulator stats: --interval 0s: must be positive"},
		{[]string{"stats", "extra"}, 2, "", `emulator stats: unexpected argument "extra"`},
		{[]string{"stats", "--nope"}, 2, "", "flag provided but not defined: -nope"},
		{[]string{"stats", "--endpoint", "nowhere"}, 2, "", `emulator stats: --endpoint="nowhere"`},
	} {
		var out, errs strings.Builder
		code := cli(tc.args, nil, &out, &errs, noEnv)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errs.String(), tc.errs) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errs.String())
		}
	}
}
