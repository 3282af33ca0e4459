package apigatewayhttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type createAuthorizerBody struct {
	Name                         *string  `json:"name"`
	Type                         *string  `json:"type"`
	ProviderARNs                 []string `json:"providerARNs"`
	AuthType                     *string  `json:"authType"`
	AuthorizerURI                *string  `json:"authorizerUri"`
	AuthorizerCredentials        *string  `json:"authorizerCredentials"`
	IdentitySource               *string  `json:"identitySource"`
	IdentityValidationExpression *string  `json:"identityValidationExpression"`
	AuthorizerResultTTLInSeconds *int64   `json:"authorizerResultTtlInSeconds"`
}

func (h *handlers) createAuthorizer(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	var in createAuthorizerBody
	if err := decode(c, &in); err != nil {
		return err
	}
	a, err := h.svc.CreateAuthorizer(c.Scope, apiID, apigateway.AuthorizerInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, a)
}
