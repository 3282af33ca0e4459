package metrics

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRecordREST is the request path: one REST request into its
// fifteen series (five metrics, three dimension sets), on the real clock,
// so windows roll over every second. routes=1 is the worst case: every core
// on the same series.
func BenchmarkRecordREST(b *testing.B) {
	for _, routes := range []int{1, 64} {
		b.Run(fmt.Sprintf("routes=%d", routes), func(b *testing.B) {
			s := New(Config{})
			reqs := make([]RESTRequest, routes)
			for i := range reqs {
				reqs[i] = RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: fmt.Sprintf("/pets/%d", i), Status: 200}
				s.RecordREST(reqs[i]) // the route's first request builds its series
			}
			var seed atomic.Uint64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				// A generator on the goroutine's stack: two goroutines'
				// heap-allocated generators may share a cache line, and
				// the benchmark would measure that.
				x := seed.Add(1) * 0x9e3779b97f4a7c15
				for pb.Next() {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
					r := reqs[x%uint64(routes)]
					r.Latency = time.Duration(x >> 40 % 50_000_000)
					r.IntegrationLatency = r.Latency / 2
					if x>>20%20 == 0 {
						r.Status = 404
					}
					s.RecordREST(r)
				}
			})
		})
	}
}

// BenchmarkRouteRecord is the path a compiled deployment takes: a kept
// Route handle and the request's received time (here a clock ticking every
// millisecond), so neither the route lookup nor a clock read is paid.
func BenchmarkRouteRecord(b *testing.B) {
	s := New(Config{})
	rt := s.RESTRoute("pets", "prod", "GET", "/pets/{id}")
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	done := make(chan struct{})
	defer close(done)
	go func() {
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case t := <-tk.C:
				now.Store(t.UnixNano())
			}
		}
	}()
	var seed atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		x := seed.Add(1) * 0x9e3779b97f4a7c15
		for pb.Next() {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			lat := time.Duration(x >> 40 % 50_000_000)
			rt.Record(200, lat, lat/2, time.Unix(0, now.Load()))
		}
	})
}

// BenchmarkSeriesMemory reports the heap one request series (a dimension
// set's five metrics) holds: idle=one request; full=both rings full, one
// request every second for the 1-second retention (3 h) and every minute
// for the 1-minute retention (15 days), the bound under the defaults.
func BenchmarkSeriesMemory(b *testing.B) {
	for _, fill := range []string{"idle", "full"} {
		b.Run("fill="+fill, func(b *testing.B) {
			const routes = 4
			var perSeries float64
			for range b.N {
				clk := newClock(t0)
				s := New(Config{Now: clk.Now})
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				rec := func(i int) {
					for r := range routes {
						s.RecordREST(RESTRequest{APIName: fmt.Sprint("api", r), Stage: "prod", Method: "GET", Resource: "/", Status: 200,
							Latency: time.Duration(1+i%40) * time.Millisecond, IntegrationLatency: time.Millisecond})
					}
				}
				if fill == "idle" {
					rec(0)
				} else {
					lo := int(DefaultLowResRetention / time.Minute)
					for i := range lo {
						rec(i)
						clk.Add(time.Minute)
					}
					for i := range int(DefaultHighResRetention / time.Second) {
						rec(i)
						clk.Add(time.Second)
					}
				}
				s.groups.Range(func(_ string, g *group) bool { g.flush(); return true })
				runtime.GC()
				runtime.GC() // the second empties the windows' pool, shared by all series
				runtime.ReadMemStats(&after)
				perSeries = float64(after.HeapAlloc-before.HeapAlloc) / routes
				runtime.KeepAlive(s)
			}
			b.ReportMetric(perSeries, "bytes/series")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkGetMetricStatistics reads one hour of 1-second data (3600
// seconds of 20 requests each, latencies spread over 50 ms) with Average
// and p99.
func BenchmarkGetMetricStatistics(b *testing.B) {
	clk := newClock(t0)
	s := New(Config{Now: clk.Now})
	rng := rand.New(rand.NewPCG(1, 1))
	for range 3600 {
		for range 20 {
			s.RecordREST(RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: "/", Status: 200, Latency: time.Duration(rng.IntN(50_000_000))})
		}
		clk.Add(time.Second)
	}
	dims := []Dimension{{"ApiName", "pets"}, {"Stage", "prod"}}
	for _, tc := range []struct {
		name   string
		period int32
		points int
	}{
		{"period=5/reads=1s", 5, 720},
		{"period=60/reads=1m", 60, 60},
		{"period=3600/reads=1m", 3600, 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			q := StatisticsQuery{Namespace: "AWS/ApiGateway", MetricName: "Latency", Dimensions: dims, StartTime: t0, EndTime: t0.Add(time.Hour),
				Period: tc.period, Statistics: []string{Average}, ExtendedStatistics: []string{"p99"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.GetMetricStatistics(q)
				if err != nil || len(res.Datapoints) != tc.points {
					b.Fatalf("%d datapoints, %v", len(res.Datapoints), err)
				}
			}
		})
	}
	b.Run("metricstat/period=1/reads=1s", func(b *testing.B) {
		q := MetricStatQuery{Namespace: "AWS/ApiGateway", MetricName: "Latency", Dimensions: dims, StartTime: t0, EndTime: t0.Add(time.Hour), Period: 1, Stat: "p99"}
		b.ReportAllocs()
		for b.Loop() {
			res, err := s.MetricStat(q)
			if err != nil || len(res.Values) != 3600 {
				b.Fatalf("%d values, %v", len(res.Values), err)
			}
		}
	})
}

// BenchmarkScalingControl is the ceiling of scaling on this machine at this
// moment: eight atomic adds per op on counters no other core touches. When
// it does not halve from -cpu 1 to -cpu 2, other load holds a core and the
// recording figures of the same run say nothing about scaling.
func BenchmarkScalingControl(b *testing.B) {
	type padded struct {
		n [8]atomic.Int64
		_ [64]byte
	}
	cs := make([]padded, 64)
	var seq atomic.Uint32
	b.RunParallel(func(pb *testing.PB) {
		c := &cs[seq.Add(1)%64]
		for pb.Next() {
			for i := range c.n {
				c.n[i].Add(1)
			}
		}
	})
}
