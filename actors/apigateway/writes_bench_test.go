package apigateway

import (
	"fmt"
	"testing"

	"github.com/cloudemu/emulator/actors/actorstest"
)

// benchAPI creates an API with n resources under the root (n = 1: the root
// alone) and returns its id and the root's id.
func benchAPI(b *testing.B, s *Service, n int) (apiID, rootID string) {
	b.Helper()
	r, err := s.CreateRestAPI(actorstest.Scope, API{Name: "bench"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < n; i++ {
		part := fmt.Sprint("r", i)
		if _, err := s.CreateResource(actorstest.Scope, r.API.ID, r.API.RootResourceID, &part); err != nil {
			b.Fatal(err)
		}
	}
	return r.API.ID, r.API.RootResourceID
}

// BenchmarkPutMethod alternates PutMethod and DeleteMethod on the root of
// an API with 1 and with 1,000 resources: a write must cost what it
// changes, not the size of the API.
func BenchmarkPutMethod(b *testing.B) {
	none := "NONE"
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			s := testService(b)
			apiID, root := benchAPI(b, s, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.PutMethod(actorstest.Scope, apiID, root, "GET", MethodInput{AuthorizationType: &none}); err != nil {
					b.Fatal(err)
				}
				if err := s.DeleteMethod(actorstest.Scope, apiID, root, "GET"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreateResource creates children of one parent that already has
// 0 or 10,000 of them: the cost must not grow with the siblings.
func BenchmarkCreateResource(b *testing.B) {
	for _, n := range []int{0, 10000} {
		b.Run(fmt.Sprintf("siblings=%d", n), func(b *testing.B) {
			s := testService(b)
			apiID, root := benchAPI(b, s, n+1)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				part := fmt.Sprint("new", i)
				i++
				if _, err := s.CreateResource(actorstest.Scope, apiID, root, &part); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
