package apigatewayhttp_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/smithy-go"

	"github.com/cloudemu/emulator/server/servertest"
)

const account = "000000000000"

func client(srv *servertest.Server, region, accessKey string) *apigateway.Client {
	return apigateway.NewFromConfig(servertest.AWSConfig(region, accessKey), func(o *apigateway.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}

func start(t *testing.T, opts ...servertest.Option) (*servertest.Server, *apigateway.Client) {
	t.Helper()
	srv := servertest.Start(t, opts...)
	return srv, client(srv, "us-east-1", "test")
}

// wantErr fails unless err is an API error with code and, if msg is not
// empty, exactly that message.
func wantErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want %s, got %v", code, err)
	}
	if ae.ErrorCode() != code || (msg != "" && ae.ErrorMessage() != msg) {
		t.Fatalf("want %s %q, got %s %q", code, msg, ae.ErrorCode(), ae.ErrorMessage())
	}
}
