package apigateway

import (
	"net/http"

	aapigw "github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type putGatewayResponseBody struct {
	StatusCode         *string            `json:"statusCode"`
	ResponseParameters map[string]*string `json:"responseParameters"`
	ResponseTemplates  map[string]*string `json:"responseTemplates"`
}

func (h *handlers) putGatewayResponse(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "response_type")
	if err != nil {
		return err
	}
	var in putGatewayResponseBody
	if err := decode(c, &in); err != nil {
		return err
	}
	g, err := h.svc.PutGatewayResponse(c.Scope, l[0], l[1], aapigw.GatewayResponseInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, g)
}

func (h *handlers) getGatewayResponse(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "response_type")
	if err != nil {
		return err
	}
	g, err := h.svc.GetGatewayResponse(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, g)
}

func (h *handlers) getGatewayResponses(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	gs, err := h.svc.GatewayResponses(c.Scope, apiID)
	if err != nil {
		return err
	}
	items, pos := paginate(gs, p, func(g *aapigw.GatewayResponse) string { return g.ResponseType })
	return list(c, items, pos)
}

func (h *handlers) updateGatewayResponse(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "response_type")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	g, err := h.svc.UpdateGatewayResponse(c.Scope, l[0], l[1], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, g)
}

func (h *handlers) deleteGatewayResponse(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "response_type")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteGatewayResponse(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return accepted(c)
}
