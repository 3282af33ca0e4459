package httpfront_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/smithy-go"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestCloudWatchIsRecognised checks that CloudWatch requests, in each of the
// three protocols its clients use, are told apart before path routing and
// answered NotImplemented in a shape the client parses.
func TestCloudWatchIsRecognised(t *testing.T) {
	srv := servertest.Start(t)
	t.Run("protocol=rpc-v2-cbor", func(t *testing.T) {
		c := cloudwatch.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *cloudwatch.Options) {
			o.BaseEndpoint = aws.String(srv.URL)
		})
		_, err := c.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "NotImplemented" || !strings.Contains(ae.ErrorMessage(), "ListMetrics") {
			t.Fatalf("want NotImplemented naming ListMetrics, got %v", err)
		}
	})
	t.Run("protocol=json", func(t *testing.T) {
		r := do(t, srv, "POST", "/", `{}`, "X-Amz-Target", "GraniteServiceVersion20100801.PutMetricData",
			"Content-Type", "application/x-amz-json-1.0")
		if r.status != 501 || r.json["__type"] != "NotImplemented" || !strings.Contains(r.json["message"].(string), "PutMetricData") ||
			r.header.Get("x-amzn-query-error") != "NotImplemented;Sender" {
			t.Fatalf("%d %v %s", r.status, r.header, r.body)
		}
	})
	t.Run("protocol=query", func(t *testing.T) {
		r := do(t, srv, "POST", "/", "Action=GetMetricData&Version=2010-08-01",
			"Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		if r.status != 501 || !strings.Contains(string(r.body), "<Code>NotImplemented</Code>") ||
			!strings.Contains(string(r.body), "GetMetricData") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("not-cloudwatch", func(t *testing.T) {
		wantError(t, do(t, srv, "POST", "/", "Action=Nope&Version=2011-01-01",
			"Content-Type", "application/x-www-form-urlencoded"), 404, "UnknownOperationException", "message")
	})
}
