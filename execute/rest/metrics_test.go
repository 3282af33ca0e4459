package rest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cloudemu/emulator/server/servertest"
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

// TestMetricsThroughCloudWatch: a deployed API's requests are read back
// with the CloudWatch client of the SDK (Smithy RPC v2 CBOR), in the API's
// region only.
func TestMetricsThroughCloudWatch(t *testing.T) {
	f := newFixture(t)
	f.mock("/pets", "GET", `{}`)
	f.deploy("prod", nil)
	for range 4 {
		f.call("GET", "prod", "/pets", nil, "").want(t, 200, `{}`)
	}
	f.call("GET", "prod", "/cats", nil, "")

	cw := func(region string) *cloudwatch.Client {
		return cloudwatch.NewFromConfig(servertest.AWSConfig(region, "test"), func(o *cloudwatch.Options) {
			o.BaseEndpoint = aws.String(f.srv.URL)
		})
	}
	now := time.Now()
	stats := func(c *cloudwatch.Client, ns, name string, dims ...string) []cwtypes.Datapoint {
		t.Helper()
		in := &cloudwatch.GetMetricStatisticsInput{Namespace: aws.String(ns), MetricName: aws.String(name),
			StartTime: aws.Time(now.Add(-5 * time.Minute)), EndTime: aws.Time(now.Add(5 * time.Minute)), Period: aws.Int32(600),
			Statistics:         []cwtypes.Statistic{cwtypes.StatisticSum, cwtypes.StatisticAverage, cwtypes.StatisticSampleCount},
			ExtendedStatistics: []string{"p99"}}
		for i := 0; i+1 < len(dims); i += 2 {
			in.Dimensions = append(in.Dimensions, cwtypes.Dimension{Name: aws.String(dims[i]), Value: aws.String(dims[i+1])})
		}
		out, err := c.GetMetricStatistics(ctx, in)
		f.must(err)
		return out.Datapoints
	}
	east := cw("us-east-1")
	dp := stats(east, "AWS/ApiGateway", "Count", "ApiName", "test-api", "Stage", "prod")
	if len(dp) != 1 || aws.ToFloat64(dp[0].Sum) != 5 {
		t.Fatalf("Count by stage = %+v, want one datapoint of Sum 5", dp)
	}
	dp = stats(east, "CLOUD/ApiGateway", "4XXError", "ApiName", "test-api")
	if len(dp) != 1 || aws.ToFloat64(dp[0].Average) != 0.2 || aws.ToFloat64(dp[0].SampleCount) != 5 {
		t.Fatalf("4XXError by API = %+v, want Average 0.2 over 5 samples", dp)
	}
	dp = stats(east, "AWS/ApiGateway", "Latency", "ApiName", "test-api", "Method", "GET", "Resource", "/pets", "Stage", "prod")
	if len(dp) != 1 || aws.ToFloat64(dp[0].SampleCount) != 4 || dp[0].ExtendedStatistics["p99"] < 0 || dp[0].Unit != cwtypes.StandardUnitMilliseconds {
		t.Fatalf("Latency of GET /pets = %+v, want 4 samples in milliseconds with a p99", dp)
	}
	if dp := stats(cw("eu-west-1"), "AWS/ApiGateway", "Count", "ApiName", "test-api", "Stage", "prod"); len(dp) != 0 {
		t.Fatalf("another region reads %+v", dp)
	}
	list, err := east.ListMetrics(ctx, &cloudwatch.ListMetricsInput{Namespace: aws.String("AWS/ApiGateway"), MetricName: aws.String("Count")})
	f.must(err)
	if len(list.Metrics) != 3 {
		t.Fatalf("ListMetrics Count = %+v, want the API, the stage and GET /pets", list.Metrics)
	}
}
