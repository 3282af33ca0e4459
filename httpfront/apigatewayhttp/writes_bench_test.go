package apigatewayhttp_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

// httpClient sends signed API Gateway requests to a test server, one at a
// time, as an SDK does.
type httpClient struct {
	b    testing.TB
	c    *fasthttp.HostClient
	resp *fasthttp.Response
	req  *fasthttp.Request
}

func newHTTPClient(b testing.TB, srv *servertest.Server) *httpClient {
	return &httpClient{b: b, c: &fasthttp.HostClient{Addr: srv.Addr}, req: fasthttp.AcquireRequest(), resp: fasthttp.AcquireResponse()}
}

func (h *httpClient) do(method, path, body string, want int) []byte {
	h.req.Reset()
	h.req.Header.SetMethod(method)
	h.req.SetRequestURI("http://" + h.c.Addr + path)
	h.req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20261124/us-east-1/apigateway/aws4_request, SignedHeaders=host, Signature=x")
	h.req.Header.SetContentType("application/json")
	h.req.SetBodyString(body)
	if err := h.c.Do(h.req, h.resp); err != nil {
		h.b.Fatal(err)
	}
	if h.resp.StatusCode() != want {
		h.b.Fatalf("%s %s: %d %s", method, path, h.resp.StatusCode(), h.resp.Body())
	}
	return h.resp.Body()
}

// benchRestAPI creates an API with n-1 resources under the root.
func benchRestAPI(h *httpClient, n int) (apiID, rootID string) {
	var api struct{ ID, RootResourceID string }
	if err := json.Unmarshal(h.do("POST", "/restapis", `{"name":"bench"}`, 201), &api); err != nil {
		h.b.Fatal(err)
	}
	for i := 1; i < n; i++ {
		h.do("POST", "/restapis/"+api.ID+"/resources/"+api.RootResourceID, fmt.Sprintf(`{"pathPart":"r%d"}`, i), 201)
	}
	return api.ID, api.RootResourceID
}

// BenchmarkHTTPPutMethod alternates PutMethod and DeleteMethod over HTTP on
// an API with 1 and with 1,000 resources (the measure: a write costs
// what it changes, not the size of the API).
func BenchmarkHTTPPutMethod(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			h := newHTTPClient(b, servertest.Start(b))
			apiID, root := benchRestAPI(h, n)
			path := "/restapis/" + apiID + "/resources/" + root + "/methods/GET"
			b.ReportAllocs()
			for b.Loop() {
				h.do("PUT", path, `{"authorizationType":"NONE"}`, 201)
				h.do("DELETE", path, "", 204)
			}
		})
	}
}

// BenchmarkHTTPCreateResource creates children of a parent that has 0 or
// 10,000 of them already, over HTTP.
func BenchmarkHTTPCreateResource(b *testing.B) {
	for _, n := range []int{0, 10000} {
		b.Run(fmt.Sprintf("siblings=%d", n), func(b *testing.B) {
			h := newHTTPClient(b, servertest.Start(b))
			apiID, root := benchRestAPI(h, n+1)
			path := "/restapis/" + apiID + "/resources/" + root
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				h.do("POST", path, fmt.Sprintf(`{"pathPart":"new%d"}`, i), 201)
				i++
			}
		})
	}
}
