package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads /_emulator/metrics with Prometheus' own parser and returns
// each family's samples by their labels (name=value pairs of api, stage,
// method, route, status_class, plan and key, in that order).
func (f *fixture) scrape() map[string]map[string]*dto.Metric {
	f.t.Helper()
	resp, err := f.http.Get(f.srv.URL + "/_emulator/metrics")
	f.must(err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		f.t.Fatalf("/_emulator/metrics: status %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(resp.Body)
	f.must(err)
	out := map[string]map[string]*dto.Metric{}
	for name, mf := range mfs {
		out[name] = map[string]*dto.Metric{}
		for _, m := range mf.GetMetric() {
			ls := map[string]string{}
			for _, l := range m.GetLabel() {
				ls[l.GetName()] = l.GetValue()
			}
			k := ""
			for _, n := range []string{"api", "stage", "method", "route", "status_class", "plan", "key"} {
				if v, ok := ls[n]; ok {
					k += n + "=" + v + " "
				}
			}
			out[name][k] = m
		}
	}
	return out
}

// TestMetricsRecorded: every request to a resolved stage is one record,
// under its method and resource, or under the stage alone when it matched
// no method; an unresolvable API records nothing.
func TestMetricsRecorded(t *testing.T) {
	f := newFixture(t)
	f.mock("/pets", "GET", `{}`)
	rid := f.resource("/fail")
	f.method(rid, "GET", nil)
	f.integration(rid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock,
		RequestTemplates: map[string]string{"application/json": `{"statusCode": 500}`}})
	f.methodResponse(rid, "GET", "500", nil)
	f.integrationResponse(rid, "GET", "500", &apigateway.PutIntegrationResponseInput{SelectionPattern: aws.String("")})
	f.deploy("prod", nil)

	for range 3 {
		f.call("GET", "prod", "/pets", nil, "").want(t, 200, `{}`)
	}
	if a := f.call("GET", "prod", "/fail", nil, ""); a.status != 500 {
		t.Fatalf("/fail: %d %s", a.status, a.body)
	}
	if a := f.call("DELETE", "prod", "/nowhere", nil, ""); a.status != 403 {
		t.Fatalf("/nowhere: %d %s", a.status, a.body)
	}
	if a := f.do("GET", f.srv.URL+"/restapis/nosuchapi1/prod/_user_request_/pets", "", nil, ""); a.status != 404 {
		t.Fatalf("unknown API: %d %s", a.status, a.body)
	}

	m := f.scrape()
	reqs := m["emulator_apigateway_requests_total"]
	for k, want := range map[string]float64{
		"api=test-api stage=prod method=GET route=/pets status_class=2xx ": 3,
		"api=test-api stage=prod method=GET route=/fail status_class=5xx ": 1,
		"api=test-api stage=prod method= route= status_class=4xx ":         1,
	} {
		if got := reqs[k].GetCounter().GetValue(); got != want {
			t.Errorf("requests_total{%s} = %v, want %v", k, got, want)
		}
	}
	if len(reqs) != 3 {
		t.Errorf("%d request series, want 3 (nothing for the unknown API): %v", len(reqs), reqs)
	}
	lat := m["emulator_apigateway_latency_seconds"]["api=test-api stage=prod method=GET route=/pets "]
	if lat.GetHistogram().GetSampleCount() != 3 {
		t.Errorf("latency histogram %v, want 3 samples", lat)
	}
}

// TestMetricsCountThrottling: in counting mode the requests a plan would
// have refused are counted as throttled, and the key's usage is reported.
func TestMetricsCountThrottling(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Throttle: &types.ThrottleSettings{BurstLimit: 3, RateLimit: slow},
		Quota:    &types.QuotaSettings{Limit: 100, Period: types.QuotaPeriodTypeDay}}, []string{"/pets"})
	for range 5 {
		k.get("/pets").want(t, 200, `{}`)
	}
	m := k.scrape()
	route := "api=test-api stage=dev method=GET route=/pets "
	if got := m["emulator_apigateway_throttled_total"][route].GetCounter().GetValue(); got != 2 {
		t.Errorf("throttled_total = %v, want 2", got)
	}
	if got := m["emulator_apigateway_requests_total"][route+"status_class=2xx "].GetCounter().GetValue(); got != 5 {
		t.Errorf("requests_total = %v, want 5 (counting mode serves them all)", got)
	}
	if got := m["emulator_apigateway_throttle_enforced"][""].GetGauge().GetValue(); got != 0 {
		t.Errorf("throttle_enforced = %v", got)
	}
	key := fmt.Sprintf("plan=%s key=%s ", k.plan, k.key)
	if used, left := m["emulator_apigateway_usage_plan_used_requests"][key], m["emulator_apigateway_usage_plan_remaining_requests"][key]; used.GetGauge().GetValue() != 3 || left.GetGauge().GetValue() != 97 {
		t.Errorf("usage %v / %v, want 3 used, 97 remaining", used, left)
	}
}

// TestMetricsEnforced: refused requests count as throttled and as 4xx.
func TestMetricsEnforced(t *testing.T) {
	k := newKeyed(t, &apigateway.CreateUsagePlanInput{
		Quota: &types.QuotaSettings{Limit: 1, Period: types.QuotaPeriodTypeDay}}, []string{"/pets"}, enforcing())
	k.get("/pets").want(t, 200, `{}`)
	k.get("/pets").wantError(t, 429, limitExceeded, "LimitExceededException")
	m := k.scrape()
	route := "api=test-api stage=dev method=GET route=/pets "
	if got := m["emulator_apigateway_quota_exceeded_total"][route].GetCounter().GetValue(); got != 1 {
		t.Errorf("quota_exceeded_total = %v, want 1", got)
	}
	if got := m["emulator_apigateway_requests_total"][route+"status_class=4xx "].GetCounter().GetValue(); got != 1 {
		t.Errorf("4xx = %v, want 1", got)
	}
	if got := m["emulator_apigateway_throttle_enforced"][""].GetGauge().GetValue(); got != 1 {
		t.Errorf("throttle_enforced = %v", got)
	}
}
