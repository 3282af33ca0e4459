package server

import (
	"time"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/execute/websocket"
	"github.com/cloudemu/emulator/httpfront"
)

// sockets is the data plane of WebSocket APIs (execute/websocket): the
// front upgrades connections through it (httpfront.WebSocket), and the
// v2 dispatcher hands it the requests to a WebSocket API that are not
// upgrades (@connections, execute.Handler).
type sockets struct {
	*websocket.Executor
}

func newSockets(env Env, svc *apigatewayv2.Service) *sockets {
	c := env.Config
	opts := websocket.Options{APIs: svc, Backend: httpfront.NewBackend(c.BackendMaxConns),
		Log: env.Log, Now: env.Now, Limits: websocket.Limits{FrameBytes: c.WebSocketFrameBytes,
			MessageBytes: c.WebSocketMessageBytes, IdleTimeout: c.WebSocketIdleTimeout, MaxAge: c.WebSocketMaxAge,
			SendQueue: c.WebSocketSendQueue}}
	if env.Functions != nil {
		opts.Functions = env.Functions
	}
	return &sockets{websocket.New(opts)}
}

// socketsCloseWait bounds how long Close waits for the connections' ends.
const socketsCloseWait = 5 * time.Second

// Close closes every open connection (reset, shutdown) and waits for
// their ends, at most socketsCloseWait.
func (s *sockets) Close() error {
	s.Executor.Close(socketsCloseWait)
	return nil
}

// webSockets is the WebSocket data plane of the registered services, for
// the front (nil when none has one).
func webSockets(services []Service) httpfront.WebSocket {
	for _, s := range services {
		if s.Sockets != nil {
			return s.Sockets
		}
	}
	return nil
}
