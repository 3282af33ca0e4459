package apigatewayhttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type putGatewayResponseBody struct {
	StatusCode         *string            `json:"statusCode"`
	ResponseParameters map[string]*string `json:"responseParameters"`
	ResponseTemplates  map[string]*string `json:"responseTemplates"`
}

func (h *handlers) putGatewayResponse(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "response_type")
	if err != nil {
		return err
	}
	var in putGatewayResponseBody
	if err := decode(c, &in); err != nil {
		return err
	}
	g, err := h.svc.PutGatewayResponse(c.Scope, l[0], l[1], apigateway.GatewayResponseInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, g)
}
