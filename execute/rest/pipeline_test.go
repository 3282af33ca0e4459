package rest_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

// TestValidators is the recorded V-01…V-03: parameters first (all the
// missing names, ordered header, path, querystring), then the body against
// a draft-4 model that may reference other models.
func TestValidators(t *testing.T) {
	f := newFixture(t)
	model := func(name, schema string) {
		_, err := f.c.CreateModel(ctx, &apigateway.CreateModelInput{RestApiId: &f.api, Name: aws.String(name),
			ContentType: aws.String("application/json"), Schema: aws.String(schema)})
		f.must(err)
	}
	model("testSchema", `{"$schema": "http://json-schema.org/draft-04/schema#", "title": "testSchema", "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}`)
	model("testSchemaList", `{"type": "array", "items": {"$ref": "https://apigateway.amazonaws.com/restapis/`+f.api+`/models/testSchema"}}`)
	v, err := f.c.CreateRequestValidator(ctx, &apigateway.CreateRequestValidatorInput{RestApiId: &f.api, Name: aws.String("all"),
		ValidateRequestBody: true, ValidateRequestParameters: true})
	f.must(err)
	rid := f.mock("/nested/{test}", "POST", `{"ok": true}`)
	_, err = f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("POST"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/requestValidatorId"), Value: v.Id},
			{Op: types.OpAdd, Path: aws.String("/requestParameters/method.request.path.test"), Value: aws.String("true")},
			{Op: types.OpAdd, Path: aws.String("/requestParameters/method.request.path.issuer"), Value: aws.String("true")},
			{Op: types.OpAdd, Path: aws.String("/requestParameters/method.request.querystring.qs1"), Value: aws.String("true")},
			{Op: types.OpAdd, Path: aws.String("/requestParameters/method.request.header.x-header-param"), Value: aws.String("true")},
			{Op: types.OpAdd, Path: aws.String("/requestModels/application~1json"), Value: aws.String("testSchema")},
		}})
	f.must(err)
	lid := f.mock("/list", "POST", `{"data": "ok"}`)
	_, err = f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &lid, HttpMethod: aws.String("POST"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/requestValidatorId"), Value: v.Id},
			{Op: types.OpAdd, Path: aws.String("/requestModels/application~1json"), Value: aws.String("testSchemaList")},
		}})
	f.must(err)
	f.deploy("local", nil)

	hdr := map[string]string{"x-header-param": "test", "Content-Type": "application/json"}
	f.call("POST", "local", "/nested/value", nil, `{"test": "test"}`).
		want(t, 400, `{"message": "Missing required request parameters: [x-header-param, issuer, qs1]"}`)
	f.call("POST", "local", "/nested/value?qs1=", hdr, `{"a": 1, "b": 2}`).
		want(t, 400, `{"message": "Missing required request parameters: [issuer, qs1]"}`)
	// The issuer path parameter cannot exist in this resource: drop it.
	_, err = f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("POST"),
		PatchOperations: []types.PatchOperation{{Op: types.OpRemove, Path: aws.String("/requestParameters/method.request.path.issuer")}}})
	f.must(err)
	f.deploy("local", nil)
	f.call("POST", "local", "/nested/value?qs1=test", hdr, `{"a": 1, "b": 2}`).want(t, 200, `{"ok": true}`)
	a := f.call("POST", "local", "/nested/value?qs1=test", hdr, `{"test": "test"}`)
	a.want(t, 400, `{"message": "Invalid request body"}`)
	if a.header.Get("x-amzn-ErrorType") != "BadRequestException" {
		t.Errorf("error type %v", a.header)
	}
	f.call("POST", "local", "/nested/value?qs1=test", hdr, ``).want(t, 400, `{"message": "Invalid request body"}`)
	f.call("POST", "local", "/nested/value?qs1=test", hdr, `{"a": 1, "b":`).want(t, 400, `{"message": "Invalid request body"}`)
	f.call("POST", "local", "/nested/value?qs1=test", hdr, `{"a": "one", "b": 2}`).want(t, 400, `{"message": "Invalid request body"}`)
	// A model referencing another model.
	f.call("POST", "local", "/list", nil, `[{"a": 1, "b": 2}]`).want(t, 200, `{"data": "ok"}`)
	f.call("POST", "local", "/list", nil, `[{"a": 1}]`).want(t, 400, `{"message": "Invalid request body"}`)
	f.call("POST", "local", "/list", nil, ``).want(t, 400, `{"message": "Invalid request body"}`)
}

// TestGatewayResponses: a customised response type, the DEFAULT_4XX
// family and the built-in defaults (docs/apigateway-execution.md §3).
func TestGatewayResponses(t *testing.T) {
	f := newFixture(t)
	f.mock("/pets", "GET", `{}`)
	_, err := f.c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &f.api,
		ResponseType: types.GatewayResponseTypeMissingAuthenticationToken, StatusCode: aws.String("404"),
		ResponseParameters: map[string]string{"gatewayresponse.header.Access-Control-Allow-Origin": "'a.b.c'",
			"gatewayresponse.header.X-Stage": "stageVariables.name", "gatewayresponse.header.X-Path": "method.request.path.proxy"},
		ResponseTemplates: map[string]string{"application/json": `{"message": $context.error.messageString, "type": "$context.error.responseType", "stage": "$context.stage"}`}})
	f.must(err)
	_, err = f.c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &f.api,
		ResponseType:       types.GatewayResponseTypeDefault4xx,
		ResponseParameters: map[string]string{"gatewayresponse.header.X-Family": "'4xx'"}})
	f.must(err)
	f.deploy("dev", map[string]string{"name": "dev-stage"})

	a := f.call("GET", "dev", "/nothing", nil, "")
	a.want(t, 404, `{"message": "Missing Authentication Token", "type": "MISSING_AUTHENTICATION_TOKEN", "stage": "dev"}`)
	if a.header.Get("Access-Control-Allow-Origin") != "a.b.c" || a.header.Get("X-Stage") != "dev-stage" ||
		a.header.Get("x-amzn-ErrorType") != "MissingAuthenticationTokenException" {
		t.Errorf("headers %v", a.header)
	}
	// Another 4xx takes the family's parameters and keeps the default body.
	rid := f.resource("/pets")
	_, err = f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/apiKeyRequired"), Value: aws.String("true")}}})
	f.must(err)
	f.deploy("dev", nil)
	a = f.call("GET", "dev", "/pets", nil, "")
	a.want(t, 403, `{"message":"Forbidden"}`)
	if a.header.Get("X-Family") != "4xx" || a.header.Get("x-amzn-ErrorType") != "ForbiddenException" {
		t.Errorf("headers %v", a.header)
	}
}

// TestAPIKeys is K-01: a method that requires a key refuses a request
// without one, with an unknown one, with one in no plan of the stage, or a
// disabled one; a good key passes and is counted in GetUsage.
func TestAPIKeys(t *testing.T) {
	f := newFixture(t)
	rid := f.mock("/test", "GET", `{"key": "$context.identity.apiKey", "id": "$context.identity.apiKeyId"}`)
	_, err := f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/apiKeyRequired"), Value: aws.String("true")}}})
	f.must(err)
	f.deploy("dev", nil)
	f.deploy("other", nil)
	key, err := f.c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("k"), Enabled: true, Value: aws.String("key-value-0123456789")})
	f.must(err)
	loose, err := f.c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("loose"), Enabled: true, Value: aws.String("loose-value-0123456789")})
	f.must(err)
	_ = loose
	plan, err := f.c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("p"),
		ApiStages: []types.ApiStage{{ApiId: &f.api, Stage: aws.String("dev")}}})
	f.must(err)
	_, err = f.c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: plan.Id, KeyId: key.Id, KeyType: aws.String("API_KEY")})
	f.must(err)

	forbidden := `{"message":"Forbidden"}`
	f.call("GET", "dev", "/test", nil, "").want(t, 403, forbidden)
	f.call("GET", "dev", "/test", map[string]string{"x-api-key": "nope"}, "").want(t, 403, forbidden)
	f.call("GET", "dev", "/test", map[string]string{"x-api-key": "loose-value-0123456789"}, "").want(t, 403, forbidden)
	f.call("GET", "other", "/test", map[string]string{"X-API-Key": "key-value-0123456789"}, "").want(t, 403, forbidden)
	f.call("GET", "dev", "/test", map[string]string{"X-API-Key": "key-value-0123456789"}, "").
		want(t, 200, `{"key": "key-value-0123456789", "id": "`+*key.Id+`"}`)
	today := time.Now().UTC().Format("2006-01-02")
	u, err := f.c.GetUsage(ctx, &apigateway.GetUsageInput{UsagePlanId: plan.Id, StartDate: &today, EndDate: &today})
	f.must(err)
	if got := u.Items[*key.Id]; len(got) != 1 || got[0][0] != 1 {
		t.Errorf("usage %v", u.Items)
	}
	_, err = f.c.UpdateApiKey(ctx, &apigateway.UpdateApiKeyInput{ApiKey: key.Id, PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/enabled"), Value: aws.String("false")}}})
	f.must(err)
	f.call("GET", "dev", "/test", map[string]string{"X-API-Key": "key-value-0123456789"}, "").want(t, 403, forbidden)
}

// TestAuthorization: AWS_IAM accepts any signed request; without a
// Function, Lambda authorizers answer AUTHORIZER_CONFIGURATION_ERROR and
// function integrations a 500 naming their type (Cognito authorizers
// answer AUTHORIZER_CONFIGURATION_ERROR always). The front is built here
// with no Function, whatever the emulator plugs in.
func TestAuthorization(t *testing.T) {
	f := newFixtureOn(t, startWithFunctions(t, nil, nil))
	rid := f.mock("/iam", "GET", `{"ok": true}`)
	_, err := f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/authorizationType"), Value: aws.String("AWS_IAM")}}})
	f.must(err)
	auth, err := f.c.CreateAuthorizer(ctx, &apigateway.CreateAuthorizerInput{RestApiId: &f.api, Name: aws.String("a"),
		Type: types.AuthorizerTypeToken, IdentitySource: aws.String("method.request.header.Authorization"),
		AuthorizerUri: aws.String("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:auth/invocations")})
	f.must(err)
	cid := f.resource("/custom")
	f.method(cid, "GET", func(in *apigateway.PutMethodInput) {
		in.AuthorizationType, in.AuthorizerId = aws.String("CUSTOM"), auth.Id
	})
	f.integration(cid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeMock,
		RequestTemplates: map[string]string{"application/json": `{"statusCode": 200}`}})
	lid := f.resource("/lambda")
	f.method(lid, "POST", nil)
	f.integration(lid, "POST", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeAwsProxy, IntegrationHttpMethod: aws.String("POST"),
		Uri: aws.String("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:fn/invocations")})
	f.deploy("dev", nil)

	f.call("GET", "dev", "/iam", nil, "").want(t, 403, `{"message":"Missing Authentication Token"}`)
	signed := map[string]string{"Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20261124/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature=abc"}
	f.call("GET", "dev", "/iam", signed, "").want(t, 200, `{"ok": true}`)
	a := f.call("GET", "dev", "/custom", nil, "")
	a.want(t, 500, `{"message": null}`)
	if a.header.Get("x-amzn-ErrorType") != "AuthorizerConfigurationException" {
		t.Errorf("error type %v", a.header)
	}
	f.call("POST", "dev", "/lambda", nil, "{}").want(t, 500, `{"message": "Integration type AWS_PROXY is not emulated yet"}`)
}

// TestCanary is S-01: a canary at 100% runs the canary's deployment with
// its stage-variable overrides; at 0% the stage's.
func TestCanary(t *testing.T) {
	f := newFixture(t)
	tmpl := func(msg string) string {
		return `{"message": "` + msg + `", "variable": "$stageVariables.testVar", "nonExisting": "$stageVariables.noStageVar", "nonOverridden": "$stageVariables.defaultVar", "isCanary": "$context.isCanaryRequest"}`
	}
	rid := f.mock("/", "GET", tmpl("default deployment"))
	f.deploy("dev", map[string]string{"testVar": "default", "defaultVar": "default"})
	f.integrationResponse(rid, "GET", "200", &apigateway.PutIntegrationResponseInput{
		ResponseTemplates: map[string]string{"application/json": tmpl("canary deployment")}})
	_, err := f.c.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: &f.api, StageName: aws.String("dev"),
		CanarySettings: &types.DeploymentCanarySettings{PercentTraffic: 0,
			StageVariableOverrides: map[string]string{"testVar": "canary", "noStageVar": "canary"}}})
	f.must(err)
	f.call("GET", "dev", "/", nil, "").want(t, 200,
		`{"message": "default deployment", "variable": "default", "nonExisting": "", "nonOverridden": "default", "isCanary": "false"}`)
	_, err = f.c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &f.api, StageName: aws.String("dev"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/canarySettings/percentTraffic"), Value: aws.String("100.0")}}})
	f.must(err)
	f.call("GET", "dev", "/", nil, "").want(t, 200,
		`{"message": "canary deployment", "variable": "canary", "nonExisting": "canary", "nonOverridden": "default", "isCanary": "true"}`)
	// At 50% both answer, in bounded tries.
	_, err = f.c.UpdateStage(ctx, &apigateway.UpdateStageInput{RestApiId: &f.api, StageName: aws.String("dev"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/canarySettings/percentTraffic"), Value: aws.String("50")}}})
	f.must(err)
	seen := map[bool]bool{}
	for i := 0; i < 200 && len(seen) < 2; i++ {
		seen[strings.Contains(f.call("GET", "dev", "/", nil, "").body, "canary deployment")] = true
	}
	if len(seen) != 2 {
		t.Errorf("50%% canary: only %v in 200 requests", seen)
	}
}

// TestBadInput: bodies over the limit, hostile paths, odd methods; never a
// 5xx from the front, a panic or a hang.
func TestBadInput(t *testing.T) {
	f := newFixture(t, servertest.WithMaxBody(4096))
	f.mock("/{proxy+}", "ANY", `{"p": "$input.params('proxy')"}`)
	f.deploy("dev", nil)
	a := f.call("POST", "dev", "/x", nil, strings.Repeat("a", 5000))
	a.want(t, 413, `{"message":"Request Too Long"}`)
	for _, p := range []string{"/../../etc/passwd", "/%00", "/%zz", "/" + strings.Repeat("a/", 2000), "/a?%=&&=x&b=%", "/%2e%2e/", "/\x01"} {
		status := rawStatus(t, f.srv.Addr, "GET /restapis/"+f.api+"/dev/_user_request_"+p+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if status != 200 && status != 403 && status != 400 {
			t.Errorf("GET %.40q: %d", p, status)
		}
	}
	for _, m := range []string{"PROPFIND", "X"} {
		a := f.call(m, "dev", "/x", nil, "")
		if a.status != 403 {
			t.Errorf("%s: %d %s", m, a.status, a.body)
		}
	}
}

// rawStatus sends a request as written and returns the answer's status.
func rawStatus(t *testing.T, addr, request string) int {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", request, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestContextVariables renders the $context variables the issue lists.
func TestContextVariables(t *testing.T) {
	f := newFixture(t)
	rid := f.mock("/ctx/{id}", "POST", `$context.requestId|$context.extendedRequestId|$context.apiId|$context.stage|$context.resourceId|$context.resourcePath|$context.httpMethod|$context.path|$context.protocol|$context.requestTime|$context.requestTimeEpoch|$context.domainName|$context.domainPrefix|$context.accountId|$context.identity.sourceIp|$context.identity.userAgent|$context.identity.apiKey|$context.deploymentId|$stageVariables.v|$context.nothing|${context.stage}`)
	dep := f.deploy("dev", map[string]string{"v": "var"})
	a := f.callHost("POST", f.api+".execute-api.localhost.localstack.cloud:4566", "/dev/ctx/7", map[string]string{"User-Agent": "ua/1"}, "")
	parts := strings.Split(a.body, "|")
	if a.status != 200 || len(parts) != 21 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	want := map[int]string{0: a.header.Get("x-amzn-RequestId"), 1: a.header.Get("x-amz-apigw-id"), 2: f.api, 3: "dev",
		4: rid, 5: "/ctx/{id}", 6: "POST", 7: "/dev/ctx/7", 8: "HTTP/1.1",
		11: f.api + ".execute-api.localhost.localstack.cloud", 12: f.api, 13: "000000000000", 14: "127.0.0.1",
		15: "ua/1", 16: "", 17: dep, 18: "var", 19: "", 20: "dev"}
	for i, w := range want {
		if parts[i] != w {
			t.Errorf("part %d = %q, want %q", i, parts[i], w)
		}
	}
	if _, err := time.Parse("02/Jan/2006:15:04:05 -0700", parts[9]); err != nil {
		t.Errorf("requestTime %q: %v", parts[9], err)
	}
	if len(parts[10]) != 13 {
		t.Errorf("requestTimeEpoch %q", parts[10])
	}
}

// TestAdmission: past EMULATOR_MAX_EXECUTIONS in flight a request is
// refused at once with 429 instead of waiting.
func TestAdmission(t *testing.T) {
	be := newBackend(t)
	f := newFixture(t, servertest.WithConfig(func(c *config.Config) { c.MaxExecutions = 1 }))
	rid := f.resource("/slow")
	f.method(rid, "GET", nil)
	f.integration(rid, "GET", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
		IntegrationHttpMethod: aws.String("GET"), Uri: aws.String(be.URL + "/slow")})
	f.mock("/fast", "GET", `{}`)
	f.deploy("dev", nil)
	done := make(chan answer, 1)
	go func() { done <- f.call("GET", "dev", "/slow", nil, "") }()
	// The slow request must hold the one slot first: a /fast arriving at
	// the same moment would take it and turn the slow one away.
	time.Sleep(200 * time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	var a answer
	for time.Now().Before(deadline) {
		if a = f.call("GET", "dev", "/fast", nil, ""); a.status == 429 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.want(t, 429, `{"message":"Too Many Requests"}`)
	if a.header.Get("x-amzn-ErrorType") != "TooManyRequestsException" {
		t.Errorf("headers %v", a.header)
	}
	if slow := <-done; slow.status != 200 {
		t.Errorf("the slow request: %d %s", slow.status, slow.body)
	}
	f.call("GET", "dev", "/fast", nil, "").want(t, 200, `{}`)
}

// TestExecuteAfterRestart: deployments survive a restart in persistent
// mode and run as before.
func TestExecuteAfterRestart(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, servertest.WithPersistence(dir))
	f.mock("/pets", "GET", `{"stage": "$context.stage"}`)
	f.deploy("dev", nil)
	f.call("GET", "dev", "/pets", nil, "").want(t, 200, `{"stage": "dev"}`)
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f.must(f.srv.Emulator.Shutdown(shut))
	f2 := &fixture{t: t, srv: servertest.Start(t, servertest.WithPersistence(dir)), api: f.api, http: f.http}
	f2.call("GET", "dev", "/pets", nil, "").want(t, 200, `{"stage": "dev"}`)
}
