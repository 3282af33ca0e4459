package httpapi

import (
	"context"
	"encoding/base64"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
	"github.com/cloudemu/emulator/execute/jwtauth"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/throttle"
	"github.com/puzpuzpuz/xsync/v3"
)

// Options configure an Executor.
type Options struct {
	// APIs is the v2 service whose published snapshots are run.
	APIs *apigatewayv2.Service
	// Backend sends HTTP_PROXY integration requests.
	Backend execute.Backend
	// Functions runs function integrations and Lambda authorizers (nil:
	// they answer 500).
	Functions execute.Function
	// Admission caps executions in flight (nil: no cap).
	Admission *execute.Admission
	Log       *slog.Logger
	Now       func() time.Time
	// EnforceThrottle answers a throttled request with 429; without it
	// requests are counted and decided, and run anyway.
	EnforceThrottle bool
	// AccountLimits are each account's (per region) limits; zero: AWS's
	// defaults.
	AccountLimits throttle.Limits
	// AccountBucket, when set, is the account's bucket in a region (REST
	// and HTTP APIs share it, as on AWS); nil: the executor keeps its own.
	AccountBucket func(sc awswire.Scope, l throttle.Limits, now time.Time) *throttle.Bucket
	// ThrottleClock is the time throttles are taken at; nil: when the
	// request arrived.
	ThrottleClock func() time.Time
	// Metrics records one request of each resolved API and stage.
	Metrics *metrics.Regions
	// Inspector keeps the traces of the requests it samples (nil: none
	// are traced).
	Inspector *execute.Inspector
}

// Executor runs requests against deployed HTTP APIs. It is safe for
// concurrent use; its state is caches of what it compiled from immutable
// snapshots, throttle buckets and authorizer results.
type Executor struct {
	o        Options
	log      *slog.Logger
	jwt      *jwtauth.Verifier
	auths    *xsync.MapOf[authKey, authEntry]
	buckets  *xsync.MapOf[bucketKey, *throttle.Bucket]
	accounts *xsync.MapOf[awswire.Scope, *throttle.Bucket]
}

// New returns an executor.
func New(o Options) *Executor {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Admission == nil {
		o.Admission = execute.NewAdmission(0)
	}
	if o.AccountLimits == (throttle.Limits{}) {
		o.AccountLimits = throttle.DefaultLimits()
	}
	log := o.Log.With("component", "execute-api")
	return &Executor{o: o, log: log, jwt: jwtauth.New(jwtauth.Options{Log: log}), auths: newAuthCache(),
		buckets:  xsync.NewMapOf[bucketKey, *throttle.Bucket](),
		accounts: xsync.NewMapOf[awswire.Scope, *throttle.Bucket]()}
}

// invocation is one request's way through the pipeline. It is pooled.
type invocation struct {
	ex   *Executor
	req  *execute.Request
	resp *execute.Response
	ctx  context.Context

	api   *apigatewayv2.HTTPAPI
	scope awswire.Scope
	stage *apigatewayv2.Stage
	dep   *compiled
	// path is the request's path after a named stage ("/" at least);
	// rawPath the path as the event shows it, the stage's prefix kept.
	path, rawPath string
	route         *route
	segs          []string
	vals          []string
	requestID     string
	idBuf         [16]byte
	traceID       string // X-Amzn-Trace-Id, made on first use

	query     []execute.QueryParam
	queryDone bool

	auth authResult
	// authCached: the Lambda authorizer's answer came from the cache.
	authCached bool
	// tr is the trace of a request the inspector sampled; nil otherwise
	// (recording sites check it first: a request not traced allocates
	// nothing more).
	tr *execute.Trace

	metric             metrics.Route
	integrationStart   time.Time
	integrationLatency time.Duration

	backendReq  execute.BackendRequest
	backendResp *execute.BackendResponse
	br          execute.BackendResponse
	payload     []byte
	// ev is a function call's event, jwtEvent its JWT part.
	ev       httpevent.Request
	jwtEvent httpevent.JWT
}

var invocations = sync.Pool{New: func() any { return new(invocation) }}

func (e *Executor) acquire(req *execute.Request, resp *execute.Response) *invocation {
	inv := invocations.Get().(*invocation)
	segs, vals, bq, br, payload, ev, jev := inv.segs, inv.vals, inv.backendReq, inv.br, inv.payload, inv.ev, inv.jwtEvent
	*inv = invocation{ex: e, req: req, resp: resp, ctx: context.Background(), segs: segs[:0], vals: vals[:0],
		payload: payload[:0], ev: ev, jwtEvent: jev}
	inv.backendReq = execute.BackendRequest{Headers: bq.Headers[:0], Body: bq.Body[:0]}
	inv.br = execute.BackendResponse{Headers: br.Headers[:0], Body: br.Body[:0]}
	return inv
}

func (inv *invocation) release() {
	if cap(inv.br.Body) > 1<<20 {
		inv.br.Body = nil
	}
	if cap(inv.backendReq.Body) > 1<<20 {
		inv.backendReq.Body = nil
	}
	if cap(inv.payload) > 1<<20 {
		inv.payload = nil
	}
	clear(inv.segs[:cap(inv.segs)])
	clear(inv.vals[:cap(inv.vals)])
	clear(inv.backendReq.Headers[:cap(inv.backendReq.Headers)])
	clear(inv.br.Headers[:cap(inv.br.Headers)])
	inv.ev.Reset()
	clear(inv.ev.Headers[:cap(inv.ev.Headers)])
	clear(inv.ev.PathParams[:cap(inv.ev.PathParams)])
	clear(inv.ev.StageVariables[:cap(inv.ev.StageVariables)])
	clear(inv.jwtEvent.Claims[:cap(inv.jwtEvent.Claims)])
	*inv = invocation{segs: inv.segs, vals: inv.vals, backendReq: inv.backendReq, br: inv.br, payload: inv.payload,
		ev: inv.ev, jwtEvent: httpevent.JWT{Claims: inv.jwtEvent.Claims[:0]}}
	invocations.Put(inv)
}

// Serve implements execute.Handler.
func (e *Executor) Serve(req *execute.Request, resp *execute.Response) {
	if !e.o.Admission.Enter() {
		resp.Reset()
		writeMessage(resp, 429, "Too Many Requests", shortID(req.RequestID))
		return
	}
	defer e.o.Admission.Leave()
	inv := e.acquire(req, resp)
	defer inv.release()
	if e.o.Inspector.SampleAt(req.Received) {
		inv.beginTrace()
	}
	inv.serve()
	inv.endTrace()
}

// serve is the pipeline: stage, route, CORS preflight, authorizer,
// throttle, integration, CORS headers, metrics.
func (inv *invocation) serve() {
	req := inv.req
	inv.requestID = shortIDInto(inv.idBuf[:], req.RequestID)
	api, sc, ok := inv.ex.o.APIs.APIByID(strings.ToLower(req.APIID), req.Region)
	if !ok || api.API.ProtocolType != "HTTP" {
		inv.traceStep(execute.StepRoute, "not deployed", "no HTTP API has this id")
		inv.message(404, "Not Found")
		return
	}
	inv.api, inv.scope = api, sc
	if api.API.DisableExecuteAPIEndpoint {
		inv.traceStep(execute.StepRoute, "forbidden", "the default execute-api endpoint is disabled")
		inv.message(403, "Forbidden")
		return
	}
	if !inv.pickStage() {
		inv.traceStep(execute.StepRoute, "no stage", "no such stage, and no $default stage")
		inv.message(404, "Not Found")
		return
	}
	if inv.preflight() {
		inv.traceStep(execute.StepRoute, "CORS preflight", "answered by the API's CORS configuration")
		inv.metric = inv.stageMetric()
		inv.record(0)
		return
	}
	inv.segs = appendSegments(inv.segs[:0], inv.path)
	inv.route, inv.vals = inv.dep.root.match(req.Method, inv.path, inv.segs, inv.vals[:0])
	if inv.route == nil {
		inv.route = inv.dep.defaultRoute
	}
	if inv.route == nil {
		if inv.tr != nil {
			inv.traceStep(execute.StepRoute, "no match", req.Method+" "+inv.path)
		}
		inv.metric = inv.stageMetric()
		inv.message(404, "Not Found")
		inv.finish()
		return
	}
	inv.traceStep(execute.StepRoute, "matched", inv.route.key)
	inv.metric = inv.routeMetric()
	ok = inv.authorize()
	if inv.tr != nil && inv.route.auth != nil {
		inv.traceAuth(ok)
	}
	if !ok || !inv.throttle() {
		inv.finish()
		return
	}
	inv.integrate()
	inv.finish()
}

// pickStage finds the stage the path names, else $default (served at the
// root), and its deployment.
func (inv *invocation) pickStage() bool {
	req := inv.req
	api := inv.api
	if req.Stage != "" && req.Stage != "$default" {
		if st, ok := api.Stages.Get(req.Stage); ok {
			inv.stage = st
			inv.path = req.Path
			inv.rawPath = "/" + req.Stage + req.Path
			if inv.path == "" {
				inv.path = "/"
			}
			return inv.pickDeployment()
		}
	}
	st, ok := api.Stages.Get("$default")
	if !ok {
		return false
	}
	inv.stage = st
	switch {
	case req.Stage == "":
		inv.path = "/"
	default:
		inv.path = "/" + req.Stage + req.Path
	}
	inv.rawPath = inv.path
	return inv.pickDeployment()
}

func (inv *invocation) pickDeployment() bool {
	d, ok := inv.api.Deployments.Get(inv.stage.DeploymentID)
	if !ok || d.Frozen == nil {
		return false
	}
	if d.Exec == nil {
		inv.dep = compile(d.Frozen)
	} else {
		inv.dep = d.Exec.Get(func() any { return compile(d.Frozen) }).(*compiled)
	}
	return true
}

// appendSegments splits a raw path into its segments.
func appendSegments(dst []string, p string) []string {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return dst
	}
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return append(dst, p)
		}
		dst = append(dst, p[:i])
		p = p[i+1:]
	}
}

// finish adds the headers every answer carries and records the request.
func (inv *invocation) finish() {
	inv.corsHeaders()
	inv.record(inv.integrationLatency)
}

// message answers an error of the gateway's own: {"message": text}.
func (inv *invocation) message(status int, text string) {
	inv.resp.Reset()
	writeMessage(inv.resp, status, text, inv.requestID)
}

func writeMessage(resp *execute.Response, status int, text, id string) {
	resp.Status = status
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
		execute.Header{Name: "apigw-requestid", Value: id})
	resp.Body = append(resp.Body, `{"message":"`...)
	resp.Body = append(resp.Body, text...)
	resp.Body = append(resp.Body, `"}`...)
}

// shortID is the request id in the form HTTP APIs give it
// ("RL2XYiwjPHcEMEQ="): the first 11 bytes of the front's UUID, base64.
func shortID(uuid string) string {
	var b [16]byte
	return shortIDInto(b[:], uuid)
}

func shortIDInto(dst []byte, uuid string) string {
	var raw [11]byte
	n := 0
	for i := 0; i+1 < len(uuid) && n < len(raw); i++ {
		hi, ok1 := unhex(uuid[i])
		if !ok1 {
			continue
		}
		lo, ok2 := unhex(uuid[i+1])
		if !ok2 {
			continue
		}
		raw[n] = hi<<4 | lo
		n++
		i++
	}
	base64.StdEncoding.Encode(dst[:16], raw[:])
	return string(dst[:16])
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
