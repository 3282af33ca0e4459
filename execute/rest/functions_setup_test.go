package rest_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	apigw "github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/execute/rest"
	"github.com/cloudemu/emulator/httpfront"
	"github.com/cloudemu/emulator/httpfront/apigatewayhttp"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/server/servertest"
	"github.com/cloudemu/emulator/store"
	"github.com/valyala/fasthttp"
)

// The function integrations and Lambda authorizers run against a fake
// Function: the server is built here as the emulator builds it (the API
// Gateway service, its control plane and the data plane behind the HTTP
// front), with the executor's Functions set, since the emulator plugs in
// none yet.

// fakeFunction answers one function's invocations.
type fakeFunction func(ctx context.Context, payload []byte) (rest.FunctionReply, error)

// fakeFunctions is a Function whose functions are Go closures, by the name
// (or ARN) invoked; it records every call.
type fakeFunctions struct {
	mu    sync.Mutex
	fns   map[string]fakeFunction
	calls []fakeCall
	// record: calls are recorded (benchmarks turn it off).
	record bool
}

type fakeCall struct {
	scope    awswire.Scope
	function string
	payload  string
	timeout  time.Duration
}

func newFakeFunctions() *fakeFunctions {
	return &fakeFunctions{fns: map[string]fakeFunction{}, record: true}
}

func (f *fakeFunctions) set(name string, fn fakeFunction) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fns[name] = fn
}

// Invoke implements rest.Function.
func (f *fakeFunctions) Invoke(ctx context.Context, sc awswire.Scope, function string, payload []byte, timeout time.Duration) (rest.FunctionReply, error) {
	f.mu.Lock()
	fn := f.fns[function]
	if f.record {
		f.calls = append(f.calls, fakeCall{scope: sc, function: function, payload: string(payload), timeout: timeout})
	}
	f.mu.Unlock()
	if fn == nil {
		return rest.FunctionReply{}, fmt.Errorf("Function not found: %s", function)
	}
	return fn(ctx, payload)
}

// take returns the calls so far and forgets them.
func (f *fakeFunctions) take() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	return out
}

// reply answers payload as the function's result.
func reply(payload string) fakeFunction {
	return func(context.Context, []byte) (rest.FunctionReply, error) {
		return rest.FunctionReply{Payload: []byte(payload)}, nil
	}
}

// raise answers a function error with message, as Python's runtime
// reports an exception.
func raise(message string) fakeFunction {
	return func(context.Context, []byte) (rest.FunctionReply, error) {
		return rest.FunctionReply{Error: "Unhandled", Payload: []byte(`{"errorMessage": "` + message +
			`", "errorType": "Exception", "requestId": "7b1a6a4e-1c39-4a2e-8b7c-0f1a2b3c4d5e", "stackTrace": ["  File \"/var/task/handler.py\", line 7, in handler\n"]}`)}, nil
	}
}

// startWithFunctions runs an emulator front with the API Gateway service
// and fns as its Function (nil: none), on 127.0.0.1:0 until the test ends.
func startWithFunctions(t testing.TB, fns rest.Function, now func() time.Time) *servertest.Server {
	t.Helper()
	srv, _ := startFront(t, fns, now)
	return srv
}

// startFront is startWithFunctions, with the front's handler for serving
// in process.
func startFront(t testing.TB, fns rest.Function, now func() time.Time) (*servertest.Server, fasthttp.RequestHandler) {
	t.Helper()
	return startFrontWith(t, func(o *rest.Options) {
		o.Functions = fns
		if now != nil {
			o.Now = now
		}
	})
}

// startFrontWith is startFront with the executor's options as edit leaves
// them.
func startFrontWith(t testing.TB, edit func(*rest.Options)) (*servertest.Server, fasthttp.RequestHandler) {
	t.Helper()
	log := servertest.Logger()
	cfg := config.Default()
	sys := actors.NewSystem(log, cfg.AskTimeout)
	svc := apigw.New(sys, store.NewMemory(), time.Now, log)
	if err := svc.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	o := rest.Options{APIs: svc, Backend: httpfront.NewBackend(16), Log: log, Now: time.Now}
	edit(&o)
	exec := rest.New(o)
	srv, err := httpfront.NewServer(log, httpfront.ServerOptions{DefaultRegion: cfg.DefaultRegion,
		MaxBodyBytes: cfg.MaxBodyBytes, Execute: exec,
		Handlers: map[awswire.Service]map[string]restjson.Handler{awswire.APIGateway: apigatewayhttp.Handlers(svc, exec)}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.FastHTTP().Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.FastHTTP().Shutdown()
		sys.Shutdown()
	})
	addr := ln.Addr().String()
	return &servertest.Server{URL: "http://" + addr, Addr: addr, Config: cfg}, srv.Handle
}

// functionFixture is a fixture whose server runs fns.
func functionFixture(t testing.TB, fns *fakeFunctions, now func() time.Time) *fixture {
	t.Helper()
	srv, h := startFront(t, fns, now)
	f := newFixtureOn(t, srv)
	f.handler = h
	return f
}

// lambdaURI is the integration URI of function fn (a name, or a name with
// a qualifier) in the test account.
func lambdaURI(fn string) string {
	return "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/" + lambdaARN(fn) + "/invocations"
}

func lambdaARN(fn string) string { return "arn:aws:lambda:us-east-1:000000000000:function:" + fn }
