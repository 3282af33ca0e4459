package apigatewayv2http_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/server/servertest"
)

// BenchmarkHTTPCreateRoute adds routes over HTTP to an API that has 0 or
// 5,000 already (the measure: the cost must not grow with them).
func BenchmarkHTTPCreateRoute(b *testing.B) {
	for _, n := range []int{0, 5000} {
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			srv := servertest.Start(b)
			c := &fasthttp.HostClient{Addr: srv.Addr}
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			do := func(method, path, body string, want int) []byte {
				req.Reset()
				req.Header.SetMethod(method)
				req.SetRequestURI("http://" + srv.Addr + path)
				req.Header.SetContentType("application/json")
				req.SetBodyString(body)
				if err := c.Do(req, resp); err != nil {
					b.Fatal(err)
				}
				if resp.StatusCode() != want {
					b.Fatalf("%s %s: %d %s", method, path, resp.StatusCode(), resp.Body())
				}
				return resp.Body()
			}
			var api struct {
				APIID string `json:"apiId"`
			}
			if err := json.Unmarshal(do("POST", "/v2/apis", `{"name":"bench","protocolType":"HTTP"}`, 201), &api); err != nil {
				b.Fatal(err)
			}
			path := "/v2/apis/" + api.APIID + "/routes"
			for i := range n {
				do("POST", path, fmt.Sprintf(`{"routeKey":"GET /r%d/{id}"}`, i), 201)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				do("POST", path, fmt.Sprintf(`{"routeKey":"POST /new%d/{id}"}`, i), 201)
				i++
			}
		})
	}
}
