package apigatewayv2http

import (
	"fmt"
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) deploymentOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateDeployment": h.createDeployment,
		"GetDeployment":    h.getDeployment,
		"GetDeployments":   h.getDeployments,
		"UpdateDeployment": h.updateDeployment,
		"DeleteDeployment": h.deleteDeployment,
	}
}

func (h *handlers) stageOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateStage":             h.createStage,
		"GetStage":                h.getStage,
		"GetStages":               h.getStages,
		"UpdateStage":             h.updateStage,
		"DeleteStage":             h.deleteStage,
		"DeleteRouteSettings":     h.deleteRouteSettings,
		"DeleteAccessLogSettings": h.deleteAccessLogSettings,
		"ResetAuthorizersCache":   h.resetAuthorizersCache,
	}
}

func (h *handlers) authorizerOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateAuthorizer": h.createAuthorizer,
		"GetAuthorizer":    h.getAuthorizer,
		"GetAuthorizers":   h.getAuthorizers,
		"UpdateAuthorizer": h.updateAuthorizer,
		"DeleteAuthorizer": h.deleteAuthorizer,
	}
}

// deploymentPosition is a deployment's place in GetDeployments (creation
// order), as a string that sorts the same way.
func deploymentPosition(d *apigatewayv2.Deployment) string { return fmt.Sprintf("%020d", d.Seq) }

func (h *handlers) createDeployment(c *restjson.Call) error {
	l, err := labels(c, "apiId")
	if err != nil {
		return err
	}
	var in apigatewayv2.CreateDeploymentInput
	if err := decode(c, &in); err != nil {
		return err
	}
	d, err := h.svc.CreateDeployment(c.Scope, l[0], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, d)
}

func (h *handlers) getDeployment(c *restjson.Call) error {
	l, err := labels(c, "apiId", "deploymentId")
	if err != nil {
		return err
	}
	d, err := h.svc.Deployment(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (h *handlers) getDeployments(c *restjson.Call) error {
	l, err := labels(c, "apiId")
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.Deployments(c.Scope, l[0])
	if err != nil {
		return err
	}
	items, next := paginate(all, p, deploymentPosition)
	return list(c, items, next)
}

func (h *handlers) updateDeployment(c *restjson.Call) error {
	l, err := labels(c, "apiId", "deploymentId")
	if err != nil {
		return err
	}
	var in apigatewayv2.UpdateDeploymentInput
	if err := decode(c, &in); err != nil {
		return err
	}
	d, err := h.svc.UpdateDeployment(c.Scope, l[0], l[1], in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (h *handlers) deleteDeployment(c *restjson.Call) error {
	l, err := labels(c, "apiId", "deploymentId")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteDeployment(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return noContent(c)
}
