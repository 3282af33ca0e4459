package apigatewayv2

import "github.com/cloudemu/emulator/httpfront/restjson"

func (h *handlers) deploymentOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) stageOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) authorizerOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}
