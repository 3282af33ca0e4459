package apigatewayhttp_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/cloudemu/emulator/server/servertest"
)

func TestRestAPILifecycle(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	out, err := c.CreateRestApi(ctx, &apigateway.CreateRestApiInput{
		Name: aws.String("api-1"), Description: aws.String("first"),
		Tags: map[string]string{"team": "x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(out.Id)
	if len(id) != 10 || aws.ToString(out.RootResourceId) == "" || out.ApiKeySource != types.ApiKeySourceTypeHeader ||
		len(out.EndpointConfiguration.Types) != 1 || out.EndpointConfiguration.Types[0] != types.EndpointTypeEdge ||
		out.CreatedDate == nil || time.Since(*out.CreatedDate) > time.Minute || out.Tags["team"] != "x" {
		t.Fatalf("create: %+v", out)
	}
	got, err := c.GetRestApi(ctx, &apigateway.GetRestApiInput{RestApiId: out.Id})
	if err != nil || aws.ToString(got.Name) != "api-1" || aws.ToString(got.Description) != "first" {
		t.Fatalf("get: %v %+v", err, got)
	}
	upd, err := c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: out.Id, PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String("renamed")},
		{Op: types.OpReplace, Path: aws.String("/disableExecuteApiEndpoint"), Value: aws.String("true")},
	}})
	if err != nil || aws.ToString(upd.Name) != "renamed" || !upd.DisableExecuteApiEndpoint {
		t.Fatalf("update: %v %+v", err, upd)
	}
	_, err = c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: out.Id, PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/nope"), Value: aws.String("x")}}})
	servertest.WantAPIError(t, err, "BadRequestException", "Invalid patch path /nope")
	list, err := c.GetRestApis(ctx, &apigateway.GetRestApisInput{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v %+v", err, list)
	}
	if _, err := c.DeleteRestApi(ctx, &apigateway.DeleteRestApiInput{RestApiId: out.Id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetRestApi(ctx, &apigateway.GetRestApiInput{RestApiId: out.Id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":"+id)
}
