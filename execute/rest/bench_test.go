package rest_test

import (
	"context"
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/execute/rest"
)

// benchExecute serves one request over and over through the emulator's
// front (no network): what a request to a deployed stage costs in CPU and
// allocations, front included.
func benchExecute(b *testing.B, f *fixture, method, uri string, want int, header ...string) {
	h := f.handler
	if h == nil {
		h = f.srv.Emulator.Handler()
	}
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(uri)
	req.Header.Set("User-Agent", "curl/8.5.0")
	req.Header.Set("Accept", "*/*")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, addr, nil)
	h(&ctx)
	if ctx.Response.StatusCode() != want {
		b.Fatalf("status %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	b.ReportAllocs()
	for b.Loop() {
		ctx.Response.Reset()
		h(&ctx)
	}
}

// BenchmarkExecuteMock is a MOCK GET with a small response template.
func BenchmarkExecuteMock(b *testing.B) {
	f := newFixture(b)
	f.mock("/pets/{id}", "GET", `{"id": "$input.params('id')", "stage": "$context.stage"}`)
	f.deploy("dev", nil)
	benchExecute(b, f, "GET", "/restapis/"+f.api+"/dev/_user_request_/pets/42", 200)
}

// BenchmarkExecuteMockKeyed is BenchmarkExecuteMock with an API key under
// a usage plan that throttles and has a quota: the key lookup, the plan's
// bucket and quota, the stage's and the account's buckets. The front
// stamps every request with the same time, so the buckets empty and stay
// empty; without enforcement the refused requests run all the same, at the
// cost of the same decisions.
func BenchmarkExecuteMockKeyed(b *testing.B) {
	f := newFixture(b)
	rid := f.mock("/pets/{id}", "GET", `{"id": "$input.params('id')", "stage": "$context.stage"}`)
	_, err := f.c.UpdateMethod(ctx, &apigateway.UpdateMethodInput{RestApiId: &f.api, ResourceId: &rid, HttpMethod: aws.String("GET"),
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/apiKeyRequired"), Value: aws.String("true")}}})
	f.must(err)
	f.deploy("dev", nil)
	key, err := f.c.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("k"), Enabled: true, Value: aws.String("bench-key-0123456789")})
	f.must(err)
	plan, err := f.c.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("p"),
		ApiStages: []types.ApiStage{{ApiId: &f.api, Stage: aws.String("dev")}},
		Throttle:  &types.ThrottleSettings{BurstLimit: 5000, RateLimit: 10000},
		Quota:     &types.QuotaSettings{Limit: 1 << 30, Period: types.QuotaPeriodTypeMonth}})
	f.must(err)
	_, err = f.c.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: plan.Id, KeyId: key.Id, KeyType: aws.String("API_KEY")})
	f.must(err)
	benchExecute(b, f, "GET", "/restapis/"+f.api+"/dev/_user_request_/pets/42", 200, "x-api-key", "bench-key-0123456789")
}

// BenchmarkExecuteHTTPProxy proxies to a loopback fasthttp backend.
func BenchmarkExecuteHTTPProxy(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	backend := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString(`{"ok":true}`) }}
	go func() { _ = backend.Serve(ln) }()
	defer backend.Shutdown()
	f := newFixture(b)
	rid := f.resource("/{proxy+}")
	f.method(rid, "ANY", func(in *apigateway.PutMethodInput) {
		in.RequestParameters = map[string]bool{"method.request.path.proxy": true}
	})
	f.integration(rid, "ANY", &apigateway.PutIntegrationInput{Type: types.IntegrationTypeHttpProxy,
		IntegrationHttpMethod: aws.String("ANY"), Uri: aws.String("http://" + ln.Addr().String() + "/{proxy}"),
		RequestParameters: map[string]string{"integration.request.path.proxy": "method.request.path.proxy"}})
	f.deploy("dev", nil)
	benchExecute(b, f, "GET", "/restapis/"+f.api+"/dev/_user_request_/items/42", 200)
}

// BenchmarkExecuteLambdaProxy is an AWS_PROXY GET to a function answering
// at once (a fake Function): the event built, the answer read.
func BenchmarkExecuteLambdaProxy(b *testing.B) {
	fns := newFakeFunctions()
	answer := []byte(`{"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": "{\"ok\":true}"}`)
	fns.set(lambdaARN("fn"), func(context.Context, []byte) (rest.FunctionReply, error) {
		return rest.FunctionReply{Payload: answer}, nil
	})
	f := functionFixture(b, fns, nil)
	f.proxyMethod("/{proxy+}", "ANY", "fn", nil)
	f.deploy("dev", nil)
	fns.mu.Lock()
	fns.record = false
	fns.mu.Unlock()
	benchExecute(b, f, "GET", "/restapis/"+f.api+"/dev/_user_request_/items/42?q=1", 200)
}
