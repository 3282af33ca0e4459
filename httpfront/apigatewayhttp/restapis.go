package apigatewayhttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) restAPIOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateRestApi": h.createRestAPI,
		"GetRestApi":    h.getRestAPI,
		"GetRestApis":   h.getRestAPIs,
		"UpdateRestApi": h.updateRestAPI,
		"DeleteRestApi": h.deleteRestAPI,
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// apiWithTags is a RestApi as UpdateRestApi answers it: with "tags" even
// when there are none.
type apiWithTags struct {
	*apigateway.API
	Tags map[string]string `json:"tags"`
}

func withTags(a *apigateway.API) apiWithTags {
	t := a.Tags
	if t == nil {
		t = map[string]string{}
	}
	return apiWithTags{a, t}
}

func (h *handlers) createRestAPI(c *restjson.Call) error {
	var in apigateway.RestAPIInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := h.svc.NewRestAPI(c.Scope, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, &r.API)
}

func (h *handlers) getRestAPI(c *restjson.Call) error {
	id, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	r, ok := h.svc.API(c.Scope, id)
	if !ok {
		return apigateway.APINotFound(c.Scope, id)
	}
	if b := r.Memo.Get(); b != nil {
		c.Raw(http.StatusOK, b)
		return nil
	}
	b, err := restjson.Marshal(&r.API)
	if err != nil {
		return err
	}
	r.Memo.Set(b)
	c.Raw(http.StatusOK, b)
	return nil
}

// getRestAPIs lists every API in one page (docs/apigateway.md, "Listings in
// one page").
func (h *handlers) getRestAPIs(c *restjson.Call) error {
	apis := h.svc.APIs(c.Scope)
	out := make([]*apigateway.API, len(apis))
	for i, r := range apis {
		out[i] = &r.API
	}
	return list(c, out, "")
}

func (h *handlers) updateRestAPI(c *restjson.Call) error {
	id, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	r, err := h.svc.UpdateRestAPI(c.Scope, id, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, withTags(&r.API))
}

func (h *handlers) deleteRestAPI(c *restjson.Call) error {
	id, err := label(c, "restapi_id")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteRestAPI(c.Scope, id); err != nil {
		return err
	}
	return accepted(c)
}
