package apigatewayv2http_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestNameLimits: names past the model's lengths or holding control
// characters get a BadRequestException, never a 5xx.
func TestNameLimits(t *testing.T) {
	srv := servertest.Start(t)
	c := apigatewayv2.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *apigatewayv2.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
	ctx := context.Background()
	for _, tc := range []struct{ label, name string }{
		{"nul", "nul\x00"}, {"newline", "line\nbreak"}, {"129", strings.Repeat("n", 129)}, {"1MB", strings.Repeat("n", 1<<20)},
	} {
		t.Run("api/name="+tc.label, func(t *testing.T) {
			_, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String(tc.name), ProtocolType: "HTTP"})
			servertest.WantAPIError(t, err, "BadRequestException", "")
		})
		t.Run("vpclink/name="+tc.label, func(t *testing.T) {
			_, err := c.CreateVpcLink(ctx, &apigatewayv2.CreateVpcLinkInput{Name: aws.String(tc.name), SubnetIds: []string{"subnet-1"}})
			servertest.WantAPIError(t, err, "BadRequestException", "")
		})
	}
	if _, err := c.CreateApi(ctx, &apigatewayv2.CreateApiInput{Name: aws.String(strings.Repeat("n", 128)), ProtocolType: "HTTP"}); err != nil {
		t.Fatalf("a 128-character name: %v", err)
	}
}
