package apigateway

import "github.com/cloudemu/emulator/httpfront/restjson"

func (h *handlers) modelOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) authorizerOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) validatorOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) gatewayResponseOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}
