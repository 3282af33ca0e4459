package metrics

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is the injected clock: it moves only when told.
type fakeClock struct{ ns atomic.Int64 }

func newClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Add(d time.Duration) { c.ns.Add(int64(d)) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newTestStore(t testing.TB, opts ...func(*Config)) (*Store, *fakeClock) {
	t.Helper()
	clk := newClock(t0)
	c := Config{Now: clk.Now}
	for _, o := range opts {
		o(&c)
	}
	return New(c), clk
}

// stats asks GetMetricStatistics for every statistic and fails on error.
func stats(t testing.TB, s *Store, ns, name string, dims []Dimension, start, end time.Time, period int32, ext ...string) []Datapoint {
	t.Helper()
	res, err := s.GetMetricStatistics(StatisticsQuery{
		Namespace: ns, MetricName: name, Dimensions: dims, StartTime: start, EndTime: end, Period: period,
		Statistics: []string{Sum, SampleCount, Average, Minimum, Maximum}, ExtendedStatistics: ext,
	})
	if err != nil {
		t.Fatalf("GetMetricStatistics(%s %s): %v", ns, name, err)
	}
	return res.Datapoints
}

func TestRecordRESTAggregates(t *testing.T) {
	s, clk := newTestStore(t)
	reqs := []struct {
		status     int
		lat, integ time.Duration
	}{
		{200, 10 * time.Millisecond, 4 * time.Millisecond},
		{200, 30 * time.Millisecond, 20 * time.Millisecond},
		{404, 2 * time.Millisecond, 0},
		{502, 1000 * time.Millisecond, 990 * time.Millisecond},
	}
	for _, r := range reqs {
		s.RecordREST(RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: "/pets/{id}", Status: r.status, Latency: r.lat, IntegrationLatency: r.integ})
	}
	// Another route of the same stage, a second later.
	clk.Add(time.Second)
	s.RecordREST(RESTRequest{APIName: "pets", Stage: "prod", Method: "POST", Resource: "/pets", Status: 201, Latency: 8 * time.Millisecond})

	type want struct{ sum, count, avg, min, max float64 }
	detail := []Dimension{{"Stage", "prod"}, {"Resource", "/pets/{id}"}, {"ApiName", "pets"}, {"Method", "GET"}} // any order
	for _, tc := range []struct {
		name, metric string
		dims         []Dimension
		want         want
	}{
		{"set=api/Count", "Count", []Dimension{{"ApiName", "pets"}}, want{5, 5, 1, 1, 1}},
		{"set=stage/Count", "Count", []Dimension{{"ApiName", "pets"}, {"Stage", "prod"}}, want{5, 5, 1, 1, 1}},
		{"set=method/Count", "Count", detail, want{4, 4, 1, 1, 1}},
		{"set=method/4XXError", "4XXError", detail, want{1, 4, 0.25, 0, 1}},
		{"set=method/5XXError", "5XXError", detail, want{1, 4, 0.25, 0, 1}},
		{"set=api/4XXError", "4XXError", []Dimension{{"ApiName", "pets"}}, want{1, 5, 0.2, 0, 1}},
		{"set=method/Latency", "Latency", detail, want{1042, 4, 260.5, 2, 1000}},
		{"set=method/IntegrationLatency", "IntegrationLatency", detail, want{1014, 4, 253.5, 0, 990}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ns := range Namespaces {
				dps := stats(t, s, ns, tc.metric, tc.dims, t0, t0.Add(time.Hour), 60)
				if len(dps) != 1 {
					t.Fatalf("%s: %d datapoints, want 1", ns, len(dps))
				}
				got := dps[0].Statistics
				if w := tc.want; got[0] != w.sum || got[1] != w.count || math.Abs(got[2]-w.avg) > 1e-9 || got[3] != w.min || got[4] != w.max {
					t.Errorf("%s: Sum, SampleCount, Average, Minimum, Maximum = %v, want %+v", ns, got, w)
				}
				if !dps[0].Timestamp.Equal(t0) {
					t.Errorf("timestamp %v, want %v", dps[0].Timestamp, t0)
				}
			}
		})
	}
	if dps := stats(t, s, "AWS/ApiGateway", "Count", []Dimension{{"ApiName", "pets"}, {"Stage", "dev"}}, t0, t0.Add(time.Hour), 60); len(dps) != 0 {
		t.Errorf("another stage's series answered %v", dps)
	}
	if dps := stats(t, s, "AWS/ApiGateway", "4xx", []Dimension{{"ApiName", "pets"}}, t0, t0.Add(time.Hour), 60); len(dps) != 0 {
		t.Errorf("REST series answered the HTTP API's metric name: %v", dps)
	}
}

func TestRecordHTTPNames(t *testing.T) {
	s, _ := newTestStore(t)
	s.RecordHTTP(HTTPRequest{APIID: "a1b2c3", Stage: "$default", Method: "GET", RouteKey: "GET /items", Status: 503, Latency: time.Millisecond})
	dps := stats(t, s, "CLOUD/ApiGateway", "5xx", []Dimension{{"ApiId", "a1b2c3"}, {"Stage", "$default"}, {"HttpMethod", "GET"}, {"RouteKey", "GET /items"}}, t0, t0.Add(time.Minute), 60)
	if len(dps) != 1 || dps[0].Statistics[0] != 1 {
		t.Fatalf("5xx datapoints %+v", dps)
	}
}

func TestRecordHTTPCoarseSets(t *testing.T) {
	s, _ := newTestStore(t)
	for _, rk := range []string{"GET /items", "POST /items", "GET /items", "$default"} {
		s.HTTPRoute("api1", "prod", rk[:min(len(rk), 4)], rk).Record(200, time.Millisecond, 0, t0)
	}
	s.RecordHTTP(HTTPRequest{APIID: "api1", Stage: "dev", Method: "GET", RouteKey: "GET /items", Status: 429, At: t0})
	for _, tc := range []struct {
		name  string
		dims  []Dimension
		count float64
		err4  float64
	}{
		{"set=api", []Dimension{{"ApiId", "api1"}}, 5, 1},
		{"set=stage", []Dimension{{"ApiId", "api1"}, {"Stage", "prod"}}, 4, 0},
		{"set=route", []Dimension{{"ApiId", "api1"}, {"Stage", "prod"}, {"HttpMethod", "GET "}, {"RouteKey", "GET /items"}}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := stats(t, s, "AWS/ApiGateway", "Count", tc.dims, t0, t0.Add(time.Minute), 60)
			e := stats(t, s, "CLOUD/ApiGateway", "4xx", tc.dims, t0, t0.Add(time.Minute), 60)
			if len(c) != 1 || c[0].Statistics[1] != tc.count || e[0].Statistics[0] != tc.err4 {
				t.Errorf("Count %+v, 4xx %+v; want %v requests, %v client errors", c, e, tc.count, tc.err4)
			}
		})
	}
}

func TestAPIName(t *testing.T) {
	for _, tc := range []struct{ name, id, want string }{
		{"pets", "abc", "pets"}, {"pé-ts", "abc", "p-ts"}, {"日本", "abc", "abc"}, {"", "abc", "abc"},
	} {
		if got := APIName(tc.name, tc.id); got != tc.want {
			t.Errorf("APIName(%q, %q) = %q, want %q", tc.name, tc.id, got, tc.want)
		}
	}
}

// TestConcurrentRollover hammers one route from many goroutines while the
// clock moves and readers flush: every request is counted exactly once, in
// the second it was stamped with.
func TestConcurrentRollover(t *testing.T) {
	s, clk := newTestStore(t)
	const workers, per = 8, 5000
	var wg sync.WaitGroup
	var perSec [64]atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() { // the clock and a reader
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if clk.Now().Sub(t0) < 60*time.Second {
				clk.Add(100 * time.Millisecond)
			}
			s.GetMetricStatistics(StatisticsQuery{Namespace: "AWS/ApiGateway", MetricName: "Count", Dimensions: []Dimension{{"ApiName", "a"}}, StartTime: t0, EndTime: t0.Add(2 * time.Minute), Period: 1, Statistics: []string{Sum}})
			time.Sleep(50 * time.Microsecond)
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				at := clk.Now()
				if i%97 == 0 {
					at = at.Add(-2 * time.Second) // late: its second may be retired
				}
				if at.Before(t0) {
					at = t0
				}
				perSec[at.Unix()-t0.Unix()].Add(1)
				s.RecordREST(RESTRequest{APIName: "a", Stage: "s", Method: "GET", Resource: "/", Status: 200 + 200*(i%3), Latency: time.Duration(w+1) * time.Millisecond, At: at})
			}
		}()
	}
	wg.Wait()
	// The reader keeps flushing while the checks read: a read sees every
	// request recorded before it began, even with windows in transit.
	defer func() { close(stop); <-stopped }()
	res, err := s.MetricStat(MetricStatQuery{Namespace: "AWS/ApiGateway", MetricName: "Count", Dimensions: []Dimension{{"ApiName", "a"}, {"Stage", "s"}}, Period: 1, Stat: SampleCount, StartTime: t0, EndTime: t0.Add(2 * time.Minute), ScanBy: "TimestampAscending"})
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for i, ts := range res.Timestamps {
		sec := ts.Unix() - t0.Unix()
		if want := float64(perSec[sec].Load()); res.Values[i] != want {
			t.Errorf("second %d: %v requests, want %v", sec, res.Values[i], want)
		}
		total += res.Values[i]
	}
	if total != workers*per {
		t.Errorf("counted %v requests, want %d", total, workers*per)
	}
	dps := stats(t, s, "AWS/ApiGateway", "Latency", []Dimension{{"ApiName", "a"}, {"Stage", "s"}, {"Method", "GET"}, {"Resource", "/"}}, t0, t0.Add(time.Hour), 3600, "p50")
	if len(dps) != 1 {
		t.Fatalf("%d datapoints", len(dps))
	}
	if got, want := dps[0].Statistics[0], float64(per*(1+workers)*workers/2); got != want {
		t.Errorf("latency Sum %v, want %v", got, want)
	}
	if dps[0].Statistics[3] != 1 || dps[0].Statistics[4] != workers {
		t.Errorf("latency Minimum, Maximum = %v, %v", dps[0].Statistics[3], dps[0].Statistics[4])
	}
	four := stats(t, s, "AWS/ApiGateway", "4XXError", []Dimension{{"ApiName", "a"}}, t0, t0.Add(time.Hour), 3600)
	if want := float64(workers * (per / 3)); four[0].Statistics[0] < want || four[0].Statistics[0] > want+workers {
		t.Errorf("4XXError Sum %v, want about %v", four[0].Statistics[0], want)
	}
}

func TestRetention(t *testing.T) {
	s, clk := newTestStore(t, func(c *Config) { c.HighResRetention = 10 * time.Second; c.LowResRetention = 5 * time.Minute })
	rec := func() {
		s.RecordREST(RESTRequest{APIName: "a", Stage: "s", Method: "GET", Resource: "/", Status: 200, Latency: time.Millisecond})
	}
	for range 20 { // one request a second for 20 seconds
		rec()
		clk.Add(time.Second)
	}
	dims := []Dimension{{"ApiName", "a"}}
	hi := stats(t, s, "AWS/ApiGateway", "Count", dims, t0, t0.Add(20*time.Minute), 1)
	if len(hi) != 10 || !hi[0].Timestamp.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("1-second data: %d points from %v, want the last 10 seconds", len(hi), hi[0].Timestamp)
	}
	if lo := stats(t, s, "AWS/ApiGateway", "Count", dims, t0, t0.Add(time.Hour), 60); len(lo) != 1 || lo[0].Statistics[0] != 20 {
		t.Fatalf("1-minute data: %+v, want one minute of 20", lo)
	}
	clk.Add(10 * time.Minute)
	rec()
	if lo := stats(t, s, "AWS/ApiGateway", "Count", dims, t0, t0.Add(time.Hour), 60); len(lo) != 1 || lo[0].Statistics[0] != 1 {
		t.Fatalf("after 10 minutes with 5 minutes kept: %+v, want only the new minute", lo)
	}
	if ms, _, _ := s.ListMetrics(ListMetricsQuery{}); len(ms) == 0 {
		t.Fatalf("recent series not listed")
	}
	clk.Add(time.Hour)
	if ms, _, _ := s.ListMetrics(ListMetricsQuery{}); len(ms) != 0 {
		t.Fatalf("series without data in the retention still listed: %v", ms)
	}
}

func TestRouteHandle(t *testing.T) {
	s, clk := newTestStore(t)
	rt := s.RESTRoute("pets", "prod", "GET", "/pets")
	rt.Record(200, 5*time.Millisecond, time.Millisecond, clk.Now())
	s.RecordREST(RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: "/pets", Status: 500, Latency: 7 * time.Millisecond})
	dps := stats(t, s, "AWS/ApiGateway", "Latency", []Dimension{{"ApiName", "pets"}, {"Stage", "prod"}, {"Method", "GET"}, {"Resource", "/pets"}}, t0, t0.Add(time.Minute), 60)
	if len(dps) != 1 || dps[0].Statistics[0] != 12 || dps[0].Statistics[1] != 2 {
		t.Errorf("a handle and RecordREST must feed one series: %+v", dps)
	}
}

func TestRecordAllocatesNothing(t *testing.T) {
	s, clk := newTestStore(t)
	r := RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: "/pets", Status: 200, Latency: time.Millisecond}
	s.RecordREST(r)
	rt := s.RESTRoute("pets", "prod", "GET", "/pets")
	if n := testing.AllocsPerRun(1000, func() {
		s.RecordREST(r)
		rt.Record(404, time.Millisecond, 0, clk.Now())
	}); n != 0 {
		t.Errorf("%v allocations per request after the route's first", n)
	}
}

// A stage's requests that matched no method count in the coarser sets and
// publish no series of their own.
func TestStageRouteIsHidden(t *testing.T) {
	s, _ := newTestStore(t)
	s.RESTStage("pets", "prod").Record(403, time.Millisecond, 0, t0)
	s.RESTRoute("pets", "prod", "GET", "/pets").Record(200, time.Millisecond, 0, t0)
	dps := stats(t, s, "AWS/ApiGateway", "Count", []Dimension{{"ApiName", "pets"}, {"Stage", "prod"}}, t0.Add(-time.Minute), t0.Add(time.Minute), 60)
	if len(dps) != 1 || dps[0].Statistics[0] != 2 {
		t.Fatalf("stage Count = %+v, want one datapoint summing 2", dps)
	}
	dps = stats(t, s, "AWS/ApiGateway", "Count", []Dimension{{"ApiName", "pets"}, {"Stage", "prod"}, {"Method", ""}, {"Resource", ""}}, t0.Add(-time.Minute), t0.Add(time.Minute), 60)
	if len(dps) != 0 {
		t.Errorf("the hidden route answered %+v", dps)
	}
	ms, _, err := s.ListMetrics(ListMetricsQuery{Namespace: "AWS/ApiGateway", MetricName: "Count"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		for _, d := range m.Dimensions {
			if d.Value == "" {
				t.Errorf("ListMetrics lists %+v", m)
			}
		}
	}
	if len(ms) != 3 {
		t.Errorf("ListMetrics = %+v, want {ApiName}, {ApiName,Stage} and the GET route", ms)
	}
}
