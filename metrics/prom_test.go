package metrics

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestPrometheus(t *testing.T) {
	clk := newClock(t0)
	r := NewRegions(Config{Now: clk.Now})
	s := r.Of("000000000000", "us-east-1")
	for i, st := range []int{200, 200, 404, 500, 302} {
		s.RecordREST(RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: "/pets", Status: st,
			Latency: time.Duration(i+1) * 3 * time.Millisecond, IntegrationLatency: time.Millisecond})
	}
	s.RecordHTTP(HTTPRequest{APIID: "abc123", Stage: "$default", Method: "POST", RouteKey: "POST /orders", Status: 201, Latency: 2 * time.Second})
	rt := s.RESTRoute("pets", "prod", "GET", "/pets")
	for i := 0; i < 9; i++ {
		rt.Reject(i >= 7)
	}
	// The same API name in another region is another series; a stage's
	// unmatched requests have empty method and route labels.
	other := r.Of("000000000000", "eu-west-1")
	other.RESTStage("pets", "prod").Record(403, time.Millisecond, 0, t0)
	var buf bytes.Buffer
	err := r.WritePrometheus(&buf, PrometheusHooks{
		Usage: func() []KeyUsage {
			return []KeyUsage{{Account: "000000000000", Region: "us-east-1", PlanID: "p1", KeyID: "k1", Used: 3, Remaining: 97}}
		},
		Enforced: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.New(strings.NewReader(buf.String())).Lint()
	if err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", err, problems)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(&buf)
	if err != nil {
		t.Fatalf("official parser: %v\n%s", err, buf.String())
	}
	labels := func(m *dto.Metric) map[string]string {
		out := map[string]string{}
		for _, l := range m.GetLabel() {
			out[l.GetName()] = l.GetValue()
		}
		return out
	}
	byClass := map[string]float64{}
	for _, m := range mfs["emulator_apigateway_requests_total"].GetMetric() {
		l := labels(m)
		byClass[l["region"]+" "+l["kind"]+" "+l["api"]+" "+l["stage"]+" "+l["method"]+" "+l["route"]+" "+l["status_class"]] = m.GetCounter().GetValue()
	}
	for k, want := range map[string]float64{
		"us-east-1 rest pets prod GET /pets 2xx": 2, "us-east-1 rest pets prod GET /pets 3xx": 1, "us-east-1 rest pets prod GET /pets 4xx": 1,
		"us-east-1 rest pets prod GET /pets 5xx": 1, "us-east-1 http abc123 $default POST POST /orders 2xx": 1,
		"eu-west-1 rest pets prod   4xx": 1,
	} {
		if byClass[k] != want {
			t.Errorf("requests_total{%s} = %v, want %v (all: %v)", k, byClass[k], want, byClass)
		}
	}
	if len(byClass) != 6 {
		t.Errorf("%d request series, want 6 (one per route and class, the less detailed sets left out): %v", len(byClass), byClass)
	}
	for _, m := range mfs["emulator_apigateway_latency_seconds"].GetMetric() {
		h := m.GetHistogram()
		if l := labels(m); l["kind"] != "rest" || l["region"] != "us-east-1" {
			continue
		}
		if h.GetSampleCount() != 5 || h.GetSampleSum() < 0.0449 || h.GetSampleSum() > 0.0451 {
			t.Errorf("latency count %d sum %v, want 5 and 0.045", h.GetSampleCount(), h.GetSampleSum())
		}
		cum := map[float64]uint64{}
		for _, b := range h.GetBucket() {
			cum[b.GetUpperBound()] = b.GetCumulativeCount()
		}
		// 3, 6, 9, 12, 15 ms.
		if cum[0.005] != 1 || cum[0.01] != 3 || cum[0.025] != 5 {
			t.Errorf("latency buckets %v", cum)
		}
	}
	if f := mfs["emulator_apigateway_throttled_total"]; f == nil || f.GetMetric()[0].GetCounter().GetValue() != 7 {
		t.Errorf("throttled: %v", f)
	}
	if f := mfs["emulator_apigateway_quota_exceeded_total"]; f == nil || f.GetMetric()[0].GetCounter().GetValue() != 2 {
		t.Errorf("quota: %v", f)
	}
	if f := mfs["emulator_apigateway_throttle_enforced"]; f == nil || f.GetMetric()[0].GetGauge().GetValue() != 1 {
		t.Errorf("enforced: %v", f)
	}
	if f := mfs["emulator_apigateway_usage_plan_remaining_requests"]; f == nil || f.GetMetric()[0].GetGauge().GetValue() != 97 {
		t.Errorf("usage: %v", f)
	}
}
