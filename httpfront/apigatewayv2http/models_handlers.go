package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// modelView is a Model as the wire shows it, without its stored Seq (see
// integrationView).
type modelView struct {
	*apigatewayv2.Model
	Seq struct{} `json:"seq,omitzero"`
}

// modelBody is the body of CreateModel and UpdateModel.
type modelBody struct {
	ContentType *string `json:"contentType"`
	Description *string `json:"description"`
	Name        *string `json:"name"`
	Schema      *string `json:"schema"`
}

// modelTemplateView is GetModelTemplate's answer.
type modelTemplateView struct {
	Value string `json:"value"`
}

func (h *handlers) createModel(c *restjson.Call) error {
	apiID, err := c.Label("apiId")
	if err != nil {
		return err
	}
	var in modelBody
	if err := decode(c, &in); err != nil {
		return err
	}
	m, err := h.svc.CreateModel(c.Scope, apiID, apigatewayv2.ModelInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, modelView{Model: m})
}

func (h *handlers) getModel(c *restjson.Call) error {
	l, err := labels(c, "apiId", "modelId")
	if err != nil {
		return err
	}
	m, err := h.svc.GetModel(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, modelView{Model: m})
}

func (h *handlers) getModels(c *restjson.Call) error {
	apiID, err := c.Label("apiId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.Models(c.Scope, apiID)
	if err != nil {
		return err
	}
	items, next := paginate(all, p, func(m *apigatewayv2.Model) string { return apigatewayv2.IntegrationsPageKey(m.Seq, m.ModelID) })
	out := make([]modelView, len(items))
	for i, m := range items {
		out[i] = modelView{Model: m}
	}
	return list(c, out, next)
}

func (h *handlers) updateModel(c *restjson.Call) error {
	l, err := labels(c, "apiId", "modelId")
	if err != nil {
		return err
	}
	var in modelBody
	if err := decode(c, &in); err != nil {
		return err
	}
	m, err := h.svc.UpdateModel(c.Scope, l[0], l[1], apigatewayv2.ModelInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, modelView{Model: m})
}

func (h *handlers) deleteModel(c *restjson.Call) error {
	l, err := labels(c, "apiId", "modelId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteModel(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) getModelTemplate(c *restjson.Call) error {
	l, err := labels(c, "apiId", "modelId")
	if err != nil {
		return err
	}
	v, err := h.svc.GetModelTemplate(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, modelTemplateView{Value: v})
}
