package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) createAuthorizer(c *restjson.Call) error {
	l, err := labels(c, "apiId")
	if err != nil {
		return err
	}
	var in apigatewayv2.AuthorizerInput
	if err := decode(c, &in); err != nil {
		return err
	}
	switch {
	case in.AuthorizerType == nil:
		return c.Missing("authorizerType")
	case in.IdentitySource == nil:
		return c.Missing("identitySource")
	case in.Name == nil:
		return c.Missing("name")
	}
	a, err := h.svc.CreateAuthorizer(c.Scope, l[0], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, a)
}

func (h *handlers) getAuthorizer(c *restjson.Call) error {
	l, err := labels(c, "apiId", "authorizerId")
	if err != nil {
		return err
	}
	a, err := h.svc.Authorizer(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a)
}

func (h *handlers) getAuthorizers(c *restjson.Call) error {
	l, err := labels(c, "apiId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.Authorizers(c.Scope, l[0])
	if err != nil {
		return err
	}
	items, next := paginate(all, p, apigatewayv2.AuthorizerKey)
	return list(c, items, next)
}

func (h *handlers) updateAuthorizer(c *restjson.Call) error {
	l, err := labels(c, "apiId", "authorizerId")
	if err != nil {
		return err
	}
	var in apigatewayv2.AuthorizerInput
	if err := decode(c, &in); err != nil {
		return err
	}
	a, err := h.svc.UpdateAuthorizer(c.Scope, l[0], l[1], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a)
}

func (h *handlers) deleteAuthorizer(c *restjson.Call) error {
	l, err := labels(c, "apiId", "authorizerId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAuthorizer(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}
