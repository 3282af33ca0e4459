package httpapi_test

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"
)

// benchExecute serves one request over and over through the emulator's
// front (no network between client and front): what a request to an HTTP
// API costs in CPU and allocations, front included.
func benchExecute(b *testing.B, f *fixture, method, uri string, want int, header ...string) {
	h := f.srv.Emulator.Handler()
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

// BenchmarkHTTPProxy proxies an `ANY /{proxy+}` route to a loopback
// fasthttp backend.
func BenchmarkHTTPProxy(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	backend := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString(`{"ok":true}`) }}
	go func() { _ = backend.Serve(ln) }()
	defer backend.Shutdown()
	f := newFixture(b)
	f.route("ANY /{proxy+}", f.proxy("http://"+ln.Addr().String()+"/{proxy}", nil), nil)
	f.stage("$default", nil)
	benchExecute(b, f, "GET", "/_aws/execute-api/"+f.api+"/items/42", 200)
}
