package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/actors/backup"
	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/compat"
	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpapi"
	"github.com/cloudemu/emulator/execute/rest"
	"github.com/cloudemu/emulator/functions"
	"github.com/cloudemu/emulator/httpfront"
	"github.com/cloudemu/emulator/httpfront/apigatewayhttp"
	"github.com/cloudemu/emulator/httpfront/apigatewayv2http"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
	"github.com/cloudemu/emulator/httpfront/backuphttp"
	"github.com/cloudemu/emulator/httpfront/lambdahttp"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/store"
	"github.com/cloudemu/emulator/throttle"
)

// Service is one emulated AWS service as the emulator assembles it: its
// owners and the handlers of its supported operations.
type Service struct {
	// Name is the service's name in health and state reports.
	Name string
	// Wire keys the service's operations and error shapes.
	Wire awswire.Service
	// Owners holds the service's state.
	Owners Owners
	// Handlers serve the supported operations, by operation name; every
	// other operation of the model answers NotImplementedException.
	Handlers map[string]restjson.Handler
	// RPC serves the supported operations of a query- or JSON-protocol
	// service (SQS, SNS, SES v1), by operation name; every other
	// operation of its model answers the service's NotImplemented.
	RPC map[string]awsrpc.Handler
	// PeekQueue, when set, reads a queue's messages without consuming
	// them, for /_emulator/sqs/messages, GET /{account}/{queue} and their
	// compatibility paths.
	PeekQueue func(sc awswire.Scope, name, after string, limit int) (compat.PeekedQueue, bool)
	// DownloadCode, when set, serves the function code a GetFunction
	// Code.Location names.
	DownloadCode func(account, region, hash, date, signature string) ([]byte, error)
	// Partial names the supported operations that are only partly
	// emulated (the README says how).
	Partial []string
	// Execute, when set, serves the requests to the service's deployed
	// APIs (the data plane); the first registered service's answers ids
	// no service holds.
	Execute *execute.Owned
	// Listening, when set, learns the port the emulator listens on (which
	// port 0 picks only at Serve).
	Listening func(port int)
	// Usage, when set, lists the usage of API keys that /_emulator/metrics
	// reports.
	Usage func() []metrics.KeyUsage
	// Runtimes, when set, lists the function runtimes that
	// /_emulator/lambda/runtimes reports.
	Runtimes func() []functions.RuntimeInfo
	// FunctionRuntime, when set, is the functions runtime once it started
	// (nil before), which the dashboard reads.
	FunctionRuntime func() *functions.Runtime
	// Sockets, when set, serves WebSocket APIs' connections.
	Sockets *sockets
	// Close, when set, stops what the service runs outside its owners
	// (function processes) at shutdown, after requests drained.
	Close func() error
}

// Owners is what the emulator asks of a service's owners.
type Owners interface {
	// StoreService is the service segment of the store keys Restore takes.
	StoreService() string
	// Restore MUST re-create what one persisted record holds. Records
	// arrive in key order.
	Restore(key string, value []byte) error
	// RestoreDone is called once every record was restored. It MUST start
	// the owners Restore gathered and drop references to owners that no
	// longer exist (a crash between a delete and its fan-out leaves them),
	// persisting what it drops.
	RestoreDone() error
	// Detach MUST forget every owner and retire it (reset, shutdown); the
	// caller wipes or closes the store afterwards.
	Detach()
	// Counts reports how many resources of each kind each account and
	// region holds.
	Counts() map[awswire.Scope]map[string]int
}

// Env is what a service is built from.
type Env struct {
	Sys    *actors.System
	Store  store.Store
	Now    func() time.Time
	Log    *slog.Logger
	Config config.Config
	// Metrics are the request metrics of every account and region.
	Metrics *metrics.Regions
	// Functions runs API Gateway's function integrations and authorizers
	// on the Lambda service, once that is built.
	Functions *functionInvoker
	// Accounts are API Gateway's account limits, shared by REST and HTTP
	// APIs as on AWS (the REST service keeps the buckets).
	Accounts *accountBuckets
	// Admission caps the requests to deployed APIs served at once, of
	// every kind together (EMULATOR_MAX_EXECUTIONS).
	Admission *execute.Admission
	// Queues delivers SNS's messages into SQS, once SQS is built.
	Queues *queueDeliverer
	// Inbox captures the mail, short messages and pushes SES and SNS
	// send (memory only; a reset empties it).
	Inbox *inbox.Inbox
	// Inspector keeps the traces of sampled requests to deployed REST and
	// HTTP APIs (nil: off; a reset empties it).
	Inspector *execute.Inspector
}

// accountBuckets is the REST service's AccountBucket for the HTTP API
// executor: REST is built first.
type accountBuckets struct {
	svc atomic.Pointer[apigateway.Service]
}

func (a *accountBuckets) bucket(sc awswire.Scope, l throttle.Limits, now time.Time) *throttle.Bucket {
	return a.svc.Load().AccountBucket(sc, l, now)
}

// functionInvoker is execute.Function over the Lambda service: API Gateway
// is built before Lambda in the registry, so the service is set after.
type functionInvoker struct {
	svc atomic.Pointer[lambda.Service]
}

func (f *functionInvoker) Invoke(ctx context.Context, sc awswire.Scope, function string, payload []byte, timeout time.Duration) (execute.FunctionReply, error) {
	svc := f.svc.Load()
	if svc == nil {
		return execute.FunctionReply{}, errors.New("server: the Lambda service is not built")
	}
	// ctx carries the integration's timeout already.
	out, fnErr, err := svc.InvokeFunction(ctx, sc, function, payload)
	return execute.FunctionReply{Payload: out, Error: fnErr}, err
}

// registry lists every emulated service, one line each, in the order health
// reports them.
var registry = []func(Env) Service{
	backupService,
	apigatewayService,
	apigatewayv2Service,
	lambdaService,
	sqsService,
	sesService, sesv2Service,
	snsService,
}

func backupService(env Env) Service {
	svc := backup.New(env.Sys, env.Store, env.Now, env.Log)
	return Service{Name: "backup", Wire: awswire.Backup, Owners: svc,
		Handlers: backuphttp.Handlers(svc), Partial: backuphttp.Partial}
}

func apigatewayService(env Env) Service {
	svc := apigateway.New(env.Sys, env.Store, env.Now, env.Log)
	opts := rest.Options{APIs: svc, Backend: httpfront.NewBackend(env.Config.BackendMaxConns),
		Admission: env.Admission, Log: env.Log, Now: env.Now, Inspector: env.Inspector,
		EnforceThrottle: env.Config.EnforceGatewayThrottle, Metrics: env.Metrics,
		AccountLimits: throttle.Limits{Rate: env.Config.AccountThrottleRate,
			Burst: int64(env.Config.AccountThrottleBurst)}}
	if !env.Config.FixedTime.IsZero() {
		opts.ThrottleClock = env.Now
	}
	if env.Functions != nil {
		opts.Functions = env.Functions
	}
	if env.Accounts != nil {
		env.Accounts.svc.Store(svc)
	}
	exec := rest.New(opts)
	return Service{Name: "apigateway", Wire: awswire.APIGateway, Owners: svc,
		Handlers: apigatewayhttp.Handlers(svc, exec), Partial: apigatewayhttp.Partial,
		Execute: &execute.Owned{Handler: exec, Owns: func(id, region string) bool {
			_, _, ok := svc.APIByID(strings.ToLower(id), region)
			return ok
		}},
		Usage: svc.UsageToday}
}

func apigatewayv2Service(env Env) Service {
	svc := apigatewayv2.New(env.Sys, env.Store, env.Now, env.Log)
	endpoint := func(port int) {
		svc.SetEndpoint("{id}.execute-api." + env.Config.ExternalHostname + ":" + strconv.Itoa(port))
	}
	endpoint(env.Config.Port)
	opts := httpapi.Options{APIs: svc, Backend: httpfront.NewBackend(env.Config.BackendMaxConns),
		Admission: env.Admission, Log: env.Log, Now: env.Now, Inspector: env.Inspector,
		EnforceThrottle: env.Config.EnforceGatewayThrottle, Metrics: env.Metrics,
		AccountLimits: throttle.Limits{Rate: env.Config.AccountThrottleRate,
			Burst: int64(env.Config.AccountThrottleBurst)}}
	if !env.Config.FixedTime.IsZero() {
		opts.ThrottleClock = env.Now
	}
	if env.Functions != nil {
		opts.Functions = env.Functions
	}
	if env.Accounts != nil {
		opts.AccountBucket = env.Accounts.bucket
	}
	ws := newSockets(env, svc)
	exec := httpapi.New(opts)
	svc.SetAuthorizersCacheReset(exec.ResetAuthorizersCache)
	return Service{Name: "apigatewayv2", Wire: awswire.APIGatewayV2, Owners: svc,
		Handlers: apigatewayv2http.Handlers(svc), Partial: apigatewayv2http.Partial, Listening: endpoint,
		Execute: &execute.Owned{Handler: v2Executor{svc: svc, http: exec, ws: ws}, Owns: func(id, region string) bool {
			_, _, ok := svc.APIByID(strings.ToLower(id), region)
			return ok
		}},
		Sockets: ws}
}

// v2Executor sends each request to the executor of its API's protocol.
type v2Executor struct {
	svc  *apigatewayv2.Service
	http execute.Handler
	ws   execute.Handler
}

func (x v2Executor) Serve(req *execute.Request, resp *execute.Response) {
	if api, _, ok := x.svc.APIByID(strings.ToLower(req.APIID), req.Region); ok && api.API.ProtocolType == "WEBSOCKET" {
		x.ws.Serve(req, resp)
		return
	}
	x.http.Serve(req, resp)
}

func lambdaService(env Env) Service {
	rt := &lambdaRuntime{port: env.Config.Port, host: env.Config.Host, cfg: functions.Config{
		MaxConcurrency: env.Config.LambdaMaxConcurrency, IdleTimeout: env.Config.LambdaIdleTimeout,
		MaxInvocations: env.Config.LambdaMaxInvocations,
		Log:            env.Log.With("component", "functions"), WorkDir: functionsDir(env.Config)}}
	svc := lambda.New(env.Sys, env.Store, env.Now, env.Log, lambda.Options{Runtime: rt})
	if env.Functions != nil {
		env.Functions.svc.Store(svc)
	}
	return Service{Name: "lambda", Wire: awswire.Lambda, Owners: svc,
		Handlers: lambdahttp.Handlers(svc), Partial: lambdahttp.Partial, Listening: rt.listening,
		DownloadCode: svc.DownloadCode,
		Runtimes:     func() []functions.RuntimeInfo { return rt.runtime().Runtimes() }, Close: rt.close,
		FunctionRuntime: rt.rt.Load}
}

// functionsDir is where the functions runtime unpacks code, once per
// SHA-256: under the data directory when state persists, else a
// directory of the user's in the system's temporary one (kept across
// runs, so that nothing is left behind per run).
func functionsDir(cfg config.Config) string {
	if cfg.State == config.StatePersistent {
		return filepath.Join(cfg.DataDir, "functions")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("cloudemu-functions-%d", os.Getuid()))
}

// lambdaRuntime starts the functions runtime on the first invocation, once
// the port the emulator listens on (which functions call back, as
// AWS_ENDPOINT_URL) is known.
type lambdaRuntime struct {
	mu   sync.Mutex // port, cfg and the runtime's creation
	cfg  functions.Config
	host string
	port int
	rt   atomic.Pointer[functions.Runtime]
}

func (l *lambdaRuntime) listening(port int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.port = port
}

// runtime is the functions runtime, made on first use; every invocation
// asks, so the made one is read without the lock.
func (l *lambdaRuntime) runtime() *functions.Runtime {
	if rt := l.rt.Load(); rt != nil {
		return rt
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if rt := l.rt.Load(); rt != nil {
		return rt
	}
	host := l.host
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	l.cfg.EndpointURL = "http://" + net.JoinHostPort(host, strconv.Itoa(l.port))
	rt := functions.New(l.cfg)
	l.rt.Store(rt)
	return rt
}

func (l *lambdaRuntime) InvokeWith(ctx context.Context, fn functions.Function, in functions.Invocation) (functions.Result, error) {
	return l.runtime().InvokeWith(ctx, fn, in)
}

// close stops every function process, if the runtime ever started.
func (l *lambdaRuntime) close() error {
	if rt := l.rt.Load(); rt != nil {
		return rt.Close()
	}
	return nil
}

func (l *lambdaRuntime) Evict(arnPrefix string) {
	if rt := l.rt.Load(); rt != nil {
		rt.Evict(arnPrefix)
	}
}
