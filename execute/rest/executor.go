package rest

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/throttle"
	"github.com/cloudemu/emulator/vtl"
	"github.com/puzpuzpuz/xsync/v3"
)

// Options configure an Executor.
type Options struct {
	// APIs is the REST API service whose published snapshots are run.
	APIs *apigateway.Service
	// Backend sends HTTP and HTTP_PROXY integration requests.
	Backend execute.Backend
	// Functions runs the function integrations (AWS and AWS_PROXY with a
	// Lambda URI, and the CLOUD names) and Lambda authorizers. Nil: those
	// integrations answer a plain 500 naming their type, and Lambda
	// authorizers the AUTHORIZER_CONFIGURATION_ERROR gateway response.
	Functions Function
	// Admission caps executions in flight (nil: no cap).
	Admission *execute.Admission
	Log       *slog.Logger
	Now       func() time.Time
	// EnforceThrottle answers a request that a usage plan, a stage or the
	// account throttles (or that is over its quota) with 429. Without it
	// requests are counted and decided, and run anyway (docs/apigateway.md).
	EnforceThrottle bool
	// AccountLimits are each account's (per region) limits; zero:
	// AWS's defaults (throttle.DefaultLimits).
	AccountLimits throttle.Limits
	// ThrottleClock is the time throttles and quotas are taken at; nil:
	// when the request arrived. A frozen clock (EMULATOR_FIXED_TIME) sets
	// it, so that quotas count on the day GetUsage reports and a run
	// admits the same requests every time (buckets never refill).
	ThrottleClock func() time.Time
	// Metrics records one request of each resolved API and stage (nil:
	// none are recorded).
	Metrics *metrics.Regions
	// Inspector keeps the traces of the requests it samples (nil: none
	// are traced).
	Inspector *execute.Inspector
}

// Executor runs requests against deployed REST APIs. It is safe for
// concurrent use; it holds no state of its own beyond caches of what it
// compiled from immutable snapshots.
type Executor struct {
	apis      *apigateway.Service
	backend   execute.Backend
	functions Function
	// auths caches Lambda authorizers' results per stage.
	auths     *authCache
	admission *execute.Admission
	log       *slog.Logger
	now       func() time.Time
	ids       *awswire.RequestIDs
	formats   *xsync.MapOf[string, *accessFormat]
	// enforce: throttling answers 429 (Options.EnforceThrottle).
	enforce bool
	// accountLimits are the limits of each account's bucket (the
	// service keeps the buckets, so that a reset forgets them).
	accountLimits throttle.Limits
	throttleClock func() time.Time
	metrics       *metrics.Regions
	inspector     *execute.Inspector
	// debug logs one line per execution; the level is fixed for the
	// process, so it is read once.
	debug bool
}

// New returns an executor.
func New(o Options) *Executor {
	e := &Executor{apis: o.APIs, backend: o.Backend, functions: o.Functions, admission: o.Admission,
		log: o.Log, now: o.Now, ids: awswire.NewRequestIDs(), formats: xsync.NewMapOf[string, *accessFormat](),
		enforce: o.EnforceThrottle, accountLimits: o.AccountLimits,
		throttleClock: o.ThrottleClock, metrics: o.Metrics, inspector: o.Inspector, auths: newAuthCache(maxAuthCache)}
	if e.accountLimits == (throttle.Limits{}) {
		e.accountLimits = throttle.DefaultLimits()
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.log = e.log.With("component", "execute-api")
	e.debug = e.log.Enabled(context.Background(), slog.LevelDebug)
	if e.now == nil {
		e.now = time.Now
	}
	if e.admission == nil {
		e.admission = execute.NewAdmission(0)
	}
	return e
}

// invocation is one request's way through the pipeline. It is pooled.
type invocation struct {
	ex   *Executor
	req  *execute.Request
	resp *execute.Response

	api   *apigateway.RestAPI
	scope awswire.Scope
	stage *apigateway.Stage
	dep   *compiled
	depID string
	// vars are the stage variables (with the canary's overrides).
	vars     map[string]string
	canary   bool // the stage has a canary; isCanary: this request went to it
	isCanary bool

	match  Match
	m      *method
	params [4]Param // match.Params' usual backing

	query     []execute.QueryParam
	queryDone bool
	apiKey    string
	apiKeyID  string
	planID    string // the usage plan the key was accepted under
	// limits are the throttles and quota of the request's API key under
	// its usage plan; nil when the method takes no key.
	limits *apigateway.KeyLimits
	// plans and planIDs are the key lookup's reused buffers.
	plans      []*apigateway.PlanState
	planIDs    []string
	extendedID string
	traceID    string

	ctx    *contextObject // $context, made on first use (&ctxObj)
	ctxObj contextObject
	// stageMap is $stageVariables, built on first use; renderVars the
	// variables of a render, reused.
	stageMap   *vtl.Map
	renderVars map[string]vtl.Value

	// route is the request's metric series once its stage is known.
	route metrics.Route

	// auth is what the method's Lambda authorizer answered (nil: none
	// ran); authLatency how long it took (0 from the cache); authCached:
	// the answer came from the cache.
	auth        *authResult
	authLatency time.Duration
	authCached  bool

	// payload, eventHeaders and keys are a function call's reused
	// buffers: the event, its headers, sorted keys.
	payload      []byte
	eventHeaders execute.Headers
	keys         []string

	err                *gatewayError
	status             int
	integrationStart   time.Time
	integrationLatency time.Duration
	integrationStatus  int
	backendResp        execute.BackendResponse
	backendReq         execute.BackendRequest

	// log is the execution log: TestInvokeMethod's, or a traced served
	// request's; nil otherwise. It only ever adds lines: no step behaves
	// differently with it.
	log *testLog
	// tr is the trace of a served request the inspector sampled; nil
	// otherwise (every recording site checks it first, so that a request
	// not traced allocates nothing more).
	tr *execute.Trace
}

var invocations = sync.Pool{New: func() any { return new(invocation) }}

func (e *Executor) acquire(req *execute.Request, resp *execute.Response) *invocation {
	inv := invocations.Get().(*invocation)
	br, bq, vars, plans, planIDs := inv.backendResp, inv.backendReq, inv.renderVars, inv.plans, inv.planIDs
	payload, evh, keys := inv.payload, inv.eventHeaders, inv.keys
	*inv = invocation{ex: e, req: req, resp: resp, renderVars: vars, plans: plans[:0], planIDs: planIDs[:0],
		payload: payload[:0], eventHeaders: evh[:0], keys: keys[:0]}
	inv.backendResp = execute.BackendResponse{Headers: br.Headers[:0], Body: br.Body[:0]}
	inv.backendReq = execute.BackendRequest{Headers: bq.Headers[:0], Body: bq.Body[:0]}
	return inv
}

func (inv *invocation) release() {
	if cap(inv.backendResp.Body) > 1<<20 {
		inv.backendResp.Body = nil
	}
	if cap(inv.backendReq.Body) > 1<<20 {
		inv.backendReq.Body = nil
	}
	if cap(inv.payload) > 1<<20 {
		inv.payload = nil
	}
	clear(inv.eventHeaders) // no request's strings kept alive by the pool
	clear(inv.keys)
	inv.auth = nil
	inv.ex, inv.req, inv.resp, inv.api, inv.stage, inv.dep, inv.m, inv.ctx = nil, nil, nil, nil, nil, nil, nil, nil
	inv.limits = nil
	inv.log, inv.tr = nil, nil
	inv.route = metrics.Route{}
	clear(inv.plans) // no plan kept alive by the pool
	inv.plans = inv.plans[:0]
	invocations.Put(inv)
}

// Serve implements execute.Handler.
func (e *Executor) Serve(req *execute.Request, resp *execute.Response) {
	inv := e.acquire(req, resp)
	defer inv.release()
	if e.inspector.SampleAt(req.Received) {
		inv.beginTrace()
	}
	if !e.admission.Enter() {
		inv.fail(errBusy)
		inv.endTrace()
		return
	}
	defer e.admission.Leave()
	inv.serve()
	inv.finish()
	inv.endTrace()
}

// metricsRoute is the series of the matched method (m nil: of the stage's
// unmatched requests), from the method's cache when it names the same API,
// stage and store.
func (inv *invocation) metricsRoute(m *method) metrics.Route {
	regions := inv.ex.metrics
	if regions == nil {
		return metrics.Route{}
	}
	name := metrics.APIName(inv.api.API.Name, inv.api.API.ID)
	gen := regions.Generation()
	if m != nil {
		// A compiled method belongs to one API, so to one scope.
		if c := m.metrics.Load(); c != nil && c.gen == gen && c.name == name && c.stage == inv.stage.StageName {
			return c.route
		}
	}
	st := regions.Of(inv.scope.Account, inv.scope.Region)
	if m == nil {
		return st.RESTStage(name, inv.stage.StageName)
	}
	c := &methodRoute{gen: gen, name: name, stage: inv.stage.StageName,
		route: st.RESTRoute(name, inv.stage.StageName, m.httpMethod, m.resourcePath)}
	m.metrics.Store(c)
	return c.route
}

// methodRoute is a method's metric series for one API name, stage and
// store generation.
type methodRoute struct {
	gen         uint64
	name, stage string
	route       metrics.Route
}

// record publishes the request's metrics: Count, 4XXError, 5XXError,
// Latency and IntegrationLatency.
func (inv *invocation) record() {
	if !inv.route.Valid() {
		return
	}
	at := inv.receivedAt()
	inv.route.Record(inv.resp.Status, inv.ex.now().Sub(at), inv.integrationLatency, at)
}

// receivedAt is the request's time as throttles, quotas and metrics file
// it: when it arrived, or the frozen clock's time (EMULATOR_FIXED_TIME), so
// that quotas count and metrics land where GetUsage and reads look.
func (inv *invocation) receivedAt() time.Time {
	if c := inv.ex.throttleClock; c != nil {
		return c()
	}
	if !inv.req.Received.IsZero() {
		return inv.req.Received
	}
	return inv.ex.now()
}

var (
	errBusy = &gatewayError{responseType: "THROTTLED", message: "Too Many Requests", errorType: "TooManyRequestsException",
		log: "Execution failed: the emulator is at its limit of executions in flight"}
	errForbidden = &gatewayError{responseType: "", message: "Forbidden", errorType: "ForbiddenException"}
)

// serve runs the pipeline of docs/apigateway-execution.md §2.
func (inv *invocation) serve() {
	req := inv.req
	api, sc, ok := inv.ex.apis.APIByID(strings.ToLower(req.APIID), req.Region)
	if !ok {
		inv.traceStep(execute.StepRoute, "not deployed", "no REST API has this id")
		inv.notDeployed()
		return
	}
	inv.api, inv.scope = api, sc
	if api.API.DisableExecuteAPIEndpoint {
		inv.traceStep(execute.StepRoute, "forbidden", "the default execute-api endpoint is disabled")
		inv.forbidden()
		return
	}
	stage, ok := api.Stages.Get(req.Stage)
	if !ok {
		inv.traceStep(execute.StepRoute, "forbidden", "no such stage")
		inv.forbidden()
		return
	}
	inv.stage = stage
	d, ok := inv.pickDeployment()
	if !ok {
		inv.traceStep(execute.StepRoute, "forbidden", "the stage's deployment is gone")
		inv.forbidden()
		return
	}
	inv.depID = d.ID
	inv.dep = deploymentOf(d)

	match, ok := inv.dep.routes.MatchInto(req.Method, req.Path, inv.params[:0])
	if ok {
		inv.match = match
		inv.m = inv.dep.methods[methodKey{match.ResourceID, match.Method}]
	}
	inv.route = inv.metricsRoute(inv.m)
	if inv.tr != nil {
		inv.traceRoute()
	}
	if inv.m == nil {
		inv.fail(errMissingToken)
		return
	}
	if e := inv.authorize(); e != nil {
		inv.fail(e)
		return
	}
	if e := inv.checkAPIKey(); e != nil {
		inv.fail(e)
		return
	}
	if e := inv.throttle(); e != nil {
		inv.fail(e)
		return
	}
	inv.run()
}

// run is the pipeline from the validators on, which TestInvokeMethod
// shares.
func (inv *invocation) run() {
	if e := inv.validate(); e != nil {
		inv.fail(e)
		return
	}
	inv.integrate()
}

// deploymentOf compiles a deployment on its first execution.
func deploymentOf(d *apigateway.Deployment) *compiled {
	if d.Exec == nil {
		return compile(d.Frozen)
	}
	return d.Exec.Get(func() any { return compile(d.Frozen) }).(*compiled)
}

// pickDeployment chooses the stage's deployment, or its canary's for the
// canary's share of requests, with the stage variables each sees.
func (inv *invocation) pickDeployment() (*apigateway.Deployment, bool) {
	st := inv.stage
	inv.vars = st.Variables
	if c := st.CanarySettings; c != nil && c.DeploymentID != "" {
		inv.canary = true
		if c.PercentTraffic > 0 && rand.Float64()*100 < c.PercentTraffic {
			if d, ok := inv.api.Deployments.Get(c.DeploymentID); ok {
				inv.isCanary = true
				if len(c.StageVariableOverrides) > 0 {
					vars := make(map[string]string, len(st.Variables)+len(c.StageVariableOverrides))
					for k, v := range st.Variables {
						vars[k] = v
					}
					for k, v := range c.StageVariableOverrides {
						vars[k] = v
					}
					inv.vars = vars
				}
				return d, true
			}
		}
	}
	return inv.api.Deployments.Get(st.DeploymentID)
}

// notDeployed answers an id no REST API has, as LocalStack does (on AWS
// the host would not resolve).
func (inv *invocation) notDeployed() {
	resp := inv.resp
	resp.Reset()
	resp.Status = 404
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
		execute.Header{Name: "x-amzn-ErrorType", Value: "NotFoundException"})
	resp.Body = append(resp.Body, `{"message": "The API id '`...)
	resp.Body = appendJSONText(resp.Body, inv.req.APIID)
	resp.Body = append(resp.Body, `' does not correspond to a deployed API Gateway API"}`...)
	inv.status = 404
	inv.enrich(false)
}

// forbidden answers a stage that does not exist, or a default endpoint
// that is disabled: 403 {"message":"Forbidden"} whatever the API
// customised (no deployment is involved yet).
func (inv *invocation) forbidden() {
	resp := inv.resp
	resp.Reset()
	resp.Status = 403
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
		execute.Header{Name: "x-amzn-ErrorType", Value: "ForbiddenException"})
	resp.Body = appendMessageBody(resp.Body, errForbidden)
	inv.err = errForbidden
	inv.status = 403
	inv.enrich(false)
}

// appendJSONText appends s escaped for a JSON string, without the quotes.
func appendJSONText(dst []byte, s string) []byte {
	n := len(dst)
	dst = awswire.AppendString(dst, s)
	// Drop the quotes in place (append moves overlapping bytes safely).
	return append(dst[:n], dst[n+1:len(dst)-1]...)
}

// enrich adds the identity headers every answer carries (§2.10): the
// request id, the extended id and, once an integration was called, the
// trace id.
func (inv *invocation) enrich(trace bool) {
	h := inv.resp.Headers
	h = append(h, execute.Header{Name: "x-amzn-RequestId", Value: inv.req.RequestID},
		execute.Header{Name: "x-amz-apigw-id", Value: inv.extendedRequestID()})
	if trace {
		h = append(h, execute.Header{Name: "X-Amzn-Trace-Id", Value: inv.traceHeader()})
	}
	inv.resp.Headers = h
}

// extendedRequestID is $context.extendedRequestId, the x-amz-apigw-id
// value: 15 characters and "=", as AWS's look.
func (inv *invocation) extendedRequestID() string {
	if inv.extendedID == "" {
		var b [16]byte
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		n := rand.Uint64()
		m := rand.Uint64()
		for i := 0; i < 15; i++ {
			if i < 10 {
				b[i] = alphabet[n&63]
				n >>= 6
			} else {
				b[i] = alphabet[m&63]
				m >>= 6
			}
		}
		b[15] = '='
		inv.extendedID = string(b[:])
	}
	return inv.extendedID
}

// traceHeader is X-Amzn-Trace-Id: the caller's Root when it sent one,
// with a new Parent, else a new root.
func (inv *invocation) traceHeader() string {
	if inv.traceID == "" {
		client, _ := inv.req.Headers.Get("X-Amzn-Trace-Id")
		inv.traceID = execute.TraceHeader(client, inv.req.Received)
	}
	return inv.traceID
}

// finish records the request's metrics, writes the stage's access log line
// and, at debug level, the execution summary.
func (inv *invocation) finish() {
	inv.record()
	if inv.stage != nil {
		if s := inv.stage.AccessLogSettings; s != nil && s.Format != "" {
			inv.ex.accessLog(inv, s.Format)
		}
	}
	if inv.ex.debug {
		route, integ := "", ""
		if inv.m != nil {
			route = inv.m.httpMethod + " " + inv.m.resourcePath
			if inv.m.integ != nil {
				integ = inv.m.integ.kind
			}
		}
		inv.ex.log.Debug("executed", "requestId", inv.req.RequestID, "api", inv.req.APIID, "stage", inv.req.Stage,
			"route", route, "integration", integ, "status", inv.resp.Status,
			"latency", inv.ex.now().Sub(inv.req.Received))
	}
}
