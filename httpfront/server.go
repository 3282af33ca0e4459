package httpfront

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/metrics"
)

// Server is the HTTP front: it stamps every request with an id, recovers
// panics, bounds bodies, routes each request to its operation and writes
// errors in one place.
type Server struct {
	log          *slog.Logger
	router       *router.Router
	ids          *awswire.RequestIDs
	defaultScope awswire.Scope
	fast         *fasthttp.Server
	maxBody      int
	execute      execute.Handler
	resets       *Resets
	websocket    WebSocket
	cloudWatch   func(awswire.Scope) *metrics.Store
	// rpc are the served query- and JSON-protocol services, rpcList the
	// same in the order of the services (rpc.go).
	rpc       map[awswire.Service]*rpcService
	rpcList   []*rpcService
	queuePeek restjson.Handler
	// served are the signing names of the services the emulator serves,
	// servedPhrase the same for messages.
	served       []string
	servedPhrase string
	// logDebug and logWarn say which request log lines are written
	// (reqlog.go); the level is fixed when the server is built.
	logDebug, logWarn bool
	// sockets counts the WebSocket connections from $connect to their
	// end, maxSockets bounds it (0: no bound) (websocket.go).
	sockets    atomic.Int64
	maxSockets int64
	// maxConns and maxConnsPerIP bound the connections Serve accepts.
	maxConns, maxConnsPerIP int
}

// ServerOptions configure a Server.
type ServerOptions struct {
	DefaultRegion string
	MaxBodyBytes  int
	Handlers      map[awswire.Service]map[string]restjson.Handler
	// RPC serves the query- and JSON-protocol services (SQS, SNS, SES v1),
	// by operation name; an operation of the model without a handler
	// answers NotImplemented. A service with no handler at all is not
	// served: its clients are told it is not emulated.
	RPC map[awswire.Service]map[string]awsrpc.Handler
	// QueuePeek serves GET /{12-digit account}/{queue name} without an
	// Action parameter: the emulator's view of a queue (nil: such a
	// request is routed like any other).
	QueuePeek restjson.Handler
	// Extra routes outside the AWS models (the emulator's own endpoints).
	Extra []ExtraRoute
	// Execute serves requests to deployed APIs (nil: none are served).
	Execute execute.Handler
	// WebSocket upgrades requests to WebSocket APIs (nil: upgrades are
	// served as any execute-api request).
	WebSocket WebSocket
	// CloudWatch returns the metric store of an account and region, which
	// CloudWatch requests read and write (nil: every CloudWatch operation
	// answers NotImplemented).
	CloudWatch func(awswire.Scope) *metrics.Store
	// ReadTimeout bounds reading one request, IdleTimeout a keep-alive
	// connection's wait for the next (60 s each when zero).
	ReadTimeout, IdleTimeout time.Duration
	// MaxConns caps the connections open at once, MaxConnsPerIP those
	// from one address, WebSockets included (connlimit.go). Zero: no cap.
	MaxConns, MaxConnsPerIP int
	// MaxWebSockets caps the open WebSocket connections (zero: no cap).
	MaxWebSockets int
	// Resets tells the front when resets run (nil: none do). An execution
	// that fails while one runs is served again after it (serveExecute).
	Resets *Resets
}

// Resets counts the resets begun and ended.
type Resets struct{ begun, ended atomic.Uint64 }

// Begin records that a reset begins.
func (r *Resets) Begin() { r.begun.Add(1) }

// End records that a reset has ended.
func (r *Resets) End() { r.ended.Add(1) }

// resetWait bounds how long a request waits for a reset to end.
const resetWait = 5 * time.Second

// waitEnded waits, at most resetWait, until every reset begun has ended.
func (r *Resets) waitEnded() {
	for deadline := time.Now().Add(resetWait); r.ended.Load() < r.begun.Load() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// ExtraRoute is an endpoint that is not an AWS operation.
type ExtraRoute struct {
	Method, Path, Name string
	Handler            restjson.Handler
}

// NewServer builds the route table from the operation table and opts.
func NewServer(log *slog.Logger, opts ServerOptions) (*Server, error) {
	s := &Server{
		log:          log.With("component", "httpfront"),
		ids:          awswire.NewRequestIDs(),
		defaultScope: awswire.Scope{Account: awswire.DefaultAccount, Region: opts.DefaultRegion},
	}
	routes, err := buildRoutes(append(slices.Clone(awswire.Operations), awswire.Moved...), opts.Handlers)
	if err != nil {
		return nil, err
	}
	for _, e := range opts.Extra {
		op := &awswire.Operation{Service: awswire.ServiceNone, Name: e.Name, Method: e.Method, Path: e.Path, Status: 200}
		routes = append(routes, &route{method: e.Method, template: e.Path,
			bindings: []*binding{{op: op, handler: e.Handler, logName: e.Name}}})
	}
	rt := router.New()
	rt.RedirectTrailingSlash = false
	rt.RedirectFixedPath = false
	rt.HandleMethodNotAllowed = false
	rt.HandleOPTIONS = false
	if err := s.register(rt, routes); err != nil {
		return nil, err
	}
	s.router = rt
	s.maxBody = opts.MaxBodyBytes
	s.execute = opts.Execute
	s.resets = opts.Resets
	if s.resets == nil {
		s.resets = new(Resets)
	}
	s.websocket = opts.WebSocket
	s.maxSockets = int64(opts.MaxWebSockets)
	s.maxConns, s.maxConnsPerIP = opts.MaxConns, opts.MaxConnsPerIP
	s.cloudWatch = opts.CloudWatch
	s.rpc = rpcServices(opts.RPC)
	for _, m := range awswire.ServiceModels {
		if r := s.rpc[m.Service]; r != nil {
			s.rpcList = append(s.rpcList, r)
		}
	}
	s.queuePeek = opts.QueuePeek
	handled := func(svc awswire.Service) bool { return len(opts.Handlers[svc]) > 0 || len(opts.RPC[svc]) > 0 }
	s.served, s.servedPhrase = servedNames(awswire.Operations, handled, opts.Execute != nil)
	s.logDebug, s.logWarn = requestLogLevels(s.log)
	readTimeout, idleTimeout := opts.ReadTimeout, opts.IdleTimeout
	if readTimeout <= 0 {
		readTimeout = 60 * time.Second
	}
	if idleTimeout <= 0 {
		idleTimeout = 60 * time.Second
	}
	s.fast = &fasthttp.Server{
		Handler:      s.Handle,
		ErrorHandler: s.handleParseError,
		Name:         "",
		// Timeouts bound idle keep-alive connections, which a graceful
		// shutdown does not close by itself.
		ReadTimeout:                   readTimeout,
		WriteTimeout:                  60 * time.Second,
		IdleTimeout:                   idleTimeout,
		MaxRequestBodySize:            opts.MaxBodyBytes,
		NoDefaultServerHeader:         true,
		NoDefaultContentType:          true,
		DisableHeaderNamesNormalizing: false,
		CloseOnShutdown:               true,
		ReadBufferSize:                16 << 10, // SDK requests carry long signed headers
		Logger:                        slogPrinter{s.log},
	}
	// A WebSocket's hijacked connection outlives its handler, which must
	// not keep the request and its 16 KB reader (websocket.go).
	s.fast.KeepHijackedConns = true
	return s, nil
}

// Serve serves the connections ln accepts, within the connection bounds,
// until ln is closed or Shutdown is called.
func (s *Server) Serve(ln net.Listener) error {
	return s.fast.Serve(limitConns(ln, s.maxConns, s.maxConnsPerIP))
}

// FastHTTP is the underlying server, for Shutdown.
func (s *Server) FastHTTP() *fasthttp.Server { return s.fast }

// Handle serves one request.
func (s *Server) Handle(ctx *fasthttp.RequestCtx) {
	if s.execute != nil {
		if t, ok := classifyExecute(ctx.Request.Header.Host(), ctx.Request.URI().PathOriginal()); ok {
			if s.websocket != nil && isUpgrade(ctx) && s.serveUpgrade(ctx, t) {
				return
			}
			s.serveExecute(ctx, t)
			return
		}
	}
	// Header names go out as AWS spells them (x-amzn-RequestId); request
	// header lookups stay case-insensitive.
	ctx.Response.Header.DisableNormalizing()
	var idBuf [36]byte
	ctx.Response.Header.SetBytesV(restjson.HeaderRequestID, s.ids.Append(idBuf[:0]))
	// fasthttp's server stamps ctx.Time(); a handler called in process is
	// timed here, only when every request is logged.
	var start time.Time
	if s.logDebug && ctx.Time().IsZero() {
		start = time.Now()
	}
	defer s.finish(ctx, start)

	path := ctx.Request.URI().PathOriginal()
	// One trailing slash is optional everywhere: botocore sends it on some
	// Backup paths, the Go SDK does not.
	if n := len(path); n > 1 && path[n-1] == '/' {
		path = path[:n-1]
	}
	if len(s.rpcList) > 0 || s.queuePeek != nil {
		if r, peek, ok := s.classifyRPC(ctx, path); ok {
			if peek {
				s.serveQueuePeek(ctx, path)
			} else {
				s.serveRPC(ctx, r, path)
			}
			return
		}
	}
	if p, op := s.classifyCloudWatch(ctx, path); p != notCloudWatch {
		s.serveCloudWatch(ctx, p, op)
		return
	}
	h, _ := s.router.Lookup(b2s(ctx.Method()), b2s(path), ctx)
	if h == nil {
		// A method the router does not know still reaches the any-method
		// routes (the compatibility fallback).
		h, _ = s.router.Lookup(router.MethodWild, b2s(path), ctx)
	}
	if h == nil {
		s.unknown(ctx, path)
		return
	}
	h(ctx)
}

// unknown answers a request no route matched: a service the emulator does
// not serve is told so in its own protocol; anything else is the shaped 404
// of the service its path looks like.
func (s *Server) unknown(ctx *fasthttp.RequestCtx, path []byte) {
	if f, ok := s.foreign(ctx, path); ok {
		s.writeNotEmulated(ctx, f)
		return
	}
	svc := classify(path)
	restjson.WriteError(ctx, svc, awswire.Errorf(svc, awswire.CodeUnknownOperation,
		"No operation matches %s %s", ctx.Method(), truncate(path, 256)), s.log)
}

// finish ends a control-plane request: a panic becomes the service's shaped
// 500, then the request is logged. It runs deferred.
func (s *Server) finish(ctx *fasthttp.RequestCtx, start time.Time) {
	if r := recover(); r != nil {
		s.panicked(ctx, r)
	}
	// At warn only errors can be logged: a success costs one comparison.
	if s.logDebug || (s.logWarn && ctx.Response.StatusCode() >= 400) {
		if t := ctx.Time(); !t.IsZero() {
			start = t
		}
		s.logRequest(ctx, start)
	}
}

func (s *Server) panicked(ctx *fasthttp.RequestCtx, r any) {
	svc := classify(ctx.Request.URI().PathOriginal())
	s.log.Error("panic while serving a request",
		"requestId", string(ctx.Response.Header.Peek(restjson.HeaderRequestID)),
		"method", string(ctx.Method()), "path", string(truncate(ctx.Request.URI().PathOriginal(), 256)),
		"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	if rpcPanicked(ctx) {
		return
	}
	restjson.WriteError(ctx, svc, awswire.Internal(svc), s.log)
}

// handleParseError answers requests fasthttp could not read, in the shape of
// the service they were meant for. A connection on which no request started
// is closed without a word: an SDK's pooled connection that sat idle past
// the read timeout would otherwise receive an answer to a request it never
// sent, and take it for the answer to its next one.
func (s *Server) handleParseError(ctx *fasthttp.RequestCtx, err error) {
	if nothingRead(ctx, err) {
		// fasthttp writes whatever this handler leaves; a closed connection
		// makes that write fail, so nothing reaches the client.
		_ = ctx.Conn().Close()
		return
	}
	ctx.Response.Header.DisableNormalizing()
	var idBuf [36]byte
	ctx.Response.Header.SetBytesV(restjson.HeaderRequestID, s.ids.Append(idBuf[:0]))
	if s.logDebug || s.logWarn {
		// ctx.Time() is a previous request's on a kept-alive
		// connection: the latency of what could not be read is unknown.
		defer s.logRequest(ctx, time.Time{})
	}
	if s.execute != nil && errors.Is(err, fasthttp.ErrBodyTooLarge) {
		if _, ok := classifyExecute(ctx.Request.Header.Host(), ctx.Request.URI().PathOriginal()); ok {
			// API Gateway's own answer to a payload over its limit.
			ctx.SetStatusCode(fasthttp.StatusRequestEntityTooLarge)
			ctx.Response.Header.Set("Content-Type", "application/json")
			ctx.Response.Header.Set("x-amzn-ErrorType", "RequestTooLargeException")
			ctx.SetBodyString(`{"message":"Request Too Long"}`)
			ctx.SetConnectionClose()
			return
		}
	}
	if svc, p, ok := s.rpcOfUnread(ctx); ok {
		var e *awswire.Error
		switch {
		case errors.Is(err, fasthttp.ErrBodyTooLarge):
			e = awswire.Errorf(svc, awswire.CodeRequestEntityTooLarge,
				"The request body is larger than the limit of %d bytes", s.fast.MaxRequestBodySize)
		case isTimeout(err):
			e = awswire.New(svc, awswire.CodeRequestTimeout, "The request was not received in time")
		default:
			e = awswire.New(svc, awswire.CodeInvalidParameterValueQuery, "The request could not be read: malformed HTTP")
		}
		awsrpc.WriteErrorTo(ctx, p, e)
		ctx.SetConnectionClose()
		return
	}
	svc := classify(ctx.Request.URI().PathOriginal())
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		restjson.WriteError(ctx, svc, awswire.Errorf(svc, awswire.CodeRequestEntityTooLarge,
			"The request body is larger than the limit of %d bytes", s.fast.MaxRequestBodySize), s.log)
		ctx.SetConnectionClose()
		return
	}
	if isTimeout(err) {
		restjson.WriteError(ctx, svc, awswire.New(svc, awswire.CodeRequestTimeout,
			"The request was not received in time"), s.log)
		ctx.SetConnectionClose()
		return
	}
	code := awswire.CodeBadRequest
	if svc == awswire.Backup {
		code = awswire.CodeInvalidRequest
	}
	restjson.WriteError(ctx, svc, awswire.New(svc, code, "The request could not be read: malformed HTTP"), s.log)
	ctx.SetConnectionClose()
}

// nothingRead reports whether fasthttp may have given up on a connection
// before the first byte of a request. fasthttp v1.73 ends a keep-alive
// connection's wait for its next request silently itself, and hands a new
// connection's failed first read over bare (ErrNothingRead unwrapped).
// Header errors after the first byte come wrapped ("error when reading
// request headers: ..."). A body's read error also comes bare, after
// fasthttp has reset the request; on a connection that served a request
// before it cannot be an empty wait, but on a new one the two look alike,
// and closing is the answer that cannot be taken for someone else's.
func nothingRead(ctx *fasthttp.RequestCtx, err error) bool {
	if _, ok := err.(fasthttp.ErrNothingRead); ok {
		return true
	}
	if _, bare := err.(net.Error); !bare {
		return false
	}
	// ConnRequestNum counts the requests served before this one.
	return ctx.ConnRequestNum() == 0
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

var (
	headerAuthorization = []byte("Authorization")
	queryCredential     = []byte("X-Amz-Credential")
)

// credential returns the SigV4 credential scope of the request, from the
// Authorization header or a presigned URL's X-Amz-Credential.
func (s *Server) credential(ctx *fasthttp.RequestCtx) (awswire.Credential, bool) {
	if h := ctx.Request.Header.PeekBytes(headerAuthorization); len(h) > 0 {
		return awswire.ParseAuthorization(h)
	}
	if q := ctx.QueryArgs().PeekBytes(queryCredential); len(q) > 0 {
		return awswire.ParseCredential(q)
	}
	return awswire.Credential{}, false
}

// scope is the account and region a request acts in. Unsigned requests, and
// credentials that do not name them, get the defaults.
func (s *Server) scope(ctx *fasthttp.RequestCtx) awswire.Scope {
	cred, ok := s.credential(ctx)
	return s.scopeOf(cred, ok)
}

// scopeOf is scope for a credential already read.
func (s *Server) scopeOf(cred awswire.Credential, ok bool) awswire.Scope {
	sc := s.defaultScope
	if !ok {
		return sc
	}
	if acct, ok := awswire.AccountOf(cred.AccessKey); ok {
		sc.Account = string(acct)
	}
	if r, ok := region(cred.Region); ok {
		sc.Region = r
	}
	return sc
}

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append(bytes.Clone(b[:n]), "..."...)
}

// slogPrinter adapts fasthttp's Printf logger to slog.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Printf(format string, args ...any) {
	p.log.Debug(fmt.Sprintf(format, args...))
}
