package rest_test

import (
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/valyala/fasthttp"
)

// benchExecute serves one request over and over through the emulator's
// front (no network): what a request to a deployed stage costs in CPU and
// allocations, front included.
func benchExecute(b *testing.B, f *fixture, method, uri string, want int) {
	h := f.srv.Emulator.Handler()
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(uri)
	req.Header.Set("User-Agent", "curl/8.5.0")
	req.Header.Set("Accept", "*/*")
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
