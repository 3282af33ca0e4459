package apigatewayhttp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestRestAPILimits: names, descriptions, policies and tags past the
// limits are refused with AWS's BadRequestException, never a 5xx.
func TestRestAPILimits(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	manyTags := map[string]string{}
	for i := range 51 {
		manyTags[fmt.Sprint("k", i)] = "v"
	}
	for _, tc := range []struct {
		name string
		in   apigateway.CreateRestApiInput
	}{
		{"name=1MB", apigateway.CreateRestApiInput{Name: aws.String(strings.Repeat("n", 1<<20))}},
		{"name=1025", apigateway.CreateRestApiInput{Name: aws.String(strings.Repeat("n", 1025))}},
		{"name=nul", apigateway.CreateRestApiInput{Name: aws.String("bad\x00name")}},
		{"name=newline", apigateway.CreateRestApiInput{Name: aws.String("bad\nname")}},
		{"description=long", apigateway.CreateRestApiInput{Name: aws.String("n"), Description: aws.String(strings.Repeat("d", 4097))}},
		{"policy=long", apigateway.CreateRestApiInput{Name: aws.String("n"), Policy: aws.String(strings.Repeat("p", 8193))}},
		{"tags=51", apigateway.CreateRestApiInput{Name: aws.String("n"), Tags: manyTags}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateRestApi(ctx, &tc.in)
			servertest.WantAPIError(t, err, "BadRequestException", "")
		})
	}
	api, err := c.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String(strings.Repeat("n", 1024))})
	if err != nil {
		t.Fatalf("a 1024-character name: %v", err)
	}
	_, err = c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: api.Id,
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String("nul\x00")}}})
	servertest.WantAPIError(t, err, "BadRequestException", "Invalid REST API name specified")
}
