package websocket

import (
	"log/slog"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/puzpuzpuz/xsync/v3"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
)

// Options configure an Executor.
type Options struct {
	// APIs is the v2 service whose published snapshots are run.
	APIs *apigatewayv2.Service
	// Backend sends HTTP and HTTP_PROXY integration requests.
	Backend execute.Backend
	// Functions runs function integrations and Lambda authorizers (nil:
	// they fail as a function that cannot be called).
	Functions execute.Function
	// Limits are the quotas; zero fields take AWS's.
	Limits Limits
	Log    *slog.Logger
	Now    func() time.Time
}

// Executor runs WebSocket APIs. It is safe for concurrent use.
type Executor struct {
	apis      *apigatewayv2.Service
	backend   execute.Backend
	functions execute.Function
	limits    Limits
	log       *slog.Logger
	now       func() time.Time
	// conns are the open connections by id.
	conns *xsync.MapOf[string, *Conn]
	// epoch counts Close calls: a connection upgraded while one ran
	// closes as it opens.
	epoch atomic.Uint64
	// compiled caches what was compiled from each configuration snapshot;
	// bounded (cleared past compiledMax), so dropped snapshots do not stay.
	compiled *xsync.MapOf[*apigatewayv2.Config, *compiled]
}

const compiledMax = 1024

// New returns an executor.
func New(o Options) *Executor {
	x := &Executor{apis: o.APIs, backend: o.Backend, functions: o.Functions, limits: o.Limits.orDefault(),
		log: o.Log, now: o.Now, conns: xsync.NewMapOf[string, *Conn](),
		compiled: xsync.NewMapOf[*apigatewayv2.Config, *compiled]()}
	if x.log == nil {
		x.log = slog.New(slog.DiscardHandler)
	}
	x.log = x.log.With("component", "websocket")
	if x.now == nil {
		x.now = time.Now
	}
	return x
}

// Limits are the quotas the executor enforces; the front enforces the
// frame and message sizes and the timeouts with them.
func (x *Executor) Limits() Limits { return x.limits }

// Connections is how many connections are open.
func (x *Executor) Connections() int { return x.conns.Size() }

// Owns reports whether apiID names a WebSocket API (region as the host
// names it, "" when it does not).
func (x *Executor) Owns(apiID, region string) bool {
	api, _, ok := x.apis.APIByID(strings.ToLower(apiID), region)
	return ok && api.API.ProtocolType == "WEBSOCKET"
}

// Close closes every open connection (emulator reset and shutdown) with
// 1001 "Going away" and waits, at most timeout, until their ends were
// reported. Connections made afterwards are served as usual.
func (x *Executor) Close(timeout time.Duration) {
	x.epoch.Add(1)
	for _, c := range x.all() {
		if s := c.sock(); s != nil {
			_ = s.Close(1001, "Going away")
		}
	}
	deadline := time.Now().Add(timeout)
	for x.conns.Size() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

func (x *Executor) all() []*Conn {
	var out []*Conn
	x.conns.Range(func(_ string, c *Conn) bool {
		out = append(out, c)
		return true
	})
	return out
}

// compiled is a configuration snapshot read for execution.
type compiled struct {
	selection *expression
	routes    map[string]*route
	// stageVars are not part of the configuration: each call reads its
	// stage's.
}

// route is a route with what it runs.
type route struct {
	key     string
	integ   *integration // nil: the route has no integration target
	respond bool         // a $default route response sends the answer back
	auth    *authorizer  // nil: authorizationType NONE (or not emulated)
	authBad bool         // an authorizer the route names but cannot run
}

// integration is an integration compiled.
type integration struct {
	kind        string // MOCK, HTTP, HTTP_PROXY, AWS, AWS_PROXY (CLOUD names mapped)
	uri, method string
	function    string // function integrations: what Invoke takes; "" when the URI names none
	timeout     time.Duration
	templateSel *expression
	templates   map[string]string
	responses   []*integrationResponse // regular-expression keys first, $default last
}

// integrationResponse is an integration response compiled.
type integrationResponse struct {
	re          *regexp.Regexp // nil: $default
	templateSel *expression
	templates   map[string]string
}

// authorizer is a REQUEST (Lambda) authorizer compiled.
type authorizer struct {
	id       string
	function string
	sources  []identitySource
}

// identitySource is one of route.request.header.X,
// route.request.querystring.X, stageVariables.X.
type identitySource struct{ where, name string }

// config returns the compiled configuration of a snapshot.
func (x *Executor) config(cfg *apigatewayv2.Config) *compiled {
	if c, ok := x.compiled.Load(cfg); ok {
		return c
	}
	c := compile(cfg, x.limits)
	if x.compiled.Size() >= compiledMax {
		x.compiled.Clear()
	}
	x.compiled.Store(cfg, c)
	return c
}

func compile(cfg *apigatewayv2.Config, lim Limits) *compiled {
	out := &compiled{selection: compileExpression(cfg.API.RouteSelectionExpression), routes: map[string]*route{}}
	integs := map[string]*integration{}
	for id, in := range cfg.Integrations.All() {
		integs[id] = compileIntegration(cfg, in, lim)
	}
	for id, r := range cfg.Routes.All() {
		rt := &route{key: r.RouteKey}
		if target, ok := strings.CutPrefix(r.Target, "integrations/"); ok {
			rt.integ = integs[target]
		}
		if rr, ok := cfg.RouteResponses.Get(id); ok {
			for _, resp := range rr.All() {
				if resp.RouteResponseKey == "$default" {
					rt.respond = true
				}
			}
		}
		if r.AuthorizationType == "CUSTOM" {
			a, ok := cfg.Authorizers.Get(r.AuthorizerID)
			if !ok || a.AuthorizerType != "REQUEST" {
				rt.authBad = true
			} else {
				rt.auth = compileAuthorizer(a)
			}
		}
		out.routes[r.RouteKey] = rt
	}
	return out
}

func compileIntegration(cfg *apigatewayv2.Config, in *apigatewayv2.Integration, lim Limits) *integration {
	kind := strings.ToUpper(in.IntegrationType)
	switch kind {
	case "CLOUD_PROXY":
		kind = "AWS_PROXY"
	case "CLOUD":
		kind = "AWS"
	}
	out := &integration{kind: kind, uri: in.IntegrationURI, method: in.IntegrationMethod,
		timeout: lim.IntegrationTimeout, templates: in.RequestTemplates}
	if in.TimeoutInMillis > 0 {
		out.timeout = time.Duration(in.TimeoutInMillis) * time.Millisecond
	}
	if out.method == "" {
		out.method = "POST"
	}
	if kind == "AWS" || kind == "AWS_PROXY" {
		out.function, _ = execute.LambdaFunction(in.IntegrationURI)
	}
	if in.TemplateSelectionExpression != "" {
		out.templateSel = compileExpression(in.TemplateSelectionExpression)
	}
	var def *integrationResponse
	if rs, ok := cfg.IntegrationResponses.Get(in.IntegrationID); ok {
		for _, r := range rs.All() {
			ir := &integrationResponse{templates: r.ResponseTemplates}
			if r.TemplateSelectionExpression != "" {
				ir.templateSel = compileExpression(r.TemplateSelectionExpression)
			}
			key := r.IntegrationResponseKey
			if key == "$default" {
				def = ir
				continue
			}
			// "/2\d\d/": a regular expression between slashes, matched
			// against the whole status code (or a function error's message).
			if len(key) >= 2 && key[0] == '/' && key[len(key)-1] == '/' {
				if re, err := regexp.Compile(`^(?:` + key[1:len(key)-1] + `)$`); err == nil {
					ir.re = re
					out.responses = append(out.responses, ir)
				}
			}
		}
	}
	if def != nil {
		out.responses = append(out.responses, def)
	}
	return out
}

func compileAuthorizer(a *apigatewayv2.Authorizer) *authorizer {
	out := &authorizer{id: a.AuthorizerID}
	out.function, _ = execute.LambdaFunction(a.AuthorizerURI)
	for _, src := range a.IdentitySource {
		src = strings.TrimSpace(src)
		switch {
		case strings.HasPrefix(src, "route.request.header."):
			out.sources = append(out.sources, identitySource{"header", src[len("route.request.header."):]})
		case strings.HasPrefix(src, "route.request.querystring."):
			out.sources = append(out.sources, identitySource{"querystring", src[len("route.request.querystring."):]})
		case strings.HasPrefix(src, "stageVariables."):
			out.sources = append(out.sources, identitySource{"stageVariables", src[len("stageVariables."):]})
		}
	}
	return out
}

// target is a resolved API stage.
type target struct {
	api   *apigatewayv2.HTTPAPI
	scope awswire.Scope
	stage *apigatewayv2.Stage
	cfg   *compiled
}

// resolve finds a WebSocket API's stage and the configuration it runs: its
// deployment's frozen one, or the live one for an autoDeploy stage. ok is
// false for an unknown API or stage, or a stage without a deployment.
func (x *Executor) resolve(apiID, region, stage string) (target, bool) {
	api, sc, ok := x.apis.APIByID(strings.ToLower(apiID), region)
	if !ok || api.API.ProtocolType != "WEBSOCKET" {
		return target{}, false
	}
	st, ok := api.Stages.Get(stage)
	if !ok {
		return target{}, false
	}
	var cfg *apigatewayv2.Config
	if st.AutoDeploy {
		cfg = &api.Config
	} else {
		d, ok := api.Deployments.Get(st.DeploymentID)
		if !ok || d.Frozen == nil {
			return target{}, false
		}
		cfg = d.Frozen
	}
	return target{api: api, scope: sc, stage: st, cfg: x.config(cfg)}, true
}
