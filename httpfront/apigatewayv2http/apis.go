package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) apiOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateApi":               h.createAPI,
		"GetApi":                  h.getAPI,
		"GetApis":                 h.getAPIs,
		"UpdateApi":               h.updateAPI,
		"DeleteApi":               h.deleteAPI,
		"DeleteCorsConfiguration": h.deleteCORS,
	}
}

func (h *handlers) routeOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateRoute":                 h.createRoute,
		"GetRoute":                    h.getRoute,
		"GetRoutes":                   h.getRoutes,
		"UpdateRoute":                 h.updateRoute,
		"DeleteRoute":                 h.deleteRoute,
		"DeleteRouteRequestParameter": h.deleteRouteRequestParameter,
		"CreateRouteResponse":         h.createRouteResponse,
		"GetRouteResponse":            h.getRouteResponse,
		"GetRouteResponses":           h.getRouteResponses,
		"UpdateRouteResponse":         h.updateRouteResponse,
		"DeleteRouteResponse":         h.deleteRouteResponse,
	}
}

// apisView is an Api as AWS answers it: with "tags" even when there are
// none (GetApi and GetApis list them as {}).
type apisView struct {
	*apigatewayv2.API
	Tags map[string]string `json:"tags"`
}

func apisViewOf(a *apigatewayv2.API) apisView {
	t := a.Tags
	if t == nil {
		t = map[string]string{}
	}
	return apisView{a, t}
}

func (h *handlers) createAPI(c *restjson.Call) error {
	var in apigatewayv2.APIInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := h.svc.NewAPI(c.Scope, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, apisViewOf(&r.API))
}

func (h *handlers) getAPI(c *restjson.Call) error {
	id, err := c.Label("apiId")
	if err != nil {
		return err
	}
	r, ok := h.svc.API(c.Scope, id)
	if !ok {
		return apigatewayv2.APINotFound(c.Scope, id)
	}
	if b := r.Memo.Get(); b != nil {
		c.Raw(http.StatusOK, b)
		return nil
	}
	b, err := restjson.Marshal(apisViewOf(&r.API))
	if err != nil {
		return err
	}
	r.Memo.Set(b)
	c.Raw(http.StatusOK, b)
	return nil
}

// getAPIs lists every API in one page (docs/apigatewayv2.md), but the
// paging members are still checked as AWS checks them.
func (h *handlers) getAPIs(c *restjson.Call) error {
	if _, err := readPage(c); err != nil {
		return err
	}
	apis := h.svc.APIs(c.Scope)
	out := make([]apisView, len(apis))
	for i, r := range apis {
		out[i] = apisViewOf(&r.API)
	}
	return list(c, out, "")
}

func (h *handlers) updateAPI(c *restjson.Call) error {
	id, err := c.Label("apiId")
	if err != nil {
		return err
	}
	var in apigatewayv2.APIInput
	if err := decode(c, &in); err != nil {
		return err
	}
	a, err := h.svc.UpdateAPI(c.Scope, id, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apisViewOf(&a))
}

func (h *handlers) deleteAPI(c *restjson.Call) error {
	id, err := c.Label("apiId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAPI(c.Scope, id); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) deleteCORS(c *restjson.Call) error {
	id, err := c.Label("apiId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteCORS(c.Scope, id); err != nil {
		return err
	}
	return noContent(c)
}
