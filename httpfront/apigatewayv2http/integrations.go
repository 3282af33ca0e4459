package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) integrationOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateIntegration":         h.createIntegration,
		"GetIntegration":            h.getIntegration,
		"GetIntegrations":           h.getIntegrations,
		"UpdateIntegration":         h.updateIntegration,
		"DeleteIntegration":         h.deleteIntegration,
		"CreateIntegrationResponse": h.createIntegrationResponse,
		"GetIntegrationResponse":    h.getIntegrationResponse,
		"GetIntegrationResponses":   h.getIntegrationResponses,
		"UpdateIntegrationResponse": h.updateIntegrationResponse,
		"DeleteIntegrationResponse": h.deleteIntegrationResponse,
	}
}

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

// integrationView is an Integration as the wire shows it: the stored Seq
// is shadowed by an always-empty member of the same name, so it is never
// sent.
type integrationView struct {
	*apigatewayv2.Integration
	Seq struct{} `json:"seq,omitzero"`
}

// integrationResponseView is an IntegrationResponse without its Seq.
type integrationResponseView struct {
	*apigatewayv2.IntegrationResponse
	Seq struct{} `json:"seq,omitzero"`
}

// integrationBody is the body of CreateIntegration and UpdateIntegration.
type integrationBody struct {
	ConnectionID                *string                      `json:"connectionId"`
	ConnectionType              *string                      `json:"connectionType"`
	ContentHandlingStrategy     *string                      `json:"contentHandlingStrategy"`
	CredentialsARN              *string                      `json:"credentialsArn"`
	Description                 *string                      `json:"description"`
	IntegrationMethod           *string                      `json:"integrationMethod"`
	IntegrationSubtype          *string                      `json:"integrationSubtype"`
	IntegrationType             *string                      `json:"integrationType"`
	IntegrationURI              *string                      `json:"integrationUri"`
	PassthroughBehavior         *string                      `json:"passthroughBehavior"`
	PayloadFormatVersion        *string                      `json:"payloadFormatVersion"`
	RequestParameters           map[string]string            `json:"requestParameters"`
	RequestTemplates            map[string]string            `json:"requestTemplates"`
	ResponseParameters          map[string]map[string]string `json:"responseParameters"`
	TemplateSelectionExpression *string                      `json:"templateSelectionExpression"`
	TimeoutInMillis             *int64                       `json:"timeoutInMillis"`
	TLSConfig                   *apigatewayv2.TLSConfig      `json:"tlsConfig"`
}

func (h *handlers) createIntegration(c *restjson.Call) error {
	apiID, err := c.Label("apiId")
	if err != nil {
		return err
	}
	var in integrationBody
	if err := decode(c, &in); err != nil {
		return err
	}
	it, err := h.svc.CreateIntegration(c.Scope, apiID, apigatewayv2.IntegrationInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, integrationView{Integration: it})
}

func (h *handlers) getIntegration(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId")
	if err != nil {
		return err
	}
	it, err := h.svc.GetIntegration(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, integrationView{Integration: it})
}

func (h *handlers) getIntegrations(c *restjson.Call) error {
	apiID, err := c.Label("apiId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.Integrations(c.Scope, apiID)
	if err != nil {
		return err
	}
	items, next := paginate(all, p, func(i *apigatewayv2.Integration) string {
		return apigatewayv2.IntegrationsPageKey(i.Seq, i.IntegrationID)
	})
	out := make([]integrationView, len(items))
	for i, it := range items {
		out[i] = integrationView{Integration: it}
	}
	return list(c, out, next)
}

func (h *handlers) updateIntegration(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId")
	if err != nil {
		return err
	}
	var in integrationBody
	if err := decode(c, &in); err != nil {
		return err
	}
	it, err := h.svc.UpdateIntegration(c.Scope, l[0], l[1], apigatewayv2.IntegrationInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, integrationView{Integration: it})
}

func (h *handlers) deleteIntegration(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteIntegration(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}

// integrationResponseBody is the body of CreateIntegrationResponse and
// UpdateIntegrationResponse.
type integrationResponseBody struct {
	ContentHandlingStrategy     *string           `json:"contentHandlingStrategy"`
	IntegrationResponseKey      *string           `json:"integrationResponseKey"`
	ResponseParameters          map[string]string `json:"responseParameters"`
	ResponseTemplates           map[string]string `json:"responseTemplates"`
	TemplateSelectionExpression *string           `json:"templateSelectionExpression"`
}

func (h *handlers) createIntegrationResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId")
	if err != nil {
		return err
	}
	var in integrationResponseBody
	if err := decode(c, &in); err != nil {
		return err
	}
	ir, err := h.svc.CreateIntegrationResponse(c.Scope, l[0], l[1], apigatewayv2.IntegrationResponseInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, integrationResponseView{IntegrationResponse: ir})
}

func (h *handlers) getIntegrationResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId", "integrationResponseId")
	if err != nil {
		return err
	}
	ir, err := h.svc.GetIntegrationResponse(c.Scope, l[0], l[1], l[2])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, integrationResponseView{IntegrationResponse: ir})
}

func (h *handlers) getIntegrationResponses(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.IntegrationResponses(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	items, next := paginate(all, p, func(r *apigatewayv2.IntegrationResponse) string {
		return apigatewayv2.IntegrationsPageKey(r.Seq, r.IntegrationResponseID)
	})
	out := make([]integrationResponseView, len(items))
	for i, ir := range items {
		out[i] = integrationResponseView{IntegrationResponse: ir}
	}
	return list(c, out, next)
}

func (h *handlers) updateIntegrationResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId", "integrationResponseId")
	if err != nil {
		return err
	}
	var in integrationResponseBody
	if err := decode(c, &in); err != nil {
		return err
	}
	ir, err := h.svc.UpdateIntegrationResponse(c.Scope, l[0], l[1], l[2], apigatewayv2.IntegrationResponseInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, integrationResponseView{IntegrationResponse: ir})
}

func (h *handlers) deleteIntegrationResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "integrationId", "integrationResponseId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteIntegrationResponse(c.Scope, l[0], l[1], l[2]); err != nil {
		return err
	}
	return noContent(c)
}
