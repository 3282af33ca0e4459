package apigatewayhttp

import (
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) apiKeyOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateApiKey": h.createAPIKey,
		"GetApiKey":    h.getAPIKey,
		"GetApiKeys":   h.getAPIKeys,
		"UpdateApiKey": h.updateAPIKey,
		"DeleteApiKey": h.deleteAPIKey,
	}
}

func (h *handlers) usagePlanOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateUsagePlan":    h.createUsagePlan,
		"GetUsagePlan":       h.getUsagePlan,
		"GetUsagePlans":      h.getUsagePlans,
		"UpdateUsagePlan":    h.updateUsagePlan,
		"DeleteUsagePlan":    h.deleteUsagePlan,
		"CreateUsagePlanKey": h.createUsagePlanKey,
		"GetUsagePlanKey":    h.getUsagePlanKey,
		"GetUsagePlanKeys":   h.getUsagePlanKeys,
		"DeleteUsagePlanKey": h.deleteUsagePlanKey,
		"GetUsage":           h.getUsage,
		"UpdateUsage":        h.updateUsage,
	}
}

// keyView is an ApiKey as a reply shows it: the value only when asked for,
// and "tags" always (withTags) or only when there are some.
type keyView struct {
	*apigateway.APIKey
	Value     string            `json:"value,omitempty"`
	StageKeys []string          `json:"stageKeys"`
	Tags      map[string]string `json:"tags,omitempty"`
}

// keyViewTags is a keyView whose "tags" is present even when empty
// (GetApiKey, UpdateApiKey).
type keyViewTags struct {
	keyView
	Tags map[string]string `json:"tags"`
}

func viewKey(k *apigateway.APIKey, withValue bool) keyView {
	v := keyView{APIKey: k, StageKeys: k.StageKeys, Tags: k.Tags}
	if withValue {
		v.Value = k.Value
	}
	if v.StageKeys == nil {
		v.StageKeys = []string{}
	}
	return v
}

func viewKeyTags(k *apigateway.APIKey, withValue bool) keyViewTags {
	t := k.Tags
	if t == nil {
		t = map[string]string{}
	}
	return keyViewTags{viewKey(k, withValue), t}
}

type createAPIKeyBody struct {
	Name               string                `json:"name"`
	Description        string                `json:"description"`
	Enabled            bool                  `json:"enabled"`
	GenerateDistinctID bool                  `json:"generateDistinctId"`
	Value              *string               `json:"value"`
	StageKeys          []apigateway.StageKey `json:"stageKeys"`
	CustomerID         string                `json:"customerId"`
	Tags               map[string]string     `json:"tags"`
}

func (h *handlers) createAPIKey(c *restjson.Call) error {
	var in createAPIKeyBody
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.Value != nil && *in.Value == "" {
		// A value given empty is too short, not absent.
		return badRequest("API Key value should be at least 20 characters")
	}
	k := apigateway.APIKey{
		Name:        in.Name,
		Description: in.Description,
		Enabled:     in.Enabled,
		CustomerID:  in.CustomerID,
		Tags:        in.Tags,
		Value:       deref(in.Value),
	}
	st, err := h.svc.CreateAPIKey(c.Scope, k, in.StageKeys)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, viewKey(&st.Key, true))
}

// keysQueryTrue reads a boolean query flag as API Gateway's Java front end
// does: "true" in any case is true, anything else false.
func keysQueryTrue(c *restjson.Call, name string) bool {
	v, _ := c.Query(name)
	return strings.EqualFold(v, "true")
}

func (h *handlers) getAPIKey(c *restjson.Call) error {
	id, err := label(c, "api_Key")
	if err != nil {
		return err
	}
	st, ok := h.svc.APIKey(c.Scope, id)
	if !ok {
		return awswire.New(awswire.APIGateway, awswire.CodeNotFound, "Invalid API Key identifier specified")
	}
	return c.JSON(http.StatusOK, viewKeyTags(&st.Key, keysQueryTrue(c, "includeValue")))
}

func (h *handlers) getAPIKeys(c *restjson.Call) error {
	p, err := readPage(c)
	if err != nil {
		return err
	}
	name, _ := c.Query("name")
	customer, byCustomer := c.Query("customerId")
	withValues := keysQueryTrue(c, "includeValues")
	var keys []*apigateway.KeyState
	for _, k := range h.svc.APIKeys(c.Scope) {
		// The name query is a case-sensitive prefix match.
		if !strings.HasPrefix(k.Key.Name, name) || (byCustomer && k.Key.CustomerID != customer) {
			continue
		}
		keys = append(keys, k)
	}
	page, pos := paginate(keys, p, func(k *apigateway.KeyState) string { return k.Key.ID })
	out := make([]keyView, len(page))
	for i, k := range page {
		out[i] = viewKey(&k.Key, withValues)
	}
	return list(c, out, pos)
}

func (h *handlers) updateAPIKey(c *restjson.Call) error {
	id, err := label(c, "api_Key")
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	st, err := h.svc.UpdateAPIKey(c.Scope, id, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewKeyTags(&st.Key, false))
}

func (h *handlers) deleteAPIKey(c *restjson.Call) error {
	id, err := label(c, "api_Key")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteAPIKey(c.Scope, id); err != nil {
		return err
	}
	return accepted(c)
}
