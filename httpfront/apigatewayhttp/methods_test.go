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

// resFixture is an API with a resource to hang methods on.
type resFixture struct {
	t         *testing.T
	srv       *servertest.Server
	c         *apigateway.Client
	api, root string
}

func newResFixture(t *testing.T) *resFixture {
	t.Helper()
	srv, c := start(t)
	api, root := resAPI(t, c)
	return &resFixture{t: t, srv: srv, c: c, api: api, root: root}
}

// path is the URL path of something under the root resource.
func (f *resFixture) path(rest string) string {
	return "/restapis/" + f.api + "/resources/" + f.root + rest
}

func (f *resFixture) putMethod(httpMethod string, in apigateway.PutMethodInput) {
	f.t.Helper()
	in.RestApiId, in.ResourceId, in.HttpMethod = &f.api, &f.root, aws.String(httpMethod)
	if in.AuthorizationType == nil {
		in.AuthorizationType = aws.String("NONE")
	}
	if _, err := f.c.PutMethod(context.Background(), &in); err != nil {
		f.t.Fatalf("put method %s: %v", httpMethod, err)
	}
}

func (f *resFixture) putIntegration(httpMethod string, in apigateway.PutIntegrationInput) {
	f.t.Helper()
	in.RestApiId, in.ResourceId, in.HttpMethod = &f.api, &f.root, aws.String(httpMethod)
	if _, err := f.c.PutIntegration(context.Background(), &in); err != nil {
		f.t.Fatalf("put integration %s: %v", httpMethod, err)
	}
}

func (f *resFixture) model(name string) {
	f.t.Helper()
	if _, err := f.c.CreateModel(context.Background(), &apigateway.CreateModelInput{RestApiId: &f.api, Name: aws.String(name),
		ContentType: aws.String("application/json"), Schema: aws.String(`{"type":"object"}`)}); err != nil {
		f.t.Fatalf("create model %s: %v", name, err)
	}
}

func (f *resFixture) authorizer() string {
	f.t.Helper()
	out, err := f.c.CreateAuthorizer(context.Background(), &apigateway.CreateAuthorizerInput{RestApiId: &f.api,
		Name: aws.String("auth"), Type: types.AuthorizerTypeToken, IdentitySource: aws.String("method.request.header.Authorization"),
		AuthorizerUri: aws.String("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations")})
	if err != nil {
		f.t.Fatalf("create authorizer: %v", err)
	}
	return aws.ToString(out.Id)
}

func (f *resFixture) validator() string {
	f.t.Helper()
	out, err := f.c.CreateRequestValidator(context.Background(), &apigateway.CreateRequestValidatorInput{RestApiId: &f.api, Name: aws.String("v")})
	if err != nil {
		f.t.Fatalf("create validator: %v", err)
	}
	return aws.ToString(out.Id)
}

// patch sends a raw PATCH of ops (JSON) to path and wants status and body.
func (f *resFixture) patch(path, ops string, status int, want string) {
	f.t.Helper()
	resWantRaw(f.t, f.srv, "PATCH", f.path(path), `{"patchOperations":[`+ops+`]}`, status, want)
}

func TestMethodLifecycle(t *testing.T) {
	f := newResFixture(t)
	ctx := context.Background()
	resWantRaw(t, f.srv, "PUT", f.path("/methods/ANY"), `{"authorizationType":"none"}`, 201,
		`{"httpMethod":"ANY","authorizationType":"NONE","apiKeyRequired":false}`)
	resWantRaw(t, f.srv, "GET", f.path("/methods/ANY"), "", 200,
		`{"httpMethod":"ANY","authorizationType":"NONE","apiKeyRequired":false}`)
	resWantRaw(t, f.srv, "PUT", f.path("/methods/ANY"), `{"authorizationType":"NONE"}`, 409,
		"ConflictException: Method already exists for this resource")
	in := &apigateway.DeleteMethodInput{RestApiId: &f.api, ResourceId: &f.root, HttpMethod: aws.String("ANY")}
	if _, err := f.c.DeleteMethod(ctx, in); err != nil {
		t.Fatal(err)
	}
	resWantRaw(t, f.srv, "DELETE", f.path("/methods/ANY"), "", 404, "NotFoundException: Invalid Method identifier specified")
	_, err := f.c.GetMethod(ctx, &apigateway.GetMethodInput{RestApiId: &f.api, ResourceId: &f.root, HttpMethod: aws.String("ANY")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Method identifier specified")

	// Everything PutMethod takes is echoed.
	f.model("Pet")
	auth, val := f.authorizer(), f.validator()
	resWantRaw(t, f.srv, "PUT", f.path("/methods/POST"), `{"authorizationType":"COGNITO_USER_POOLS","authorizerId":"`+auth+`",`+
		`"apiKeyRequired":true,"operationName":"CreatePet","requestParameters":{"method.request.header.h":true,"method.request.querystring.q":false},`+
		`"requestModels":{"application/json":"Pet"},"requestValidatorId":"`+val+`","authorizationScopes":["s1"]}`, 201,
		`{"httpMethod":"POST","authorizationType":"COGNITO_USER_POOLS","authorizerId":"`+auth+`","apiKeyRequired":true,"requestValidatorId":"`+val+`",`+
			`"operationName":"CreatePet","requestParameters":{"method.request.header.h":true,"method.request.querystring.q":false},`+
			`"requestModels":{"application/json":"Pet"},"authorizationScopes":["s1"]}`)
	// An authorizerId is dropped where the type does not use one; JWT is
	// the spec's and stored as sent.
	resWantRaw(t, f.srv, "PUT", f.path("/methods/GET"), `{"authorizationType":"AWS_IAM","authorizerId":"`+auth+`","requestParameters":{}}`, 201,
		`{"httpMethod":"GET","authorizationType":"AWS_IAM","apiKeyRequired":false,"requestParameters":{}}`)
	resWantRaw(t, f.srv, "PUT", f.path("/methods/PUT"), `{"authorizationType":"JWT","authorizerId":"`+auth+`"}`, 201,
		`{"httpMethod":"PUT","authorizationType":"JWT","authorizerId":"`+auth+`","apiKeyRequired":false}`)
}

func TestPutMethodErrors(t *testing.T) {
	f := newResFixture(t)
	ctx := context.Background()
	f.putMethod("GET", apigateway.PutMethodInput{})
	put := func(api, res, method, auth string, mod func(*apigateway.PutMethodInput)) error {
		in := &apigateway.PutMethodInput{RestApiId: &api, ResourceId: &res, HttpMethod: &method, AuthorizationType: &auth}
		if mod != nil {
			mod(in)
		}
		_, err := f.c.PutMethod(ctx, in)
		return err
	}
	const authMsg = "Invalid authorizer ID specified. Setting the authorization type to CUSTOM or COGNITO_USER_POOLS requires a valid authorizer."
	for _, tc := range []struct {
		name, code, msg string
		err             error
	}{
		{"case=wrong-api", "NotFoundException", "Invalid Resource identifier specified", put("fake-api", f.root, "WRONG", "NONE", nil)},
		{"case=wrong-resource", "NotFoundException", "Invalid Resource identifier specified", put(f.api, "fake-resource-id", "WRONG", "NONE", nil)},
		{"case=wrong-method", "BadRequestException", "Invalid HttpMethod specified. Valid options are GET,PUT,POST,DELETE,PATCH,OPTIONS,HEAD,ANY", put(f.api, f.root, "WRONG", "NONE", nil)},
		{"case=lower-case-method", "BadRequestException", "Invalid HttpMethod specified. Valid options are GET,PUT,POST,DELETE,PATCH,OPTIONS,HEAD,ANY", put(f.api, f.root, "get", "NONE", nil)},
		{"case=missing-authorizer-id", "BadRequestException", authMsg, put(f.api, f.root, "ANY", "CUSTOM", nil)},
		{"case=unknown-authorizer-id", "BadRequestException", authMsg, put(f.api, f.root, "ANY", "COGNITO_USER_POOLS", func(in *apigateway.PutMethodInput) { in.AuthorizerId = aws.String("abc123") })},
		{"case=unknown-auth-type", "BadRequestException", "Invalid authorization type specified", put(f.api, f.root, "ANY", "BASIC", nil)},
		{"case=invalid-request-validator", "BadRequestException", "Invalid Request Validator identifier specified", put(f.api, f.root, "ANY", "NONE", func(in *apigateway.PutMethodInput) { in.RequestValidatorId = aws.String("fake-validator") })},
		{"case=invalid-model-name", "BadRequestException", "Invalid model identifier specified: petModel", put(f.api, f.root, "ANY", "NONE", func(in *apigateway.PutMethodInput) {
			in.RequestModels = map[string]string{"application/json": "petModel"}
		})},
		{"case=req-params-same-name", "BadRequestException", "Parameter names must be unique across querystring, header and path", put(f.api, f.root, "ANY", "NONE", func(in *apigateway.PutMethodInput) {
			in.RequestParameters = map[string]bool{"method.request.querystring.optional": false, "method.request.header.optional": false}
		})},
		{"case=req-param-bad-name", "BadRequestException", "Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid mapping expression specified: method.request.body.x]", put(f.api, f.root, "ANY", "NONE", func(in *apigateway.PutMethodInput) {
			in.RequestParameters = map[string]bool{"method.request.body.x": true}
		})},
		{"case=exists", "ConflictException", "Method already exists for this resource", put(f.api, f.root, "GET", "NONE", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) { servertest.WantAPIError(t, tc.err, tc.code, tc.msg) })
	}
	resWantRaw(t, f.srv, "PUT", f.path("/methods/POST"), `{"authorizationType":"NONE","requestParameters":{"method.request.path.testPath":true,"true":true}}`, 400,
		"BadRequestException: Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid mapping expression specified: true]")
	resWantRaw(t, f.srv, "PUT", f.path("/methods/POST"), `{}`, 400,
		"ValidationException: 1 validation error detected: Value null at 'putMethodInput.authorizationType' failed to satisfy constraint: Member must not be null")
	resWantRaw(t, f.srv, "PUT", f.path("/methods/POST"), `{"authorizationType":"NONE","apiKeyRequired":"yes"}`, 400,
		"SerializationException: class java.lang.String can not be converted to an Boolean")
	resWantRaw(t, f.srv, "PUT", f.path("/methods/POST"), `{"authorizationType":"NONE","requestParameters":{"method.request.path.p":"true"}}`, 400,
		"SerializationException: class java.lang.String can not be converted to an Boolean")
}

func TestUpdateMethod(t *testing.T) {
	f := newResFixture(t)
	f.model("Pet")
	f.model("Dog")
	f.putMethod("ANY", apigateway.PutMethodInput{})
	const base = `"httpMethod":"ANY","authorizationType":"NONE"`
	f.patch("/methods/ANY", `{"op":"add","path":"/requestParameters/method.request.querystring.optional","value":"true"},`+
		`{"op":"add","path":"/requestModels/application~1json","value":"Pet"}`, 200,
		`{`+base+`,"apiKeyRequired":false,"requestParameters":{"method.request.querystring.optional":true},"requestModels":{"application/json":"Pet"}}`)
	f.patch("/methods/ANY", `{"op":"replace","path":"/operationName","value":"ReplacedOperationName"},`+
		`{"op":"replace","path":"/apiKeyRequired","value":"true"},{"op":"replace","path":"/authorizationType","value":"AWS_IAM"},`+
		`{"op":"replace","path":"/requestParameters/method.request.querystring.optional","value":"false"},`+
		`{"op":"replace","path":"/requestModels/application~1json","value":"Dog"}`, 200,
		`{"httpMethod":"ANY","authorizationType":"AWS_IAM","apiKeyRequired":true,"operationName":"ReplacedOperationName",`+
			`"requestParameters":{"method.request.querystring.optional":false},"requestModels":{"application/json":"Dog"}}`)
	auth := f.authorizer()
	f.patch("/methods/ANY", `{"op":"replace","path":"/authorizerId","value":"`+auth+`"},{"op":"replace","path":"/authorizationType","value":"CUSTOM"}`, 200,
		`{"httpMethod":"ANY","authorizationType":"CUSTOM","authorizerId":"`+auth+`","apiKeyRequired":true,"operationName":"ReplacedOperationName",`+
			`"requestParameters":{"method.request.querystring.optional":false},"requestModels":{"application/json":"Dog"}}`)
	f.patch("/methods/ANY", `{"op":"remove","path":"/requestParameters/method.request.querystring.optional","value":"true"},`+
		`{"op":"remove","path":"/requestModels/application~1json","value":"Dog"},{"op":"replace","path":"/authorizationType","value":"NONE"},`+
		`{"op":"replace","path":"/apiKeyRequired","value":"whatever"},{"op":"replace","path":"/operationName","value":""}`, 200,
		`{`+base+`,"apiKeyRequired":false}`)
	// authorizerId is ignored while the type uses none.
	f.patch("/methods/ANY", `{"op":"replace","path":"/authorizerId","value":"abc123"}`, 200, `{`+base+`,"apiKeyRequired":false}`)
	// A validator is set, and removed with "".
	val := f.validator()
	f.patch("/methods/ANY", `{"op":"replace","path":"/requestValidatorId","value":"`+val+`"}`, 200,
		`{`+base+`,"apiKeyRequired":false,"requestValidatorId":"`+val+`"}`)
	f.patch("/methods/ANY", `{"op":"replace","path":"/requestValidatorId","value":""}`, 200, `{`+base+`,"apiKeyRequired":false}`)
	// Scopes are added and removed by value.
	f.patch("/methods/ANY", `{"op":"add","path":"/authorizationScopes","value":"a"},{"op":"add","path":"/authorizationScopes","value":"b"}`, 200,
		`{`+base+`,"apiKeyRequired":false,"authorizationScopes":["a","b"]}`)
	f.patch("/methods/ANY", `{"op":"remove","path":"/authorizationScopes","value":"a"},{"op":"remove","path":"/authorizationScopes","value":"b"}`, 200,
		`{`+base+`,"apiKeyRequired":false}`)
	// The recorded request, with the default model Empty.
	f.patch("/methods/ANY", `{"op":"add","path":"/requestModels/application~1json","value":"Empty"}`, 200,
		`{`+base+`,"apiKeyRequired":false,"requestModels":{"application/json":"Empty"}}`)
	f.patch("/methods/ANY", `{"op":"remove","path":"/requestModels/application~1json","value":"Empty"}`, 200, `{`+base+`,"apiKeyRequired":false}`)
	// No operations change nothing.
	f.patch("/methods/ANY", ``, 200, `{`+base+`,"apiKeyRequired":false}`)
}

func TestUpdateMethodErrors(t *testing.T) {
	f := newResFixture(t)
	ctx := context.Background()
	f.putMethod("ANY", apigateway.PutMethodInput{ApiKeyRequired: true, RequestParameters: map[string]bool{"method.request.header.h": true}})
	update := func(api, res, method string, ops ...types.PatchOperation) error {
		_, err := f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &api, ResourceId: &res, HttpMethod: &method, PatchOperations: ops})
		return err
	}
	op := func(o types.Op, path, value string) types.PatchOperation {
		return types.PatchOperation{Op: o, Path: aws.String(path), Value: aws.String(value)}
	}
	const authMsg = "Invalid authorizer ID specified. Setting the authorization type to CUSTOM or COGNITO_USER_POOLS requires a valid authorizer."
	for _, tc := range []struct {
		name, code, msg string
		err             error
	}{
		{"case=wrong-rest-api", "NotFoundException", "Invalid Resource identifier specified", update("fake-api", f.root, "ANY")},
		{"case=wrong-resource-id", "NotFoundException", "Invalid Resource identifier specified", update(f.api, "fake-resource-id", "ANY")},
		{"case=method-does-not-exist", "NotFoundException", "Invalid Method identifier specified", update(f.api, f.root, "GET", op(types.OpReplace, "/operationName", "x"))},
		{"case=unsupported-operation", "BadRequestException", "Invalid patch operation specified. Must be one of: [replace]", update(f.api, f.root, "ANY", op(types.OpAdd, "/operationName", "x"))},
		{"case=unsupported-operation-2", "BadRequestException", "Invalid patch operation specified. Must be one of: [replace]", update(f.api, f.root, "ANY", op(types.OpAdd, "/requestValidatorId", "wrong-id"))},
		{"case=unsupported-path", "BadRequestException", "Invalid patch path /httpMethod", update(f.api, f.root, "ANY", op(types.OpAdd, "/httpMethod", "PUT"))},
		{"case=wrong-path-request-parameters", "BadRequestException", "Invalid patch path /requestParameters", update(f.api, f.root, "ANY", op(types.OpReplace, "/requestParameters", "method.request.querystring.optional=false"))},
		{"case=wrong-path-request-models", "BadRequestException", "Invalid patch path /requestModels/application/json", update(f.api, f.root, "ANY", op(types.OpAdd, "/requestModels/application/json", "Empty"))},
		{"case=wrong-auth-type", "BadRequestException", authMsg, update(f.api, f.root, "ANY", op(types.OpReplace, "/authorizationType", "CUSTOM"))},
		{"case=wrong-auth-id", "BadRequestException", authMsg, update(f.api, f.root, "ANY", op(types.OpReplace, "/authorizationType", "CUSTOM"), op(types.OpReplace, "/authorizerId", "abc123"))},
		{"case=bad-auth-type", "BadRequestException", "Invalid authorization type specified", update(f.api, f.root, "ANY", op(types.OpReplace, "/authorizationType", "BASIC"))},
		{"case=wrong-req-validator-id", "BadRequestException", "Invalid Request Validator identifier specified", update(f.api, f.root, "ANY", op(types.OpReplace, "/requestValidatorId", "fake-id"))},
		{"case=unknown-model", "BadRequestException", "Invalid model identifier specified: Nope", update(f.api, f.root, "ANY", op(types.OpAdd, "/requestModels/application~1json", "Nope"))},
		{"case=replace-missing-param", "NotFoundException", "Invalid parameter name specified", update(f.api, f.root, "ANY", op(types.OpReplace, "/requestParameters/method.request.header.nope", "true"))},
		{"case=remove-missing-model", "NotFoundException", "Content-Type specified was not found", update(f.api, f.root, "ANY", op(types.OpRemove, "/requestModels/application~1json", ""))},
		{"case=param-same-name", "BadRequestException", "Parameter names must be unique across querystring, header and path", update(f.api, f.root, "ANY", op(types.OpAdd, "/requestParameters/method.request.querystring.h", "true"))},
		{"case=scopes-replace", "BadRequestException", "Invalid patch operation specified. Must be one of: [add, remove]", update(f.api, f.root, "ANY", op(types.OpReplace, "/authorizationScopes", "x"))},
		{"case=wrong-op", "ValidationException", "2 validation errors detected: Value 'bad' at 'updateMethodInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]; Value 'worse' at 'updateMethodInput.patchOperations.3.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]",
			update("fake-api", f.root, "ANY", op("bad", "/operationName", "x"), op(types.OpReplace, "/operationName", "x"), op("worse", "/x", ""))},
	} {
		t.Run(tc.name, func(t *testing.T) { servertest.WantAPIError(t, tc.err, tc.code, tc.msg) })
	}
	f.patch("/methods/ANY", `{"op":"replace","value":"x"}`, 400, "BadRequestException: Invalid patch path null")
	// Nothing failed changed anything.
	resWantRaw(t, f.srv, "GET", f.path("/methods/ANY"), "", 200,
		`{"httpMethod":"ANY","authorizationType":"NONE","apiKeyRequired":true,"requestParameters":{"method.request.header.h":true}}`)
}

func TestIntegrationLifecycle(t *testing.T) {
	f := newResFixture(t)
	ctx := context.Background()
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"} {
		f.putMethod(m, apigateway.PutMethodInput{RequestParameters: map[string]bool{"method.request.path.id": true, "method.request.querystring.q": false}})
	}
	r := f.root
	for _, tc := range []struct{ name, method, body, want string }{
		{"type=HTTP", "GET", `{"type":"HTTP","httpMethod":"POST","uri":"http://example.com"}`,
			`{"type":"HTTP","httpMethod":"POST","uri":"http://example.com","connectionType":"INTERNET","passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,"cacheNamespace":"` + r + `","cacheKeyParameters":[]}`},
		{"type=MOCK", "POST", `{"type":"MOCK","uri":"http://ignored.example","requestTemplates":{"application/json":"{\"statusCode\": 200}"}}`,
			`{"type":"MOCK","requestTemplates":{"application/json":"{\"statusCode\": 200}"},"passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,"cacheNamespace":"` + r + `","cacheKeyParameters":[]}`},
		{"type=AWS_PROXY", "PUT", `{"type":"AWS_PROXY","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:f/invocations"}`,
			`{"type":"AWS_PROXY","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:f/invocations","passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,"cacheNamespace":"` + r + `","cacheKeyParameters":[]}`},
		{"type=CLOUD_PROXY", "PATCH", `{"type":"CLOUD_PROXY","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:f/invocations","timeoutInMillis":50}`,
			`{"type":"CLOUD_PROXY","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:f/invocations","passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":50,"cacheNamespace":"` + r + `","cacheKeyParameters":[]}`},
		{"type=CLOUD", "DELETE", `{"type":"CLOUD","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:s3:path/bucket/key","credentials":"arn:aws:iam::123456789012:role/r","contentHandling":"CONVERT_TO_TEXT"}`,
			`{"type":"CLOUD","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:s3:path/bucket/key","credentials":"arn:aws:iam::123456789012:role/r","passthroughBehavior":"WHEN_NO_MATCH","contentHandling":"CONVERT_TO_TEXT","timeoutInMillis":29000,"cacheNamespace":"` + r + `","cacheKeyParameters":[]}`},
		{"type=HTTP_PROXY-vpc-link", "OPTIONS", `{"type":"HTTP_PROXY","httpMethod":"ANY","uri":"http://nlb.example/{id}","connectionType":"VPC_LINK","connectionId":"${stageVariables.vpcLinkId}",` +
			`"requestParameters":{"integration.request.path.id":"method.request.path.id","integration.request.header.x":"'static'"},"cacheKeyParameters":["method.request.path.id"],"cacheNamespace":"ns",` +
			`"passthroughBehavior":"NEVER","tlsConfig":{"insecureSkipVerification":true}}`,
			`{"type":"HTTP_PROXY","httpMethod":"ANY","uri":"http://nlb.example/{id}","connectionType":"VPC_LINK","connectionId":"${stageVariables.vpcLinkId}",` +
				`"requestParameters":{"integration.request.header.x":"'static'","integration.request.path.id":"method.request.path.id"},"passthroughBehavior":"NEVER","timeoutInMillis":29000,` +
				`"cacheNamespace":"ns","cacheKeyParameters":["method.request.path.id"],"tlsConfig":{"insecureSkipVerification":true}}`},
		{"type=AWS-empty-template", "HEAD", `{"type":"AWS","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:sqs:action/SendMessage","requestTemplates":{"application/json":""},"requestParameters":{}}`,
			`{"type":"AWS","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:sqs:action/SendMessage","requestParameters":{},"requestTemplates":{"application/json":null},"passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,"cacheNamespace":"` + r + `","cacheKeyParameters":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resWantRaw(t, f.srv, "PUT", f.path("/methods/"+tc.method+"/integration"), tc.body, 201, tc.want)
			resWantRaw(t, f.srv, "GET", f.path("/methods/"+tc.method+"/integration"), "", 200, tc.want)
		})
	}

	// GetMethod embeds the integration; a second put replaces it.
	got, err := f.c.GetMethod(ctx, &apigateway.GetMethodInput{RestApiId: &f.api, ResourceId: &r, HttpMethod: aws.String("GET")})
	if err != nil || got.MethodIntegration == nil || aws.ToString(got.MethodIntegration.Uri) != "http://example.com" {
		t.Fatalf("get method: %v %+v", err, got)
	}
	f.putIntegration("GET", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock})
	it, err := f.c.GetIntegration(ctx, &apigateway.GetIntegrationInput{RestApiId: &f.api, ResourceId: &r, HttpMethod: aws.String("GET")})
	if err != nil || it.Type != types.IntegrationTypeMock || it.Uri != nil {
		t.Fatalf("replaced: %v %+v", err, it)
	}
	if _, err := f.c.DeleteIntegration(ctx, &apigateway.DeleteIntegrationInput{RestApiId: &f.api, ResourceId: &r, HttpMethod: aws.String("GET")}); err != nil {
		t.Fatal(err)
	}
	_, err = f.c.GetIntegration(ctx, &apigateway.GetIntegrationInput{RestApiId: &f.api, ResourceId: &r, HttpMethod: aws.String("GET")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Integration identifier specified")
	resWantRaw(t, f.srv, "DELETE", f.path("/methods/GET/integration"), "", 404, "NotFoundException: Invalid Integration identifier specified")
}

func TestPutIntegrationErrors(t *testing.T) {
	f := newResFixture(t)
	ctx := context.Background()
	f.putMethod("POST", apigateway.PutMethodInput{RequestParameters: map[string]bool{"method.request.path.id": true}})
	put := func(api, res, method string, in apigateway.PutIntegrationInput) error {
		in.RestApiId, in.ResourceId, in.HttpMethod = &api, &res, &method
		_, err := f.c.PutIntegration(ctx, &in)
		return err
	}
	http := func(uri string) apigateway.PutIntegrationInput {
		return apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp, IntegrationHttpMethod: aws.String("POST"), Uri: aws.String(uri)}
	}
	with := func(in apigateway.PutIntegrationInput, mod func(*apigateway.PutIntegrationInput)) apigateway.PutIntegrationInput {
		mod(&in)
		return in
	}
	mapping := func(errs ...string) string {
		return "Invalid mapping expression specified: Validation Result: warnings : [], errors : [" + strings.Join(errs, ", ") + "]"
	}
	root := f.root
	for _, tc := range []struct {
		name, code, msg string
		err             error
	}{
		{"case=wrong-type", "ValidationException", "1 validation error detected: Value 'HTTPS_PROXY' at 'putIntegrationInput.type' failed to satisfy constraint: Member must satisfy enum value set: [HTTP, MOCK, AWS_PROXY, HTTP_PROXY, AWS]",
			put(f.api, root, "GET", apigateway.PutIntegrationInput{Type: "HTTPS_PROXY"})},
		{"case=wrong-enums", "ValidationException", "3 validation errors detected: Value 'X' at 'putIntegrationInput.type' failed to satisfy constraint: Member must satisfy enum value set: [HTTP, MOCK, AWS_PROXY, HTTP_PROXY, AWS]; " +
			"Value 'Y' at 'putIntegrationInput.connectionType' failed to satisfy constraint: Member must satisfy enum value set: [INTERNET, VPC_LINK]; " +
			"Value 'Z' at 'putIntegrationInput.contentHandling' failed to satisfy constraint: Member must satisfy enum value set: [CONVERT_TO_BINARY, CONVERT_TO_TEXT]",
			put("nope", root, "GET", apigateway.PutIntegrationInput{Type: "X", ConnectionType: "Y", ContentHandling: "Z"})},
		{"case=wrong-api", "NotFoundException", "Invalid Resource identifier specified", put("nope", root, "POST", http("http://example.com"))},
		{"case=wrong-resource", "NotFoundException", "Invalid Resource identifier specified", put(f.api, "badresource", "POST", http("http://example.com"))},
		{"case=wrong-method", "NotFoundException", "Invalid Method identifier specified", put(f.api, root, "GET", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock})},
		{"case=required-integration-method-HTTP", "BadRequestException", "Enumeration value for HttpMethod must be non-empty",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp, Uri: aws.String("http://example.com")})},
		{"case=required-integration-method-HTTP_PROXY", "BadRequestException", "Enumeration value for HttpMethod must be non-empty",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy, Uri: aws.String("http://example.com")})},
		{"case=required-integration-method-AWS", "BadRequestException", "Enumeration value for HttpMethod must be non-empty",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, Uri: aws.String("http://example.com")})},
		{"case=no-s3-support-AWS_PROXY", "BadRequestException", "Integrations of type 'AWS_PROXY' currently only supports Lambda function and Firehose stream invocations.",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeAwsProxy, IntegrationHttpMethod: aws.String("POST"), Uri: aws.String("arn:aws:apigateway:us-east-1:s3:path/b/k")})},
		{"case=no-uri-CLOUD_PROXY", "BadRequestException", "Integrations of type 'CLOUD_PROXY' currently only supports Lambda function and Firehose stream invocations.",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: "CLOUD_PROXY", IntegrationHttpMethod: aws.String("POST")})},
		{"case=invalid-uri-HTTP", "BadRequestException", "Invalid HTTP endpoint specified for URI", put(f.api, root, "POST", http("non-valid-http"))},
		{"case=no-uri-HTTP", "BadRequestException", "Invalid HTTP endpoint specified for URI", put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp, IntegrationHttpMethod: aws.String("GET")})},
		{"case=invalid-uri-HTTP_PROXY", "BadRequestException", "Invalid HTTP endpoint specified for URI",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy, IntegrationHttpMethod: aws.String("POST"), Uri: aws.String("ftp://x")})},
		{"case=invalid-uri-not-an-arn", "BadRequestException", "Invalid ARN specified in the request",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, IntegrationHttpMethod: aws.String("POST"), Uri: aws.String("non-valid-arn")})},
		{"case=invalid-uri-invalid-arn", "BadRequestException", "AWS ARN for integration must contain path or action",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeAws, IntegrationHttpMethod: aws.String("POST"), Uri: aws.String("arn:aws:iam::0000000000:role/service-role/asdf")})},
		{"case=timeout-low", "BadRequestException", "Timeout should be between 50 ms and 29000 ms", put(f.api, root, "POST", with(http("http://x"), func(in *apigateway.PutIntegrationInput) { in.TimeoutInMillis = aws.Int32(49) }))},
		{"case=timeout-high", "BadRequestException", "Timeout should be between 50 ms and 29000 ms", put(f.api, root, "POST", with(http("http://x"), func(in *apigateway.PutIntegrationInput) { in.TimeoutInMillis = aws.Int32(29001) }))},
		{"case=passthrough", "BadRequestException", "Invalid PassthroughBehavior specified. Valid options are WHEN_NO_MATCH,WHEN_NO_TEMPLATES,NEVER",
			put(f.api, root, "POST", with(http("http://x"), func(in *apigateway.PutIntegrationInput) { in.PassthroughBehavior = aws.String("ALWAYS") }))},
		{"case=vpc-link-without-id", "BadRequestException", "Connection ID must be specified for the VPC_LINK connection type",
			put(f.api, root, "POST", with(http("http://x"), func(in *apigateway.PutIntegrationInput) { in.ConnectionType = types.ConnectionTypeVpcLink }))},
		{"case=template-content-type", "BadRequestException", "Validation Result: warnings : [], errors : [Invalid content type specified: 123]",
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock, RequestTemplates: map[string]string{"123": "{}"}})},
		{"case=param-bad-name", "BadRequestException", mapping("Invalid mapping expression specified: integration.request.body.x"),
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock, RequestParameters: map[string]string{"integration.request.body.x": "'v'"}})},
		{"case=param-undeclared", "BadRequestException", mapping("Invalid mapping expression parameter specified: method.request.path.proxy"),
			put(f.api, root, "POST", with(http("http://x/{proxy}"), func(in *apigateway.PutIntegrationInput) {
				in.RequestParameters = map[string]string{"integration.request.path.proxy": "method.request.path.proxy", "integration.request.path.id": "method.request.path.id"}
			}))},
		{"case=cache-key-undeclared", "BadRequestException", mapping("Invalid mapping expression parameter specified: method.request.header.h"),
			put(f.api, root, "POST", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock, CacheKeyParameters: []string{"method.request.path.id", "method.request.header.h"}})},
	} {
		t.Run(tc.name, func(t *testing.T) { servertest.WantAPIError(t, tc.err, tc.code, tc.msg) })
	}
	path := f.path("/methods/POST/integration")
	resWantRaw(t, f.srv, "PUT", path, `{}`, 400,
		"ValidationException: 1 validation error detected: Value null at 'putIntegrationInput.type' failed to satisfy constraint: Member must not be null")
	resWantRaw(t, f.srv, "PUT", path, `{"type":"HTTP_PROXY","requestParameters":{"true":true}}`, 400,
		"SerializationException: class java.lang.Boolean can not be converted to an String")
	resWantRaw(t, f.srv, "PUT", path, `{"type":"HTTP_PROXY","requestParameters":{"integration.request.path.testPath":true}}`, 400,
		"SerializationException: class java.lang.Boolean can not be converted to an String")
	resWantRaw(t, f.srv, "PUT", path, `{"type":"MOCK","timeoutInMillis":"soon"}`, 400,
		"SerializationException: class java.lang.String can not be converted to an Integer")
	// Nothing was stored.
	_, err := f.c.GetIntegration(ctx, &apigateway.GetIntegrationInput{RestApiId: &f.api, ResourceId: &root, HttpMethod: aws.String("POST")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Integration identifier specified")
	_, err = f.c.GetIntegration(ctx, &apigateway.GetIntegrationInput{RestApiId: aws.String("nope"), ResourceId: &root, HttpMethod: aws.String("POST")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Resource identifier specified")
	_, err = f.c.GetIntegration(ctx, &apigateway.GetIntegrationInput{RestApiId: &f.api, ResourceId: &root, HttpMethod: aws.String("GET")})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Method identifier specified")
}

func TestUpdateIntegration(t *testing.T) {
	f := newResFixture(t)
	f.putMethod("GET", apigateway.PutMethodInput{RequestParameters: map[string]bool{"method.request.querystring.q": false}})
	f.putIntegration("GET", apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttp, IntegrationHttpMethod: aws.String("GET"), Uri: aws.String("http://a.example")})
	ns := f.root
	f.patch("/methods/GET/integration", `{"op":"replace","path":"/uri","value":"https://b.example/x"},{"op":"replace","path":"/httpMethod","value":"PUT"},`+
		`{"op":"replace","path":"/timeoutInMillis","value":"1000"},{"op":"replace","path":"/passthroughBehavior","value":"WHEN_NO_TEMPLATES"},`+
		`{"op":"replace","path":"/contentHandling","value":"CONVERT_TO_BINARY"},{"op":"replace","path":"/cacheNamespace","value":"ns2"},`+
		`{"op":"add","path":"/requestParameters/integration.request.querystring.q","value":"method.request.querystring.q"},`+
		`{"op":"add","path":"/requestTemplates/application~1json","value":"{}"},{"op":"add","path":"/cacheKeyParameters/method.request.querystring.q"},`+
		`{"op":"replace","path":"/tlsConfig/insecureSkipVerification","value":"true"},{"op":"replace","path":"/credentials","value":"arn:aws:iam::123456789012:role/r"}`, 200,
		`{"type":"HTTP","httpMethod":"PUT","uri":"https://b.example/x","connectionType":"INTERNET","credentials":"arn:aws:iam::123456789012:role/r",`+
			`"requestParameters":{"integration.request.querystring.q":"method.request.querystring.q"},"requestTemplates":{"application/json":"{}"},`+
			`"passthroughBehavior":"WHEN_NO_TEMPLATES","contentHandling":"CONVERT_TO_BINARY","timeoutInMillis":1000,"cacheNamespace":"ns2",`+
			`"cacheKeyParameters":["method.request.querystring.q"],"tlsConfig":{"insecureSkipVerification":true}}`)
	f.patch("/methods/GET/integration", `{"op":"remove","path":"/requestParameters/integration.request.querystring.q"},`+
		`{"op":"replace","path":"/requestTemplates/application~1json","value":""},{"op":"remove","path":"/cacheKeyParameters/method.request.querystring.q"},`+
		`{"op":"replace","path":"/connectionType","value":"VPC_LINK"},{"op":"replace","path":"/connectionId","value":"link1"},`+
		`{"op":"replace","path":"/contentHandling","value":""},{"op":"replace","path":"/cacheNamespace","value":"`+ns+`"}`, 200,
		`{"type":"HTTP","httpMethod":"PUT","uri":"https://b.example/x","connectionType":"VPC_LINK","connectionId":"link1","credentials":"arn:aws:iam::123456789012:role/r",`+
			`"requestTemplates":{"application/json":null},"passthroughBehavior":"WHEN_NO_TEMPLATES","timeoutInMillis":1000,"cacheNamespace":"`+ns+`",`+
			`"cacheKeyParameters":[],"tlsConfig":{"insecureSkipVerification":true}}`)
	for _, tc := range []struct{ name, ops, want string }{
		{"case=type", `{"op":"replace","path":"/type","value":"MOCK"}`, "BadRequestException: Invalid patch path /type"},
		{"case=add-uri", `{"op":"add","path":"/uri","value":"http://x"}`, "BadRequestException: Invalid patch operation specified. Must be one of: [replace]"},
		{"case=bad-uri", `{"op":"replace","path":"/uri","value":"nope"}`, "BadRequestException: Invalid HTTP endpoint specified for URI"},
		{"case=no-method", `{"op":"replace","path":"/httpMethod","value":""}`, "BadRequestException: Enumeration value for HttpMethod must be non-empty"},
		{"case=timeout", `{"op":"replace","path":"/timeoutInMillis","value":"30000"}`, "BadRequestException: Timeout should be between 50 ms and 29000 ms"},
		{"case=timeout-nan", `{"op":"replace","path":"/timeoutInMillis","value":"soon"}`, "BadRequestException: Invalid integer value specified for /timeoutInMillis: soon"},
		{"case=content-handling", `{"op":"replace","path":"/contentHandling","value":"X"}`, "BadRequestException: Invalid ContentHandlingStrategy specified. Valid options are CONVERT_TO_BINARY,CONVERT_TO_TEXT"},
		{"case=connection-type", `{"op":"replace","path":"/connectionType","value":"X"}`, "BadRequestException: Invalid ConnectionType specified. Valid options are INTERNET,VPC_LINK"},
		{"case=connection-id-cleared", `{"op":"replace","path":"/connectionId","value":""}`, "BadRequestException: Connection ID must be specified for the VPC_LINK connection type"},
		{"case=replace-missing-param", `{"op":"replace","path":"/requestParameters/integration.request.header.x","value":"'v'"}`, "NotFoundException: Invalid parameter name specified"},
		{"case=remove-missing-template", `{"op":"remove","path":"/requestTemplates/text~1plain"}`, "NotFoundException: Content-Type specified was not found"},
		{"case=remove-missing-cache-key", `{"op":"remove","path":"/cacheKeyParameters/method.request.header.h"}`, "NotFoundException: Invalid parameter name specified"},
		{"case=undeclared-param", `{"op":"add","path":"/requestParameters/integration.request.header.x","value":"method.request.header.x"}`,
			"BadRequestException: Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid mapping expression parameter specified: method.request.header.x]"},
		{"case=wrong-op", `{"op":"nope","path":"/uri","value":"x"}`, "ValidationException: 1 validation error detected: Value 'nope' at 'updateIntegrationInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := 400
			if strings.HasPrefix(tc.want, "NotFound") {
				status = 404
			}
			f.patch("/methods/GET/integration", tc.ops, status, tc.want)
		})
	}
	f.patch("/methods/POST/integration", `{"op":"replace","path":"/uri","value":"x"}`, 404, "NotFoundException: Invalid Integration identifier specified")
	resWantRaw(t, f.srv, "PATCH", "/restapis/"+f.api+"/resources/nope/methods/GET/integration", `{"patchOperations":[]}`, 404,
		"NotFoundException: Invalid Resource identifier specified")
}

func TestMethodResponses(t *testing.T) {
	f := newResFixture(t)
	f.model("Pet")
	f.putMethod("GET", apigateway.PutMethodInput{})
	f.putIntegration("GET", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock})
	path := f.path("/methods/GET/responses/200")
	resWantRaw(t, f.srv, "PUT", path, `{"responseParameters":{},"responseModels":{}}`, 201, `{"statusCode":"200","responseParameters":{},"responseModels":{}}`)
	resWantRaw(t, f.srv, "GET", path, "", 200, `{"statusCode":"200","responseParameters":{},"responseModels":{}}`)
	resWantRaw(t, f.srv, "PUT", path, `{}`, 409, "ConflictException: Response already exists for this resource")
	full := `{"statusCode":"200","responseParameters":{"method.response.header.my-header":true},"responseModels":{"application/json":"Pet"}}`
	f.patch("/methods/GET/responses/200", `{"op":"add","path":"/responseParameters/method.response.header.my-header","value":"true"},`+
		`{"op":"add","path":"/responseModels/application~1json","value":"Pet"}`, 201, full)
	f.patch("/methods/GET/responses/200", `{"op":"replace","path":"/responseParameters/method.response.header.my-header","value":"true"},`+
		`{"op":"replace","path":"/responseModels/application~1json","value":"Pet"}`, 201, full)
	resWantRaw(t, f.srv, "GET", f.path("/methods/GET"), "", 200, `{"httpMethod":"GET","authorizationType":"NONE","apiKeyRequired":false,`+
		`"methodResponses":{"200":`+full+`},"methodIntegration":{"type":"MOCK","passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,"cacheNamespace":"`+f.root+`","cacheKeyParameters":[]}}`)
	f.patch("/methods/GET/responses/200", `{"op":"remove","path":"/responseParameters/method.response.header.my-header","value":"true"},`+
		`{"op":"remove","path":"/responseModels/application~1json","value":"Pet"}`, 201, `{"statusCode":"200"}`)
	resWantRaw(t, f.srv, "PUT", f.path("/methods/GET/responses/500"), ``, 201, `{"statusCode":"500"}`)
	// Every API has the default models.
	resWantRaw(t, f.srv, "PUT", f.path("/methods/GET/responses/400"), `{"responseModels":{"application/json":"Error"},"responseParameters":{"method.response.header.my-header":false}}`, 201,
		`{"statusCode":"400","responseParameters":{"method.response.header.my-header":false},"responseModels":{"application/json":"Error"}}`)
	resWantRaw(t, f.srv, "DELETE", f.path("/methods/GET/responses/400"), "", 204, "")

	resp := func(status string) string { return f.path("/methods/GET/responses/" + status) }
	const wrongOp = "Value 'wrong_op' at 'updateMethodResponseInput.patchOperations.%d.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]"
	const pattern = `Value 'wrong' at 'statusCode' failed to satisfy constraint: Member must satisfy regular expression pattern: [1-5]\d\d`
	for _, tc := range []struct{ name, method, path, body string }{
		{"case=wrong-operation-1", "PATCH", resp("200"), `[{"op":"wrong_op","path":"/responseParameters/method.response.header.my-header","value":"true"}]`},
		{"case=wrong-operation-5", "PATCH", resp("200"), `[{"op":"wrong_op","path":"/x"},{"op":"remove","path":"/responseModels/application~1json"},{"op":"wrong_op","path":"/x"}]`},
		{"case=invalid-statuscode", "PATCH", resp("wrong"), `[{"op":"replace","path":"/responseParameters/method.response.header.my-header","value":"true"}]`},
		{"case=invalid-statuscode-and-wrong-op", "PATCH", resp("wrong"), `[{"op":"wrong_op","path":"/responseParameters/method.response.header.my-header","value":"true"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string]string{
				"case=wrong-operation-1":               "1 validation error detected: " + fmt.Sprintf(wrongOp, 1),
				"case=wrong-operation-5":               "2 validation errors detected: " + fmt.Sprintf(wrongOp, 1) + "; " + fmt.Sprintf(wrongOp, 3),
				"case=invalid-statuscode":              "1 validation error detected: " + pattern,
				"case=invalid-statuscode-and-wrong-op": "2 validation errors detected: " + fmt.Sprintf(wrongOp, 1) + "; " + pattern,
			}[tc.name]
			resWantRaw(t, f.srv, tc.method, tc.path, `{"patchOperations":`+tc.body+`}`, 400, "ValidationException: "+want)
		})
	}
	for _, tc := range []struct{ name, method, path, body, want string }{
		{"case=update-wrong-statuscode", "PATCH", resp("201"), `{"patchOperations":[{"op":"replace","path":"/responseParameters/method.response.header.my-header","value":"true"}]}`, "NotFoundException: Invalid Response status code specified"},
		{"case=update-wrong-resource", "PATCH", "/restapis/" + f.api + "/resources/wrong/methods/GET/responses/200", `{}`, "NotFoundException: Invalid Resource identifier specified"},
		{"case=update-wrong-api", "PATCH", "/restapis/wrong/resources/" + f.root + "/methods/GET/responses/200", `{}`, "NotFoundException: Invalid Resource identifier specified"},
		{"case=update-wrong-method", "PATCH", f.path("/methods/POST/responses/200"), `{}`, "NotFoundException: Invalid Method identifier specified"},
		{"case=remove-missing-param", "PATCH", resp("200"), `{"patchOperations":[{"op":"remove","path":"/responseParameters/method.response.header.my-header","value":"true"}]}`, "NotFoundException: Invalid parameter name specified"},
		{"case=remove-missing-model", "PATCH", resp("200"), `{"patchOperations":[{"op":"remove","path":"/responseModels/application~1json","value":"Pet"}]}`, "NotFoundException: Content-Type specified was not found"},
		{"case=replace-missing-param", "PATCH", resp("200"), `{"patchOperations":[{"op":"replace","path":"/responseParameters/wrong","value":"true"}]}`, "NotFoundException: Invalid parameter name specified"},
		{"case=replace-missing-model", "PATCH", resp("200"), `{"patchOperations":[{"op":"replace","path":"/responseModels/wrong","value":"Pet"}]}`, "NotFoundException: Content-Type specified was not found"},
		{"case=wrong-path", "PATCH", resp("200"), `{"patchOperations":[{"op":"remove","path":"/wrong/method.response.header.my-header","value":"true"}]}`, "BadRequestException: Invalid patch path /wrong/method.response.header.my-header"},
		{"case=unknown-model", "PATCH", resp("200"), `{"patchOperations":[{"op":"add","path":"/responseModels/application~1json","value":"Nope"}]}`, "BadRequestException: Invalid model identifier specified: Nope"},
		{"case=bad-param-name", "PATCH", resp("200"), `{"patchOperations":[{"op":"add","path":"/responseParameters/x","value":"true"}]}`,
			"BadRequestException: Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid mapping expression specified: x]"},
		{"case=put-unknown-model", "PUT", resp("201"), `{"responseModels":{"application/json":"Nope"}}`, "BadRequestException: Invalid model identifier specified: Nope"},
		{"case=put-bad-status", "PUT", resp("600"), `{}`, `ValidationException: 1 validation error detected: Value '600' at 'statusCode' failed to satisfy constraint: Member must satisfy regular expression pattern: [1-5]\d\d`},
		{"case=put-bool-as-string", "PUT", resp("201"), `{"responseParameters":{"method.response.header.h":"yes"}}`, "SerializationException: class java.lang.String can not be converted to an Boolean"},
		{"case=get-missing", "GET", resp("404"), ``, "NotFoundException: Invalid Response status code specified"},
		{"case=get-bad-status", "GET", resp("wrong"), ``, "ValidationException: 1 validation error detected: " + pattern},
		{"case=delete-missing", "DELETE", resp("404"), ``, "NotFoundException: Invalid Response status code specified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := 400
			if strings.HasPrefix(tc.want, "NotFound") {
				status = 404
			}
			resWantRaw(t, f.srv, tc.method, tc.path, tc.body, status, tc.want)
		})
	}
	if _, err := f.c.DeleteMethodResponse(context.Background(), &apigateway.DeleteMethodResponseInput{RestApiId: &f.api, ResourceId: &f.root,
		HttpMethod: aws.String("GET"), StatusCode: aws.String("200")}); err != nil {
		t.Fatal(err)
	}
	resWantRaw(t, f.srv, "DELETE", resp("500"), "", 204, "")
	resWantRaw(t, f.srv, "GET", f.path("/methods/GET"), "", 200, `{"httpMethod":"GET","authorizationType":"NONE","apiKeyRequired":false,`+
		`"methodIntegration":{"type":"MOCK","passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,"cacheNamespace":"`+f.root+`","cacheKeyParameters":[]}}`)
}

func TestIntegrationResponses(t *testing.T) {
	f := newResFixture(t)
	f.putMethod("GET", apigateway.PutMethodInput{})
	f.putMethod("POST", apigateway.PutMethodInput{})
	resp := func(method, status string) string {
		return f.path("/methods/" + method + "/integration/responses/" + status)
	}
	// Before the integration exists.
	resWantRaw(t, f.srv, "GET", resp("GET", "200"), "", 404, "NotFoundException: Invalid Integration identifier specified")
	resWantRaw(t, f.srv, "PUT", resp("GET", "200"), "{}", 404, "NotFoundException: Invalid Integration identifier specified")
	f.putIntegration("GET", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock, RequestTemplates: map[string]string{"application/json": `{"statusCode": 200}`}})

	// No method response is needed first.
	created := `{"statusCode":"200","selectionPattern":"","responseTemplates":{"application/json":"\"created\""}}`
	resWantRaw(t, f.srv, "PUT", resp("GET", "200"), `{"selectionPattern":"","responseTemplates":{"application/json":"\"created\""}}`, 201, created)
	resWantRaw(t, f.srv, "GET", resp("GET", "200"), "", 200, created)
	resWantRaw(t, f.srv, "PATCH", resp("GET", "200"), `{"patchOperations":[{"op":"replace","path":"/selectionPattern","value":"updated-pattern"}]}`, 200,
		`{"statusCode":"200","selectionPattern":"updated-pattern","responseTemplates":{"application/json":"\"created\""}}`)
	// Putting again replaces the whole response.
	over := `{"statusCode":"200","selectionPattern":"overwrite-pattern","responseTemplates":{"application/json":"overwrite"}}`
	resWantRaw(t, f.srv, "PUT", resp("GET", "200"), `{"responseTemplates":{"application/json":"overwrite"},"selectionPattern":"overwrite-pattern"}`, 201, over)
	resWantRaw(t, f.srv, "GET", f.path("/methods/GET"), "", 200, `{"httpMethod":"GET","authorizationType":"NONE","apiKeyRequired":false,`+
		`"methodIntegration":{"type":"MOCK","requestTemplates":{"application/json":"{\"statusCode\": 200}"},"passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,`+
		`"cacheNamespace":"`+f.root+`","cacheKeyParameters":[],"integrationResponses":{"200":`+over+`}}}`)
	// Empty and null templates are null; {} is echoed; absent stays absent.
	resWantRaw(t, f.srv, "PUT", resp("GET", "400"), `{"responseTemplates":{"application/json":null,"text/plain":""},"responseParameters":{},"contentHandling":"CONVERT_TO_TEXT"}`, 201,
		`{"statusCode":"400","responseParameters":{},"responseTemplates":{"application/json":null,"text/plain":null},"contentHandling":"CONVERT_TO_TEXT"}`)
	resWantRaw(t, f.srv, "PUT", resp("GET", "500"), `{"responseTemplates":{},"selectionPattern":"5\\d{2}"}`, 201,
		`{"statusCode":"500","selectionPattern":"5\\d{2}","responseTemplates":{}}`)
	resWantRaw(t, f.srv, "PUT", resp("GET", "201"), ``, 201, `{"statusCode":"201"}`)
	resWantRaw(t, f.srv, "PATCH", resp("GET", "400"), `{"patchOperations":[{"op":"add","path":"/responseParameters/method.response.header.x","value":"'v'"},`+
		`{"op":"replace","path":"/responseTemplates/application~1json","value":"{}"},{"op":"remove","path":"/responseTemplates/text~1plain"},`+
		`{"op":"replace","path":"/contentHandling","value":"CONVERT_TO_BINARY"}]}`, 200,
		`{"statusCode":"400","responseParameters":{"method.response.header.x":"'v'"},"responseTemplates":{"application/json":"{}"},"contentHandling":"CONVERT_TO_BINARY"}`)

	for _, tc := range []struct{ name, method, path, body, want string }{
		{"case=put-wrong-api", "PUT", "/restapis/wrong-api/resources/dummy-value/methods/GET/integration/responses/200", `{}`, "NotFoundException: Invalid Resource identifier specified"},
		{"case=get-wrong-api", "GET", "/restapis/wrong-api/resources/dummy-value/methods/GET/integration/responses/200", ``, "NotFoundException: Invalid Resource identifier specified"},
		{"case=put-wrong-resource", "PUT", "/restapis/" + f.api + "/resources/wrong/methods/GET/integration/responses/200", `{}`, "NotFoundException: Invalid Resource identifier specified"},
		{"case=put-wrong-method", "PUT", resp("wrong-method", "200"), `{}`, "NotFoundException: Invalid Method identifier specified"},
		{"case=get-wrong-method", "GET", resp("wrong-method", "200"), ``, "NotFoundException: Invalid Method identifier specified"},
		{"case=put-invalid-status", "PUT", resp("DELETE", "wrong"), `{"responseTemplates":{"application/json":"\"created\""},"selectionPattern":""}`,
			`ValidationException: 1 validation error detected: Value 'wrong' at 'statusCode' failed to satisfy constraint: Member must satisfy regular expression pattern: [1-5]\d\d`},
		{"case=get-invalid-status", "GET", resp("GET", "wrong"), ``,
			`ValidationException: 1 validation error detected: Value 'wrong' at 'statusCode' failed to satisfy constraint: Member must satisfy regular expression pattern: [1-5]\d\d`},
		{"case=put-template-number", "PUT", resp("GET", "200"), `{"responseTemplates":{"application/json":123}}`,
			"SerializationException: class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{"case=put-template-content-type", "PUT", resp("GET", "200"), `{"responseTemplates":{"123":"{\"statusCode\": 200}"}}`,
			"BadRequestException: Validation Result: warnings : [], errors : [Invalid content type specified: 123]"},
		{"case=put-content-handling", "PUT", resp("GET", "200"), `{"contentHandling":"X"}`,
			"ValidationException: 1 validation error detected: Value 'X' at 'putIntegrationResponseInput.contentHandling' failed to satisfy constraint: Member must satisfy enum value set: [CONVERT_TO_BINARY, CONVERT_TO_TEXT]"},
		{"case=put-bad-param-name", "PUT", resp("GET", "200"), `{"responseParameters":{"header.x":"'v'"}}`,
			"BadRequestException: Invalid mapping expression specified: Validation Result: warnings : [], errors : [Invalid mapping expression specified: header.x]"},
		{"case=get-without-integration", "GET", resp("POST", "200"), ``, "NotFoundException: Invalid Integration identifier specified"},
		{"case=get-wrong-status", "GET", resp("GET", "404"), ``, "NotFoundException: Invalid Response status code specified"},
		{"case=delete-wrong-resource", "DELETE", "/restapis/" + f.api + "/resources/bad-resource/methods/GET/integration/responses/200", ``, "NotFoundException: Invalid Resource identifier specified"},
		{"case=delete-wrong-api", "DELETE", "/restapis/bad-api-id/resources/" + f.root + "/methods/GET/integration/responses/200", ``, "NotFoundException: Invalid Resource identifier specified"},
		{"case=delete-wrong-method", "DELETE", resp("PUT", "200"), ``, "NotFoundException: Invalid Integration identifier specified"},
		{"case=delete-bad-method", "DELETE", resp("WRONG", "201"), ``, "NotFoundException: Invalid Integration identifier specified"},
		{"case=delete-wrong-status", "DELETE", resp("GET", "404"), ``, "NotFoundException: Invalid Response status code specified"},
		{"case=update-wrong-status", "PATCH", resp("GET", "404"), `{"patchOperations":[]}`, "NotFoundException: Invalid Response status code specified"},
		{"case=update-wrong-path", "PATCH", resp("GET", "200"), `{"patchOperations":[{"op":"replace","path":"/statusCode","value":"201"}]}`, "BadRequestException: Invalid patch path /statusCode"},
		{"case=update-add-pattern", "PATCH", resp("GET", "200"), `{"patchOperations":[{"op":"add","path":"/selectionPattern","value":"x"}]}`,
			"BadRequestException: Invalid patch operation specified. Must be one of: [replace]"},
		{"case=update-missing-template", "PATCH", resp("GET", "200"), `{"patchOperations":[{"op":"remove","path":"/responseTemplates/text~1html"}]}`,
			"NotFoundException: Content-Type specified was not found"},
		{"case=update-missing-param", "PATCH", resp("GET", "200"), `{"patchOperations":[{"op":"replace","path":"/responseParameters/method.response.header.y","value":"'v'"}]}`,
			"NotFoundException: Invalid parameter name specified"},
		{"case=update-wrong-op", "PATCH", resp("GET", "wrong"), `{"patchOperations":[{"op":"bad","path":"/selectionPattern"}]}`,
			`ValidationException: 2 validation errors detected: Value 'bad' at 'updateIntegrationResponseInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]; Value 'wrong' at 'statusCode' failed to satisfy constraint: Member must satisfy regular expression pattern: [1-5]\d\d`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := 400
			if strings.HasPrefix(tc.want, "NotFound") {
				status = 404
			}
			resWantRaw(t, f.srv, tc.method, tc.path, tc.body, status, tc.want)
		})
	}
	// Deleting the last responses drops the member; deleting the
	// integration takes its responses.
	for _, st := range []string{"200", "201", "400", "500"} {
		resWantRaw(t, f.srv, "DELETE", resp("GET", st), "", 204, "")
	}
	resWantRaw(t, f.srv, "GET", f.path("/methods/GET/integration"), "", 200,
		`{"type":"MOCK","requestTemplates":{"application/json":"{\"statusCode\": 200}"},"passthroughBehavior":"WHEN_NO_MATCH","timeoutInMillis":29000,"cacheNamespace":"`+f.root+`","cacheKeyParameters":[]}`)
	resWantRaw(t, f.srv, "PUT", resp("GET", "200"), `{}`, 201, `{"statusCode":"200"}`)
	resWantRaw(t, f.srv, "DELETE", f.path("/methods/GET/integration"), "", 204, "")
	f.putIntegration("GET", apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock})
	resWantRaw(t, f.srv, "GET", resp("GET", "200"), "", 404, "NotFoundException: Invalid Response status code specified")
}
