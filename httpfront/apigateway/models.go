package apigateway

import (
	"net/http"

	aapigw "github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) modelOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateModel":      h.createModel,
		"GetModel":         h.getModel,
		"GetModels":        h.getModels,
		"UpdateModel":      h.updateModel,
		"DeleteModel":      h.deleteModel,
		"GetModelTemplate": h.getModelTemplate,
	}
}

func (h *handlers) authorizerOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateAuthorizer": h.createAuthorizer,
		"GetAuthorizer":    h.getAuthorizer,
		"GetAuthorizers":   h.getAuthorizers,
		"UpdateAuthorizer": h.updateAuthorizer,
		"DeleteAuthorizer": h.deleteAuthorizer,
	}
}

func (h *handlers) validatorOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateRequestValidator": h.createRequestValidator,
		"GetRequestValidator":    h.getRequestValidator,
		"GetRequestValidators":   h.getRequestValidators,
		"UpdateRequestValidator": h.updateRequestValidator,
		"DeleteRequestValidator": h.deleteRequestValidator,
	}
}

func (h *handlers) gatewayResponseOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"PutGatewayResponse":    h.putGatewayResponse,
		"GetGatewayResponse":    h.getGatewayResponse,
		"GetGatewayResponses":   h.getGatewayResponses,
		"UpdateGatewayResponse": h.updateGatewayResponse,
		"DeleteGatewayResponse": h.deleteGatewayResponse,
	}
}

// modelsLabels reads path labels in order, stopping at the first error.
func modelsLabels(c *restjson.Call, names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v, err := label(c, n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
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
	m, err := h.svc.CreateModel(c.Scope, apiID, aapigw.ModelInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, m)
}

func (h *handlers) getModel(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "model_name")
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
		f.Schema = aapigw.FlattenModelSchema(&r.Config, m)
		m = &f
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) getModels(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	ms, err := h.svc.Models(c.Scope, apiID)
	if err != nil {
		return err
	}
	items, pos := paginate(ms, p, func(m *aapigw.Model) string { return m.Name })
	return list(c, items, pos)
}

func (h *handlers) updateModel(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "model_name")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	m, err := h.svc.UpdateModel(c.Scope, l[0], l[1], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) deleteModel(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "model_name")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteModel(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return accepted(c)
}

// modelTemplate is GetModelTemplate's answer.
type modelTemplate struct {
	Value string `json:"value"`
}

func (h *handlers) getModelTemplate(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "model_name")
	if err != nil {
		return err
	}
	v, err := h.svc.GetModelTemplate(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, modelTemplate{v})
}
