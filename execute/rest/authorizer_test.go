package rest_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/execute/rest"
)

// clock is a settable clock for the executor (authorizer TTLs).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		return time.Now()
	}
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// policy is an authorizer's answer: principal, one statement per effect
// and resource given as "Allow arn…" or "Deny arn…", and extra members.
func policy(principal string, extra string, statements ...string) string {
	var st []string
	for _, s := range statements {
		effect, resource, _ := strings.Cut(s, " ")
		st = append(st, `{"Action": "execute-api:Invoke", "Effect": "`+effect+`", "Resource": "`+resource+`"}`)
	}
	out := `{"principalId": "` + principal + `", "policyDocument": {"Version": "2012-10-17", "Statement": [` +
		strings.Join(st, ", ") + `]}`
	if extra != "" {
		out += ", " + extra
	}
	return out + "}"
}

// tokenAuthorizer answers by the token: "allow", "deny", "other" (allowed
// elsewhere only), "unauthorized" (raises Unauthorized), "fail" (raises),
// "malformed" (no policy document), anything else a policy for the token.
func tokenAuthorizer(ctx context.Context, payload []byte) (rest.FunctionReply, error) {
	var ev struct {
		Type, AuthorizationToken, MethodArn string
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		return rest.FunctionReply{}, err
	}
	arn := ev.MethodArn
	switch ev.AuthorizationToken {
	case "allow":
		return reply(policy("user-1", `"context": {"key": "value", "num": 1, "flag": true}`, "Allow "+arn))(ctx, nil)
	case "deny":
		return reply(policy("user-2", "", "Allow "+arn, "Deny "+arn))(ctx, nil)
	case "other":
		return reply(policy("user-3", "", "Allow arn:aws:execute-api:us-east-1:000000000000:other/*"))(ctx, nil)
	case "wildcard":
		stage, _, _ := strings.Cut(arn[strings.IndexByte(arn, '/')+1:], "/")
		return reply(policy("user-4", "", "Allow arn:aws:execute-api:us-east-1:*:*/"+stage+"/G?T/*"))(ctx, nil)
	case "unauthorized":
		return raise("Unauthorized")(ctx, nil)
	case "fail":
		return raise("something else")(ctx, nil)
	case "malformed":
		return reply(`{"principalId": "x"}`)(ctx, nil)
	case "bad-context":
		return reply(policy("x", `"context": {"nested": {"a": 1}}`, "Allow "+arn))(ctx, nil)
	case "bad-effect":
		return reply(policy("x", "", "Maybe "+arn))(ctx, nil)
	case "not-json":
		return reply(`policy please`)(ctx, nil)
	}
	return reply(policy(ev.AuthorizationToken, "", "Allow "+arn))(ctx, nil)
}

// authorizer creates a Lambda authorizer of the API.
func (f *fixture) authorizer(in *apigateway.CreateAuthorizerInput) string {
	f.t.Helper()
	in.RestApiId = &f.api
	if in.Name == nil {
		in.Name = aws.String("auth")
	}
	a, err := f.c.CreateAuthorizer(ctx, in)
	f.must(err)
	return *a.Id
}

// guarded puts a MOCK method on path behind authorizer id, answering the
// authorizer's principal and context.
func (f *fixture) guarded(path, id string) string {
	f.t.Helper()
	rid := f.mock(path, "GET", `{"principal": "$context.authorizer.principalId", "key": "$context.authorizer.key", "num": "$context.authorizer.num", "flag": "$context.authorizer.flag"}`)
	_, err := f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/authorizationType"), Value: aws.String("CUSTOM")},
			{Op: types.OpReplace, Path: aws.String("/authorizerId"), Value: aws.String(id)}}})
	f.must(err)
	return rid
}

// TestTokenAuthorizer covers every outcome of a TOKEN authorizer (§2.3):
// allow with its principal and context in $context.authorizer, explicit
// and plain deny (403, "Message"), a missing or invalid token and the
// function's "Unauthorized" (401), a function error or an answer that is
// no authorizer output (500 {"message": null}), and AWS's wildcards.
func TestTokenAuthorizer(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("auth"), tokenAuthorizer)
	f := functionFixture(t, fns, nil)
	id := f.authorizer(&apigateway.CreateAuthorizerInput{Type: types.AuthorizerTypeToken,
		IdentitySource: aws.String("method.request.header.Authorization"), AuthorizerUri: aws.String(lambdaURI("auth")),
		IdentityValidationExpression: aws.String("[a-z-]+"), AuthorizerResultTtlInSeconds: aws.Int32(0)})
	f.guarded("/pets/{id}", id)
	f.deploy("dev", nil)

	const (
		unauthorized = `{"message":"Unauthorized"}`
		explicit     = `{"Message":"User is not authorized to access this resource with an explicit deny"}`
		denied       = `{"Message":"User is not authorized to access this resource"}`
		failed       = `{"message": null}`
	)
	for _, c := range []struct {
		token     string
		status    int
		body      string
		errorType string
		called    bool
	}{
		{"allow", 200, `{"principal": "user-1", "key": "value", "num": "1", "flag": "true"}`, "", true},
		{"wildcard", 200, `{"principal": "user-4", "key": "", "num": "", "flag": ""}`, "", true},
		{"deny", 403, explicit, "AccessDeniedException", true},
		{"other", 403, denied, "AccessDeniedException", true},
		{"", 401, unauthorized, "UnauthorizedException", false},
		{"Not-Valid", 401, unauthorized, "UnauthorizedException", false},
		{"unauthorized", 401, unauthorized, "UnauthorizedException", true},
		{"fail", 500, failed, "AuthorizerConfigurationException", true},
		{"malformed", 500, failed, "AuthorizerConfigurationException", true},
		{"bad-context", 500, failed, "AuthorizerConfigurationException", true},
		{"bad-effect", 500, failed, "AuthorizerConfigurationException", true},
		{"not-json", 500, failed, "AuthorizerConfigurationException", true},
	} {
		hdr := map[string]string{}
		if c.token != "" {
			hdr["Authorization"] = c.token
		}
		a := f.call("GET", "dev", "/pets/42", hdr, "")
		if a.status != c.status || a.body != c.body || a.header.Get("x-amzn-ErrorType") != c.errorType {
			t.Errorf("%q: got %d %s %v, want %d %s", c.token, a.status, a.body, a.header, c.status, c.body)
		}
		calls := fns.take()
		if (len(calls) == 1) != c.called {
			t.Errorf("%q: %d calls", c.token, len(calls))
		}
		if len(calls) == 1 {
			want := `{"type":"TOKEN","methodArn":"arn:aws:execute-api:us-east-1:000000000000:` + f.api + `/dev/GET/pets/42","authorizationToken":"` + c.token + `"}`
			if calls[0].payload != want {
				t.Errorf("%q: event %s, want %s", c.token, calls[0].payload, want)
			}
		}
	}
}

// TestRequestAuthorizer: a REQUEST authorizer gets the request-shaped
// event with methodArn; every identity source (header, query string, stage
// variable, context) must be present; the principal and context reach the
// Lambda proxy event's requestContext.authorizer.
func TestRequestAuthorizer(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("auth"), func(ctx context.Context, payload []byte) (rest.FunctionReply, error) {
		var ev map[string]any
		if err := json.Unmarshal(payload, &ev); err != nil {
			return rest.FunctionReply{}, err
		}
		user := ev["headers"].(map[string]any)["X-User"].(string)
		return reply(policy(user, `"context": {"tenant": "t-1", "admin": false, "level": 3.5}`, "Allow "+ev["methodArn"].(string)))(ctx, nil)
	})
	fns.set(lambdaARN("echo"), echoEvent)
	f := functionFixture(t, fns, nil)
	id := f.authorizer(&apigateway.CreateAuthorizerInput{Type: types.AuthorizerTypeRequest, AuthorizerUri: aws.String(lambdaURI("auth")),
		IdentitySource:               aws.String("method.request.header.X-User, method.request.querystring.tenant, stageVariables.env, context.stage"),
		AuthorizerResultTtlInSeconds: aws.Int32(0)})
	rid := f.proxyMethod("/items/{id}", "ANY", "echo", nil)
	_, err := f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("ANY"),
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/authorizationType"), Value: aws.String("CUSTOM")},
			{Op: types.OpReplace, Path: aws.String("/authorizerId"), Value: aws.String(id)}}})
	f.must(err)
	f.deploy("dev", map[string]string{"env": "test"})
	f.deploy("bare", nil)

	ev := event(t, f.call("PUT", "dev", "/items/7?tenant=acme", map[string]string{"X-User": "alice"}, `{"a": 1}`))
	auth, _ := json.Marshal(ev["requestContext"].(map[string]any)["authorizer"])
	if !strings.HasPrefix(string(auth), `{"admin":"false","integrationLatency":`) ||
		!strings.HasSuffix(string(auth), `,"level":"3.5","principalId":"alice","tenant":"t-1"}`) {
		t.Errorf("requestContext.authorizer %s", auth)
	}
	calls := fns.take()
	if len(calls) != 2 {
		t.Fatalf("calls %v", calls)
	}
	var aev map[string]any
	if err := json.Unmarshal([]byte(calls[0].payload), &aev); err != nil {
		t.Fatal(err)
	}
	rc := aev["requestContext"].(map[string]any)
	sv, _ := json.Marshal(aev["stageVariables"])
	if aev["type"] != "REQUEST" || aev["methodArn"] != "arn:aws:execute-api:us-east-1:000000000000:"+f.api+"/dev/PUT/items/7" ||
		aev["resource"] != "/items/{id}" || aev["path"] != "/items/7" || aev["httpMethod"] != "PUT" ||
		string(sv) != `{"env":"test"}` || aev["body"] != nil || rc["authorizer"] != nil || rc["resourcePath"] != "/items/{id}" ||
		aev["pathParameters"].(map[string]any)["id"] != "7" || aev["queryStringParameters"].(map[string]any)["tenant"] != "acme" {
		t.Errorf("authorizer event %s", calls[0].payload)
	}
	if _, ok := aev["isBase64Encoded"]; ok {
		t.Errorf("authorizer event has isBase64Encoded: %s", calls[0].payload)
	}

	// Each missing source: 401 without a call.
	for _, c := range []struct {
		stage, path string
		header      map[string]string
	}{
		{"dev", "/items/7?tenant=acme", nil},
		{"dev", "/items/7", map[string]string{"X-User": "alice"}},
		{"dev", "/items/7?tenant=", map[string]string{"X-User": "alice"}},
		{"bare", "/items/7?tenant=acme", map[string]string{"X-User": "alice"}},
	} {
		f.call("GET", c.stage, c.path, c.header, "").want(t, 401, `{"message":"Unauthorized"}`)
	}
	if calls := fns.take(); len(calls) != 0 {
		t.Errorf("calls %v", calls)
	}
}

// TestAuthorizerCache: answers are cached per identity for the TTL (300
// s by default), evaluated against each request's method ARN; TTL 0
// caches nothing; FlushStageAuthorizersCache forgets a stage's answers.
func TestAuthorizerCache(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("auth"), tokenAuthorizer)
	clk := &clock{}
	clk.set(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	f := functionFixture(t, fns, clk.now)
	cached := f.authorizer(&apigateway.CreateAuthorizerInput{Name: aws.String("cached"), Type: types.AuthorizerTypeToken,
		IdentitySource: aws.String("method.request.header.Authorization"), AuthorizerUri: aws.String(lambdaURI("auth"))})
	uncached := f.authorizer(&apigateway.CreateAuthorizerInput{Name: aws.String("uncached"), Type: types.AuthorizerTypeToken,
		IdentitySource: aws.String("method.request.header.Authorization"), AuthorizerUri: aws.String(lambdaURI("auth")),
		AuthorizerResultTtlInSeconds: aws.Int32(0)})
	f.guarded("/cached", cached)
	f.guarded("/cached2", cached)
	f.guarded("/uncached", uncached)
	f.deploy("dev", nil)
	calls := func() int { return len(fns.take()) }
	allow := map[string]string{"Authorization": "allow"}

	f.call("GET", "dev", "/cached", allow, "").want(t, 200, `{"principal": "user-1", "key": "value", "num": "1", "flag": "true"}`)
	f.call("GET", "dev", "/cached", allow, "").want(t, 200, `{"principal": "user-1", "key": "value", "num": "1", "flag": "true"}`)
	if n := calls(); n != 1 {
		t.Errorf("cached: %d calls", n)
	}
	// The cached policy names /cached only: /cached2 is denied by it.
	f.call("GET", "dev", "/cached2", allow, "").want(t, 403, `{"Message":"User is not authorized to access this resource"}`)
	f.call("GET", "dev", "/cached", map[string]string{"Authorization": "bob"}, "").want(t, 200, `{"principal": "bob", "key": "", "num": "", "flag": ""}`)
	if n := calls(); n != 1 {
		t.Errorf("another identity: %d calls", n)
	}
	f.call("GET", "dev", "/uncached", allow, "")
	f.call("GET", "dev", "/uncached", allow, "")
	if n := calls(); n != 2 {
		t.Errorf("TTL 0: %d calls", n)
	}
	// Past the TTL the function runs again.
	clk.set(clk.now().Add(301 * time.Second))
	f.call("GET", "dev", "/cached", allow, "")
	f.call("GET", "dev", "/cached", allow, "")
	if n := calls(); n != 1 {
		t.Errorf("after the TTL: %d calls", n)
	}
	_, err := f.c.FlushStageAuthorizersCache(ctx, &apigateway.FlushStageAuthorizersCacheInput{RestApiId: &f.api, StageName: aws.String("dev")})
	f.must(err)
	f.call("GET", "dev", "/cached", allow, "")
	if n := calls(); n != 1 {
		t.Errorf("after a flush: %d calls", n)
	}
	_, err = f.c.FlushStageAuthorizersCache(ctx, &apigateway.FlushStageAuthorizersCacheInput{RestApiId: &f.api, StageName: aws.String("nope")})
	if err == nil {
		t.Error("flushing an unknown stage succeeded")
	}
}

// TestAuthorizerAPIKeyAndGatewayResponses: with apiKeySource AUTHORIZER
// the key is the authorizer's usageIdentifierKey; the authorizer outcomes
// go through the deployment's gateway responses.
func TestAuthorizerAPIKeyAndGatewayResponses(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("auth"), func(ctx context.Context, payload []byte) (rest.FunctionReply, error) {
		var ev struct{ AuthorizationToken, MethodArn string }
		if err := json.Unmarshal(payload, &ev); err != nil {
			return rest.FunctionReply{}, err
		}
		if ev.AuthorizationToken == "deny" {
			return reply(policy("p", "", "Deny "+ev.MethodArn))(ctx, nil)
		}
		return reply(policy("p", `"usageIdentifierKey": "`+ev.AuthorizationToken+`"`, "Allow "+ev.MethodArn))(ctx, nil)
	})
	f := functionFixture(t, fns, nil)
	_, err := f.c.UpdateRestApi(ctx, &apigateway.UpdateRestApiInput{RestApiId: &f.api, PatchOperations: []types.PatchOperation{
		{Op: types.OpReplace, Path: aws.String("/apiKeySource"), Value: aws.String("AUTHORIZER")}}})
	f.must(err)
	id := f.authorizer(&apigateway.CreateAuthorizerInput{Type: types.AuthorizerTypeToken, AuthorizerResultTtlInSeconds: aws.Int32(0),
		IdentitySource: aws.String("method.request.header.Authorization"), AuthorizerUri: aws.String(lambdaURI("auth"))})
	rid := f.guarded("/keyed", id)
	_, err = f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/apiKeyRequired"), Value: aws.String("true")}}})
	f.must(err)
	for _, gr := range []struct{ typ, status, tmpl string }{
		{"UNAUTHORIZED", "401", `{"error": "who are you", "type": "$context.error.responseType"}`},
		{"ACCESS_DENIED", "451", `{"error": "$context.error.message", "principal": "$context.authorizer.principalId"}`},
	} {
		_, err = f.c.PutGatewayResponse(ctx, &apigateway.PutGatewayResponseInput{RestApiId: &f.api,
			ResponseType: types.GatewayResponseType(gr.typ), StatusCode: aws.String(gr.status),
			ResponseTemplates: map[string]string{"application/json": gr.tmpl}})
		f.must(err)
	}
	f.deploy("dev", nil)
	key, err := f.c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("k"), Enabled: true, Value: aws.String("key-value-0123456789")})
	f.must(err)
	plan, err := f.c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("p"),
		ApiStages: []types.ApiStage{{ApiId: &f.api, Stage: aws.String("dev")}}})
	f.must(err)
	_, err = f.c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: plan.Id, KeyId: key.Id, KeyType: aws.String("API_KEY")})
	f.must(err)

	f.call("GET", "dev", "/keyed", map[string]string{"Authorization": "key-value-0123456789"}, "").
		want(t, 200, `{"principal": "p", "key": "", "num": "", "flag": ""}`)
	// The header does not count: the authorizer's key does.
	f.call("GET", "dev", "/keyed", map[string]string{"Authorization": "other-key", "x-api-key": "key-value-0123456789"}, "").
		want(t, 403, `{"message":"Forbidden"}`)
	f.call("GET", "dev", "/keyed", nil, "").want(t, 401, `{"error": "who are you", "type": "UNAUTHORIZED"}`)
	f.call("GET", "dev", "/keyed", map[string]string{"Authorization": "deny"}, "").
		want(t, 451, `{"error": "User is not authorized to access this resource with an explicit deny", "principal": "p"}`)
}

// TestTestInvokeAuthorizer: TestInvokeAuthorizer runs an authorizer of
// the live configuration, uncached, and answers its principal, policy,
// context and log; without a Function, or for a Cognito authorizer,
// clientStatus 500.
func TestTestInvokeAuthorizer(t *testing.T) {
	fns := newFakeFunctions()
	fns.set(lambdaARN("auth"), tokenAuthorizer)
	f := functionFixture(t, fns, nil)
	id := f.authorizer(&apigateway.CreateAuthorizerInput{Type: types.AuthorizerTypeToken,
		IdentitySource: aws.String("method.request.header.Authorization"), AuthorizerUri: aws.String(lambdaURI("auth"))})
	out, err := f.c.TestInvokeAuthorizer(ctx, &apigateway.TestInvokeAuthorizerInput{RestApiId: &f.api, AuthorizerId: &id,
		Headers: map[string]string{"Authorization": "allow"}, PathWithQueryString: aws.String("/pets?x=1")})
	f.must(err)
	arn := "arn:aws:execute-api:us-east-1:000000000000:" + f.api + "/ESTestInvoke-stage/GET/pets"
	if out.ClientStatus != 200 || aws.ToString(out.PrincipalId) != "user-1" ||
		aws.ToString(out.Policy) != `{"Version":"2012-10-17","Statement":[{"Action":"execute-api:Invoke","Effect":"Allow","Resource":"`+arn+`"}]}` ||
		len(out.Authorization["key"]) != 1 || out.Authorization["num"][0] != "1" {
		t.Errorf("answer %d %q %q %v", out.ClientStatus, aws.ToString(out.PrincipalId), aws.ToString(out.Policy), out.Authorization)
	}
	for _, line := range []string{"Starting authorizer: " + id + " for request: ",
		`Endpoint request body after transformations: {"type":"TOKEN","methodArn":"` + arn + `","authorizationToken":"allow"}`,
		"Authorizer result body before parsing: ", "Using valid authorizer policy for principal: user-1",
		"Successfully completed authorizer execution"} {
		if !strings.Contains(aws.ToString(out.Log), " : "+line) {
			t.Errorf("log lacks %q:\n%s", line, aws.ToString(out.Log))
		}
	}
	for token, status := range map[string]int32{"": 401, "unauthorized": 401, "fail": 500, "malformed": 500} {
		out, err := f.c.TestInvokeAuthorizer(ctx, &apigateway.TestInvokeAuthorizerInput{RestApiId: &f.api, AuthorizerId: &id,
			Headers: map[string]string{"Authorization": token}})
		f.must(err)
		if out.ClientStatus != status || out.PrincipalId != nil {
			t.Errorf("%q: %d %v", token, out.ClientStatus, aws.ToString(out.PrincipalId))
		}
	}
	_, err = f.c.TestInvokeAuthorizer(ctx, &apigateway.TestInvokeAuthorizerInput{RestApiId: &f.api, AuthorizerId: aws.String("nope")})
	if err == nil || !strings.Contains(err.Error(), "Invalid Authorizer identifier specified") {
		t.Errorf("unknown authorizer: %v", err)
	}

	// No Function: the authorizer cannot run.
	g := newFixtureOn(t, startWithFunctions(t, nil, nil))
	gid := g.authorizer(&apigateway.CreateAuthorizerInput{Type: types.AuthorizerTypeToken,
		IdentitySource: aws.String("method.request.header.Authorization"), AuthorizerUri: aws.String(lambdaURI("auth"))})
	out, err = g.c.TestInvokeAuthorizer(ctx, &apigateway.TestInvokeAuthorizerInput{RestApiId: &g.api, AuthorizerId: &gid,
		Headers: map[string]string{"Authorization": "allow"}})
	g.must(err)
	if out.ClientStatus != 500 {
		t.Errorf("no Function: %d", out.ClientStatus)
	}
}
