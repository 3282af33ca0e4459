package httpapi

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/execute"
)

// compiled is what a deployment's frozen configuration compiles to, once:
// the route tree, each route's integration and authorizer resolved.
type compiled struct {
	root         node
	defaultRoute *route // $default, nil when there is none
	cors         *corsConfig
}

// route is one compiled route.
type route struct {
	key    string // the route key as configured: "GET /pets/{id}", "$default"
	method string // "" for $default
	// vars are the names of the path variables, in path order (a greedy
	// one last, without its "+").
	vars        []string
	greedy      bool
	integration *integration // nil: the route has no target (500)
	auth        *authorizer  // nil: NONE (or AWS_IAM, which takes any signature)
	iam         bool
	scopes      []string
	metrics     metricsCache
}

// node is one level of the route tree: a path segment.
type node struct {
	literal  map[string]*node
	variable *node
	// routes end at this node, by method ("ANY" included); greedy routes
	// end with a {name+} segment below this node.
	routes map[string]*route
	greedy map[string]*route
}

// integration is a compiled integration.
type integration struct {
	kind    string // HTTP_PROXY, AWS_PROXY (CLOUD_PROXY is AWS_PROXY), or another type
	uri     string
	method  string // HTTP_PROXY's integrationMethod; "" or "ANY": the request's
	version string // payloadFormatVersion of a function integration: "1.0" or "2.0"
	timeout time.Duration
	// function is what Lambda's Invoke takes, from a function URI or ARN.
	function string
	// request mappings, in a stable order; response mappings by status.
	request  []mapping
	response map[int][]mapping
	// validURI: the URI as configured is an absolute http(s) URL.
	validURI bool
}

// authorizer is a compiled authorizer.
type authorizer struct {
	id       string
	jwt      bool
	issuer   string
	audience []string
	// identity is where the token (JWT) or the identity values (Lambda)
	// come from, parsed.
	identity []source
	// Lambda authorizers.
	function string
	version  string // authorizerPayloadFormatVersion
	simple   bool
	ttl      time.Duration
}

// maxTimeout is HTTP APIs' longest integration timeout.
const maxTimeout = 30 * time.Second

// compile builds the route tree of a frozen configuration.
func compile(c *apigatewayv2.Config) *compiled {
	out := &compiled{}
	if c == nil {
		return out
	}
	out.cors = compileCORS(c.API.CorsConfiguration)
	integrations := map[string]*integration{}
	for id, in := range c.Integrations.All() {
		integrations[id] = compileIntegration(in)
	}
	authorizers := map[string]*authorizer{}
	for id, a := range c.Authorizers.All() {
		authorizers[id] = compileAuthorizer(a)
	}
	// Routes in key order, so that a tree is the same whatever the map's
	// order (two routes may not share a key).
	routes := make([]*apigatewayv2.Route, 0, c.Routes.Len())
	for _, r := range c.Routes.All() {
		routes = append(routes, r)
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].RouteKey < routes[j].RouteKey })
	for _, r := range routes {
		cr := &route{key: r.RouteKey, scopes: r.AuthorizationScopes}
		if id, ok := strings.CutPrefix(r.Target, "integrations/"); ok {
			cr.integration = integrations[id]
		}
		switch r.AuthorizationType {
		case "JWT", "CUSTOM":
			cr.auth = authorizers[r.AuthorizerID]
		case "AWS_IAM":
			cr.iam = true
		}
		if r.RouteKey == "$default" {
			out.defaultRoute = cr
			continue
		}
		method, path, ok := strings.Cut(r.RouteKey, " ")
		if !ok || !strings.HasPrefix(path, "/") {
			continue
		}
		cr.method = method
		out.root.add(cr, splitPath(path))
	}
	return out
}

// add puts r under the path segs.
func (n *node) add(r *route, segs []string) {
	for i, s := range segs {
		name, greedy, isVar := pathVar(s)
		if isVar && greedy {
			if i != len(segs)-1 {
				return // the control plane refuses these
			}
			r.vars = append(r.vars, name)
			r.greedy = true
			if n.greedy == nil {
				n.greedy = map[string]*route{}
			}
			n.greedy[r.method] = r
			return
		}
		if isVar {
			r.vars = append(r.vars, name)
			if n.variable == nil {
				n.variable = &node{}
			}
			n = n.variable
			continue
		}
		if n.literal == nil {
			n.literal = map[string]*node{}
		}
		c := n.literal[s]
		if c == nil {
			c = &node{}
			n.literal[s] = c
		}
		n = c
	}
	if n.routes == nil {
		n.routes = map[string]*route{}
	}
	n.routes[r.method] = r
}

// pathVar reads a segment "{name}" or "{name+}".
func pathVar(s string) (name string, greedy, ok bool) {
	if len(s) < 3 || s[0] != '{' || s[len(s)-1] != '}' {
		return "", false, false
	}
	name = s[1 : len(s)-1]
	if n, ok := strings.CutSuffix(name, "+"); ok {
		return n, true, true
	}
	return name, false, true
}

// splitPath splits "/a/b/c" into its segments; "/" has none. One trailing
// slash is not a segment of its own.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// match finds the route of method and path (cut into segs) by AWS's
// priority: a full match (literal segments before variables, the
// method's route before ANY) before a greedy one, the deepest greedy
// first. vals gets the variables' values in path order.
func (n *node) match(method, path string, segs []string, vals []string) (*route, []string) {
	if r, v := n.full(method, segs, 0, vals); r != nil {
		return r, v
	}
	return n.greedyMatch(method, path, segs, 0, vals)
}

// full is a match without greedy variables.
func (n *node) full(method string, segs []string, i int, vals []string) (*route, []string) {
	if i == len(segs) {
		return pick(n.routes, method), vals
	}
	if c := n.literal[segs[i]]; c != nil {
		if r, v := c.full(method, segs, i+1, vals); r != nil {
			return r, v
		}
	}
	if c := n.variable; c != nil && segs[i] != "" {
		if r, v := c.full(method, segs, i+1, append(vals, segs[i])); r != nil {
			return r, v
		}
	}
	return nil, vals
}

// greedyMatch is a match ending in a greedy variable, the deepest first.
func (n *node) greedyMatch(method, path string, segs []string, i int, vals []string) (*route, []string) {
	if i == len(segs) {
		return nil, vals
	}
	if c := n.literal[segs[i]]; c != nil {
		if r, v := c.greedyMatch(method, path, segs, i+1, vals); r != nil {
			return r, v
		}
	}
	if c := n.variable; c != nil && segs[i] != "" {
		if r, v := c.greedyMatch(method, path, segs, i+1, append(vals, segs[i])); r != nil {
			return r, v
		}
	}
	if r := pick(n.greedy, method); r != nil {
		return r, append(vals, rest(path, segs, i))
	}
	return nil, vals
}

// rest is segments i and after as they stand in path ("a/b"): path is
// "/" followed by the segments, each after one slash, and maybe one
// trailing slash, which does not count.
func rest(path string, segs []string, i int) string {
	off := 1
	for _, s := range segs[:i] {
		off += len(s) + 1
	}
	end := len(path)
	if end > off && path[end-1] == '/' {
		end--
	}
	return path[off:end]
}

func pick(routes map[string]*route, method string) *route {
	if r := routes[method]; r != nil {
		return r
	}
	return routes["ANY"]
}

// compileIntegration reads an integration's type, target and mappings.
func compileIntegration(in *apigatewayv2.Integration) *integration {
	out := &integration{kind: strings.ToUpper(in.IntegrationType), uri: in.IntegrationURI,
		method: strings.ToUpper(in.IntegrationMethod), version: in.PayloadFormatVersion,
		timeout: maxTimeout}
	if out.kind == "CLOUD_PROXY" {
		out.kind = "AWS_PROXY"
	}
	if in.TimeoutInMillis > 0 && time.Duration(in.TimeoutInMillis)*time.Millisecond < maxTimeout {
		out.timeout = time.Duration(in.TimeoutInMillis) * time.Millisecond
	}
	if out.version == "" {
		out.version = "2.0"
	}
	if out.kind == "AWS_PROXY" {
		out.function = functionOf(in.IntegrationURI)
	}
	out.validURI = execute.ValidEndpoint(in.IntegrationURI)
	out.request = compileMappings(in.RequestParameters)
	if len(in.ResponseParameters) > 0 {
		out.response = map[int][]mapping{}
		for status, m := range in.ResponseParameters {
			if code, err := strconv.Atoi(status); err == nil {
				out.response[code] = compileMappings(m)
			}
		}
	}
	return out
}

// compileAuthorizer reads a JWT or Lambda authorizer.
func compileAuthorizer(a *apigatewayv2.Authorizer) *authorizer {
	out := &authorizer{id: a.AuthorizerID, jwt: a.AuthorizerType == "JWT",
		version: a.AuthorizerPayloadFormatVersion, simple: a.EnableSimpleResponses}
	for _, s := range a.IdentitySource {
		// Identity sources are headers, query strings, context and
		// stage variables, never the body.
		if src, ok := parseSource(s); ok && src.kind != srcBody && src.kind != srcPath {
			out.identity = append(out.identity, src)
		}
	}
	if out.jwt {
		if c := a.JWTConfiguration; c != nil {
			out.issuer, out.audience = c.Issuer, c.Audience
		}
		if len(out.identity) == 0 {
			out.identity = []source{{kind: srcHeader, name: "authorization"}}
		}
		return out
	}
	out.function = functionOf(a.AuthorizerURI)
	if out.version == "" {
		out.version = "2.0"
	}
	// HTTP APIs cache Lambda authorizer results for 300 s unless told.
	out.ttl = 300 * time.Second
	if a.AuthorizerResultTTLInSeconds != nil {
		out.ttl = time.Duration(*a.AuthorizerResultTTLInSeconds) * time.Second
	}
	return out
}

// functionOf is what Lambda's Invoke takes from an integration or
// authorizer URI ("" when it names no function).
func functionOf(uri string) string {
	fn, _ := execute.LambdaFunction(uri)
	return fn
}
