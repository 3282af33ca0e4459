package httpapi_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestMetrics: HTTP API requests are recorded under ApiId, ApiId+Stage and
// ApiId+HttpMethod+RouteKey+Stage with HTTP APIs' metric names (4xx and 5xx in lower
// case); a request that matched no route counts in the coarser sets only.
func TestMetrics(t *testing.T) {
	f := newFixture(t)
	be := echoBackend(t)
	f.route("GET /ok", f.proxy(be.URL, nil), nil)
	f.route("GET /broken", "", nil)
	f.stage("$default", nil)
	for range 3 {
		if a := f.call("GET", "/ok", nil, ""); a.status != 200 {
			t.Fatalf("/ok: %d", a.status)
		}
	}
	f.call("GET", "/broken", nil, "").want(t, 500, `{"message":"Internal Server Error"}`)
	f.call("GET", "/missing", nil, "").want(t, 404, `{"message":"Not Found"}`)

	cw := cloudwatch.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *cloudwatch.Options) {
		o.BaseEndpoint = aws.String(f.srv.URL)
	})
	sum := func(name string, dims ...string) float64 {
		t.Helper()
		var ds []cwtypes.Dimension
		for i := 0; i+1 < len(dims); i += 2 {
			ds = append(ds, cwtypes.Dimension{Name: aws.String(dims[i]), Value: aws.String(dims[i+1])})
		}
		now := time.Now()
		out, err := cw.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{Namespace: aws.String("AWS/ApiGateway"),
			MetricName: aws.String(name), Dimensions: ds, StartTime: aws.Time(now.Add(-time.Hour)), EndTime: aws.Time(now.Add(time.Minute)),
			Period: aws.Int32(3600), Statistics: []cwtypes.Statistic{cwtypes.StatisticSum}})
		f.must(err)
		total := 0.0
		for _, d := range out.Datapoints {
			total += aws.ToFloat64(d.Sum)
		}
		return total
	}
	for _, c := range []struct {
		metric string
		dims   []string
		want   float64
	}{
		{"Count", []string{"ApiId", f.api}, 5},
		{"Count", []string{"ApiId", f.api, "Stage", "$default"}, 5},
		{"Count", []string{"ApiId", f.api, "HttpMethod", "GET", "RouteKey", "GET /ok", "Stage", "$default"}, 3},
		{"5xx", []string{"ApiId", f.api}, 1},
		{"4xx", []string{"ApiId", f.api, "Stage", "$default"}, 1},
		{"5xx", []string{"ApiId", f.api, "HttpMethod", "GET", "RouteKey", "GET /broken", "Stage", "$default"}, 1},
	} {
		if got := sum(c.metric, c.dims...); got != c.want {
			t.Errorf("%s %v: %v, want %v", c.metric, c.dims, got, c.want)
		}
	}
}
