package httpfront_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go"
	"github.com/fxamacker/cbor/v2"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/server/servertest"
)

// cwNow is the metric stores' frozen clock: every datapoint is placed
// relative to it.
var cwNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// cwEmulator is a front serving CloudWatch over one metric store per
// account and region.
type cwEmulator struct {
	url    string
	mu     sync.Mutex
	stores map[awswire.Scope]*metrics.Store
}

// store returns the scope's store, made on first use.
func (e *cwEmulator) store(sc awswire.Scope) *metrics.Store {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := e.stores[sc]
	if !ok {
		st = metrics.New(metrics.Config{Now: func() time.Time { return cwNow }})
		e.stores[sc] = st
	}
	return st
}

// startFront serves a front with opts on 127.0.0.1:0 until the test ends.
func startFront(t *testing.T, opts httpfront.ServerOptions) string {
	t.Helper()
	opts.DefaultRegion = "us-east-1"
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	s, err := httpfront.NewServer(servertest.Logger(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.FastHTTP().Serve(ln) }()
	t.Cleanup(func() { _ = s.FastHTTP().Shutdown() })
	return "http://" + ln.Addr().String()
}

func startCloudWatch(t *testing.T) *cwEmulator {
	t.Helper()
	e := &cwEmulator{stores: map[awswire.Scope]*metrics.Store{}}
	e.url = startFront(t, httpfront.ServerOptions{CloudWatch: e.store})
	return e
}

func cwClient(base, region, key string) *cloudwatch.Client {
	return cloudwatch.NewFromConfig(servertest.AWSConfig(region, key), func(o *cloudwatch.Options) {
		o.BaseEndpoint = aws.String(base)
	})
}

type cwReply struct {
	status int
	header http.Header
	body   []byte
}

func cwPost(t *testing.T, base, path string, body []byte, hdr ...string) cwReply {
	t.Helper()
	req, err := http.NewRequest("POST", base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("x-amzn-RequestId") == "" {
		t.Fatalf("no x-amzn-RequestId: %d %s", resp.StatusCode, b)
	}
	return cwReply{status: resp.StatusCode, header: resp.Header, body: b}
}

// cwJSON sends a JSON 1.0 request, as boto3 does.
func cwJSON(t *testing.T, base, op, body string, hdr ...string) cwReply {
	t.Helper()
	return cwPost(t, base, "/", []byte(body), append([]string{"X-Amz-Target", "GraniteServiceVersion20100801." + op,
		"Content-Type", "application/x-amz-json-1.0"}, hdr...)...)
}

// cwQuery sends a query-protocol request, as the AWS CLI v2.9 does.
func cwQuery(t *testing.T, base, op string, form url.Values, hdr ...string) cwReply {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("Action", op)
	form.Set("Version", "2010-08-01")
	return cwPost(t, base, "/", []byte(form.Encode()), append([]string{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}, hdr...)...)
}

// cwCBOR sends a Smithy RPC v2 CBOR request with body, encoded unless it
// is already bytes.
func cwCBOR(t *testing.T, base, op string, body any) cwReply {
	t.Helper()
	b, ok := body.([]byte)
	if !ok {
		var err error
		if b, err = cbor.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	return cwPost(t, base, "/service/GraniteServiceVersion20100801/operation/"+op, b,
		"Smithy-Protocol", "rpc-v2-cbor", "Content-Type", "application/cbor", "Accept", "application/cbor")
}

// jsonOf decodes a JSON reply.
func jsonOf(t *testing.T, r cwReply) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not JSON: %d %s", r.status, r.body)
	}
	return m
}

// wantCWError checks a CloudWatch error in the protocol of the request:
// status, x-amzn-query-error and the body's code.
func wantCWError(t *testing.T, r cwReply, status int, code string) {
	t.Helper()
	fault := "Sender"
	if status == 500 {
		fault = "Receiver"
	}
	if r.status != status || r.header.Get("x-amzn-query-error") != code+";"+fault {
		t.Fatalf("want %d %s, got %d %q: %s", status, code, r.status, r.header.Get("x-amzn-query-error"), r.body)
	}
	shapes := map[string]string{
		"InvalidParameterValue":       "InvalidParameterValueException",
		"MissingParameter":            "MissingRequiredParameterException",
		"InvalidParameterCombination": "InvalidParameterCombinationException",
		"InvalidNextToken":            "InvalidNextToken",
	}
	shape := shapes[code]
	if shape == "" {
		shape = code
	}
	switch ct := r.header.Get("Content-Type"); ct {
	case "application/x-amz-json-1.0":
		m := jsonOf(t, r)
		if m["__type"] != shape || m["message"] == "" || r.header.Get("x-amzn-ErrorType") != shape {
			t.Fatalf("JSON error: %s", r.body)
		}
	case "application/cbor":
		var m map[string]string
		if err := cbor.Unmarshal(r.body, &m); err != nil || m["__type"] != "com.amazonaws.cloudwatch#"+shape || m["message"] == "" {
			t.Fatalf("CBOR error %v: %x", err, r.body)
		}
		if r.header.Get("Smithy-Protocol") != "rpc-v2-cbor" {
			t.Fatalf("no Smithy-Protocol header")
		}
	case "text/xml":
		var x struct {
			XMLName   xml.Name `xml:"ErrorResponse"`
			Type      string   `xml:"Error>Type"`
			Code      string   `xml:"Error>Code"`
			Message   string   `xml:"Error>Message"`
			RequestID string   `xml:"RequestId"`
		}
		if err := xml.Unmarshal(r.body, &x); err != nil || x.Code != code || x.Type != fault || x.Message == "" ||
			x.RequestID != r.header.Get("x-amzn-RequestId") {
			t.Fatalf("XML error %v: %s", err, r.body)
		}
	default:
		t.Fatalf("content type %q: %s", ct, r.body)
	}
}

// wantSDKError checks an SDK error's code (the query code, which the SDK
// reports for this awsQueryCompatible service) and, when typ is not nil,
// its modelled type.
func wantSDKError(t *testing.T, err error, code string, typ any) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	if typ != nil {
		target := reflect.New(reflect.TypeOf(typ))
		if !errors.As(err, target.Interface()) {
			t.Fatalf("want a %T, got %T: %v", typ, ae, err)
		}
	}
	if ae.ErrorFault() != smithy.FaultClient {
		t.Fatalf("fault %v", ae.ErrorFault())
	}
}

func near(got, want float64) bool {
	return math.Abs(got-want) <= math.Abs(want)*metrics.RelativeError+1e-9
}

// TestCloudWatchNotServed checks a front without metric stores: every
// CloudWatch request, in each protocol, is recognised before path routing
// and answered NotImplemented in a shape the client parses.
func TestCloudWatchNotServed(t *testing.T) {
	base := startFront(t, httpfront.ServerOptions{})
	t.Run("protocol=rpc-v2-cbor", func(t *testing.T) {
		_, err := cwClient(base, "us-east-1", "test").ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "NotImplemented" || !strings.Contains(ae.ErrorMessage(), "ListMetrics") {
			t.Fatalf("want NotImplemented naming ListMetrics, got %v", err)
		}
	})
	t.Run("protocol=json", func(t *testing.T) {
		r := cwJSON(t, base, "PutMetricData", `{}`)
		wantCWError(t, r, 501, "NotImplemented")
		if m := jsonOf(t, r); !strings.Contains(m["message"].(string), "PutMetricData") {
			t.Fatalf("%s", r.body)
		}
	})
	t.Run("protocol=query", func(t *testing.T) {
		r := cwQuery(t, base, "GetMetricData", nil)
		wantCWError(t, r, 501, "NotImplemented")
		if !strings.Contains(string(r.body), "GetMetricData") {
			t.Fatalf("%s", r.body)
		}
	})
	t.Run("not-cloudwatch", func(t *testing.T) {
		r := cwPost(t, base, "/", []byte("Action=Nope&Version=2011-01-01"), "Content-Type", "application/x-www-form-urlencoded")
		if r.status != 404 || r.header.Get("x-amzn-ErrorType") != "UnknownOperationException" {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}

// TestCloudWatchUnsupported checks that the operations not served answer
// NotImplemented in each protocol when the others are served.
func TestCloudWatchUnsupported(t *testing.T) {
	e := startCloudWatch(t)
	_, err := cwClient(e.url, "us-east-1", "test").PutDashboard(context.Background(), &cloudwatch.PutDashboardInput{
		DashboardName: aws.String("d"), DashboardBody: aws.String("{}")})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "NotImplemented" || !strings.Contains(ae.ErrorMessage(), "PutDashboard") {
		t.Fatalf("want NotImplemented naming PutDashboard, got %v", err)
	}
	wantCWError(t, cwCBOR(t, e.url, "PutDashboard", map[string]string{"DashboardName": "d"}), 501, "NotImplemented")
	wantCWError(t, cwJSON(t, e.url, "PutDashboard", `{"DashboardName":"d"}`), 501, "NotImplemented")
	wantCWError(t, cwQuery(t, e.url, "PutDashboard", url.Values{"DashboardName": {"d"}}), 501, "NotImplemented")
	wantCWError(t, cwQuery(t, e.url, "DescribeAlarms", nil), 501, "NotImplemented")
	wantCWError(t, cwJSON(t, e.url, "Put<Dash>&", `{}`), 501, "NotImplemented")

	// An operation name that is not UTF-8 is repeated as U+FFFD (a CBOR
	// path travels percent-encoded).
	for name, r := range map[string]cwReply{
		"json":  cwJSON(t, e.url, "Put\xffDash", `{}`),
		"query": cwQuery(t, e.url, "Put\xffDash", nil),
	} {
		wantCWError(t, r, 501, "NotImplemented")
		msg := string(r.body)
		if name == "json" {
			msg, _ = jsonOf(t, r)["message"].(string)
		}
		if !utf8.ValidString(msg) || !strings.Contains(msg, "Put\uFFFDDash") {
			t.Fatalf("%s: message %q", name, msg)
		}
	}
}

// TestCloudWatchSDK drives the four operations with aws-sdk-go-v2, which
// speaks Smithy RPC v2 CBOR.
func TestCloudWatchSDK(t *testing.T) {
	e := startCloudWatch(t)
	ctx := context.Background()
	c := cwClient(e.url, "us-east-1", "test")
	t0 := cwNow.Add(-30 * time.Minute) // on a minute
	api := []types.Dimension{{Name: aws.String("Service"), Value: aws.String("api")}}

	// Latency: 10, 20, 30 twice, and a statistic set of two 20s, in one
	// minute: Sum 130 over 6 samples.
	_, err := c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{
		Namespace: aws.String("App"),
		MetricData: []types.MetricDatum{
			{MetricName: aws.String("Latency"), Dimensions: api, Timestamp: aws.Time(t0), Value: aws.Float64(10), Unit: types.StandardUnitMilliseconds},
			{MetricName: aws.String("Latency"), Dimensions: api, Timestamp: aws.Time(t0.Add(10 * time.Second)),
				Values: []float64{20, 30}, Counts: []float64{1, 2}, Unit: types.StandardUnitMilliseconds, StorageResolution: aws.Int32(1)},
			{MetricName: aws.String("Latency"), Dimensions: api, Timestamp: aws.Time(t0.Add(20*time.Second + 500*time.Millisecond)),
				StatisticValues: &types.StatisticSet{SampleCount: aws.Float64(2), Sum: aws.Float64(40), Minimum: aws.Float64(20), Maximum: aws.Float64(20)},
				Unit:            types.StandardUnitMilliseconds},
			// A set of distinct samples tells no percentile.
			{MetricName: aws.String("Set"), Dimensions: api, Timestamp: aws.Time(t0),
				StatisticValues: &types.StatisticSet{SampleCount: aws.Float64(2), Sum: aws.Float64(30), Minimum: aws.Float64(10), Maximum: aws.Float64(20)}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Requests: 1..5 in five consecutive minutes.
	var reqs []types.MetricDatum
	for i := range 5 {
		reqs = append(reqs, types.MetricDatum{MetricName: aws.String("Requests"), Dimensions: api,
			Timestamp: aws.Time(t0.Add(time.Duration(i) * time.Minute)), Value: aws.Float64(float64(i + 1)), Unit: types.StandardUnitCount})
	}
	if _, err := c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("App"), MetricData: reqs}); err != nil {
		t.Fatal(err)
	}

	t.Run("GetMetricStatistics", func(t *testing.T) {
		out, err := c.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{
			Namespace: aws.String("App"), MetricName: aws.String("Latency"), Dimensions: api,
			StartTime: aws.Time(t0.Add(-5 * time.Minute)), EndTime: aws.Time(t0.Add(5 * time.Minute)), Period: aws.Int32(60),
			Statistics:         []types.Statistic{types.StatisticSum, types.StatisticAverage, types.StatisticSampleCount, types.StatisticMinimum, types.StatisticMaximum},
			ExtendedStatistics: []string{"p99", "p50"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(out.Label) != "Latency" || len(out.Datapoints) != 1 {
			t.Fatalf("%+v", out)
		}
		d := out.Datapoints[0]
		if !d.Timestamp.Equal(t0) || *d.Sum != 130 || *d.SampleCount != 6 || *d.Minimum != 10 || *d.Maximum != 30 ||
			!near(*d.Average, 130.0/6) || d.Unit != types.StandardUnitMilliseconds {
			t.Fatalf("%+v", d)
		}
		if !near(d.ExtendedStatistics["p99"], 30) || !near(d.ExtendedStatistics["p50"], 20) {
			t.Fatalf("percentiles %v", d.ExtendedStatistics)
		}
		// Seconds: the points in their own seconds.
		out, err = c.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{
			Namespace: aws.String("App"), MetricName: aws.String("Latency"), Dimensions: api,
			StartTime: aws.Time(t0), EndTime: aws.Time(t0.Add(time.Minute)), Period: aws.Int32(10),
			Statistics: []types.Statistic{types.StatisticSum}, Unit: types.StandardUnitMilliseconds,
		})
		if err != nil {
			t.Fatal(err)
		}
		var sums []float64
		for _, d := range out.Datapoints {
			sums = append(sums, *d.Sum)
		}
		if !slices.Equal(sums, []float64{10, 80, 40}) {
			t.Fatalf("%v", sums)
		}
		// Another unit matches nothing.
		out, err = c.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{
			Namespace: aws.String("App"), MetricName: aws.String("Latency"), Dimensions: api,
			StartTime: aws.Time(t0), EndTime: aws.Time(t0.Add(time.Minute)), Period: aws.Int32(60),
			Statistics: []types.Statistic{types.StatisticSum}, Unit: types.StandardUnitSeconds,
		})
		if err != nil || len(out.Datapoints) != 0 {
			t.Fatalf("%v %+v", err, out)
		}
		// The statistic set's percentile is left out.
		out, err = c.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{
			Namespace: aws.String("App"), MetricName: aws.String("Set"), Dimensions: api,
			StartTime: aws.Time(t0), EndTime: aws.Time(t0.Add(time.Minute)), Period: aws.Int32(60),
			Statistics: []types.Statistic{types.StatisticSum}, ExtendedStatistics: []string{"p99"},
		})
		if err != nil || len(out.Datapoints) != 1 || *out.Datapoints[0].Sum != 30 || len(out.Datapoints[0].ExtendedStatistics) != 0 ||
			out.Datapoints[0].Unit != types.StandardUnitNone {
			t.Fatalf("%v %+v", err, out)
		}
	})

	t.Run("GetMetricData", func(t *testing.T) {
		stat := func(id, name, s string, ret bool) types.MetricDataQuery {
			return types.MetricDataQuery{Id: aws.String(id), ReturnData: aws.Bool(ret), MetricStat: &types.MetricStat{
				Metric: &types.Metric{Namespace: aws.String("App"), MetricName: aws.String(name), Dimensions: api},
				Period: aws.Int32(60), Stat: aws.String(s)}}
		}
		in := &cloudwatch.GetMetricDataInput{
			StartTime: aws.Time(t0.Add(-time.Hour)), EndTime: aws.Time(cwNow),
			MetricDataQueries: []types.MetricDataQuery{
				stat("sum", "Requests", "Sum", true),
				stat("hidden", "Requests", "Sum", false),
				stat("empty", "Nothing", "Sum", true),
				stat("max", "Latency", "Maximum", true),
				stat("pct", "Requests", "p90", true),
			},
		}
		in.MetricDataQueries[0].Label = aws.String("requests")
		whole, err := c.GetMetricData(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if whole.NextToken != nil || len(whole.MetricDataResults) != 4 {
			t.Fatalf("%+v", whole)
		}
		r := whole.MetricDataResults[0]
		if aws.ToString(r.Id) != "sum" || aws.ToString(r.Label) != "requests" || r.StatusCode != types.StatusCodeComplete ||
			!slices.Equal(r.Values, []float64{5, 4, 3, 2, 1}) || !r.Timestamps[0].Equal(t0.Add(4*time.Minute)) {
			t.Fatalf("%+v", r)
		}
		if r := whole.MetricDataResults[1]; aws.ToString(r.Id) != "empty" || aws.ToString(r.Label) != "Nothing" || len(r.Values) != 0 || r.StatusCode != types.StatusCodeComplete {
			t.Fatalf("%+v", r)
		}
		if r := whole.MetricDataResults[2]; aws.ToString(r.Id) != "max" || !slices.Equal(r.Values, []float64{30}) {
			t.Fatalf("%+v", r)
		}
		// Pages of 3: the results put end to end are the whole answer.
		in.MaxDatapoints = aws.Int32(3)
		got := map[string][]float64{}
		pages := 0
		for p := cloudwatch.NewGetMetricDataPaginator(c, in); p.HasMorePages(); {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			n := 0
			for _, r := range out.MetricDataResults {
				n += len(r.Values)
				got[aws.ToString(r.Id)] = append(got[aws.ToString(r.Id)], r.Values...)
				if len(r.Values) != len(r.Timestamps) {
					t.Fatalf("%+v", r)
				}
				last := aws.ToString(r.Id) == aws.ToString(out.MetricDataResults[len(out.MetricDataResults)-1].Id)
				if r.StatusCode == types.StatusCodePartialData && (out.NextToken == nil || !last) {
					t.Fatalf("page %d: %s is %s", pages, aws.ToString(r.Id), r.StatusCode)
				}
			}
			if n > 3 {
				t.Fatalf("page %d has %d datapoints", pages, n)
			}
		}
		for _, r := range whole.MetricDataResults {
			if g := got[aws.ToString(r.Id)]; !slices.Equal(g, r.Values) {
				t.Fatalf("%s: paged %v, whole %v", aws.ToString(r.Id), g, r.Values)
			}
		}
		if pages != 4 { // 11 datapoints
			t.Fatalf("%d pages", pages)
		}
		// Oldest first.
		in.MaxDatapoints, in.ScanBy = nil, types.ScanByTimestampAscending
		out, err := c.GetMetricData(ctx, in)
		if err != nil || !slices.Equal(out.MetricDataResults[0].Values, []float64{1, 2, 3, 4, 5}) {
			t.Fatalf("%v %+v", err, out)
		}
	})

	t.Run("ListMetrics", func(t *testing.T) {
		if _, err := c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("App"), MetricData: []types.MetricDatum{
			{MetricName: aws.String("Requests"), Value: aws.Float64(1), Dimensions: []types.Dimension{{Name: aws.String("Service"), Value: aws.String("web")}}},
			{MetricName: aws.String("Requests"), Value: aws.Float64(1)},
		}}); err != nil {
			t.Fatal(err)
		}
		list := func(in *cloudwatch.ListMetricsInput) []string {
			t.Helper()
			out, err := c.ListMetrics(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range out.Metrics {
				s := aws.ToString(m.Namespace) + "/" + aws.ToString(m.MetricName)
				for _, d := range m.Dimensions {
					s += " " + aws.ToString(d.Name) + "=" + aws.ToString(d.Value)
				}
				names = append(names, s)
			}
			return names
		}
		if got := list(&cloudwatch.ListMetricsInput{Dimensions: []types.DimensionFilter{{Name: aws.String("Service"), Value: aws.String("api")}}}); !slices.Equal(got,
			[]string{"App/Latency Service=api", "App/Requests Service=api", "App/Set Service=api"}) {
			t.Fatalf("%q", got)
		}
		if got := list(&cloudwatch.ListMetricsInput{MetricName: aws.String("Requests"), Dimensions: []types.DimensionFilter{{Name: aws.String("Service")}}}); !slices.Equal(got,
			[]string{"App/Requests Service=api", "App/Requests Service=web"}) {
			t.Fatalf("%q", got)
		}
		if got := list(&cloudwatch.ListMetricsInput{Namespace: aws.String("App"), MetricName: aws.String("Requests")}); len(got) != 3 || got[0] != "App/Requests" {
			t.Fatalf("%q", got)
		}
		if got := list(&cloudwatch.ListMetricsInput{Namespace: aws.String("Other")}); len(got) != 0 {
			t.Fatalf("%q", got)
		}
		if got := list(&cloudwatch.ListMetricsInput{Namespace: aws.String("App"), RecentlyActive: types.RecentlyActivePt3h}); len(got) != 5 {
			t.Fatalf("%q", got)
		}
	})

	t.Run("scope", func(t *testing.T) {
		other := cwClient(e.url, "eu-west-1", "111122223333")
		if _, err := other.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("Elsewhere"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("M"), Value: aws.Float64(1)}}}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			c    *cloudwatch.Client
			want int
		}{{other, 1}, {c, 0}, {cwClient(e.url, "eu-west-1", "test"), 0}, {cwClient(e.url, "us-east-1", "111122223333"), 0}} {
			out, err := tc.c.ListMetrics(ctx, &cloudwatch.ListMetricsInput{Namespace: aws.String("Elsewhere")})
			if err != nil || len(out.Metrics) != tc.want {
				t.Fatalf("%v %+v", err, out)
			}
		}
		if e.store(awswire.Scope{Account: "111122223333", Region: "eu-west-1"}) == nil {
			t.Fatal("no store")
		}
	})

	t.Run("compressed", func(t *testing.T) {
		// Over 10 KiB the SDK gzips PutMetricData.
		var data []types.MetricDatum
		for i := range 1000 {
			data = append(data, types.MetricDatum{MetricName: aws.String("Bulk"), Value: aws.Float64(float64(i)), Timestamp: aws.Time(t0)})
		}
		if _, err := c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("Bulk"), MetricData: data}); err != nil {
			t.Fatal(err)
		}
		out, err := c.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{Namespace: aws.String("Bulk"), MetricName: aws.String("Bulk"),
			StartTime: aws.Time(t0), EndTime: aws.Time(t0.Add(time.Minute)), Period: aws.Int32(60), Statistics: []types.Statistic{types.StatisticSampleCount, types.StatisticSum}})
		if err != nil || len(out.Datapoints) != 1 || *out.Datapoints[0].SampleCount != 1000 || *out.Datapoints[0].Sum != 999*1000/2 {
			t.Fatalf("%v %+v", err, out)
		}
	})

	t.Run("errors", func(t *testing.T) {
		base := func() *cloudwatch.GetMetricStatisticsInput {
			return &cloudwatch.GetMetricStatisticsInput{Namespace: aws.String("App"), MetricName: aws.String("Latency"),
				StartTime: aws.Time(t0), EndTime: aws.Time(t0.Add(time.Hour)), Period: aws.Int32(60),
				Statistics: []types.Statistic{types.StatisticSum}}
		}
		in := base()
		in.Statistics = nil
		_, err := c.GetMetricStatistics(ctx, in)
		wantSDKError(t, err, "MissingParameter", &types.MissingRequiredParameterException{})
		in = base()
		in.Period = aws.Int32(7)
		_, err = c.GetMetricStatistics(ctx, in)
		wantSDKError(t, err, "InvalidParameterValue", &types.InvalidParameterValueException{})
		in = base()
		in.Period = aws.Int32(1)
		_, err = c.GetMetricStatistics(ctx, in)
		wantSDKError(t, err, "InvalidParameterCombination", &types.InvalidParameterCombinationException{})
		in = base()
		in.ExtendedStatistics = []string{"p100.001"}
		_, err = c.GetMetricStatistics(ctx, in)
		wantSDKError(t, err, "InvalidParameterValue", &types.InvalidParameterValueException{})
		in = base()
		in.StartTime = in.EndTime
		_, err = c.GetMetricStatistics(ctx, in)
		wantSDKError(t, err, "InvalidParameterValue", &types.InvalidParameterValueException{})

		q := []types.MetricDataQuery{{Id: aws.String("m1"), MetricStat: &types.MetricStat{
			Metric: &types.Metric{Namespace: aws.String("App"), MetricName: aws.String("Requests"), Dimensions: api}, Period: aws.Int32(60), Stat: aws.String("Sum")}}}
		_, err = c.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{MetricDataQueries: q, StartTime: aws.Time(t0), EndTime: aws.Time(cwNow),
			NextToken: aws.String("garbage")})
		wantSDKError(t, err, "InvalidNextToken", &types.InvalidNextToken{})
		// A token of another request is refused too.
		two := append(q, types.MetricDataQuery{Id: aws.String("m2"), MetricStat: q[0].MetricStat})
		out, err := c.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{MetricDataQueries: two, StartTime: aws.Time(t0), EndTime: aws.Time(cwNow), MaxDatapoints: aws.Int32(1)})
		if err != nil || out.NextToken == nil {
			t.Fatalf("%v %+v", err, out)
		}
		_, err = c.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{MetricDataQueries: q, StartTime: aws.Time(t0), EndTime: aws.Time(cwNow), NextToken: out.NextToken})
		wantSDKError(t, err, "InvalidNextToken", &types.InvalidNextToken{})
		_, err = c.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{StartTime: aws.Time(t0), EndTime: aws.Time(cwNow),
			MetricDataQueries: []types.MetricDataQuery{{Id: aws.String("e1"), Expression: aws.String("SUM(METRICS())")}}})
		wantSDKError(t, err, "ValidationError", nil)
		var ae smithy.APIError
		if errors.As(err, &ae); !strings.Contains(ae.ErrorMessage(), "Metric math is not supported") {
			t.Fatalf("%v", err)
		}
		_, err = c.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{StartTime: aws.Time(t0), EndTime: aws.Time(cwNow),
			MetricDataQueries: []types.MetricDataQuery{q[0], q[0]}})
		wantSDKError(t, err, "InvalidParameterValue", nil)
		_, err = c.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{StartTime: aws.Time(t0), EndTime: aws.Time(cwNow),
			MetricDataQueries: []types.MetricDataQuery{{Id: aws.String("Upper"), MetricStat: q[0].MetricStat}}})
		wantSDKError(t, err, "InvalidParameterValue", nil)

		_, err = c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("AWS/Mine"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("M"), Value: aws.Float64(1)}}})
		wantSDKError(t, err, "InvalidParameterValue", &types.InvalidParameterValueException{})
		_, err = c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("App"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("M"), Value: aws.Float64(1), Values: []float64{1}}}})
		wantSDKError(t, err, "InvalidParameterCombination", &types.InvalidParameterCombinationException{})
		_, err = c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("App"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("M"), Value: aws.Float64(1e200)}}})
		wantSDKError(t, err, "InvalidParameterValue", &types.InvalidParameterValueException{})
		_, err = c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("App"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("M"), Value: aws.Float64(1), Timestamp: aws.Time(cwNow.Add(-30 * 24 * time.Hour))}}})
		wantSDKError(t, err, "InvalidParameterValue", &types.InvalidParameterValueException{})
		_, err = c.PutMetricData(ctx, &cloudwatch.PutMetricDataInput{Namespace: aws.String("App"),
			MetricData: []types.MetricDatum{{MetricName: aws.String("M"), Value: aws.Float64(1), Unit: "Furlongs"}}})
		wantSDKError(t, err, "InvalidParameterValue", &types.InvalidParameterValueException{})
		_, err = c.ListMetrics(ctx, &cloudwatch.ListMetricsInput{NextToken: aws.String("!!")})
		wantSDKError(t, err, "InvalidNextToken", &types.InvalidNextToken{})
		// Nothing was recorded by the refused calls.
		lm, err := c.ListMetrics(ctx, &cloudwatch.ListMetricsInput{MetricName: aws.String("M")})
		if err != nil || len(lm.Metrics) != 0 {
			t.Fatalf("%v %+v", err, lm)
		}
	})
}

// TestCloudWatchRequestMetrics reads API Gateway request metrics the store
// recorded, under both namespaces they are answered in.
func TestCloudWatchRequestMetrics(t *testing.T) {
	e := startCloudWatch(t)
	st := e.store(awswire.Scope{Account: awswire.DefaultAccount, Region: "us-east-1"})
	at := cwNow.Add(-10 * time.Minute)
	for i, status := range []int{200, 200, 404, 502} {
		st.RecordREST(metrics.RESTRequest{APIName: "pets", Stage: "prod", Method: "GET", Resource: "/pets/{id}",
			Status: status, Latency: time.Duration(10*(i+1)) * time.Millisecond, IntegrationLatency: 5 * time.Millisecond, At: at})
	}
	ctx := context.Background()
	c := cwClient(e.url, "us-east-1", "test")
	for _, ns := range metrics.Namespaces {
		for _, tc := range []struct {
			metric string
			dims   []types.Dimension
			stat   types.Statistic
			want   float64
		}{
			{"Count", []types.Dimension{{Name: aws.String("ApiName"), Value: aws.String("pets")}}, types.StatisticSum, 4},
			{"4XXError", []types.Dimension{{Name: aws.String("ApiName"), Value: aws.String("pets")}, {Name: aws.String("Stage"), Value: aws.String("prod")}}, types.StatisticSum, 1},
			{"5XXError", []types.Dimension{{Name: aws.String("Stage"), Value: aws.String("prod")}, {Name: aws.String("ApiName"), Value: aws.String("pets")}}, types.StatisticAverage, 0.25},
			{"Latency", []types.Dimension{{Name: aws.String("ApiName"), Value: aws.String("pets")}, {Name: aws.String("Stage"), Value: aws.String("prod")},
				{Name: aws.String("Method"), Value: aws.String("GET")}, {Name: aws.String("Resource"), Value: aws.String("/pets/{id}")}}, types.StatisticMaximum, 40},
		} {
			out, err := c.GetMetricStatistics(ctx, &cloudwatch.GetMetricStatisticsInput{Namespace: aws.String(ns), MetricName: aws.String(tc.metric),
				Dimensions: tc.dims, StartTime: aws.Time(at.Add(-time.Minute)), EndTime: aws.Time(cwNow), Period: aws.Int32(300),
				Statistics: []types.Statistic{tc.stat}})
			if err != nil || len(out.Datapoints) != 1 {
				t.Fatalf("%s %s: %v %+v", ns, tc.metric, err, out)
			}
			d := out.Datapoints[0]
			var got float64
			switch tc.stat {
			case types.StatisticSum:
				got = *d.Sum
			case types.StatisticAverage:
				got = *d.Average
			case types.StatisticMaximum:
				got = *d.Maximum
			}
			if !near(got, tc.want) {
				t.Fatalf("%s %s %s = %v, want %v", ns, tc.metric, tc.stat, got, tc.want)
			}
		}
		out, err := c.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{StartTime: aws.Time(at.Add(-time.Minute)), EndTime: aws.Time(cwNow),
			MetricDataQueries: []types.MetricDataQuery{{Id: aws.String("lat"), MetricStat: &types.MetricStat{
				Metric: &types.Metric{Namespace: aws.String(ns), MetricName: aws.String("Latency"),
					Dimensions: []types.Dimension{{Name: aws.String("ApiName"), Value: aws.String("pets")}}},
				Period: aws.Int32(60), Stat: aws.String("p50")}}}})
		if err != nil || len(out.MetricDataResults) != 1 || len(out.MetricDataResults[0].Values) != 1 || !near(out.MetricDataResults[0].Values[0], 20) {
			t.Fatalf("%v %+v", err, out)
		}
		lm, err := c.ListMetrics(ctx, &cloudwatch.ListMetricsInput{Namespace: aws.String(ns), MetricName: aws.String("Count")})
		if err != nil || len(lm.Metrics) != 3 { // {ApiName}, {ApiName, Stage}, and the method's set
			t.Fatalf("%v %+v", err, lm)
		}
	}
}

// TestCloudWatchJSON drives the operations with raw JSON 1.0 requests, as
// boto3 sends them.
func TestCloudWatchJSON(t *testing.T) {
	e := startCloudWatch(t)
	t0 := cwNow.Add(-time.Hour).Unix()
	r := cwJSON(t, e.url, "PutMetricData", fmt.Sprintf(`{"Namespace":"Shop","MetricData":[
		{"MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}],"Timestamp":%d,"Value":3,"Unit":"Count"},
		{"MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}],"Timestamp":%d.5,"Values":[1,2],"Counts":[2,1],"Unit":"Count"},
		{"MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}],"Timestamp":%d,"StatisticValues":{"SampleCount":2,"Sum":8,"Minimum":4,"Maximum":4}}]}`, t0, t0+60, t0+120))
	if r.status != 200 || string(r.body) != "{}" || r.header.Get("Content-Type") != "application/x-amz-json-1.0" {
		t.Fatalf("%d %v %s", r.status, r.header, r.body)
	}
	r = cwJSON(t, e.url, "GetMetricStatistics", fmt.Sprintf(`{"Namespace":"Shop","MetricName":"Orders",
		"Dimensions":[{"Name":"Store","Value":"north"}],"StartTime":%d,"EndTime":%d,"Period":3600,
		"Statistics":["Sum","SampleCount","Maximum"],"ExtendedStatistics":["p99"]}`, t0, t0+3600))
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var stats struct {
		Label      string
		Datapoints []struct {
			Timestamp                          float64
			Sum, SampleCount, Maximum, Average *float64
			Unit                               string
			ExtendedStatistics                 map[string]float64
		}
	}
	if err := json.Unmarshal(r.body, &stats); err != nil {
		t.Fatal(err)
	}
	if stats.Label != "Orders" || len(stats.Datapoints) != 1 {
		t.Fatalf("%s", r.body)
	}
	// Doubles as CloudWatch's Java front end writes them: botocore keeps
	// JSON numbers as they come, so the AWS CLI prints 15.0.
	if !bytes.Contains(r.body, []byte(`"Sum":15.0`)) || !bytes.Contains(r.body, []byte(`"SampleCount":6.0`)) {
		t.Errorf("whole doubles without their .0: %s", r.body)
	}
	d := stats.Datapoints[0]
	if int64(d.Timestamp) != t0 || *d.Sum != 15 || *d.SampleCount != 6 || *d.Maximum != 4 || d.Average != nil || d.Unit != "Count" ||
		!near(d.ExtendedStatistics["p99"], 4) {
		t.Fatalf("%s", r.body)
	}

	r = cwJSON(t, e.url, "GetMetricData", fmt.Sprintf(`{"StartTime":%d,"EndTime":%d,"MaxDatapoints":2,"ScanBy":"TimestampAscending",
		"MetricDataQueries":[{"Id":"a","MetricStat":{"Metric":{"Namespace":"Shop","MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}]},"Period":60,"Stat":"Sum"}},
		{"Id":"b","Label":"max","MetricStat":{"Metric":{"Namespace":"Shop","MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}]},"Period":60,"Stat":"Maximum"}}]}`, t0, t0+3600))
	var data struct {
		MetricDataResults []struct {
			ID         string `json:"Id"`
			Label      string
			Timestamps []float64
			Values     []float64
			StatusCode string
		}
		NextToken *string
		Messages  []any
	}
	if err := json.Unmarshal(r.body, &data); err != nil || r.status != 200 {
		t.Fatalf("%v %d %s", err, r.status, r.body)
	}
	if len(data.MetricDataResults) != 1 || data.MetricDataResults[0].ID != "a" || data.MetricDataResults[0].StatusCode != "PartialData" ||
		!slices.Equal(data.MetricDataResults[0].Values, []float64{3, 4}) || data.MetricDataResults[0].Timestamps[1] != float64(t0+60) ||
		data.NextToken == nil || data.Messages == nil {
		t.Fatalf("%s", r.body)
	}
	if !strings.Contains(string(r.body), `"Messages":[]`) {
		t.Fatalf("no Messages: %s", r.body)
	}
	r = cwJSON(t, e.url, "GetMetricData", fmt.Sprintf(`{"StartTime":%d,"EndTime":%d,"MaxDatapoints":2,"ScanBy":"TimestampAscending","NextToken":%q,
		"MetricDataQueries":[{"Id":"a","MetricStat":{"Metric":{"Namespace":"Shop","MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}]},"Period":60,"Stat":"Sum"}},
		{"Id":"b","Label":"max","MetricStat":{"Metric":{"Namespace":"Shop","MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}]},"Period":60,"Stat":"Maximum"}}]}`, t0, t0+3600, *data.NextToken))
	data.NextToken = nil
	if err := json.Unmarshal(r.body, &data); err != nil || r.status != 200 {
		t.Fatalf("%v %d %s", err, r.status, r.body)
	}
	if len(data.MetricDataResults) != 2 || !slices.Equal(data.MetricDataResults[0].Values, []float64{8}) || data.MetricDataResults[0].StatusCode != "Complete" ||
		data.MetricDataResults[1].Label != "max" || !slices.Equal(data.MetricDataResults[1].Values, []float64{3}) || data.NextToken == nil {
		t.Fatalf("%s", r.body)
	}

	r = cwJSON(t, e.url, "ListMetrics", `{"Dimensions":[{"Name":"Store","Value":"north"}]}`)
	if r.status != 200 || string(r.body) != `{"Metrics":[{"Namespace":"Shop","MetricName":"Orders","Dimensions":[{"Name":"Store","Value":"north"}]}]}` {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r = cwJSON(t, e.url, "ListMetrics", `{"Namespace":"Nope"}`)
	if r.status != 200 || string(r.body) != `{"Metrics":[]}` {
		t.Fatalf("%d %s", r.status, r.body)
	}
	// An empty body is an empty input.
	if r = cwJSON(t, e.url, "ListMetrics", ``); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}

	wantCWError(t, cwJSON(t, e.url, "GetMetricStatistics", `{"Namespace":"Shop","MetricName":"Orders","StartTime":1,"EndTime":2}`), 400, "MissingParameter")
	wantCWError(t, cwJSON(t, e.url, "GetMetricData", fmt.Sprintf(`{"StartTime":%d,"EndTime":%d,"MetricDataQueries":[{"Id":"e","Expression":"m1*2"}]}`, t0, t0+60)), 400, "ValidationError")
	wantCWError(t, cwJSON(t, e.url, "GetMetricData", fmt.Sprintf(`{"StartTime":%d,"EndTime":%d,"NextToken":"AQAA","MetricDataQueries":[{"Id":"a","MetricStat":{"Metric":{"Namespace":"Shop","MetricName":"Orders"},"Period":60,"Stat":"Sum"}}]}`, t0, t0+60)), 400, "InvalidNextToken")
}

// TestCloudWatchQuery drives the operations with the query protocol, as
// the AWS CLI v2.9 and older SDKs send it.
func TestCloudWatchQuery(t *testing.T) {
	e := startCloudWatch(t)
	t0 := cwNow.Add(-2 * time.Hour)
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	r := cwQuery(t, e.url, "PutMetricData", url.Values{
		"Namespace":                                       {"Jobs"},
		"MetricData.member.1.MetricName":                  {"Runs"},
		"MetricData.member.1.Dimensions.member.1.Name":    {"Queue"},
		"MetricData.member.1.Dimensions.member.1.Value":   {"fast"},
		"MetricData.member.1.Timestamp":                   {iso(t0)},
		"MetricData.member.1.Value":                       {"2"},
		"MetricData.member.1.Unit":                        {"Count"},
		"MetricData.member.2.MetricName":                  {"Runs"},
		"MetricData.member.2.Dimensions.member.1.Name":    {"Queue"},
		"MetricData.member.2.Dimensions.member.1.Value":   {"fast"},
		"MetricData.member.2.Timestamp":                   {iso(t0.Add(time.Minute))},
		"MetricData.member.2.Values.member.1":             {"1"},
		"MetricData.member.2.Values.member.2":             {"5"},
		"MetricData.member.2.Counts.member.1":             {"1"},
		"MetricData.member.2.Counts.member.2":             {"3"},
		"MetricData.member.2.Unit":                        {"Count"},
		"MetricData.member.3.MetricName":                  {"Runs"},
		"MetricData.member.3.Dimensions.member.1.Name":    {"Queue"},
		"MetricData.member.3.Dimensions.member.1.Value":   {"fast"},
		"MetricData.member.3.Timestamp":                   {iso(t0.Add(2 * time.Minute))},
		"MetricData.member.3.StatisticValues.SampleCount": {"2"},
		"MetricData.member.3.StatisticValues.Sum":         {"6"},
		"MetricData.member.3.StatisticValues.Minimum":     {"3"},
		"MetricData.member.3.StatisticValues.Maximum":     {"3"},
		"MetricData.member.3.Unit":                        {"Count"},
	})
	if r.status != 200 || r.header.Get("Content-Type") != "text/xml" || !strings.HasPrefix(string(r.body),
		`<PutMetricDataResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><ResponseMetadata><RequestId>`+r.header.Get("x-amzn-RequestId")) {
		t.Fatalf("%d %s", r.status, r.body)
	}

	r = cwQuery(t, e.url, "GetMetricStatistics", url.Values{
		"Namespace": {"Jobs"}, "MetricName": {"Runs"}, "Dimensions.member.1.Name": {"Queue"}, "Dimensions.member.1.Value": {"fast"},
		"StartTime": {iso(t0)}, "EndTime": {iso(t0.Add(time.Hour))}, "Period": {"60"},
		"Statistics.member.1": {"Sum"}, "Statistics.member.2": {"Minimum"}, "ExtendedStatistics.member.1": {"p99"},
	})
	var stats struct {
		XMLName xml.Name `xml:"GetMetricStatisticsResponse"`
		Label   string   `xml:"GetMetricStatisticsResult>Label"`
		Points  []struct {
			Timestamp    time.Time
			Sum, Minimum *float64
			Average      *float64
			Unit         string
			Extended     []struct {
				Key   string  `xml:"key"`
				Value float64 `xml:"value"`
			} `xml:"ExtendedStatistics>entry"`
		} `xml:"GetMetricStatisticsResult>Datapoints>member"`
		RequestID string `xml:"ResponseMetadata>RequestId"`
	}
	if err := xml.Unmarshal(r.body, &stats); err != nil || r.status != 200 {
		t.Fatalf("%v %d %s", err, r.status, r.body)
	}
	if stats.Label != "Runs" || len(stats.Points) != 3 || stats.RequestID != r.header.Get("x-amzn-RequestId") {
		t.Fatalf("%s", r.body)
	}
	for i, want := range []struct{ sum, min float64 }{{2, 2}, {16, 1}, {6, 3}} {
		p := stats.Points[i]
		if !p.Timestamp.Equal(t0.Add(time.Duration(i)*time.Minute)) || *p.Sum != want.sum || *p.Minimum != want.min || p.Average != nil ||
			p.Unit != "Count" || len(p.Extended) != 1 || p.Extended[0].Key != "p99" {
			t.Fatalf("%d: %s", i, r.body)
		}
	}

	form := url.Values{"StartTime": {iso(t0)}, "EndTime": {iso(t0.Add(time.Hour))}}
	for i, s := range []string{"Sum", "SampleCount"} {
		p := "MetricDataQueries.member." + strconv.Itoa(i+1) + "."
		form.Set(p+"Id", strings.ToLower(s))
		form.Set(p+"MetricStat.Metric.Namespace", "Jobs")
		form.Set(p+"MetricStat.Metric.MetricName", "Runs")
		form.Set(p+"MetricStat.Metric.Dimensions.member.1.Name", "Queue")
		form.Set(p+"MetricStat.Metric.Dimensions.member.1.Value", "fast")
		form.Set(p+"MetricStat.Period", "60")
		form.Set(p+"MetricStat.Stat", s)
		form.Set(p+"ReturnData", "true")
	}
	r = cwQuery(t, e.url, "GetMetricData", form)
	var data struct {
		Results []struct {
			ID         string      `xml:"Id"`
			Label      string      `xml:"Label"`
			Timestamps []time.Time `xml:"Timestamps>member"`
			Values     []float64   `xml:"Values>member"`
			StatusCode string      `xml:"StatusCode"`
		} `xml:"GetMetricDataResult>MetricDataResults>member"`
		NextToken string `xml:"GetMetricDataResult>NextToken"`
	}
	if err := xml.Unmarshal(r.body, &data); err != nil || r.status != 200 {
		t.Fatalf("%v %d %s", err, r.status, r.body)
	}
	if len(data.Results) != 2 || data.Results[0].ID != "sum" || !slices.Equal(data.Results[0].Values, []float64{6, 16, 2}) ||
		!data.Results[0].Timestamps[2].Equal(t0) || data.Results[1].Label != "Runs" || !slices.Equal(data.Results[1].Values, []float64{2, 4, 1}) ||
		data.Results[1].StatusCode != "Complete" || data.NextToken != "" {
		t.Fatalf("%s", r.body)
	}
	form.Set("MaxDatapoints", "4")
	r = cwQuery(t, e.url, "GetMetricData", form)
	data.Results = nil
	if err := xml.Unmarshal(r.body, &data); err != nil || r.status != 200 || data.NextToken == "" || len(data.Results) != 2 ||
		data.Results[1].StatusCode != "PartialData" {
		t.Fatalf("%v %d %s", err, r.status, r.body)
	}
	form.Set("NextToken", data.NextToken)
	data.NextToken, data.Results = "", nil
	r = cwQuery(t, e.url, "GetMetricData", form)
	if err := xml.Unmarshal(r.body, &data); err != nil || r.status != 200 || data.NextToken != "" || len(data.Results) != 1 ||
		!slices.Equal(data.Results[0].Values, []float64{4, 1}) {
		t.Fatalf("%v %d %s", err, r.status, r.body)
	}
	form.Set("NextToken", "x"+data.NextToken)
	wantCWError(t, cwQuery(t, e.url, "GetMetricData", form), 400, "InvalidNextToken")

	r = cwQuery(t, e.url, "ListMetrics", url.Values{"Dimensions.member.1.Name": {"Queue"}})
	want := `<ListMetricsResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><ListMetricsResult><Metrics><member>` +
		`<Namespace>Jobs</Namespace><MetricName>Runs</MetricName><Dimensions><member><Name>Queue</Name><Value>fast</Value></member></Dimensions>` +
		`</member></Metrics></ListMetricsResult><ResponseMetadata><RequestId>` + r.header.Get("x-amzn-RequestId") +
		`</RequestId></ResponseMetadata></ListMetricsResponse>`
	if r.status != 200 || string(r.body) != want {
		t.Fatalf("%d %s", r.status, r.body)
	}

	wantCWError(t, cwQuery(t, e.url, "GetMetricStatistics", url.Values{"Namespace": {"Jobs"}, "MetricName": {"Runs"},
		"StartTime": {iso(t0)}, "EndTime": {iso(t0.Add(time.Hour))}, "Period": {"60"}}), 400, "MissingParameter")
	wantCWError(t, cwQuery(t, e.url, "GetMetricStatistics", url.Values{"Namespace": {"Jobs"}, "MetricName": {"Runs"},
		"StartTime": {iso(t0)}, "EndTime": {iso(t0.Add(time.Hour))}, "Period": {"61"}, "Statistics.member.1": {"Sum"}}), 400, "InvalidParameterValue")
	wantCWError(t, cwQuery(t, e.url, "PutMetricData", url.Values{"Namespace": {"Jobs"},
		"MetricData.member.1.MetricName": {"Runs"}, "MetricData.member.1.StatisticValues.Sum": {"1"}}), 400, "MissingParameter")
}

// TestCloudWatchCompressedQuery checks that a gzipped form, as query SDKs
// send a large PutMetricData, is recognised and read.
func TestCloudWatchCompressedQuery(t *testing.T) {
	e := startCloudWatch(t)
	form := url.Values{"Action": {"PutMetricData"}, "Version": {"2010-08-01"}, "Namespace": {"Z"},
		"MetricData.member.1.MetricName": {"M"}, "MetricData.member.1.Value": {"7"}}
	r := cwPost(t, e.url, "/", []byte(gzipped(t, []byte(form.Encode()))), "Content-Type", "application/x-www-form-urlencoded", "Content-Encoding", "gzip")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	r = cwJSON(t, e.url, "ListMetrics", `{"Namespace":"Z"}`)
	if !strings.Contains(string(r.body), `"MetricName":"M"`) {
		t.Fatalf("%s", r.body)
	}
	r = cwPost(t, e.url, "/", []byte(gzipped(t, []byte(`{"Namespace":"Z","MetricData":[{"MetricName":"N","Value":1}]}`))),
		"X-Amz-Target", "GraniteServiceVersion20100801.PutMetricData", "Content-Type", "application/x-amz-json-1.0", "Content-Encoding", "gzip")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	wantCWError(t, cwPost(t, e.url, "/", []byte("not gzip"),
		"X-Amz-Target", "GraniteServiceVersion20100801.PutMetricData", "Content-Type", "application/x-amz-json-1.0", "Content-Encoding", "gzip"), 400, "BadRequest")
}

// TestCloudWatchMalformed checks that bodies that do not fit the shapes get
// a 400 in the protocol's shape, never a 500.
func TestCloudWatchMalformed(t *testing.T) {
	e := startCloudWatch(t)
	now := float64(cwNow.Unix())
	tag := func(v any) cbor.Tag { return cbor.Tag{Number: 1, Content: v} }
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = map[string]any{"MetricName": "M", "Value": 1.0}
	}
	for _, tc := range []struct {
		name string
		body any
		op   string
		code string
	}{
		{"garbage", []byte{0xff, 0x00, 0x13}, "ListMetrics", "InvalidParameterValue"},
		{"truncated", []byte{0xa1, 0x69, 'N', 'a', 'm'}, "ListMetrics", "InvalidParameterValue"},
		{"array", []any{1, 2}, "ListMetrics", "InvalidParameterValue"},
		{"trailing", append(must(cbor.Marshal(map[string]any{})), 0x01), "ListMetrics", "InvalidParameterValue"},
		{"type=namespace", map[string]any{"Namespace": 5}, "ListMetrics", "InvalidParameterValue"},
		{"type=period", map[string]any{"Namespace": "A", "MetricName": "B", "StartTime": tag(now - 60), "EndTime": tag(now), "Period": "60", "Statistics": []string{"Sum"}}, "GetMetricStatistics", "InvalidParameterValue"},
		{"overflow=period", map[string]any{"Namespace": "A", "MetricName": "B", "StartTime": tag(now - 60), "EndTime": tag(now), "Period": int64(1) << 40, "Statistics": []string{"Sum"}}, "GetMetricStatistics", "InvalidParameterValue"},
		{"time=tag0", map[string]any{"Namespace": "A", "MetricName": "B", "StartTime": cbor.Tag{Number: 0, Content: "2026-01-01T00:00:00Z"}, "EndTime": tag(now), "Period": 60, "Statistics": []string{"Sum"}}, "GetMetricStatistics", "InvalidParameterValue"},
		{"time=string", map[string]any{"Namespace": "A", "MetricName": "B", "StartTime": tag("yesterday"), "EndTime": tag(now), "Period": 60, "Statistics": []string{"Sum"}}, "GetMetricStatistics", "InvalidParameterValue"},
		{"time=huge", map[string]any{"Namespace": "A", "MetricName": "B", "StartTime": tag(1e300), "EndTime": tag(now), "Period": 60, "Statistics": []string{"Sum"}}, "GetMetricStatistics", "InvalidParameterValue"},
		{"time=nan", map[string]any{"Namespace": "A", "MetricName": "B", "StartTime": tag(math.NaN()), "EndTime": tag(now), "Period": 60, "Statistics": []string{"Sum"}}, "GetMetricStatistics", "InvalidParameterValue"},
		{"value=nan", map[string]any{"Namespace": "A", "MetricData": []any{map[string]any{"MetricName": "M", "Value": math.NaN()}}}, "PutMetricData", "InvalidParameterValue"},
		{"value=inf", map[string]any{"Namespace": "A", "MetricData": []any{map[string]any{"MetricName": "M", "Values": []float64{math.Inf(1)}}}}, "PutMetricData", "InvalidParameterValue"},
		{"oversize=data", map[string]any{"Namespace": "A", "MetricData": many}, "PutMetricData", "InvalidParameterValue"},
		{"oversize=dimensions", map[string]any{"Namespace": "A", "MetricData": []any{map[string]any{"MetricName": "M", "Value": 1.0,
			"Dimensions": slices.Repeat([]map[string]string{{"Name": "a", "Value": "b"}}, 31)}}}, "PutMetricData", "InvalidParameterValue"},
		{"oversize=queries", map[string]any{"StartTime": tag(now - 60), "EndTime": tag(now), "MetricDataQueries": slices.Repeat([]map[string]any{{"Id": "a"}}, 501)}, "GetMetricData", "InvalidParameterValue"},
		{"missing=namespace", map[string]any{"MetricData": []any{map[string]any{"MetricName": "M", "Value": 1.0}}}, "PutMetricData", "MissingParameter"},
		{"missing=metric-name", map[string]any{"Namespace": "A", "MetricData": []any{map[string]any{"Value": 1.0}}}, "PutMetricData", "MissingParameter"},
		{"missing=queries", map[string]any{"StartTime": tag(now - 60), "EndTime": tag(now)}, "GetMetricData", "MissingParameter"},
		{"missing=metric-stat", map[string]any{"StartTime": tag(now - 60), "EndTime": tag(now), "MetricDataQueries": []any{map[string]any{"Id": "a"}}}, "GetMetricData", "InvalidParameterCombination"},
		{"nul=name", map[string]any{"Namespace": "A", "MetricData": []any{map[string]any{"MetricName": "M\x00x", "Value": 1.0}}}, "PutMetricData", "InvalidParameterValue"},
		{"long=name", map[string]any{"Namespace": strings.Repeat("n", 256), "MetricData": []any{map[string]any{"MetricName": "M", "Value": 1.0}}}, "PutMetricData", "InvalidParameterValue"},
		{"colon=namespace", map[string]any{"Namespace": ":x"}, "ListMetrics", "InvalidParameterValue"},
		{"bad=max-datapoints", map[string]any{"StartTime": tag(now - 60), "EndTime": tag(now), "MaxDatapoints": 0, "MetricDataQueries": []any{map[string]any{"Id": "a"}}}, "GetMetricData", "InvalidParameterValue"},
		{"bad=resolution", map[string]any{"Namespace": "A", "MetricData": []any{map[string]any{"MetricName": "M", "Value": 1.0, "StorageResolution": 5}}}, "PutMetricData", "InvalidParameterValue"},
		{"bad=recently-active", map[string]any{"RecentlyActive": "PT1H"}, "ListMetrics", "InvalidParameterValue"},
		{"oversize=filters", map[string]any{"Dimensions": slices.Repeat([]map[string]string{{"Name": "a"}}, 11)}, "ListMetrics", "InvalidParameterValue"},
	} {
		t.Run("cbor/"+tc.name, func(t *testing.T) {
			wantCWError(t, cwCBOR(t, e.url, tc.op, tc.body), 400, tc.code)
		})
	}
	for _, tc := range []struct{ name, op, body, code string }{
		{"not-json", "ListMetrics", `hello`, "InvalidParameterValue"},
		{"truncated", "ListMetrics", `{"Namespace":`, "InvalidParameterValue"},
		{"array", "ListMetrics", `[1]`, "InvalidParameterValue"},
		{"type=dimensions", "ListMetrics", `{"Dimensions":{"Name":"a"}}`, "InvalidParameterValue"},
		{"type=value", "PutMetricData", `{"Namespace":"A","MetricData":[{"MetricName":"M","Value":"1"}]}`, "InvalidParameterValue"},
		{"type=period", "GetMetricStatistics", `{"Namespace":"A","MetricName":"B","StartTime":1,"EndTime":2,"Period":60.5,"Statistics":["Sum"]}`, "InvalidParameterValue"},
		{"time=word", "GetMetricStatistics", `{"Namespace":"A","MetricName":"B","StartTime":"yesterday","EndTime":2,"Period":60,"Statistics":["Sum"]}`, "InvalidParameterValue"},
		{"time=object", "GetMetricStatistics", `{"Namespace":"A","MetricName":"B","StartTime":{},"EndTime":2,"Period":60,"Statistics":["Sum"]}`, "InvalidParameterValue"},
		{"time=huge", "GetMetricStatistics", `{"Namespace":"A","MetricName":"B","StartTime":1e300,"EndTime":2,"Period":60,"Statistics":["Sum"]}`, "InvalidParameterValue"},
		{"value=huge", "PutMetricData", `{"Namespace":"A","MetricData":[{"MetricName":"M","Value":1e309}]}`, "InvalidParameterValue"},
		{"oversize=values", "PutMetricData", `{"Namespace":"A","MetricData":[{"MetricName":"M","Values":[` + strings.Repeat("1,", 150) + `1]}]}`, "InvalidParameterValue"},
		{"bad=statistic", "GetMetricStatistics", `{"Namespace":"A","MetricName":"B","StartTime":1795000000,"EndTime":1795003600,"Period":60,"Statistics":["Median"]}`, "InvalidParameterValue"},
		{"bad=stat", "GetMetricData", `{"StartTime":1795000000,"EndTime":1795003600,"MetricDataQueries":[{"Id":"a","MetricStat":{"Metric":{"Namespace":"A","MetricName":"B"},"Period":60,"Stat":"TM(10%:90%)"}}]}`, "InvalidParameterValue"},
		{"bad=scan-by", "GetMetricData", `{"StartTime":1795000000,"EndTime":1795003600,"ScanBy":"Sideways","MetricDataQueries":[{"Id":"a","MetricStat":{"Metric":{"Namespace":"A","MetricName":"B"},"Period":60,"Stat":"Sum"}}]}`, "InvalidParameterValue"},
		{"missing=dimension-value", "PutMetricData", `{"Namespace":"A","MetricData":[{"MetricName":"M","Value":1,"Dimensions":[{"Name":"a"}]}]}`, "MissingParameter"},
		{"missing=start", "GetMetricData", `{"EndTime":1795003600,"MetricDataQueries":[{"Id":"a","MetricStat":{"Metric":{"Namespace":"A","MetricName":"B"},"Period":60,"Stat":"Sum"}}]}`, "MissingParameter"},
	} {
		t.Run("json/"+tc.name, func(t *testing.T) {
			wantCWError(t, cwJSON(t, e.url, tc.op, tc.body), 400, tc.code)
		})
	}
	for _, tc := range []struct {
		name, op string
		form     url.Values
		code     string
	}{
		{"index=zero", "ListMetrics", url.Values{"Dimensions.member.0.Name": {"a"}}, "InvalidParameterValue"},
		{"index=word", "ListMetrics", url.Values{"Dimensions.member.x.Name": {"a"}}, "InvalidParameterValue"},
		{"index=huge", "ListMetrics", url.Values{"Dimensions.member.99999999999.Name": {"a"}}, "InvalidParameterValue"},
		{"index=gap", "ListMetrics", url.Values{"Dimensions.member.1.Name": {"a"}, "Dimensions.member.3.Name": {"b"}}, "InvalidParameterValue"},
		{"utf8", "ListMetrics", url.Values{"Namespace": {"\xff\xfe"}}, "InvalidParameterValue"},
		{"type=value", "PutMetricData", url.Values{"Namespace": {"A"}, "MetricData.member.1.MetricName": {"M"}, "MetricData.member.1.Value": {"one"}}, "InvalidParameterValue"},
		{"type=period", "GetMetricStatistics", url.Values{"Namespace": {"A"}, "MetricName": {"B"}, "StartTime": {"2026-11-24T10:00:00Z"},
			"EndTime": {"2026-11-24T11:00:00Z"}, "Period": {"99999999999"}, "Statistics.member.1": {"Sum"}}, "InvalidParameterValue"},
		{"type=bool", "GetMetricData", url.Values{"StartTime": {"2026-11-24T10:00:00Z"}, "EndTime": {"2026-11-24T11:00:00Z"},
			"MetricDataQueries.member.1.Id": {"a"}, "MetricDataQueries.member.1.ReturnData": {"yes"}}, "InvalidParameterValue"},
		{"time=word", "GetMetricStatistics", url.Values{"Namespace": {"A"}, "MetricName": {"B"}, "StartTime": {"yesterday"},
			"EndTime": {"2026-11-24T11:00:00Z"}, "Period": {"60"}, "Statistics.member.1": {"Sum"}}, "InvalidParameterValue"},
		{"oversize=values", "PutMetricData", func() url.Values {
			v := url.Values{"Namespace": {"A"}, "MetricData.member.1.MetricName": {"M"}}
			for i := 1; i <= 151; i++ {
				v.Set("MetricData.member.1.Values.member."+strconv.Itoa(i), "1")
			}
			return v
		}(), "InvalidParameterValue"},
		{"oversize=data", "PutMetricData", url.Values{"Namespace": {"A"}, "MetricData.member.1001.MetricName": {"M"}}, "InvalidParameterValue"},
	} {
		t.Run("query/"+tc.name, func(t *testing.T) {
			wantCWError(t, cwQuery(t, e.url, tc.op, tc.form), 400, tc.code)
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// FuzzCloudWatch feeds arbitrary bodies to the four operations in each
// protocol: the answer is a 200 or a shaped 4xx, never a 500 or a panic.
func FuzzCloudWatch(f *testing.F) {
	st := metrics.New(metrics.Config{Now: func() time.Time { return cwNow }})
	s, err := httpfront.NewServer(servertest.Logger(), httpfront.ServerOptions{DefaultRegion: "us-east-1", MaxBodyBytes: 1 << 20,
		CloudWatch: func(awswire.Scope) *metrics.Store { return st }})
	if err != nil {
		f.Fatal(err)
	}
	now := float64(cwNow.Unix())
	for _, seed := range []any{
		map[string]any{"Namespace": "A", "MetricData": []any{map[string]any{"MetricName": "M", "Value": 1.0, "Timestamp": cbor.Tag{Number: 1, Content: now}}}},
		map[string]any{"Namespace": "A", "MetricName": "M", "StartTime": cbor.Tag{Number: 1, Content: now - 600}, "EndTime": cbor.Tag{Number: 1, Content: now},
			"Period": 60, "Statistics": []string{"Sum"}, "ExtendedStatistics": []string{"p99"}},
		map[string]any{"StartTime": cbor.Tag{Number: 1, Content: now - 600}, "EndTime": cbor.Tag{Number: 1, Content: now}, "MaxDatapoints": 1,
			"MetricDataQueries": []any{map[string]any{"Id": "a", "MetricStat": map[string]any{"Metric": map[string]any{"Namespace": "A", "MetricName": "M"}, "Period": 60, "Stat": "Sum"}}}},
		map[string]any{"Dimensions": []any{map[string]any{"Name": "a"}}},
	} {
		f.Add(uint8(0), uint8(0), must(cbor.Marshal(seed)))
	}
	f.Add(uint8(1), uint8(0), []byte(`{"Namespace":"A","MetricData":[{"MetricName":"M","Values":[1,2],"Counts":[1,1]}]}`))
	f.Add(uint8(1), uint8(2), []byte(fmt.Sprintf(`{"StartTime":%v,"EndTime":%v,"MetricDataQueries":[{"Id":"a","MetricStat":{"Metric":{"Namespace":"A","MetricName":"M"},"Period":60,"Stat":"p50"}}]}`, now-600, now)))
	f.Add(uint8(2), uint8(0), []byte("Namespace=A&MetricData.member.1.MetricName=M&MetricData.member.1.Value=1"))
	f.Add(uint8(2), uint8(1), []byte("Namespace=A&MetricName=M&StartTime=2026-11-24T11:00:00Z&EndTime=2026-11-24T12:00:00Z&Period=60&Statistics.member.1=Sum"))
	f.Add(uint8(2), uint8(3), []byte("Dimensions.member.1.Name=a&Dimensions.member.1.Value=b"))
	ops := []string{"PutMetricData", "GetMetricStatistics", "GetMetricData", "ListMetrics"}
	f.Fuzz(func(t *testing.T, proto, op uint8, body []byte) {
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		name := ops[int(op)%len(ops)]
		switch proto % 3 {
		case 0:
			req.SetRequestURI("/service/GraniteServiceVersion20100801/operation/" + name)
			req.Header.Set("Smithy-Protocol", "rpc-v2-cbor")
			req.Header.SetContentType("application/cbor")
			req.SetBody(body)
		case 1:
			req.SetRequestURI("/")
			req.Header.Set("X-Amz-Target", "GraniteServiceVersion20100801."+name)
			req.Header.SetContentType("application/x-amz-json-1.0")
			req.SetBody(body)
		default:
			req.SetRequestURI("/")
			req.Header.SetContentType("application/x-www-form-urlencoded")
			req.SetBody(append([]byte("Action="+name+"&Version=2010-08-01&"), body...))
		}
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, nil, nil)
		s.Handle(&ctx)
		if code := ctx.Response.StatusCode(); code != 200 && (code < 400 || code >= 500) {
			t.Fatalf("%s %s: %d %s", name, body, code, ctx.Response.Body())
		}
		if len(ctx.Response.Header.Peek("x-amzn-RequestId")) == 0 {
			t.Fatal("no request id")
		}
	})
}

// TestCloudWatchBoto3 drives the served operations with boto3 (JSON 1.0)
// when python3 has it.
func TestCloudWatchBoto3(t *testing.T) {
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		t.Skip("python3 with boto3 is not available")
	}
	e := startCloudWatch(t)
	script := `
import boto3, datetime, json, sys
now = datetime.datetime.fromtimestamp(int(sys.argv[2]), datetime.timezone.utc)
c = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1",
                 aws_access_key_id="test", aws_secret_access_key="test")
t0 = now - datetime.timedelta(minutes=30)
c.put_metric_data(Namespace="Py", MetricData=[
    {"MetricName": "Hits", "Dimensions": [{"Name": "Page", "Value": "home"}], "Timestamp": t0, "Value": 4, "Unit": "Count"},
    {"MetricName": "Hits", "Dimensions": [{"Name": "Page", "Value": "home"}], "Timestamp": t0, "Values": [1, 2], "Counts": [1, 2], "Unit": "Count"},
])
s = c.get_metric_statistics(Namespace="Py", MetricName="Hits", Dimensions=[{"Name": "Page", "Value": "home"}],
    StartTime=t0, EndTime=now, Period=60, Statistics=["Sum", "SampleCount", "Maximum"], ExtendedStatistics=["p99"])
d = c.get_metric_data(StartTime=t0, EndTime=now, MetricDataQueries=[
    {"Id": "a", "MetricStat": {"Metric": {"Namespace": "Py", "MetricName": "Hits", "Dimensions": [{"Name": "Page", "Value": "home"}]}, "Period": 60, "Stat": "Sum"}},
    {"Id": "b", "MetricStat": {"Metric": {"Namespace": "Py", "MetricName": "Hits", "Dimensions": [{"Name": "Page", "Value": "home"}]}, "Period": 60, "Stat": "Average"}}])
l = c.list_metrics(Namespace="Py")
try:
    c.get_metric_statistics(Namespace="Py", MetricName="Hits", StartTime=t0, EndTime=now, Period=7, Statistics=["Sum"])
    err = None
except c.exceptions.InvalidParameterValueException as e:
    err = e.response["Error"]["Code"]
dp = s["Datapoints"][0]
print(json.dumps({"sum": dp["Sum"], "count": dp["SampleCount"], "max": dp["Maximum"], "p99": dp["ExtendedStatistics"]["p99"],
    "ts": dp["Timestamp"].timestamp(), "a": d["MetricDataResults"][0]["Values"], "b": d["MetricDataResults"][1]["Values"],
    "status": d["MetricDataResults"][0]["StatusCode"], "metrics": [m["MetricName"] for m in l["Metrics"]], "err": err}))
`
	path := filepath.Join(t.TempDir(), "cw.py")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", path, e.url, strconv.FormatInt(cwNow.Unix(), 10))
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%v: %s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got struct {
		Sum, Count, Max, P99, Ts float64
		A, B                     []float64
		Status, Err              string
		Metrics                  []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Sum != 9 || got.Count != 4 || got.Max != 4 || !near(got.P99, 4) || got.Ts != float64(cwNow.Add(-30*time.Minute).Unix()) ||
		!slices.Equal(got.A, []float64{9}) || !slices.Equal(got.B, []float64{2.25}) || got.Status != "Complete" ||
		!slices.Equal(got.Metrics, []string{"Hits"}) || got.Err != "InvalidParameterValue" {
		t.Fatalf("%s", out)
	}
}
