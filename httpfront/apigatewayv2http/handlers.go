package apigatewayv2http

import (
	"maps"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type handlers struct {
	svc *apigatewayv2.Service
}

// Handlers returns the handler of every supported API Gateway v2
// operation, by operation name.
func Handlers(svc *apigatewayv2.Service) map[string]restjson.Handler {
	h := &handlers{svc: svc}
	all := map[string]restjson.Handler{}
	for _, group := range []map[string]restjson.Handler{
		h.apiOps(),
		h.routeOps(),
		h.integrationOps(),
		h.modelOps(),
		h.deploymentOps(),
		h.stageOps(),
		h.authorizerOps(),
		h.domainNameOps(),
		h.vpcLinkOps(),
		h.tagOps(),
		h.openAPIOps(),
	} {
		maps.Copy(all, group)
	}
	return all
}

// Partial lists the supported operations that are emulated only in part
// (none: OpenAPI import and export do what AWS does for HTTP APIs).
var Partial []string
