package metrics

import (
	"io"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Rejections are the requests one stage refused, counted by the caller
// (throttling lives in package throttle).
type Rejections struct {
	API, Stage    string
	Throttled     uint64 // 429 Too Many Requests
	QuotaExceeded uint64 // 429 Limit Exceeded
}

// KeyUsage is one API key's usage under one usage plan in the current
// quota period.
type KeyUsage struct {
	PlanID, KeyID   string
	Used, Remaining int64 // Remaining < 0: no quota
}

// PrometheusHooks supplies the counts the store does not keep. Either MAY
// be nil.
type PrometheusHooks struct {
	Rejections func() []Rejections
	Usage      func() []KeyUsage
}

var (
	labels      = []string{"kind", "api", "stage", "method", "route"}
	descReqs    = prometheus.NewDesc("emulator_apigateway_requests_total", "Requests dispatched to a deployed API, by status class.", append(slices.Clone(labels), "status_class"), nil)
	descLat     = prometheus.NewDesc("emulator_apigateway_latency_seconds", "Time from receipt to response of dispatched requests.", labels, nil)
	descInteg   = prometheus.NewDesc("emulator_apigateway_integration_latency_seconds", "Time the integration took for dispatched requests.", labels, nil)
	descThrot   = prometheus.NewDesc("emulator_apigateway_throttled_total", "Requests refused by throttling (429 Too Many Requests).", []string{"api", "stage"}, nil)
	descQuota   = prometheus.NewDesc("emulator_apigateway_quota_exceeded_total", "Requests refused by a usage plan's quota (429 Limit Exceeded).", []string{"api", "stage"}, nil)
	descUsed    = prometheus.NewDesc("emulator_apigateway_usage_plan_used_requests", "Requests an API key used in the current quota period of a usage plan.", []string{"plan", "key"}, nil)
	descRemains = prometheus.NewDesc("emulator_apigateway_usage_plan_remaining_requests", "Requests an API key has left in the current quota period of a usage plan.", []string{"plan", "key"}, nil)
)

// WritePrometheus writes the request counters and latency histograms per
// API, stage, method and route, and the hooks' counts, in Prometheus text format.
func (s *Store) WritePrometheus(w io.Writer, hooks PrometheusHooks) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(collector{s, hooks}); err != nil {
		return err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}

type collector struct {
	s     *Store
	hooks PrometheusHooks
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descReqs, descLat, descInteg, descThrot, descQuota, descUsed, descRemains} {
		ch <- d
	}
}

var classes = [6]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.s.groups.Range(func(_ string, g *group) bool {
		g.flush()
		g.mu.Lock()
		t := g.totals
		g.mu.Unlock()
		var v [5]string
		v[0] = "rest"
		if g.kind == httpKind {
			v[0] = "http"
		}
		for _, d := range g.dims {
			switch d.Name {
			case "ApiName", "ApiId":
				v[1] = d.Value
			case "Stage":
				v[2] = d.Value
			case "Method", "HttpMethod":
				v[3] = d.Value
			case "Resource", "RouteKey":
				v[4] = d.Value
			}
		}
		var n uint64
		for i, k := range t.class {
			n += k
			if k > 0 {
				ch <- prometheus.MustNewConstMetric(descReqs, prometheus.CounterValue, float64(k), v[0], v[1], v[2], v[3], v[4], classes[i])
			}
		}
		for _, h := range []struct {
			d   *prometheus.Desc
			sum int64
			b   *[15]uint64
		}{{descLat, t.lat, &t.latB}, {descInteg, t.integ, &t.integB}} {
			cum := map[float64]uint64{}
			var acc uint64
			for i, le := range promBuckets {
				acc += h.b[i]
				cum[le] = acc
			}
			ch <- prometheus.MustNewConstHistogram(h.d, n, float64(h.sum)/1e9, cum, v[0], v[1], v[2], v[3], v[4])
		}
		return true
	})
	if c.hooks.Rejections != nil {
		for _, r := range c.hooks.Rejections() {
			ch <- prometheus.MustNewConstMetric(descThrot, prometheus.CounterValue, float64(r.Throttled), r.API, r.Stage)
			ch <- prometheus.MustNewConstMetric(descQuota, prometheus.CounterValue, float64(r.QuotaExceeded), r.API, r.Stage)
		}
	}
	if c.hooks.Usage != nil {
		for _, u := range c.hooks.Usage() {
			ch <- prometheus.MustNewConstMetric(descUsed, prometheus.GaugeValue, float64(u.Used), u.PlanID, u.KeyID)
			if u.Remaining >= 0 {
				ch <- prometheus.MustNewConstMetric(descRemains, prometheus.GaugeValue, float64(u.Remaining), u.PlanID, u.KeyID)
			}
		}
	}
}
