package apigatewayhttp_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// mdlGwDefaults are the default status codes (B.9); DEFAULT_4XX and
// DEFAULT_5XX have none.
var mdlGwDefaults = map[string]string{
	"ACCESS_DENIED": "403", "API_CONFIGURATION_ERROR": "500", "AUTHORIZER_CONFIGURATION_ERROR": "500",
	"AUTHORIZER_FAILURE": "500", "BAD_REQUEST_BODY": "400", "BAD_REQUEST_PARAMETERS": "400",
	"DEFAULT_4XX": "", "DEFAULT_5XX": "", "EXPIRED_TOKEN": "403", "INTEGRATION_FAILURE": "504",
	"INTEGRATION_TIMEOUT": "504", "INVALID_API_KEY": "403", "INVALID_SIGNATURE": "403",
	"MISSING_AUTHENTICATION_TOKEN": "403", "QUOTA_EXCEEDED": "429", "REQUEST_TOO_LARGE": "413",
	"RESOURCE_NOT_FOUND": "404", "THROTTLED": "429", "UNAUTHORIZED": "401", "UNSUPPORTED_MEDIA_TYPE": "415",
	"WAF_FILTERED": "403",
}

const mdlGwTemplate = `{"message":$context.error.messageString}`

const mdlGwEnum = "[REQUEST_TOO_LARGE, RESOURCE_NOT_FOUND, AUTHORIZER_CONFIGURATION_ERROR, MISSING_AUTHENTICATION_TOKEN, BAD_REQUEST_BODY, INVALID_SIGNATURE, INVALID_API_KEY, BAD_REQUEST_PARAMETERS, AUTHORIZER_FAILURE, UNAUTHORIZED, INTEGRATION_TIMEOUT, ACCESS_DENIED, DEFAULT_4XX, DEFAULT_5XX, WAF_FILTERED, QUOTA_EXCEEDED, THROTTLED, API_CONFIGURATION_ERROR, UNSUPPORTED_MEDIA_TYPE, INTEGRATION_FAILURE, EXPIRED_TOKEN]"

func mdlGwAll(t *testing.T, c *apigateway.Client, id string) map[string]types.GatewayResponse {
	t.Helper()
	out, err := c.GetGatewayResponses(context.Background(), &apigateway.GetGatewayResponsesInput{RestApiId: &id})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]types.GatewayResponse{}
	for _, g := range out.Items {
		m[string(g.ResponseType)] = g
	}
	if len(out.Items) != 21 || len(m) != 21 || out.Position != nil {
		t.Fatalf("want 21 responses, got %d", len(out.Items))
	}
	return m
}

func TestGatewayResponseDefaults(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)
	all := mdlGwAll(t, c, id)
	for typ, status := range mdlGwDefaults {
		t.Run("type="+typ, func(t *testing.T) {
			g := all[typ]
			if aws.ToString(g.StatusCode) != status || !g.DefaultResponse || g.ResponseParameters == nil ||
				len(g.ResponseParameters) != 0 || len(g.ResponseTemplates) != 1 || g.ResponseTemplates["application/json"] != mdlGwTemplate {
				t.Fatalf("listed: %+v", g)
			}
			one, err := c.GetGatewayResponse(ctx, &apigateway.GetGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseType(typ)})
			if err != nil || aws.ToString(one.StatusCode) != status || !one.DefaultResponse {
				t.Fatalf("get: %v %+v", err, one)
			}
		})
	}
	// responseParameters is {} on the wire, statusCode absent for DEFAULT_4XX.
	r := mdlRaw(t, srv, "GET", "/restapis/"+id+"/gatewayresponses/DEFAULT_4XX", "")
	if p, ok := r.member(t, "responseParameters"); !ok || len(p.(map[string]any)) != 0 {
		t.Fatalf("DEFAULT_4XX: %s", r.body)
	}
	if _, ok := r.member(t, "statusCode"); ok {
		t.Fatalf("DEFAULT_4XX has a statusCode: %s", r.body)
	}
	// Pages, though AWS's documentation says the limit does not apply.
	page, err := c.GetGatewayResponses(ctx, &apigateway.GetGatewayResponsesInput{RestApiId: &id, Limit: aws.Int32(20)})
	if err != nil || len(page.Items) != 20 || page.Position == nil {
		t.Fatalf("page 1: %v %d", err, len(page.Items))
	}
	page, err = c.GetGatewayResponses(ctx, &apigateway.GetGatewayResponsesInput{RestApiId: &id, Limit: aws.Int32(20), Position: page.Position})
	if err != nil || len(page.Items) != 1 || page.Position != nil {
		t.Fatalf("page 2: %v %d", err, len(page.Items))
	}
}

func TestGatewayResponsePutUpdateDelete(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)

	// Put replaces wholesale; what it omits is the type's default (B.9).
	g, err := c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id,
		ResponseType: types.GatewayResponseTypeMissingAuthenticationToken})
	if err != nil || aws.ToString(g.StatusCode) != "403" || g.DefaultResponse || g.ResponseParameters == nil ||
		g.ResponseTemplates["application/json"] != mdlGwTemplate {
		t.Fatalf("put minimal: %v %+v", err, g)
	}
	g, err = c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id,
		ResponseType: types.GatewayResponseTypeMissingAuthenticationToken, StatusCode: aws.String("404"),
		ResponseParameters: map[string]string{"gatewayresponse.header.Access-Control-Allow-Origin": "'*'"},
		ResponseTemplates:  map[string]string{"application/xml": "<e/>"}})
	if err != nil || aws.ToString(g.StatusCode) != "404" || len(g.ResponseTemplates) != 1 || g.ResponseTemplates["application/xml"] != "<e/>" {
		t.Fatalf("put: %v %+v", err, g)
	}

	// DEFAULT_5XX reaches the 5xx types nobody put, which stay "default".
	if _, err := c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id,
		ResponseType:       types.GatewayResponseTypeAuthorizerFailure,
		ResponseParameters: map[string]string{"gatewayresponse.header.x": "'a'"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id,
		ResponseType: types.GatewayResponseTypeDefault5xx, StatusCode: aws.String("599"),
		ResponseParameters: map[string]string{"gatewayresponse.header.y": "'b'"},
		ResponseTemplates:  map[string]string{"application/json": `{"oops":1}`}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id,
		ResponseType: types.GatewayResponseTypeDefault4xx, StatusCode: aws.String("418")}); err != nil {
		t.Fatal(err)
	}
	all := mdlGwAll(t, c, id)
	for _, typ := range []string{"API_CONFIGURATION_ERROR", "AUTHORIZER_CONFIGURATION_ERROR", "INTEGRATION_FAILURE", "INTEGRATION_TIMEOUT"} {
		if g := all[typ]; aws.ToString(g.StatusCode) != "599" || !g.DefaultResponse || g.ResponseParameters["gatewayresponse.header.y"] != "'b'" ||
			g.ResponseTemplates["application/json"] != `{"oops":1}` {
			t.Fatalf("%s: %+v", typ, g)
		}
	}
	if g := all["AUTHORIZER_FAILURE"]; aws.ToString(g.StatusCode) != "500" || g.DefaultResponse || g.ResponseTemplates["application/json"] != mdlGwTemplate {
		t.Fatalf("AUTHORIZER_FAILURE: %+v", g)
	}
	if g := all["THROTTLED"]; aws.ToString(g.StatusCode) != "418" || !g.DefaultResponse {
		t.Fatalf("THROTTLED: %+v", g)
	}
	if g := all["MISSING_AUTHENTICATION_TOKEN"]; aws.ToString(g.StatusCode) != "404" || g.DefaultResponse {
		t.Fatalf("MISSING_AUTHENTICATION_TOKEN: %+v", g)
	}

	// Update of a never-put type creates it from what it answered.
	op := func(o types.Op, path string, value *string) types.PatchOperation {
		return types.PatchOperation{Op: o, Path: aws.String(path), Value: value}
	}
	g2, err := c.UpdateGatewayResponse(ctx, &apigateway.UpdateGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseTypeWafFiltered,
		PatchOperations: []types.PatchOperation{
			op(types.OpReplace, "/statusCode", aws.String("444")),
			op(types.OpAdd, "/responseParameters/gatewayresponse.header.Access-Control-Allow-Origin", aws.String("'example.com'")),
			op(types.OpAdd, "/responseTemplates/application~1xml", aws.String("<x/>")),
		}})
	if err != nil || aws.ToString(g2.StatusCode) != "444" || g2.DefaultResponse ||
		g2.ResponseParameters["gatewayresponse.header.Access-Control-Allow-Origin"] != "'example.com'" ||
		g2.ResponseTemplates["application/xml"] != "<x/>" || g2.ResponseTemplates["application/json"] != mdlGwTemplate {
		t.Fatalf("update: %v %+v", err, g2)
	}
	g2, err = c.UpdateGatewayResponse(ctx, &apigateway.UpdateGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseTypeWafFiltered,
		PatchOperations: []types.PatchOperation{
			op(types.OpReplace, "/responseParameters/gatewayresponse.header.Access-Control-Allow-Origin", aws.String("'*'")),
			op(types.OpRemove, "/responseTemplates/application~1xml", nil),
		}})
	if err != nil || g2.ResponseParameters["gatewayresponse.header.Access-Control-Allow-Origin"] != "'*'" || len(g2.ResponseTemplates) != 1 {
		t.Fatalf("update 2: %v %+v", err, g2)
	}

	// Delete goes back to the default.
	if _, err := c.DeleteGatewayResponse(ctx, &apigateway.DeleteGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseTypeWafFiltered}); err != nil {
		t.Fatal(err)
	}
	g3, err := c.GetGatewayResponse(ctx, &apigateway.GetGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseTypeWafFiltered})
	if err != nil || aws.ToString(g3.StatusCode) != "418" || !g3.DefaultResponse { // inherits DEFAULT_4XX again
		t.Fatalf("after delete: %v %+v", err, g3)
	}
	_, err = c.DeleteGatewayResponse(ctx, &apigateway.DeleteGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseTypeWafFiltered})
	servertest.WantAPIError(t, err, "NotFoundException", "Gateway response type not defined on api")
}

func TestGatewayResponseErrors(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	id := mdlNewAPI(t, c)
	const fake = "apiid123fake"
	noAPI := "Invalid API identifier specified " + account + ":" + fake
	_, err := c.GetGatewayResponses(ctx, &apigateway.GetGatewayResponsesInput{RestApiId: aws.String(fake)})
	servertest.WantAPIError(t, err, "NotFoundException", noAPI) // GR-01
	_, err = c.GetGatewayResponse(ctx, &apigateway.GetGatewayResponseInput{RestApiId: aws.String(fake), ResponseType: types.GatewayResponseTypeDefault4xx})
	servertest.WantAPIError(t, err, "NotFoundException", noAPI) // GR-02
	_, err = c.DeleteGatewayResponse(ctx, &apigateway.DeleteGatewayResponseInput{RestApiId: aws.String(fake), ResponseType: types.GatewayResponseTypeDefault4xx})
	servertest.WantAPIError(t, err, "NotFoundException", noAPI) // GR-03
	_, err = c.UpdateGatewayResponse(ctx, &apigateway.UpdateGatewayResponseInput{RestApiId: aws.String(fake), ResponseType: types.GatewayResponseTypeDefault4xx,
		PatchOperations: []types.PatchOperation{}})
	servertest.WantAPIError(t, err, "NotFoundException", noAPI) // GR-04
	_, err = c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: aws.String(fake), ResponseType: types.GatewayResponseTypeDefault4xx})
	servertest.WantAPIError(t, err, "NotFoundException", noAPI)
	_, err = c.DeleteGatewayResponse(ctx, &apigateway.DeleteGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseTypeDefault4xx})
	servertest.WantAPIError(t, err, "NotFoundException", "Gateway response type not defined on api") // GR-05

	badType := "1 validation error detected: Value 'FAKE_RESPONSE_TYPE' at 'responseType' failed to satisfy constraint: Member must satisfy enum value set: " + mdlGwEnum
	_, err = c.GetGatewayResponse(ctx, &apigateway.GetGatewayResponseInput{RestApiId: &id, ResponseType: "FAKE_RESPONSE_TYPE"})
	servertest.WantAPIError(t, err, "ValidationException", badType) // GR-06
	_, err = c.DeleteGatewayResponse(ctx, &apigateway.DeleteGatewayResponseInput{RestApiId: &id, ResponseType: "FAKE_RESPONSE_TYPE"})
	servertest.WantAPIError(t, err, "ValidationException", badType) // GR-07
	_, err = c.UpdateGatewayResponse(ctx, &apigateway.UpdateGatewayResponseInput{RestApiId: &id, ResponseType: "FAKE_RESPONSE_TYPE",
		PatchOperations: []types.PatchOperation{}})
	servertest.WantAPIError(t, err, "ValidationException", badType) // GR-08
	_, err = c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id, ResponseType: "FAKE_RESPONSE_TYPE",
		StatusCode: aws.String("404"), ResponseParameters: map[string]string{}, ResponseTemplates: map[string]string{}})
	servertest.WantAPIError(t, err, "ValidationException", badType) // GR-09
	_, err = c.GetGatewayResponse(ctx, &apigateway.GetGatewayResponseInput{RestApiId: aws.String(fake), ResponseType: "FAKE_RESPONSE_TYPE"})
	servertest.WantAPIError(t, err, "ValidationException", badType) // before the API is looked up
	_, err = c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id, ResponseType: "FAKE_RESPONSE_TYPE",
		StatusCode: aws.String("99")})
	servertest.WantAPIError(t, err, "ValidationException", `2 validation errors detected: Value '99' at 'putGatewayResponseInput.statusCode' failed to satisfy constraint: Member must satisfy regular expression pattern: [1-5]\d\d; Value 'FAKE_RESPONSE_TYPE' at 'responseType' failed to satisfy constraint: Member must satisfy enum value set: `+mdlGwEnum)

	op := func(o types.Op, path, value *string) types.PatchOperation {
		return types.PatchOperation{Op: o, Path: path, Value: value}
	}
	s := aws.String
	origin := s("/responseParameters/gatewayresponse.header.Access-Control-Allow-Origin")
	for _, tc := range []struct {
		name      string
		typ       types.GatewayResponseType
		op        types.PatchOperation
		code, msg string
	}{
		{"GR-10", "DEFAULT_4XX", op(types.OpAdd, s("/statusCode"), s("444")), "BadRequestException", "Invalid patch path /statusCode"},
		{"GR-11", "DEFAULT_4XX", op(types.OpRemove, s("/statusCode"), nil), "BadRequestException", "Invalid patch path /statusCode"},
		{"GR-12", "DEFAULT_5XX", op(types.OpReplace, origin, s("'example.com'")), "NotFoundException", "Invalid parameter name specified"},
		{"GR-13", "DEFAULT_4XX", op(types.OpAdd, nil, s("'example.com'")), "BadRequestException", "Invalid patch path null"},
		{"GR-14", "DEFAULT_4XX", op("wrong-op", s("/statusCode"), s("444")), "ValidationException",
			"1 validation error detected: Value 'wrong-op' at 'updateGatewayResponseInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
		{"GR-15", "DEFAULT_4XX", op(types.OpAdd, s("/wrongPath"), s("x")), "BadRequestException", "Invalid patch path /wrongPath"},
		{"GR-16", "DEFAULT_4XX", op(types.OpReplace, s("/responseTemplates/application~1xml"), nil), "BadRequestException",
			"Invalid null or empty value in responseTemplates"},
		{"GR-17", "DEFAULT_4XX", op(types.OpReplace, origin, nil), "BadRequestException", "Invalid null or empty value in responseParameters"},
		{"bad-status", "DEFAULT_4XX", op(types.OpReplace, s("/statusCode"), s("700")), "BadRequestException", "Invalid status code specified: 700"},
		{"remove-missing-template", "DEFAULT_4XX", op(types.OpRemove, s("/responseTemplates/text~1plain"), nil), "NotFoundException",
			"Content-Type specified was not found"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			_, err := c.UpdateGatewayResponse(ctx, &apigateway.UpdateGatewayResponseInput{RestApiId: &id, ResponseType: tc.typ,
				PatchOperations: []types.PatchOperation{tc.op}})
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	// Failed updates put nothing.
	if g := mdlGwAll(t, c, id); !g["DEFAULT_4XX"].DefaultResponse || !g["DEFAULT_5XX"].DefaultResponse {
		t.Fatalf("a failed update put a response: %+v", g["DEFAULT_4XX"])
	}
	mdlWantRaw(t, mdlRaw(t, srv, "PUT", "/restapis/"+id+"/gatewayresponses/DEFAULT_4XX", `{"responseTemplates":{"application/json":null}}`),
		400, "BadRequestException", "Invalid null or empty value in responseTemplates")
	mdlWantRaw(t, mdlRaw(t, srv, "PUT", "/restapis/"+id+"/gatewayresponses/DEFAULT_4XX", `{"responseParameters":{"a":true}}`),
		400, "SerializationException", "")
}

// TestModelsPersist restarts the emulator on the same data and finds the
// models, authorizers, validators and gateway responses as they were.
func TestModelsPersist(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	srv1 := servertest.Start(t, servertest.WithPersistence(dir))
	c1 := client(srv1, "us-east-1", "test")
	id := mdlNewAPI(t, c1)
	m, err := c1.CreateModel(ctx, &apigateway.CreateModelInput{RestApiId: &id, Name: aws.String("Pet"),
		ContentType: aws.String("application/json"), Schema: aws.String(mdlPetSchema)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := c1.CreateAuthorizer(ctx, &apigateway.CreateAuthorizerInput{RestApiId: &id, Name: aws.String("tok"),
		Type: types.AuthorizerTypeToken, AuthorizerUri: aws.String(mdlLambdaURI),
		IdentitySource: aws.String("method.request.header.Auth"), AuthorizerResultTtlInSeconds: aws.Int32(0)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := c1.CreateRequestValidator(ctx, &apigateway.CreateRequestValidatorInput{RestApiId: &id, Name: aws.String("v"), ValidateRequestBody: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c1.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &id,
		ResponseType: types.GatewayResponseTypeDefault5xx, StatusCode: aws.String("599")}); err != nil {
		t.Fatal(err)
	}
	// A delete must persist too.
	if _, err := c1.CreateModel(ctx, &apigateway.CreateModelInput{RestApiId: &id, Name: aws.String("Gone"),
		ContentType: aws.String("application/json"), Schema: aws.String(mdlPetSchema)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.DeleteModel(ctx, &apigateway.DeleteModelInput{RestApiId: &id, ModelName: aws.String("Gone")}); err != nil {
		t.Fatal(err)
	}
	if err := srv1.Emulator.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	srv2 := servertest.Start(t, servertest.WithPersistence(dir))
	c2 := client(srv2, "us-east-1", "test")
	got, err := c2.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &id, ModelName: aws.String("Pet")})
	if err != nil || aws.ToString(got.Id) != aws.ToString(m.Id) || aws.ToString(got.Schema) != mdlPetSchema {
		t.Fatalf("model: %v %+v", err, got)
	}
	_, err = c2.GetModel(ctx, &apigateway.GetModelInput{RestApiId: &id, ModelName: aws.String("Gone")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid model name specified: Gone")
	ga, err := c2.GetAuthorizer(ctx, &apigateway.GetAuthorizerInput{RestApiId: &id, AuthorizerId: a.Id})
	if err != nil || aws.ToString(ga.Name) != "tok" || ga.AuthorizerResultTtlInSeconds == nil || aws.ToString(ga.AuthType) != "custom" {
		t.Fatalf("authorizer: %v %+v", err, ga)
	}
	gv, err := c2.GetRequestValidator(ctx, &apigateway.GetRequestValidatorInput{RestApiId: &id, RequestValidatorId: v.Id})
	if err != nil || !gv.ValidateRequestBody || aws.ToString(gv.Name) != "v" {
		t.Fatalf("validator: %v %+v", err, gv)
	}
	gg, err := c2.GetGatewayResponse(ctx, &apigateway.GetGatewayResponseInput{RestApiId: &id, ResponseType: types.GatewayResponseTypeIntegrationTimeout})
	if err != nil || aws.ToString(gg.StatusCode) != "599" || !gg.DefaultResponse {
		t.Fatalf("gateway response: %v %+v", err, gg)
	}
}
