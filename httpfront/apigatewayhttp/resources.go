package apigatewayhttp

import (
	"bytes"
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) resourceOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateResource": h.createResource,
		"GetResource":    h.getResource,
		"GetResources":   h.getResources,
		"UpdateResource": h.updateResource,
		"DeleteResource": h.deleteResource,
	}
}

func (h *handlers) methodOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"PutMethod":                 h.putMethod,
		"TestInvokeMethod":          h.testInvokeMethod,
		"GetMethod":                 h.getMethod,
		"UpdateMethod":              h.updateMethod,
		"DeleteMethod":              h.deleteMethod,
		"PutIntegration":            h.putIntegration,
		"GetIntegration":            h.getIntegration,
		"UpdateIntegration":         h.updateIntegration,
		"DeleteIntegration":         h.deleteIntegration,
		"PutMethodResponse":         h.putMethodResponse,
		"GetMethodResponse":         h.getMethodResponse,
		"UpdateMethodResponse":      h.updateMethodResponse,
		"DeleteMethodResponse":      h.deleteMethodResponse,
		"PutIntegrationResponse":    h.putIntegrationResponse,
		"GetIntegrationResponse":    h.getIntegrationResponse,
		"UpdateIntegrationResponse": h.updateIntegrationResponse,
		"DeleteIntegrationResponse": h.deleteIntegrationResponse,
	}
}

// resEmbedsMethods reports whether the request asks for the methods embedded
// (embed=methods, alone, repeated or in a comma-separated list).
func resEmbedsMethods(c *restjson.Call) bool {
	for _, v := range c.Ctx.QueryArgs().PeekMulti("embed") {
		for _, part := range bytes.Split(v, []byte(",")) {
			if string(bytes.TrimSpace(part)) == "methods" {
				return true
			}
		}
	}
	return false
}

// resWrite answers one resource: with its methods embedded when
// asked, else each method as {} as AWS lists them.
func resWrite(c *restjson.Call, status int, r *apigateway.Resource, embed bool) error {
	if embed {
		return c.JSON(status, r)
	}
	c.Raw(status, apigateway.AppendResourceSummary(nil, r))
	return nil
}

type createResourceBody struct {
	PathPart *string `json:"pathPart"`
}

func (h *handlers) createResource(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "parent_id")
	if err != nil {
		return err
	}
	var in createResourceBody
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := h.svc.CreateResource(c.Scope, l[0], l[1], in.PathPart)
	if err != nil {
		return err
	}
	return resWrite(c, http.StatusCreated, r, false)
}

func (h *handlers) getResource(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "resource_id")
	if err != nil {
		return err
	}
	r, err := h.svc.FindResource(c.Scope, l[0], l[1])
	if err != nil {
		return err
	}
	return resWrite(c, http.StatusOK, r, resEmbedsMethods(c))
}

// getResources lists every resource of the API, ordered by path, in one
// page (docs/apigateway.md): limit is checked as on every list,
// and then every resource is returned, without a position.
func (h *handlers) getResources(c *restjson.Call) error {
	id, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	if _, err := readPage(c); err != nil {
		return err
	}
	api, ok := h.svc.API(c.Scope, id)
	if !ok {
		return apigateway.APINotFound(c.Scope, id)
	}
	if resEmbedsMethods(c) {
		return list(c, apigateway.ResourcesByPath(api.Resources), "")
	}
	// The common case is encoded by hand, once per set of resources: it is
	// what a client polls, and APIs can hold hundreds of resources.
	if b := api.ResourcesMemo.Get(); b != nil {
		c.Raw(http.StatusOK, b)
		return nil
	}
	items := apigateway.ResourcesByPath(api.Resources)
	b := make([]byte, 0, 16+len(items)*96)
	b = append(b, `{"item":[`...)
	for i, r := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = apigateway.AppendResourceSummary(b, r)
	}
	b = append(b, "]}"...)
	api.ResourcesMemo.Set(b)
	c.Raw(http.StatusOK, b)
	return nil
}

func (h *handlers) updateResource(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "resource_id")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	r, err := h.svc.UpdateResource(c.Scope, l[0], l[1], ops)
	if err != nil {
		return err
	}
	return resWrite(c, http.StatusOK, r, false)
}

func (h *handlers) deleteResource(c *restjson.Call) error {
	l, err := labels(c, "restapi_id", "resource_id")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteResource(c.Scope, l[0], l[1]); err != nil {
		return err
	}
	return accepted(c)
}
