package apigateway

import (
	"net/http"

	aapigw "github.com/cloudemu/emulator/actors/apigateway"
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
	v, err := h.svc.CreateRequestValidator(c.Scope, apiID, aapigw.ValidatorInput(in))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, v)
}

func (h *handlers) getRequestValidator(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "requestvalidator_id")
	if err != nil {
		return err
	}
	v, err := h.svc.GetRequestValidator(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (h *handlers) getRequestValidators(c *restjson.Call) error {
	apiID, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	vs, err := h.svc.RequestValidators(c.Scope, apiID)
	if err != nil {
		return err
	}
	items, pos := paginate(vs, p, func(v *aapigw.RequestValidator) string { return v.ID })
	return list(c, items, pos)
}

func (h *handlers) updateRequestValidator(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "requestvalidator_id")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	v, err := h.svc.UpdateRequestValidator(c.Scope, l[0], l[1], ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (h *handlers) deleteRequestValidator(c *restjson.Call) error {
	l, err := modelsLabels(c, "restapi_id", "requestvalidator_id")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteRequestValidator(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return accepted(c)
}
