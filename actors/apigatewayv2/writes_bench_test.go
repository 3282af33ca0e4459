package apigatewayv2

import (
	"fmt"
	"testing"

	"github.com/cloudemu/emulator/actors/actorstest"
)

// benchHTTPAPI creates an HTTP API with n routes.
func benchHTTPAPI(b *testing.B, n int) (*Service, string) {
	b.Helper()
	s := testService(b)
	name, proto := "bench", "HTTP"
	a, err := s.NewAPI(actorstest.Scope, APIInput{Name: &name, ProtocolType: &proto})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		key := fmt.Sprintf("GET /r%d/{id}", i)
		if _, err := s.CreateRoute(actorstest.Scope, a.API.APIID, RouteInput{RouteKey: &key}); err != nil {
			b.Fatal(err)
		}
	}
	return s, a.API.APIID
}

// BenchmarkCreateRoute adds routes to an API that has 0 or 5,000 already:
// the cost must not grow with them.
func BenchmarkCreateRoute(b *testing.B) {
	for _, n := range []int{0, 5000} {
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			s, id := benchHTTPAPI(b, n)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				key := fmt.Sprintf("POST /new%d/{id}", i)
				i++
				if _, err := s.CreateRoute(actorstest.Scope, id, RouteInput{RouteKey: &key}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUpdateRoute changes one route of an API with 1 and 1,000 routes.
func BenchmarkUpdateRoute(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			s, id := benchHTTPAPI(b, n)
			st, _ := s.API(actorstest.Scope, id)
			var routeID string
			for rid := range st.Routes.Keys() {
				routeID = rid
				break
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				op := fmt.Sprint("op", i%2)
				i++
				if _, err := s.UpdateRoute(actorstest.Scope, id, routeID, RouteInput{OperationName: &op}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
