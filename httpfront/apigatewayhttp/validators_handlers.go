package apigatewayhttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

type createValidatorBody struct {
	Name                      string `json:"name"`
	ValidateRequestBody       bool   `json:"validateRequestBody"`
	ValidateRequestParameters bool   `json:"validateRequestParameters"`
}

func (h *handlers) createRequestValidator(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	var in createValidatorBody
	if err := decode(c, &in); err != nil {
		return err
	}
	v, err := h.svc.CreateRequestValidator(c.Scope, apiID, apigateway.ValidatorInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, v)
}
