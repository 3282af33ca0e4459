package httpfront

import (
	"bytes"
	"net"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// TestPanicIsShaped checks that a handler panic becomes the service's shaped
// 500 and the connection keeps serving.
func TestPanicIsShaped(t *testing.T) {
	s, err := NewServer(testLogger(), ServerOptions{
		DefaultRegion: "us-east-1",
		MaxBodyBytes:  1 << 20,
		Handlers: map[awswire.Service]map[string]restjson.Handler{
			awswire.Backup: {"ListBackupJobs": func(*restjson.Call) error { panic("boom") }},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	defer ln.Close()
	go func() { _ = s.FastHTTP().Serve(ln) }()
	c := &fasthttp.HostClient{Addr: "mem", Dial: func(string) (net.Conn, error) { return ln.Dial() }}
	for range 2 {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://mem/backup-jobs")
		if err := c.Do(req, resp); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode() != 500 || string(resp.Header.Peek("x-amzn-ErrorType")) != awswire.CodeServiceUnavailable ||
			!bytes.Contains(resp.Body(), []byte(`"Code":"ServiceUnavailableException"`)) ||
			bytes.Contains(resp.Body(), []byte("boom")) {
			t.Fatalf("%d %s %s", resp.StatusCode(), resp.Header.Peek("x-amzn-ErrorType"), resp.Body())
		}
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(resp)
	}
}

func TestRouteTable(t *testing.T) {
	routes, err := buildRoutes(awswire.Operations, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range routes {
		n += len(r.bindings)
	}
	// Query and JSON operations are named in the request, not routed.
	want := 0
	for _, op := range awswire.Operations {
		if op.Service.Model().Protocol == awswire.RESTJSON {
			want++
		}
	}
	if n != want {
		t.Fatalf("%d operations bound, want %d", n, want)
	}
	// Every operation is reachable through the router by its own method and
	// a path built from its template.
	s, err := NewServer(testLogger(), ServerOptions{DefaultRegion: "us-east-1", MaxBodyBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for i := range awswire.Operations {
		op := &awswire.Operations[i]
		if op.Service.Model().Protocol != awswire.RESTJSON {
			continue
		}
		path := concretePath(op.Path)
		var ctx fasthttp.RequestCtx
		h, _ := s.router.Lookup(op.Method, path, &ctx)
		if h == nil {
			t.Errorf("%s %s (%s): no route for %s", op.Method, op.Path, op.Name, path)
		}
	}
}

// concretePath fills every label of a model path with a sample value.
func concretePath(p string) string {
	var b []byte
	in := false
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '{':
			in = true
			b = append(b, "x1"...)
		case p[i] == '}':
			in = false
		case !in:
			b = append(b, p[i])
		}
	}
	return string(b)
}
