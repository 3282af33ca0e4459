package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// API mappings live under their domain name: every operation names the
// domain first, and an unknown domain is reported before anything else.

type mappingsCreateBody struct {
	APIID         string `json:"apiId"`
	APIMappingKey string `json:"apiMappingKey"`
	Stage         string `json:"stage"`
}

type mappingsUpdateBody struct {
	APIID         string  `json:"apiId"`
	APIMappingKey *string `json:"apiMappingKey"`
	Stage         *string `json:"stage"`
}

func (h *handlers) createAPIMapping(c *restjson.Call) error {
	domain, err := c.Label("domainName")
	if err != nil {
		return err
	}
	var in mappingsCreateBody
	if err := decode(c, &in); err != nil {
		return err
	}
	switch {
	case in.APIID == "":
		return c.Missing("apiId")
	case in.Stage == "":
		return c.Missing("stage")
	}
	m, err := h.svc.CreateAPIMapping(c.Scope, domain,
		apigatewayv2.APIMapping{APIID: in.APIID, APIMappingKey: in.APIMappingKey, Stage: in.Stage})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, m)
}

func (h *handlers) getAPIMapping(c *restjson.Call) error {
	l, err := labels(c, "domainName", "apiMappingId")
	if err != nil {
		return err
	}
	m, err := h.svc.APIMapping(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) getAPIMappings(c *restjson.Call) error {
	domain, err := c.Label("domainName")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.APIMappings(c.Scope, domain)
	if err != nil {
		return err
	}
	items, next := paginate(all, p, func(m *apigatewayv2.APIMapping) string { return m.APIMappingID })
	return list(c, items, next)
}

func (h *handlers) updateAPIMapping(c *restjson.Call) error {
	l, err := labels(c, "domainName", "apiMappingId")
	if err != nil {
		return err
	}
	var in mappingsUpdateBody
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.APIID == "" {
		return c.Missing("apiId")
	}
	m, err := h.svc.UpdateAPIMapping(c.Scope, l[0], l[1],
		apigatewayv2.MappingUpdate{APIID: in.APIID, APIMappingKey: in.APIMappingKey, Stage: in.Stage})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) deleteAPIMapping(c *restjson.Call) error {
	l, err := labels(c, "domainName", "apiMappingId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAPIMapping(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}
