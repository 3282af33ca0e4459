package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

func ptr(v float64) *float64 { return &v }

func put(t *testing.T, s *Store, ns string, d ...Datum) {
	t.Helper()
	if err := s.Put(ns, d); err != nil {
		t.Fatalf("Put: %v", err)
	}
}

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return fmt.Sprint(err)
}

func TestPeriods(t *testing.T) {
	s, clk := newTestStore(t)
	clk.Add(time.Hour)
	// Values at 12:00:07 (1), 12:00:08 (2), 12:01:30 (4), 12:05:00 (8).
	for _, p := range []struct {
		at time.Duration
		v  float64
	}{{7 * time.Second, 1}, {8 * time.Second, 2}, {90 * time.Second, 4}, {5 * time.Minute, 8}} {
		put(t, s, "App", Datum{MetricName: "M", Timestamp: t0.Add(p.at), Value: ptr(p.v)})
	}
	type point struct {
		at  time.Duration
		sum float64
	}
	for _, tc := range []struct {
		name       string
		start, end time.Duration
		period     int32
		want       []point
	}{
		{"period=60", 0, 10 * time.Minute, 60, []point{{0, 3}, {time.Minute, 4}, {5 * time.Minute, 8}}},
		{"period=300", 0, 10 * time.Minute, 300, []point{{0, 7}, {5 * time.Minute, 8}}},
		{"period=60/start=unaligned", 34 * time.Second, 10 * time.Minute, 60, []point{{0, 3}, {time.Minute, 4}, {5 * time.Minute, 8}}},
		{"period=5", 0, 2 * time.Minute, 5, []point{{5 * time.Second, 3}, {90 * time.Second, 4}}},
		{"period=1", 0, 2 * time.Minute, 1, []point{{7 * time.Second, 1}, {8 * time.Second, 2}, {90 * time.Second, 4}}},
		{"period=10/start=unaligned", 8 * time.Second, 2 * time.Minute, 10, []point{{0, 3}, {90 * time.Second, 4}}},
		{"period=1/end=exclusive", 0, 8 * time.Second, 1, []point{{7 * time.Second, 1}}},
		{"period=3600", 0, 2 * time.Hour, 3600, []point{{0, 15}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dps := stats(t, s, "App", "M", nil, t0.Add(tc.start), t0.Add(tc.end), tc.period)
			var got []point
			for _, d := range dps {
				got = append(got, point{d.Timestamp.Sub(t0), d.Statistics[0]})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("period=1/older-than-high-resolution", func(t *testing.T) {
		clk.Add(3 * time.Hour)
		if dps := stats(t, s, "App", "M", nil, t0, t0.Add(10*time.Minute), 1); len(dps) != 0 {
			t.Errorf("1-second periods answered from data past its retention: %v", dps)
		}
		if dps := stats(t, s, "App", "M", nil, t0, t0.Add(10*time.Minute), 60); len(dps) != 3 {
			t.Errorf("1-minute data lost: %v", dps)
		}
	})
}

func TestStatisticsAndPercentiles(t *testing.T) {
	s, _ := newTestStore(t)
	var vals []float64
	for i := 1; i <= 1000; i++ {
		vals = append(vals, float64(i))
	}
	for i := 0; i < len(vals); i += 100 {
		put(t, s, "App", Datum{MetricName: "Lat", Values: vals[i : i+100], Unit: "Milliseconds"})
	}
	res, err := s.GetMetricStatistics(StatisticsQuery{Namespace: "App", MetricName: "Lat", StartTime: t0, EndTime: t0.Add(time.Minute), Period: 60,
		Statistics: []string{Average, Maximum}, ExtendedStatistics: []string{"p50", "p90", "p99", "p99.9", "p100"}})
	if err != nil {
		t.Fatal(err)
	}
	dp := res.Datapoints[0]
	if dp.Statistics[0] != 500.5 || dp.Statistics[1] != 1000 || dp.Unit != "Milliseconds" {
		t.Errorf("Average, Maximum, Unit = %v %v %s", dp.Statistics[0], dp.Statistics[1], dp.Unit)
	}
	for i, want := range []float64{500, 900, 990, 999, 1000} {
		if got := dp.Extended[i]; math.Abs(got-want)/want > RelativeError {
			t.Errorf("%s = %v, want %v within %.2f%%", []string{"p50", "p90", "p99", "p99.9", "p100"}[i], got, want, RelativeError*100)
		}
	}
	t.Run("unit=other", func(t *testing.T) {
		res, _ := s.GetMetricStatistics(StatisticsQuery{Namespace: "App", MetricName: "Lat", StartTime: t0, EndTime: t0.Add(time.Minute), Period: 60, Statistics: []string{Sum}, Unit: "Seconds"})
		if len(res.Datapoints) != 0 {
			t.Errorf("a unit filter that does not match answered %v", res.Datapoints)
		}
	})
	t.Run("errors=percentiles", func(t *testing.T) {
		s, _ := newTestStore(t)
		dims := []Dimension{{"ApiName", "a"}}
		for i := range 100 {
			st := 200
			if i < 5 {
				st = 500
			}
			s.RecordREST(RESTRequest{APIName: "a", Stage: "s", Method: "GET", Resource: "/", Status: st})
		}
		res, err := s.GetMetricStatistics(StatisticsQuery{Namespace: "AWS/ApiGateway", MetricName: "5XXError", Dimensions: dims, StartTime: t0, EndTime: t0.Add(time.Minute), Period: 60,
			Statistics: []string{Average}, ExtendedStatistics: []string{"p95", "p96"}})
		if err != nil {
			t.Fatal(err)
		}
		if dp := res.Datapoints[0]; dp.Statistics[0] != 0.05 || dp.Extended[0] != 0 || dp.Extended[1] != 1 {
			t.Errorf("5XXError Average, p95, p96 = %v, %v", dp.Statistics, dp.Extended)
		}
	})
}

func TestQueryErrors(t *testing.T) {
	s, _ := newTestStore(t)
	base := StatisticsQuery{Namespace: "App", MetricName: "M", StartTime: t0, EndTime: t0.Add(time.Hour), Period: 60, Statistics: []string{Sum}}
	for _, tc := range []struct {
		name string
		mod  func(*StatisticsQuery)
		code string
	}{
		{"period=0", func(q *StatisticsQuery) { q.Period = 0 }, "InvalidParameterValue"},
		{"period=7", func(q *StatisticsQuery) { q.Period = 7 }, "InvalidParameterValue"},
		{"period=90", func(q *StatisticsQuery) { q.Period = 90 }, "InvalidParameterValue"},
		{"start=after-end", func(q *StatisticsQuery) { q.StartTime = q.EndTime }, "InvalidParameterValue"},
		{"datapoints=3600", func(q *StatisticsQuery) { q.Period = 1 }, "InvalidParameterCombination"},
		{"statistics=none", func(q *StatisticsQuery) { q.Statistics = nil }, "MissingParameter"},
		{"statistic=unknown", func(q *StatisticsQuery) { q.Statistics = []string{"Median"} }, "InvalidParameterValue"},
		{"statistic=percentile-in-statistics", func(q *StatisticsQuery) { q.Statistics = []string{"p99"} }, "InvalidParameterValue"},
		{"extended=p101", func(q *StatisticsQuery) { q.ExtendedStatistics = []string{"p101"} }, "InvalidParameterValue"},
		{"extended=p99.999", func(q *StatisticsQuery) { q.ExtendedStatistics = []string{"p99.999"} }, "InvalidParameterValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := base
			tc.mod(&q)
			if _, err := s.GetMetricStatistics(q); code(err) != tc.code {
				t.Errorf("error %v, want %s", err, tc.code)
			}
		})
	}
}

func TestMetricStat(t *testing.T) {
	s, clk := newTestStore(t)
	for i := range 5 {
		s.RecordREST(RESTRequest{APIName: "a", Stage: "s", Method: "GET", Resource: "/", Status: 200, Latency: time.Duration(i+1) * time.Millisecond})
		clk.Add(time.Minute)
	}
	q := MetricStatQuery{Namespace: "CLOUD/ApiGateway", MetricName: "Latency", Dimensions: []Dimension{{"ApiName", "a"}}, Period: 60, Stat: "p99", StartTime: t0, EndTime: t0.Add(time.Hour)}
	res, err := s.MetricStat(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Values) != 5 || !res.Timestamps[0].Equal(t0.Add(4*time.Minute)) || math.Abs(res.Values[0]-5)/5 > RelativeError {
		t.Errorf("descending: %v %v", res.Timestamps, res.Values)
	}
	q.ScanBy, q.Stat = "TimestampAscending", Maximum
	res, _ = s.MetricStat(q)
	if !slices.Equal(res.Values, []float64{1, 2, 3, 4, 5}) || !res.Timestamps[0].Equal(t0) {
		t.Errorf("ascending: %v %v", res.Timestamps, res.Values)
	}
	q.Stat = "Median"
	if _, err := s.MetricStat(q); code(err) != "InvalidParameterValue" {
		t.Errorf("unknown stat: %v", err)
	}
}

func TestPutShapes(t *testing.T) {
	s, clk := newTestStore(t)
	clk.Add(time.Minute)
	at := t0.Add(10 * time.Second)
	put(t, s, "App",
		Datum{MetricName: "V", Timestamp: at, Value: ptr(3)},
		Datum{MetricName: "V", Timestamp: at, StatisticValues: &StatisticSet{Sum: 10, SampleCount: 4, Minimum: 1, Maximum: 4}},
		Datum{MetricName: "V", Timestamp: at, Values: []float64{5, 7}, Counts: []float64{2, 1}},
		Datum{MetricName: "Same", Timestamp: at, StatisticValues: &StatisticSet{Sum: 20, SampleCount: 4, Minimum: 5, Maximum: 5}},
	)
	res, err := s.GetMetricStatistics(StatisticsQuery{Namespace: "App", MetricName: "V", StartTime: t0, EndTime: t0.Add(time.Minute), Period: 60,
		Statistics: []string{Sum, SampleCount, Minimum, Maximum}, ExtendedStatistics: []string{"p50"}})
	if err != nil {
		t.Fatal(err)
	}
	dp := res.Datapoints[0]
	if !slices.Equal(dp.Statistics, []float64{3 + 10 + 17, 1 + 4 + 3, 1, 7}) || dp.Unit != "None" {
		t.Errorf("Sum, SampleCount, Minimum, Maximum = %v (%s)", dp.Statistics, dp.Unit)
	}
	if !math.IsNaN(dp.Extended[0]) {
		t.Errorf("p50 over a statistic set of distinct samples = %v, want none (as CloudWatch)", dp.Extended[0])
	}
	ms, err := s.MetricStat(MetricStatQuery{Namespace: "App", MetricName: "Same", Period: 60, Stat: "p90", StartTime: t0, EndTime: t0.Add(time.Minute)})
	if err != nil || len(ms.Values) != 1 || ms.Values[0] != 5 {
		t.Errorf("p90 of a statistic set of equal samples: %v %v", ms.Values, err)
	}

	for _, tc := range []struct {
		name string
		ns   string
		d    Datum
		code string
	}{
		{"namespace=AWS", "AWS/ApiGateway", Datum{MetricName: "V", Value: ptr(1)}, "InvalidParameterValue"},
		{"value=none", "App", Datum{MetricName: "V"}, "InvalidParameterCombination"},
		{"value=two", "App", Datum{MetricName: "V", Value: ptr(1), Values: []float64{1}}, "InvalidParameterCombination"},
		{"value=NaN", "App", Datum{MetricName: "V", Value: ptr(math.NaN())}, "InvalidParameterValue"},
		{"counts=mismatch", "App", Datum{MetricName: "V", Values: []float64{1, 2}, Counts: []float64{1}}, "InvalidParameterValue"},
		{"timestamp=old", "App", Datum{MetricName: "V", Value: ptr(1), Timestamp: t0.Add(-15 * 24 * time.Hour)}, "InvalidParameterValue"},
		{"name=none", "App", Datum{Value: ptr(1)}, "MissingParameter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Put(tc.ns, []Datum{{MetricName: "Fine", Value: ptr(1)}, tc.d}); code(err) != tc.code {
				t.Errorf("error %v, want %s", err, tc.code)
			}
		})
	}
	if ms, _, _ := s.ListMetrics(ListMetricsQuery{MetricName: "Fine"}); len(ms) != 0 {
		t.Errorf("a refused call recorded part of its data: %v", ms)
	}
}

func TestListMetrics(t *testing.T) {
	s, _ := newTestStore(t)
	s.RecordREST(RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: "/pets", Status: 200})
	s.RecordREST(RESTRequest{APIName: "pets", Stage: "dev", Method: "GET", Resource: "/pets", Status: 200})
	put(t, s, "App", Datum{MetricName: "Orders", Dimensions: []Dimension{{"Shop", "north"}}, Value: ptr(1)})
	put(t, s, "CLOUD/ApiGateway", Datum{MetricName: "Count", Dimensions: []Dimension{{"ApiName", "pets"}}, Value: ptr(1)})

	list := func(q ListMetricsQuery) []Metric {
		t.Helper()
		ms, next, err := s.ListMetrics(q)
		if err != nil || next != "" {
			t.Fatalf("ListMetrics: %v, %q", err, next)
		}
		return ms
	}
	for _, tc := range []struct {
		name string
		q    ListMetricsQuery
		want int
	}{
		{"filter=none", ListMetricsQuery{}, 2*5*5 + 1},
		{"namespace=App", ListMetricsQuery{Namespace: "App"}, 1},
		{"namespace=AWS", ListMetricsQuery{Namespace: "AWS/ApiGateway"}, 5 * 5},
		{"metric=Count", ListMetricsQuery{Namespace: "CLOUD/ApiGateway", MetricName: "Count"}, 5}, // the Put series merges with the request series
		{"dimension=name-only", ListMetricsQuery{Namespace: "AWS/ApiGateway", MetricName: "Latency", Dimensions: []DimensionFilter{{Name: "Stage"}}}, 4},
		{"dimension=value", ListMetricsQuery{Namespace: "AWS/ApiGateway", MetricName: "Latency", Dimensions: []DimensionFilter{{Name: "Stage", Value: "dev"}}}, 2},
		{"dimension=two", ListMetricsQuery{Dimensions: []DimensionFilter{{Name: "Stage", Value: "dev"}, {Name: "Resource"}}}, 10},
		{"dimension=absent", ListMetricsQuery{Dimensions: []DimensionFilter{{Name: "Nope"}}}, 0},
		{"recently-active", ListMetricsQuery{RecentlyActive: "PT3H", Namespace: "App"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := list(tc.q); len(got) != tc.want {
				t.Errorf("%d metrics, want %d: %v", len(got), tc.want, got)
			}
		})
	}
	if ms := list(ListMetricsQuery{Namespace: "AWS/ApiGateway", MetricName: "Count", Dimensions: []DimensionFilter{{Name: "Method"}, {Name: "Stage", Value: "prod"}}}); len(ms) != 1 ||
		!slices.Equal(ms[0].Dimensions, []Dimension{{"ApiName", "pets"}, {"Method", "GET"}, {"Resource", "/pets"}, {"Stage", "prod"}}) {
		t.Errorf("detailed series listed as %v", ms)
	}

	t.Run("paging", func(t *testing.T) {
		s, _ := newTestStore(t)
		for i := range 1203 {
			put(t, s, "App", Datum{MetricName: "M", Dimensions: []Dimension{{"N", fmt.Sprintf("%04d", i)}}, Value: ptr(1)})
		}
		var all []string
		token := ""
		for pages := 1; ; pages++ {
			ms, next, err := s.ListMetrics(ListMetricsQuery{Namespace: "App", NextToken: token})
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) > ListMetricsPage {
				t.Fatalf("page of %d", len(ms))
			}
			for _, m := range ms {
				all = append(all, m.Dimensions[0].Value)
			}
			if next == "" {
				if pages != 3 {
					t.Errorf("%d pages, want 3", pages)
				}
				break
			}
			token = next
		}
		if len(all) != 1203 || !slices.IsSorted(all) || len(slices.Compact(all)) != 1203 {
			t.Errorf("pages gave %d metrics (sorted %v)", len(all), slices.IsSorted(all))
		}
		if _, _, err := s.ListMetrics(ListMetricsQuery{NextToken: "!!"}); code(err) != "InvalidNextToken" {
			t.Errorf("bad token: %v", err)
		}
	})
}
