package apigateway

import (
	"net/http"

	aapigw "github.com/cloudemu/emulator/actors/apigateway"
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
	a, err := h.svc.CreateAuthorizer(c.Scope, apiID, aapigw.AuthorizerInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, a)
}

func (h *handlers) getAuthorizer(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "authorizer_id")
	if err != nil {
		return err
	}
	a, err := h.svc.GetAuthorizer(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a)
}

func (h *handlers) getAuthorizers(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	as, err := h.svc.Authorizers(c.Scope, apiID)
	if err != nil {
		return err
	}
	items, pos := paginate(as, p, func(a *aapigw.Authorizer) string { return a.ID })
	return list(c, items, pos)
}

func (h *handlers) updateAuthorizer(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "authorizer_id")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	a, err := h.svc.UpdateAuthorizer(c.Scope, l[0], l[1], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a)
}

func (h *handlers) deleteAuthorizer(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "authorizer_id")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAuthorizer(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return accepted(c)
}
