package apigateway

import "github.com/cloudemu/emulator/httpfront/restjson"

func (h *handlers) resourceOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) methodOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}
