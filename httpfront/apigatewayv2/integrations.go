package apigatewayv2

import "github.com/cloudemu/emulator/httpfront/restjson"

func (h *handlers) integrationOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) modelOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}
