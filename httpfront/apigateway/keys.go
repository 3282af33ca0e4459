package apigateway

import "github.com/cloudemu/emulator/httpfront/restjson"

func (h *handlers) apiKeyOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) usagePlanOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}
