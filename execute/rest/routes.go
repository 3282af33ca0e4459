package rest

import (
	"slices"
	"strings"
)

// RouteSpec is one resource of a deployment as the router needs it: its
// path template ("/pets/{id}", "/{proxy+}") and the methods it has
// ("ANY" included).
type RouteSpec struct {
	Path       string
	ResourceID string
	Methods    []string
}

// Routes matches request paths to a deployment's resources as API Gateway
// does (docs/apigateway-execution.md §1): literal segments over {param} over {proxy+},
// backtracking into a less specific branch when a more specific one ends
// without a resource that has the method; an explicit method over ANY.
// It is built once per deployment and read concurrently.
type Routes struct{ root *node }

type node struct {
	literal map[string]*node
	param   *node  // {name}
	name    string // the param's name, on the param child
	greedy  *greedy
	res     *resource // a resource ends here
}

type greedy struct {
	name string
	res  *resource
}

type resource struct {
	id      string
	path    string
	methods []string
}

// Match is a matched resource and method.
type Match struct {
	ResourceID string
	// ResourcePath is the resource's path template.
	ResourcePath string
	// Method is the method key to run: the request's method, or "ANY".
	Method string
	// Params are the path parameters by name, raw: API Gateway does not
	// URL-decode them.
	Params []Param
}

// Param is one path parameter.
type Param struct{ Name, Value string }

// CompileRoutes builds the router of a deployment's resources.
func CompileRoutes(specs []RouteSpec) *Routes {
	r := &Routes{root: &node{}}
	for _, s := range specs {
		res := &resource{id: s.ResourceID, path: s.Path, methods: slices.Clone(s.Methods)}
		n := r.root
		for _, seg := range splitPath(s.Path) {
			switch {
			case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "+}"):
				// A greedy parameter is always the last segment.
				n.greedy = &greedy{name: seg[1 : len(seg)-2], res: res}
				n = nil
			case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
				if n.param == nil {
					n.param = &node{name: seg[1 : len(seg)-1]}
				}
				n = n.param
			default:
				if n.literal == nil {
					n.literal = map[string]*node{}
				}
				c := n.literal[seg]
				if c == nil {
					c = &node{}
					n.literal[seg] = c
				}
				n = c
			}
			if n == nil {
				break
			}
		}
		if n != nil {
			n.res = res
		}
	}
	return r
}

// splitPath returns the segments of a path; "/" has none.
func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// Match finds the resource and method a request runs. path is the request
// path after the stage, raw (not decoded). Trailing slashes and a leading
// run of slashes do not count; interior empty segments do, and a greedy
// parameter keeps them ("a//b").
func (r *Routes) Match(method, path string) (Match, bool) {
	return r.MatchInto(method, path, nil)
}

// MatchInto is Match appending the path parameters to params, so that a
// caller can reuse a buffer.
func (r *Routes) MatchInto(method, path string, params []Param) (Match, bool) {
	p := strings.TrimLeft(path, "/")
	p = strings.TrimRight(p, "/")
	params = params[:0]
	m, ok := r.root.match(method, p, &params)
	if ok {
		m.Params = params
	}
	return m, ok
}

func (n *node) match(method, rest string, params *[]Param) (Match, bool) {
	if rest == "" {
		if n.res != nil {
			if m, ok := n.res.method(method); ok {
				return m, true
			}
		}
		return Match{}, false
	}
	seg, tail, _ := strings.Cut(rest, "/")
	if c := n.literal[seg]; c != nil {
		if m, ok := c.match(method, tail, params); ok {
			return m, true
		}
	}
	if c := n.param; c != nil && seg != "" {
		*params = append(*params, Param{c.name, seg})
		if m, ok := c.match(method, tail, params); ok {
			return m, true
		}
		*params = (*params)[:len(*params)-1]
	}
	if g := n.greedy; g != nil {
		if m, ok := g.res.method(method); ok {
			*params = append(*params, Param{g.name, rest})
			return m, true
		}
	}
	return Match{}, false
}

// method picks the resource's method for a request: the explicit one, else
// ANY, which stands for the seven methods API Gateway knows. HEAD does not
// fall back to GET.
func (r *resource) method(method string) (Match, bool) {
	if method != "ANY" && slices.Contains(r.methods, method) {
		return Match{ResourceID: r.id, ResourcePath: r.path, Method: method}, true
	}
	if anyCovers(method) && slices.Contains(r.methods, "ANY") {
		return Match{ResourceID: r.id, ResourcePath: r.path, Method: "ANY"}, true
	}
	return Match{}, false
}

// anyCovers reports whether ANY stands for method.
func anyCovers(method string) bool {
	switch method {
	case "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT":
		return true
	}
	return false
}
