package bench

import (
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// Server settings shared by the bare server and, by agreement, the
// emulator's front end, so that the bare figure is a fair ceiling.
const (
	// ServerReadTimeout bounds reading one request. fasthttp's Shutdown does
	// not interrupt a connection mid-request, so without it a stalled client
	// could hold shutdown forever.
	ServerReadTimeout = 30 * time.Second
	// ServerWriteTimeout bounds writing one response.
	ServerWriteTimeout = 30 * time.Second
	// ServerIdleTimeout closes keep-alive connections idle this long.
	ServerIdleTimeout = 60 * time.Second
)

// ServeBare starts the ceiling on ln: a fasthttp server whose handler does
// nothing but answer 200 with an empty body. It serves in its own goroutine
// and returns the server for the caller to Shutdown.
//
// Its settings are the emulator's:
//   - ReadTimeout, WriteTimeout and IdleTimeout are set (ServerReadTimeout,
//     ServerWriteTimeout, ServerIdleTimeout).
//   - NoDefaultServerHeader is true; NoDefaultDate is false, so every
//     response carries a Date header as AWS's do (fasthttp caches it per
//     second, so it costs a copy).
//   - No path normalizing: fasthttp.Server has no switch for it, because it
//     only normalizes when a handler calls URI().Path(). The bare handler
//     never parses the URI; the emulator routes on the raw request URI.
//   - DisablePreParseMultipartForm is true: no AWS API we emulate posts
//     multipart forms, and the emulator must not parse a body it will not read.
//   - CloseOnShutdown is true, so responses sent during a shutdown tell the
//     client to close and the drain ends quickly.
//   - Logger goes to slog (component=bench) instead of the stdlib logger.
func ServeBare(ln net.Listener) *fasthttp.Server {
	log := slog.Default().With("component", "bench")
	s := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetStatusCode(fasthttp.StatusOK)
		},
		Name:                         "",
		ReadTimeout:                  ServerReadTimeout,
		WriteTimeout:                 ServerWriteTimeout,
		IdleTimeout:                  ServerIdleTimeout,
		NoDefaultServerHeader:        true,
		NoDefaultDate:                false,
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		Logger:                       slogPrintf{log},
	}
	go func() {
		if err := s.Serve(ln); err != nil {
			log.Warn("bare server stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return s
}

// ServeProxy starts the ceiling of a reverse proxy on ln: a fasthttp
// server, configured as ServeBare, whose handler sends every request to
// backend through one fasthttp.HostClient and copies the answer back. It is
// what the emulator's HTTP_PROXY integration is measured against.
func ServeProxy(ln net.Listener, backend string) *fasthttp.Server {
	log := slog.Default().With("component", "bench")
	hc := &fasthttp.HostClient{Addr: backend, MaxConns: 512, ReadTimeout: ServerReadTimeout, WriteTimeout: ServerWriteTimeout}
	s := &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			if err := hc.Do(&ctx.Request, &ctx.Response); err != nil {
				ctx.Error(err.Error(), fasthttp.StatusBadGateway)
			}
		},
		Name:                         "",
		ReadTimeout:                  ServerReadTimeout,
		WriteTimeout:                 ServerWriteTimeout,
		IdleTimeout:                  ServerIdleTimeout,
		NoDefaultServerHeader:        true,
		NoDefaultDate:                false,
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		Logger:                       slogPrintf{log},
	}
	go func() {
		if err := s.Serve(ln); err != nil {
			log.Warn("proxy server stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return s
}

// slogPrintf adapts slog to fasthttp.Logger. fasthttp only logs connection
// errors through it, so Warn is the level.
type slogPrintf struct{ l *slog.Logger }

// Printf implements fasthttp.Logger.
func (p slogPrintf) Printf(format string, args ...any) {
	p.l.Warn(fmt.Sprintf(format, args...))
}
