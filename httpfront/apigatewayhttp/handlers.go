package apigatewayhttp

import (
	"maps"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/execute/rest"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type handlers struct {
	svc  *apigateway.Service
	exec *rest.Executor
}

// Handlers returns the handler of every supported API Gateway v1
// operation, by operation name.
// exec runs TestInvokeMethod and TestInvokeAuthorizer, and keeps the
// authorizer cache FlushStageAuthorizersCache flushes.
func Handlers(svc *apigateway.Service, exec *rest.Executor) map[string]restjson.Handler {
	h := &handlers{svc: svc, exec: exec}
	all := map[string]restjson.Handler{}
	for _, group := range []map[string]restjson.Handler{
		h.restAPIOps(),
		h.openAPIOps(),
		h.resourceOps(),
		h.methodOps(),
		h.deploymentOps(),
		h.stageOps(),
		h.modelOps(),
		h.authorizerOps(),
		h.validatorOps(),
		h.gatewayResponseOps(),
		h.apiKeyOps(),
		h.usagePlanOps(),
		h.domainNameOps(),
		h.vpcLinkOps(),
		h.tagOps(),
	} {
		maps.Copy(all, group)
	}
	return all
}

// Partial lists the supported operations that are emulated only in part.
var Partial = []string{
	// The stage cache is not emulated: this answers as AWS does and changes nothing.
	"FlushStageCache",
	// Exports: postman extensions add nothing.
	"GetExport",
}
