package apigatewayhttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/execute/rest"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) modelOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateModel":      h.createModel,
		"GetModel":         h.getModel,
		"GetModels":        listItems(h.svc.Models, func(m *apigateway.Model) string { return m.Name }),
		"UpdateModel":      updateItem("model_name", h.svc.UpdateModel),
		"DeleteModel":      deleteItem("model_name", h.svc.DeleteModel),
		"GetModelTemplate": h.getModelTemplate,
	}
}

func (h *handlers) authorizerOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateAuthorizer":     h.createAuthorizer,
		"GetAuthorizer":        getItem("authorizer_id", h.svc.GetAuthorizer),
		"GetAuthorizers":       listItems(h.svc.Authorizers, func(a *apigateway.Authorizer) string { return a.ID }),
		"UpdateAuthorizer":     updateItem("authorizer_id", h.svc.UpdateAuthorizer),
		"DeleteAuthorizer":     deleteItem("authorizer_id", h.svc.DeleteAuthorizer),
		"TestInvokeAuthorizer": h.testInvokeAuthorizer,
	}
}

// testInvokeAuthorizer runs an authorizer of the live configuration
// through the data plane.
func (h *handlers) testInvokeAuthorizer(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "authorizer_id")
	if err != nil {
		return err
	}
	var in rest.TestInvokeAuthorizerInput
	if err := decode(c, &in); err != nil {
		return err
	}
	out, err := h.exec.TestInvokeAuthorizer(c.Scope, l[0], l[1], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (h *handlers) validatorOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateRequestValidator": h.createRequestValidator,
		"GetRequestValidator":    getItem("requestvalidator_id", h.svc.GetRequestValidator),
		"GetRequestValidators":   listItems(h.svc.RequestValidators, func(v *apigateway.RequestValidator) string { return v.ID }),
		"UpdateRequestValidator": updateItem("requestvalidator_id", h.svc.UpdateRequestValidator),
		"DeleteRequestValidator": deleteItem("requestvalidator_id", h.svc.DeleteRequestValidator),
	}
}

func (h *handlers) gatewayResponseOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"PutGatewayResponse":    h.putGatewayResponse,
		"GetGatewayResponse":    getItem("response_type", h.svc.GetGatewayResponse),
		"GetGatewayResponses":   listItems(h.svc.GatewayResponses, func(g *apigateway.GatewayResponse) string { return g.ResponseType }),
		"UpdateGatewayResponse": updateItem("response_type", h.svc.UpdateGatewayResponse),
		"DeleteGatewayResponse": deleteItem("response_type", h.svc.DeleteGatewayResponse),
	}
}

type createModelBody struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Schema      *string `json:"schema"`
	ContentType *string `json:"contentType"`
}

func (h *handlers) createModel(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	var in createModelBody
	if err := decode(c, &in); err != nil {
		return err
	}
	m, err := h.svc.CreateModel(c.Scope, apiID, apigateway.ModelInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, m)
}

func (h *handlers) getModel(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "model_name")
	if err != nil {
		return err
	}
	flatten, _, err := c.QueryBool("flatten")
	if err != nil {
		return err
	}
	r, m, err := h.svc.GetModel(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	if flatten {
		f := *m
		f.Schema = apigateway.FlattenModelSchema(&r.Config, m)
		m = &f
	}
	return c.JSON(http.StatusOK, m)
}

// modelTemplate is GetModelTemplate's answer.
type modelTemplate struct {
	Value string `json:"value"`
}

func (h *handlers) getModelTemplate(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "model_name")
	if err != nil {
		return err
	}
	v, err := h.svc.GetModelTemplate(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, modelTemplate{v})
}
