package httpapi_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// functionSource answers what the event's "want" query parameter asks for:
// the event itself (echo), a structured answer, a bare string, a failure.
const functionSource = `import json

def handler(event, context):
    q = event.get("queryStringParameters") or {}
    want = q.get("want", "echo")
    if want == "echo":
        return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": json.dumps(event)}
    if want == "structured":
        return {"statusCode": 201, "headers": {"x-fn": "yes"}, "cookies": ["a=1", "b=2"], "body": "made"}
    if want == "plain":
        return {"hello": "world"}
    if want == "string":
        return "just text"
    if want == "bad":
        return {"statusCode": "nope"}
    raise Exception("boom")
`

// authorizerSource allows the token "allow" (simple answers) or answers
// a policy for "policy-allow"/"policy-deny"; "fail" raises Unauthorized.
const authorizerSource = `def handler(event, context):
    token = (event.get("headers") or {}).get("authorization", "")
    if token == "fail":
        raise Exception("Unauthorized")
    if token.startswith("policy-"):
        effect = "Allow" if token == "policy-allow" else "Deny"
        return {"principalId": "user-1", "context": {"tier": "gold"},
                "policyDocument": {"Version": "2012-10-17", "Statement": [
                    {"Action": "execute-api:Invoke", "Effect": effect, "Resource": event["routeArn"] if "routeArn" in event else event["methodArn"]}]}}
    return {"isAuthorized": token == "allow", "context": {"user": "u-" + token}}
`

func zipOf(t testing.TB, name, src string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, src); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pythonFunction creates a Python function and returns its ARN.
func (f *fixture) pythonFunction(name, src string) string {
	f.t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(f.t, "python3")
	}
	lc := lambda.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *lambda.Options) { o.BaseEndpoint = aws.String(f.srv.URL) })
	out, err := lc.CreateFunction(ctx, &lambda.CreateFunctionInput{FunctionName: aws.String(name),
		Runtime: ltypes.RuntimePython312, Handler: aws.String("index.handler"), Role: aws.String("arn:aws:iam::000000000000:role/r"),
		Code: &ltypes.FunctionCode{ZipFile: zipOf(f.t, "index.py", src)}})
	f.must(err)
	return *out.FunctionArn
}

func (f *fixture) lambdaIntegration(arn, version string) string {
	f.t.Helper()
	out, err := f.c.CreateIntegration(ctx, &apigatewayv2.CreateIntegrationInput{ApiId: &f.api, IntegrationType: types.IntegrationTypeAwsProxy,
		IntegrationUri:       aws.String("arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + arn + "/invocations"),
		PayloadFormatVersion: aws.String(version)})
	f.must(err)
	return *out.IntegrationId
}

// TestFunctionProxy: payload format 2.0 and 1.0 events reach a real
// function, and its answers are read by the HTTP API rules.
func TestFunctionProxy(t *testing.T) {
	f := newFixture(t)
	arn := f.pythonFunction("http-fn", functionSource)
	f.route("GET /items/{id}", f.lambdaIntegration(arn, "2.0"), nil)
	f.route("GET /v1/{proxy+}", f.lambdaIntegration(arn, "1.0"), nil)
	f.stage("dev", func(in *apigatewayv2.CreateStageInput) { in.StageVariables = map[string]string{"color": "red"} })

	a := f.call("GET", "/dev/items/a%20b?x=1&x=2", map[string]string{"Cookie": "c1=v1; c2=v2", "X-Two": "one"}, "")
	if a.status != 200 {
		t.Fatalf("echo: %d %s", a.status, a.body)
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(a.body), &ev); err != nil {
		t.Fatal(err)
	}
	rc, _ := ev["requestContext"].(map[string]any)
	httpCtx, _ := rc["http"].(map[string]any)
	for k, want := range map[string]any{"version": "2.0", "routeKey": "GET /items/{id}", "rawPath": "/dev/items/a b",
		"rawQueryString": "x=1&x=2"} {
		if ev[k] != want {
			t.Errorf("event %s = %v, want %v", k, ev[k], want)
		}
	}
	if got := jsonOf(ev["cookies"]); got != `["c1=v1","c2=v2"]` {
		t.Errorf("cookies %s", got)
	}
	if got := jsonOf(ev["queryStringParameters"]); got != `{"x":"1,2"}` {
		t.Errorf("queryStringParameters %s", got)
	}
	if got := jsonOf(ev["pathParameters"]); got != `{"id":"a b"}` {
		t.Errorf("pathParameters %s", got)
	}
	if got := jsonOf(ev["stageVariables"]); got != `{"color":"red"}` {
		t.Errorf("stageVariables %s", got)
	}
	if rc["stage"] != "dev" || rc["apiId"] != f.api || rc["routeKey"] != "GET /items/{id}" || httpCtx["method"] != "GET" ||
		httpCtx["path"] != "/dev/items/a b" || rc["requestId"] != a.header.Get("apigw-requestid") {
		t.Errorf("requestContext %s (request id %s)", jsonOf(rc), a.header.Get("apigw-requestid"))
	}
	headers, _ := ev["headers"].(map[string]any)
	if headers["x-two"] != "one" || headers["cookie"] != nil || headers["x-forwarded-for"] == nil {
		t.Errorf("headers %s", jsonOf(headers))
	}

	a = f.call("GET", "/dev/items/1?want=structured", nil, "")
	if a.status != 201 || a.body != "made" || a.header.Get("x-fn") != "yes" || strings.Join(a.header.Values("Set-Cookie"), ";") != "a=1;b=2" {
		t.Errorf("structured: %d %q %v", a.status, a.body, a.header)
	}
	a = f.call("GET", "/dev/items/1?want=plain", nil, "")
	if a.status != 200 || a.body != `{"hello": "world"}` || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Errorf("no statusCode: %d %q %v", a.status, a.body, a.header)
	}
	f.call("GET", "/dev/items/1?want=bad", nil, "").want(t, 500, `{"message":"Internal Server Error"}`)
	f.call("GET", "/dev/items/1?want=raise", nil, "").want(t, 500, `{"message":"Internal Server Error"}`)

	// Parameter mapping applies to function integrations too: the event
	// gets the mapped headers and query, the answer the mapped headers.
	mapped, err := f.c.CreateIntegration(ctx, &apigatewayv2.CreateIntegrationInput{ApiId: &f.api, IntegrationType: types.IntegrationTypeAwsProxy,
		IntegrationUri: aws.String(arn), PayloadFormatVersion: aws.String("2.0"),
		RequestParameters: map[string]string{"append:header.x-mapped": "m-$request.path.id", "overwrite:querystring.want": "echo"},
		ResponseParameters: map[string]map[string]string{"200": {"overwrite:header.x-from-fn": "$response.header.content-type",
			"overwrite:statuscode": "203"}}})
	f.must(err)
	f.route("GET /mapped/{id}", *mapped.IntegrationId, nil)
	a = f.call("GET", "/dev/mapped/9?want=plain", nil, "")
	if a.status != 203 || a.header.Get("x-from-fn") != "application/json" ||
		!strings.Contains(a.body, `"x-mapped": "m-9"`) || !strings.Contains(a.body, `"rawQueryString": "want=echo"`) {
		t.Errorf("mapped: %d %v %s", a.status, a.header, a.body)
	}

	// Payload format 1.0: the REST-shaped event with version 1.0.
	a = f.call("GET", "/dev/v1/a/b?k=v", nil, "")
	if a.status != 200 {
		t.Fatalf("1.0: %d %s", a.status, a.body)
	}
	ev = nil
	if err := json.Unmarshal([]byte(a.body), &ev); err != nil {
		t.Fatal(err)
	}
	if ev["version"] != "1.0" || ev["resource"] != "/v1/{proxy+}" || ev["httpMethod"] != "GET" ||
		jsonOf(ev["pathParameters"]) != `{"proxy":"a/b"}` || jsonOf(ev["multiValueQueryStringParameters"]) != `{"k":["v"]}` {
		t.Errorf("1.0 event %s", a.body)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestLambdaAuthorizer: a REQUEST authorizer with simple answers (2.0) and
// one with IAM policies (1.0), their context reaching the integration,
// missing identity 401, deny 403, Unauthorized 401, and the cache.
func TestLambdaAuthorizer(t *testing.T) {
	f := newFixture(t)
	auth := f.pythonFunction("authz", authorizerSource)
	target := f.pythonFunction("target", functionSource)
	uri := "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + auth + "/invocations"
	simple, err := f.c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &f.api, Name: aws.String("simple"),
		AuthorizerType: types.AuthorizerTypeRequest, AuthorizerUri: &uri, AuthorizerPayloadFormatVersion: aws.String("2.0"),
		EnableSimpleResponses: aws.Bool(true), IdentitySource: []string{"$request.header.Authorization"},
		AuthorizerResultTtlInSeconds: aws.Int32(0)})
	f.must(err)
	policy, err := f.c.CreateAuthorizer(ctx, &apigatewayv2.CreateAuthorizerInput{ApiId: &f.api, Name: aws.String("policy"),
		AuthorizerType: types.AuthorizerTypeRequest, AuthorizerUri: &uri, AuthorizerPayloadFormatVersion: aws.String("1.0"),
		IdentitySource: []string{"$request.header.Authorization"}, AuthorizerResultTtlInSeconds: aws.Int32(300)})
	f.must(err)
	integ := f.lambdaIntegration(target, "2.0")
	f.route("GET /simple", integ, func(in *apigatewayv2.CreateRouteInput) {
		in.AuthorizationType, in.AuthorizerId = types.AuthorizationTypeCustom, simple.AuthorizerId
	})
	f.route("GET /policy", integ, func(in *apigatewayv2.CreateRouteInput) {
		in.AuthorizationType, in.AuthorizerId = types.AuthorizationTypeCustom, policy.AuthorizerId
	})
	f.stage("$default", nil)

	a := f.call("GET", "/simple", map[string]string{"Authorization": "allow"}, "")
	if a.status != 200 || !strings.Contains(a.body, `"lambda": {"user": "u-allow"}`) {
		t.Errorf("allowed: %d %s", a.status, a.body)
	}
	f.call("GET", "/simple", map[string]string{"Authorization": "nope"}, "").want(t, 403, `{"message":"Forbidden"}`)
	f.call("GET", "/simple", nil, "").want(t, 401, `{"message":"Unauthorized"}`)
	f.call("GET", "/simple", map[string]string{"Authorization": "fail"}, "").want(t, 401, `{"message":"Unauthorized"}`)

	a = f.call("GET", "/policy", map[string]string{"Authorization": "policy-allow"}, "")
	if a.status != 200 || !strings.Contains(a.body, `"tier": "gold"`) {
		t.Errorf("policy allow: %d %s", a.status, a.body)
	}
	f.call("GET", "/policy", map[string]string{"Authorization": "policy-deny"}, "").want(t, 403, `{"message":"Forbidden"}`)

	// The policy answer is cached for 300 s per identity: a changed
	// authorizer function is not called for the same token until the
	// cache is reset.
	lc := lambda.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *lambda.Options) { o.BaseEndpoint = aws.String(f.srv.URL) })
	_, err = lc.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String("authz"),
		ZipFile: zipOf(t, "index.py", "def handler(event, context):\n    raise Exception('Unauthorized')\n")})
	f.must(err)
	if a := f.call("GET", "/policy", map[string]string{"Authorization": "policy-allow"}, ""); a.status != 200 {
		t.Errorf("cached answer not used: %d %s", a.status, a.body)
	}
	_, err = f.c.ResetAuthorizersCache(ctx, &apigatewayv2.ResetAuthorizersCacheInput{ApiId: &f.api, StageName: aws.String("$default")})
	f.must(err)
	f.call("GET", "/policy", map[string]string{"Authorization": "policy-allow"}, "").want(t, 401, `{"message":"Unauthorized"}`)
}
