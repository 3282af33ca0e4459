package rest

import (
	"fmt"
	"testing"
)

func TestRoutesMatch(t *testing.T) {
	r := CompileRoutes([]RouteSpec{
		{Path: "/", ResourceID: "root", Methods: []string{"GET"}},
		{Path: "/pets", ResourceID: "pets", Methods: []string{"GET", "POST"}},
		{Path: "/pets/{id}", ResourceID: "pet", Methods: []string{"ANY", "DELETE"}},
		{Path: "/pets/{id}/toys", ResourceID: "toys", Methods: []string{"GET"}},
		{Path: "/proxy/bar/{param}", ResourceID: "bar-param", Methods: []string{"GET"}},
		{Path: "/proxy/{proxy+}", ResourceID: "proxy", Methods: []string{"ANY"}},
		{Path: "/only-post", ResourceID: "only-post", Methods: []string{"POST"}},
		{Path: "/{proxy+}", ResourceID: "catch-all", Methods: []string{"GET"}},
		{Path: "/empty", ResourceID: "empty"},
	})
	for _, tc := range []struct {
		name, method, path string
		want               string // "resource method params", "" for no match
	}{
		{"root", "GET", "/", "root GET []"},
		{"root-empty", "GET", "", "root GET []"},
		{"literal", "GET", "/pets", "pets GET []"},
		{"trailing-slash", "GET", "/pets/", "pets GET []"},
		{"leading-slashes", "GET", "//pets", "pets GET []"},
		{"explicit-over-any", "DELETE", "/pets/7", "pet DELETE [{id 7}]"},
		{"any", "PATCH", "/pets/7", "pet ANY [{id 7}]"},
		{"param-not-decoded", "GET", "/pets/test%2Balias@gmail.com", "pet ANY [{id test%2Balias@gmail.com}]"},
		{"nested-param", "GET", "/pets/7/toys", "toys GET [{id 7}]"},
		{"literal-over-param", "GET", "/proxy/bar/foobar", "bar-param GET [{param foobar}]"},
		{"greedy-deeper", "GET", "/proxy/test2/a/b", "proxy ANY [{proxy test2/a/b}]"},
		{"greedy-fallback-from-literal", "POST", "/proxy/bar/foobar", "proxy ANY [{proxy bar/foobar}]"},
		{"greedy-keeps-double-slash", "GET", "/proxy-value//double-slash", "catch-all GET [{proxy proxy-value//double-slash}]"},
		{"greedy-root", "GET", "/anything/else", "catch-all GET [{proxy anything/else}]"},
		{"method-missing-falls-to-greedy", "GET", "/only-post", "catch-all GET [{proxy only-post}]"},
		{"no-method-anywhere", "PUT", "/only-post", ""},
		{"head-is-not-get", "HEAD", "/pets", ""},
		{"no-methods", "DELETE", "/empty", ""},
		{"greedy-needs-a-segment", "POST", "/", ""},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			m, ok := r.Match(tc.method, tc.path)
			got := ""
			if ok {
				got = fmt.Sprintf("%s %s %v", m.ResourceID, m.Method, m.Params)
			}
			if got != tc.want {
				t.Errorf("Match(%s %s) = %q, want %q", tc.method, tc.path, got, tc.want)
			}
		})
	}
}

func BenchmarkRoutesMatch(b *testing.B) {
	var specs []RouteSpec
	for i := range 200 {
		specs = append(specs, RouteSpec{Path: fmt.Sprintf("/r%d/{id}/sub", i), ResourceID: fmt.Sprint(i), Methods: []string{"GET"}})
	}
	specs = append(specs, RouteSpec{Path: "/{proxy+}", ResourceID: "p", Methods: []string{"ANY"}})
	r := CompileRoutes(specs)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := r.Match("GET", "/r150/abc/sub"); !ok {
			b.Fatal("no match")
		}
	}
}
