package apigatewayv2

import "github.com/cloudemu/emulator/httpfront/restjson"

func (h *handlers) apiOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) routeOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}
