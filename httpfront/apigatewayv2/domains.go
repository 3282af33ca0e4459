package apigatewayv2

import "github.com/cloudemu/emulator/httpfront/restjson"

func (h *handlers) domainNameOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) vpcLinkOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}

func (h *handlers) tagOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{}
}
