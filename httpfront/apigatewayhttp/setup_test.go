package apigatewayhttp_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"

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
