package server

import (
	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/execute"
)

// sockets is the data plane of WebSocket APIs: not emulated yet, so every
// request to one answers 501.
type sockets struct {
	handler execute.Handler
}

func newSockets(env Env, svc *apigatewayv2.Service) *sockets {
	return &sockets{handler: execute.NotEmulated("WebSocket APIs")}
}

// Serve answers a request to a WebSocket API that is not an upgrade.
func (s *sockets) Serve(req *execute.Request, resp *execute.Response) { s.handler.Serve(req, resp) }
