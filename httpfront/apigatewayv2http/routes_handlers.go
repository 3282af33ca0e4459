package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) createRoute(c *restjson.Call) error {
	id, err := c.Label("apiId")
	if err != nil {
		return err
	}
	var in apigatewayv2.RouteInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := h.svc.CreateRoute(c.Scope, id, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, r)
}

func (h *handlers) getRoute(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId")
	if err != nil {
		return err
	}
	r, err := h.svc.Route(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *handlers) getRoutes(c *restjson.Call) error {
	id, err := c.Label("apiId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.Routes(c.Scope, id)
	if err != nil {
		return err
	}
	items, next := paginate(all, p, func(r *apigatewayv2.Route) string { return r.RouteID })
	return list(c, items, next)
}

func (h *handlers) updateRoute(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId")
	if err != nil {
		return err
	}
	var in apigatewayv2.RouteInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := h.svc.UpdateRoute(c.Scope, l[0], l[1], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *handlers) deleteRoute(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteRoute(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) deleteRouteRequestParameter(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId", "requestParameterKey")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteRouteRequestParameter(c.Scope, l[0], l[1], l[2]); err != nil {
		return err
	}
	return noContent(c)
}

func (h *handlers) createRouteResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId")
	if err != nil {
		return err
	}
	var in apigatewayv2.RouteResponseInput
	if err := decode(c, &in); err != nil {
		return err
	}
	rr, err := h.svc.CreateRouteResponse(c.Scope, l[0], l[1], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, rr)
}

func (h *handlers) getRouteResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId", "routeResponseId")
	if err != nil {
		return err
	}
	rr, err := h.svc.RouteResponse(c.Scope, l[0], l[1], l[2])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rr)
}

func (h *handlers) getRouteResponses(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.RouteResponses(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	items, next := paginate(all, p, func(rr *apigatewayv2.RouteResponse) string { return rr.RouteResponseID })
	return list(c, items, next)
}

func (h *handlers) updateRouteResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId", "routeResponseId")
	if err != nil {
		return err
	}
	var in apigatewayv2.RouteResponseInput
	if err := decode(c, &in); err != nil {
		return err
	}
	rr, err := h.svc.UpdateRouteResponse(c.Scope, l[0], l[1], l[2], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rr)
}

func (h *handlers) deleteRouteResponse(c *restjson.Call) error {
	l, err := labels(c, "apiId", "routeId", "routeResponseId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteRouteResponse(c.Scope, l[0], l[1], l[2]); err != nil {
		return err
	}
	return noContent(c)
}
