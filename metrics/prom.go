package metrics

import (
	"io"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// KeyUsage is one API key's usage under one usage plan in the current
// quota period.
type KeyUsage struct {
	Account, Region string
	PlanID, KeyID   string
	Used, Remaining int64 // Remaining < 0: no quota
}

// PrometheusHooks supplies what the stores do not keep.
type PrometheusHooks struct {
	// Usage MAY be nil.
	Usage func() []KeyUsage
	// Enforced: throttling refuses requests (else it only counts them).
	Enforced bool
}

var (
	labels      = []string{"account", "region", "kind", "api", "stage", "method", "route"}
	descReqs    = prometheus.NewDesc("emulator_apigateway_requests_total", "Requests dispatched to a deployed API, by status class.", append(slices.Clone(labels), "status_class"), nil)
	descLat     = prometheus.NewDesc("emulator_apigateway_latency_seconds", "Time from receipt to response of dispatched requests.", labels, nil)
	descInteg   = prometheus.NewDesc("emulator_apigateway_integration_latency_seconds", "Time the integration took for dispatched requests.", labels, nil)
	descThrot   = prometheus.NewDesc("emulator_apigateway_throttled_total", "Requests throttling refused with 429 Too Many Requests (or would have, when it only counts).", labels, nil)
	descQuota   = prometheus.NewDesc("emulator_apigateway_quota_exceeded_total", "Requests a usage plan's quota refused with 429 Limit Exceeded (or would have, when throttling only counts).", labels, nil)
	descEnf     = prometheus.NewDesc("emulator_apigateway_throttle_enforced", "1 when throttling refuses requests (EMULATOR_ENFORCE_GATEWAY_THROTTLE), 0 when it only counts them.", nil, nil)
	keyLabels   = []string{"account", "region", "plan", "key"}
	descUsed    = prometheus.NewDesc("emulator_apigateway_usage_plan_used_requests", "Requests an API key used in the current quota period of a usage plan.", keyLabels, nil)
	descRemains = prometheus.NewDesc("emulator_apigateway_usage_plan_remaining_requests", "Requests an API key has left in the current quota period of a usage plan.", keyLabels, nil)
)

// WritePrometheus writes the request counters, rejection counters and
// latency histograms per account, region, API, stage, method and route, and
// the hooks' counts, in Prometheus text format.
func (r *Regions) WritePrometheus(w io.Writer, hooks PrometheusHooks) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(collector{r, hooks}); err != nil {
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
	r     *Regions
	hooks PrometheusHooks
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descReqs, descLat, descInteg, descThrot, descQuota, descEnf, descUsed, descRemains} {
		ch <- d
	}
}

var classes = [6]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.r.each(func(sc Scope, s *Store) { collectStore(ch, sc, s) })
	enforced := 0.0
	if c.hooks.Enforced {
		enforced = 1
	}
	ch <- prometheus.MustNewConstMetric(descEnf, prometheus.GaugeValue, enforced)
	if c.hooks.Usage != nil {
		for _, u := range c.hooks.Usage() {
			ch <- prometheus.MustNewConstMetric(descUsed, prometheus.GaugeValue, float64(u.Used), u.Account, u.Region, u.PlanID, u.KeyID)
			if u.Remaining >= 0 {
				ch <- prometheus.MustNewConstMetric(descRemains, prometheus.GaugeValue, float64(u.Remaining), u.Account, u.Region, u.PlanID, u.KeyID)
			}
		}
	}
}

func collectStore(ch chan<- prometheus.Metric, sc Scope, s *Store) {
	s.groups.Range(func(_ string, g *group) bool {
		g.flush()
		g.mu.Lock()
		t := g.totals
		g.mu.Unlock()
		v := [7]string{sc.Account, sc.Region, "rest"}
		if g.kind == httpKind {
			v[2] = "http"
		}
		for _, d := range g.dims {
			switch d.Name {
			case "ApiName", "ApiId":
				v[3] = d.Value
			case "Stage":
				v[4] = d.Value
			case "Method", "HttpMethod":
				v[5] = d.Value
			case "Resource", "RouteKey":
				v[6] = d.Value
			}
		}
		var n uint64
		for i, k := range t.class {
			n += k
			if k > 0 {
				ch <- prometheus.MustNewConstMetric(descReqs, prometheus.CounterValue, float64(k), append(v[:], classes[i])...)
			}
		}
		for _, h := range []struct {
			d   *prometheus.Desc
			sum int64
			b   *[15]uint64
		}{{descLat, t.lat, &t.latB}, {descInteg, t.integ, &t.integB}} {
			cum := make(map[float64]uint64, len(promBuckets))
			var acc uint64
			for i, le := range promBuckets {
				acc += h.b[i]
				cum[le] = acc
			}
			ch <- prometheus.MustNewConstHistogram(h.d, n, float64(h.sum)/1e9, cum, v[:]...)
		}
		for i, d := range [2]*prometheus.Desc{descThrot, descQuota} {
			if k := g.rejected[i].Load(); k > 0 {
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(k), v[:]...)
			}
		}
		return true
	})
}
