package apigatewayhttp

import (
	"net/http"
	"regexp"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
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

type createRestAPIBody struct {
	Name                      *string                           `json:"name"`
	Description               *string                           `json:"description"`
	Version                   string                            `json:"version"`
	CloneFrom                 string                            `json:"cloneFrom"`
	BinaryMediaTypes          []string                          `json:"binaryMediaTypes"`
	MinimumCompressionSize    *int64                            `json:"minimumCompressionSize"`
	APIKeySource              string                            `json:"apiKeySource"`
	EndpointConfiguration     *apigateway.EndpointConfiguration `json:"endpointConfiguration"`
	Policy                    string                            `json:"policy"`
	Tags                      map[string]string                 `json:"tags"`
	DisableExecuteAPIEndpoint bool                              `json:"disableExecuteApiEndpoint"`
}

var customIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

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
	var in createRestAPIBody
	if err := decode(c, &in); err != nil {
		return err
	}
	// Model-level checks come first and are reported together.
	var v apigateway.Validation
	if ec := in.EndpointConfiguration; ec != nil {
		v.EnumList("createRestApiInput.endpointConfiguration.types", ec.Types, "PRIVATE", "EDGE", "REGIONAL")
		if ec.IPAddressType != "" {
			v.Enum("createRestApiInput.endpointConfiguration.ipAddressType", ec.IPAddressType, "ipv4", "dualstack")
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if in.Name == nil || *in.Name == "" {
		return badRequest("Invalid REST API name specified")
	}
	if in.Description != nil && *in.Description == "" {
		return badRequest("Description cannot be an empty string")
	}
	api := apigateway.API{
		Name:                      *in.Name,
		Description:               deref(in.Description),
		Version:                   in.Version,
		BinaryMediaTypes:          in.BinaryMediaTypes,
		APIKeySource:              "HEADER",
		Policy:                    in.Policy,
		Tags:                      in.Tags,
		DisableExecuteAPIEndpoint: in.DisableExecuteAPIEndpoint,
		CreatedDate:               awswire.Epoch(h.svc.Now().UnixMilli()),
	}
	switch in.APIKeySource {
	case "":
	case "HEADER", "AUTHORIZER":
		api.APIKeySource = in.APIKeySource
	default:
		return badRequest("Invalid API Key Source specified. Valid options are HEADER,AUTHORIZER")
	}
	if n := in.MinimumCompressionSize; n != nil && (*n < 0 || *n > 10485760) {
		return badRequest("Invalid minimum compression size, must be between 0 and 10485760")
	}
	api.MinimumCompressionSize = in.MinimumCompressionSize
	ec := apigateway.EndpointConfiguration{Types: []string{"EDGE"}}
	if in.EndpointConfiguration != nil {
		ec = *in.EndpointConfiguration
		switch len(ec.Types) {
		case 0:
			return badRequest("REGIONAL Configuration and EDGE Configuration cannot be both DISABLED.")
		case 1:
		default:
			return badRequest("Cannot create an api with multiple Endpoint Types.")
		}
	}
	switch {
	case ec.Types[0] == "PRIVATE" && ec.IPAddressType == "ipv4":
		return badRequest("Only dualstack ipAddressType is supported for Private APIs.")
	case ec.Types[0] == "PRIVATE":
		ec.IPAddressType = "dualstack"
	case ec.IPAddressType == "":
		ec.IPAddressType = "ipv4"
	}
	api.EndpointConfiguration = &ec
	if id, ok := in.Tags[apigateway.CustomIDTag]; ok {
		if !customIDRe.MatchString(id) {
			return badRequest("Invalid %s tag: the id must be 1 to 128 letters, digits, '-' or '_'", apigateway.CustomIDTag)
		}
		api.ID = id
	}
	var src *apigateway.RestAPI
	if in.CloneFrom != "" {
		s, ok := h.svc.API(c.Scope, in.CloneFrom)
		if !ok {
			return apigateway.APINotFound(c.Scope, in.CloneFrom)
		}
		src = s
	}
	r, err := h.svc.CreateRestAPI(c.Scope, api, func(t *apigateway.Tx) error {
		apigateway.DefaultModels(t)
		if src != nil {
			apigateway.CloneConfig(t, src)
		}
		return nil
	})
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

// getRestAPIs lists every API: SPEC.md says GetRestApis does not paginate.
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
