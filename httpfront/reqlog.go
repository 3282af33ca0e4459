package httpfront

import (
	"bytes"
	"context"
	"log/slog"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// The request log: one line per control-plane request at debug level, and
// every 5xx and every unknown operation at warn level, with the same fields.
// Requests to deployed stages are logged by the data plane (execute/rest),
// not here. With both levels off a request pays one branch; with warn on
// (the default) a routed request also records its binding on the
// RequestCtx, which does not allocate.

// logKey names what the front records on a RequestCtx for the request log.
type logKey uint8

const (
	// keyBinding holds the *binding a request was routed to.
	keyBinding logKey = iota
	// keyOperation holds the operation, a string, of a request answered
	// without a route: CloudWatch, a service that is not emulated.
	keyOperation
)

// requestLogLevels reads once, at construction, which request log lines
// log would write: the level is fixed for the life of the server.
func requestLogLevels(log *slog.Logger) (debug, warn bool) {
	ctx := context.Background()
	return log.Enabled(ctx, slog.LevelDebug), log.Enabled(ctx, slog.LevelWarn)
}

// noteOperation records the operation of a request answered without a
// route, for the request log: service.op, or the service alone when the
// request names no operation. op may be the client's text.
func (s *Server) noteOperation(ctx *fasthttp.RequestCtx, service, op string) {
	if !s.logDebug && !s.logWarn {
		return
	}
	if op != "" {
		if len(op) > 128 {
			op = op[:128]
		}
		service += "." + op
	}
	ctx.SetUserValue(keyOperation, service)
}

var headerQueryError = []byte("x-amzn-query-error")

// errorCode is the AWS error code of ctx's response: the error WriteError
// (or another writer) recorded, else the code its headers carry
// (CloudWatch's answers carry x-amzn-query-error).
func errorCode(ctx *fasthttp.RequestCtx) string {
	if we := restjson.WrittenError(ctx); we != nil {
		return we.Code
	}
	if v := ctx.Response.Header.Peek(restjson.HeaderErrorType); len(v) > 0 {
		return string(truncate(v, 128))
	}
	if v := ctx.Response.Header.PeekBytes(headerQueryError); len(v) > 0 {
		code, _, _ := bytes.Cut(v, []byte(";"))
		return string(truncate(code, 128))
	}
	return ""
}

// logRequest writes the request's line if its level is on: warn for a 5xx
// or an unknown operation, debug for anything else. start is when the
// handler began (zero: latency unknown, logged as 0).
func (s *Server) logRequest(ctx *fasthttp.RequestCtx, start time.Time) {
	status := ctx.Response.StatusCode()
	level := slog.LevelDebug
	if status >= 500 {
		level = slog.LevelWarn
	}
	var code string
	if status >= 400 {
		code = errorCode(ctx)
		if code == awswire.CodeUnknownOperation {
			level = slog.LevelWarn
		}
	}
	if (level == slog.LevelDebug && !s.logDebug) || (level == slog.LevelWarn && !s.logWarn) {
		return
	}
	var op string
	if b, ok := ctx.UserValue(keyBinding).(*binding); ok {
		op = b.logName
	} else if name, ok := ctx.UserValue(keyOperation).(string); ok {
		op = name
	}
	var latency time.Duration
	if !start.IsZero() {
		latency = time.Since(start)
	}
	sc := s.scope(ctx)
	s.log.LogAttrs(context.Background(), level, "request",
		slog.String("method", methodName(ctx.Method())),
		slog.String("path", string(truncate(ctx.Request.URI().PathOriginal(), 256))),
		slog.String("operation", op),
		slog.String("account", sc.Account),
		slog.String("region", sc.Region),
		slog.Int("status", status),
		slog.String("errorCode", code),
		slog.Duration("latency", latency),
		// A copy: a handler may keep the record past the request.
		slog.String("requestId", string(ctx.Response.Header.Peek(restjson.HeaderRequestID))))
}

// methodName returns the request method as a string, without allocating
// for the usual ones.
func methodName(m []byte) string {
	switch string(m) {
	case fasthttp.MethodGet:
		return fasthttp.MethodGet
	case fasthttp.MethodPut:
		return fasthttp.MethodPut
	case fasthttp.MethodPost:
		return fasthttp.MethodPost
	case fasthttp.MethodDelete:
		return fasthttp.MethodDelete
	case fasthttp.MethodPatch:
		return fasthttp.MethodPatch
	case fasthttp.MethodHead:
		return fasthttp.MethodHead
	case fasthttp.MethodOptions:
		return fasthttp.MethodOptions
	}
	return string(truncate(m, 32))
}
