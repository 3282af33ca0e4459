package apigatewayhttp_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/cloudemu/emulator/server/servertest"
)

func TestRequestValidatorLifecycle(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)

	// Both flags default to false and are always on the wire (B.8).
	r := mdlRaw(t, srv, "POST", "/restapis/"+id+"/requestvalidators", `{"name":"plain"}`)
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	for _, m := range []string{"validateRequestBody", "validateRequestParameters"} {
		if v, ok := r.member(t, m); !ok || v != false {
			t.Fatalf("%s: %s", m, r.body)
		}
	}
	v, err := c.CreateRequestValidator(ctx, &apigateway.CreateRequestValidatorInput{RestApiId: &id,
		Name: aws.String("body"), ValidateRequestBody: true})
	if err != nil || !mdlShortID.MatchString(aws.ToString(v.Id)) || !v.ValidateRequestBody || v.ValidateRequestParameters {
		t.Fatalf("create: %v %+v", err, v)
	}
	_, err = c.CreateRequestValidator(ctx, &apigateway.CreateRequestValidatorInput{RestApiId: &id, Name: aws.String("body")})
	servertest.WantAPIError(t, err, "ConflictException", "Request Validator name must be unique")

	op := func(o types.Op, path string, value *string) types.PatchOperation {
		return types.PatchOperation{Op: o, Path: aws.String(path), Value: value}
	}
	upd, err := c.UpdateRequestValidator(ctx, &apigateway.UpdateRequestValidatorInput{RestApiId: &id, RequestValidatorId: v.Id,
		PatchOperations: []types.PatchOperation{
			op(types.OpReplace, "/name", aws.String("both")),
			op(types.OpReplace, "/validateRequestParameters", aws.String("true")),
			op(types.OpReplace, "/validateRequestBody", nil), // no value is false (B.8)
		}})
	if err != nil || aws.ToString(upd.Name) != "both" || !upd.ValidateRequestParameters || upd.ValidateRequestBody {
		t.Fatalf("update: %v %+v", err, upd)
	}
	got, err := c.GetRequestValidator(ctx, &apigateway.GetRequestValidatorInput{RestApiId: &id, RequestValidatorId: v.Id})
	if err != nil || aws.ToString(got.Name) != "both" {
		t.Fatalf("get: %v %+v", err, got)
	}

	page, err := c.GetRequestValidators(ctx, &apigateway.GetRequestValidatorsInput{RestApiId: &id, Limit: aws.Int32(1)})
	if err != nil || len(page.Items) != 1 || page.Position == nil {
		t.Fatalf("page 1: %v %+v", err, page)
	}
	page2, err := c.GetRequestValidators(ctx, &apigateway.GetRequestValidatorsInput{RestApiId: &id, Limit: aws.Int32(1), Position: page.Position})
	if err != nil || len(page2.Items) != 1 || page2.Position != nil || aws.ToString(page2.Items[0].Id) == aws.ToString(page.Items[0].Id) {
		t.Fatalf("page 2: %v %+v", err, page2)
	}

	if _, err := c.DeleteRequestValidator(ctx, &apigateway.DeleteRequestValidatorInput{RestApiId: &id, RequestValidatorId: v.Id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetRequestValidator(ctx, &apigateway.GetRequestValidatorInput{RestApiId: &id, RequestValidatorId: v.Id})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Request Validator identifier specified") // RV-03
	list, err := c.GetRequestValidators(ctx, &apigateway.GetRequestValidatorsInput{RestApiId: &id})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v %+v", err, list)
	}
}

func TestRequestValidatorErrors(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)
	v, err := c.CreateRequestValidator(ctx, &apigateway.CreateRequestValidatorInput{RestApiId: &id, Name: aws.String("v")})
	if err != nil {
		t.Fatal(err)
	}
	for _, api := range []string{"test-fake-rest-id", "api_id"} { // RV-01, RV-09
		_, err := c.CreateRequestValidator(ctx, &apigateway.CreateRequestValidatorInput{RestApiId: aws.String(api),
			Name: aws.String("v"), ValidateRequestBody: true})
		servertest.WantAPIError(t, err, "BadRequestException", "Invalid REST API identifier specified")
	}
	_, err = c.GetRequestValidators(ctx, &apigateway.GetRequestValidatorsInput{RestApiId: aws.String("api_id")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid API identifier specified "+account+":api_id") // RV-02, RV-06
	for _, tc := range []struct{ name, api, vid string }{
		{"RV-04", "api_id", aws.ToString(v.Id)},
		{"RV-05", id, "validator_id"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			_, err := c.GetRequestValidator(ctx, &apigateway.GetRequestValidatorInput{RestApiId: &tc.api, RequestValidatorId: &tc.vid})
			servertest.WantAPIError(t, err, "NotFoundException", "Invalid Request Validator identifier specified")
			_, err = c.DeleteRequestValidator(ctx, &apigateway.DeleteRequestValidatorInput{RestApiId: &tc.api, RequestValidatorId: &tc.vid})
			servertest.WantAPIError(t, err, "NotFoundException", "Invalid Request Validator identifier specified") // RV-07, RV-08
			_, err = c.UpdateRequestValidator(ctx, &apigateway.UpdateRequestValidatorInput{RestApiId: &tc.api, RequestValidatorId: &tc.vid,
				PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/name"), Value: aws.String("x")}}})
			servertest.WantAPIError(t, err, "NotFoundException", "Invalid Request Validator identifier specified")
		})
	}
	for _, tc := range []struct {
		name      string
		op        types.PatchOperation
		code, msg string
	}{
		{"RV-10", types.PatchOperation{Op: types.OpAdd, Path: aws.String("/validateRequestBody"), Value: aws.String("true")},
			"BadRequestException", "Invalid patch path  '/validateRequestBody' specified for op 'add'. Please choose supported operations"},
		{"RV-11", types.PatchOperation{Op: types.OpRemove, Path: aws.String("/validateRequestBody"), Value: aws.String("true")},
			"BadRequestException", "Invalid patch path  '/validateRequestBody' specified for op 'remove'. Please choose supported operations"},
		{"RV-12", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/invalidPath"), Value: aws.String("true")},
			"BadRequestException", "Invalid patch path  '/invalidPath' specified for op 'replace'. Must be one of: [/name, /validateRequestParameters, /validateRequestBody]"},
		{"RV-13", types.PatchOperation{Op: types.OpReplace, Path: aws.String("/name")},
			"BadRequestException", "Request Validator name cannot be blank"},
		{"bad-op", types.PatchOperation{Op: "wrong", Path: aws.String("/name")}, "ValidationException",
			"1 validation error detected: Value 'wrong' at 'updateRequestValidatorInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			_, err := c.UpdateRequestValidator(ctx, &apigateway.UpdateRequestValidatorInput{RestApiId: &id, RequestValidatorId: v.Id,
				PatchOperations: []types.PatchOperation{tc.op}})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
}
