package apigateway

import (
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// GatewayResponseTypes are the response types, in the order AWS lists them
// in its ValidationException (GR-06).
var GatewayResponseTypes = []string{
	"REQUEST_TOO_LARGE", "RESOURCE_NOT_FOUND", "AUTHORIZER_CONFIGURATION_ERROR", "MISSING_AUTHENTICATION_TOKEN",
	"BAD_REQUEST_BODY", "INVALID_SIGNATURE", "INVALID_API_KEY", "BAD_REQUEST_PARAMETERS", "AUTHORIZER_FAILURE",
	"UNAUTHORIZED", "INTEGRATION_TIMEOUT", "ACCESS_DENIED", "DEFAULT_4XX", "DEFAULT_5XX", "WAF_FILTERED",
	"QUOTA_EXCEEDED", "THROTTLED", "API_CONFIGURATION_ERROR", "UNSUPPORTED_MEDIA_TYPE", "INTEGRATION_FAILURE",
	"EXPIRED_TOKEN",
}

// gatewayDefaultStatus is each type's default status code (B.9); the two
// DEFAULT_ types have none.
var gatewayDefaultStatus = map[string]string{
	"ACCESS_DENIED":                  "403",
	"API_CONFIGURATION_ERROR":        "500",
	"AUTHORIZER_CONFIGURATION_ERROR": "500",
	"AUTHORIZER_FAILURE":             "500",
	"BAD_REQUEST_BODY":               "400",
	"BAD_REQUEST_PARAMETERS":         "400",
	"DEFAULT_4XX":                    "",
	"DEFAULT_5XX":                    "",
	"EXPIRED_TOKEN":                  "403",
	"INTEGRATION_FAILURE":            "504",
	"INTEGRATION_TIMEOUT":            "504",
	"INVALID_API_KEY":                "403",
	"INVALID_SIGNATURE":              "403",
	"MISSING_AUTHENTICATION_TOKEN":   "403",
	"QUOTA_EXCEEDED":                 "429",
	"REQUEST_TOO_LARGE":              "413",
	"RESOURCE_NOT_FOUND":             "404",
	"THROTTLED":                      "429",
	"UNAUTHORIZED":                   "401",
	"UNSUPPORTED_MEDIA_TYPE":         "415",
	"WAF_FILTERED":                   "403",
}

// DefaultGatewayTemplate is the body template of every default gateway
// response.
const DefaultGatewayTemplate = `{"message":$context.error.messageString}`

func defaultGatewayTemplates() map[string]string {
	return map[string]string{"application/json": DefaultGatewayTemplate}
}

// IsGatewayResponseType reports whether t is a response type.
func IsGatewayResponseType(t string) bool {
	_, ok := gatewayDefaultStatus[t]
	return ok
}

// DefaultGatewayResponse is the response AWS gives for type t on an API
// that never customised it (or DEFAULT_4XX/5XX).
func DefaultGatewayResponse(t string) *GatewayResponse {
	return &GatewayResponse{ResponseType: t, StatusCode: gatewayDefaultStatus[t],
		ResponseParameters: map[string]string{}, ResponseTemplates: defaultGatewayTemplates(),
		DefaultResponse: true}
}

// gatewayFamily is the DEFAULT_ type a type inherits from: DEFAULT_5XX for
// the types whose default status is 5xx, DEFAULT_4XX for the others.
func gatewayFamily(t string) string {
	if strings.HasPrefix(gatewayDefaultStatus[t], "5") {
		return "DEFAULT_5XX"
	}
	return "DEFAULT_4XX"
}

// EffectiveGatewayResponse is the gateway response API Gateway gives for
// responseType under configuration c: the one put for it; else, when the
// type's family default (DEFAULT_4XX or DEFAULT_5XX) was put, its status
// code (if it has one), parameters and templates, still marked
// defaultResponse as AWS lists it (B.9); else the type's default. It
// returns nil for an unknown type. The result MUST NOT be modified.
func EffectiveGatewayResponse(c *Config, responseType string) *GatewayResponse {
	if !IsGatewayResponseType(responseType) {
		return nil
	}
	if g, ok := c.GatewayResponses.Get(responseType); ok {
		return g
	}
	d := DefaultGatewayResponse(responseType)
	if strings.HasPrefix(responseType, "DEFAULT_") {
		return d
	}
	if fam, ok := c.GatewayResponses.Get(gatewayFamily(responseType)); ok {
		if fam.StatusCode != "" {
			d.StatusCode = fam.StatusCode
		}
		d.ResponseParameters = maps.Clone(fam.ResponseParameters)
		d.ResponseTemplates = maps.Clone(fam.ResponseTemplates)
		if d.ResponseParameters == nil {
			d.ResponseParameters = map[string]string{}
		}
		if d.ResponseTemplates == nil {
			d.ResponseTemplates = map[string]string{}
		}
	}
	return d
}

// checkGatewayType reports an unknown response type as AWS does: a
// ValidationException on the bare URI member (GR-06..09), after whatever
// errors errs holds already.
func checkGatewayType(v *Validation, t string) {
	v.Enum("responseType", t, GatewayResponseTypes...)
}

// GetGatewayResponse returns the effective gateway response of a type.
func (s *Service) GetGatewayResponse(sc awswire.Scope, apiID, responseType string) (*GatewayResponse, error) {
	var v Validation
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return nil, err
	}
	r, err := s.readAPI(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	return EffectiveGatewayResponse(&r.Config, responseType), nil
}

// GatewayResponses returns the effective gateway response of every type,
// in type order.
func (s *Service) GatewayResponses(sc awswire.Scope, apiID string) ([]*GatewayResponse, error) {
	r, err := s.readAPI(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	types := slices.Sorted(maps.Keys(gatewayDefaultStatus))
	out := make([]*GatewayResponse, len(types))
	for i, t := range types {
		out[i] = EffectiveGatewayResponse(&r.Config, t)
	}
	return out, nil
}

// GatewayResponseInput is a PutGatewayResponse request; a nil member was
// absent, a nil map value was JSON null.
type GatewayResponseInput struct {
	StatusCode         *string
	ResponseParameters map[string]*string
	ResponseTemplates  map[string]*string
}

// PutGatewayResponse replaces the gateway response of a type: what the
// request omits takes the type's default (B.9).
func (s *Service) PutGatewayResponse(sc awswire.Scope, apiID, responseType string, in GatewayResponseInput) (*GatewayResponse, error) {
	var v Validation
	if in.StatusCode != nil {
		v.Pattern("putGatewayResponseInput.statusCode", *in.StatusCode, StatusCodePattern, StatusCodePatternText)
	}
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return nil, err
	}
	g := DefaultGatewayResponse(responseType)
	g.DefaultResponse = false
	if in.StatusCode != nil {
		g.StatusCode = *in.StatusCode
	}
	var err error
	if in.ResponseParameters != nil {
		if g.ResponseParameters, err = gatewayMap(in.ResponseParameters, "responseParameters"); err != nil {
			return nil, err
		}
	}
	if in.ResponseTemplates != nil {
		if g.ResponseTemplates, err = gatewayMap(in.ResponseTemplates, "responseTemplates"); err != nil {
			return nil, err
		}
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*GatewayResponse, error) {
		t.PutGatewayResponse(g)
		return g, nil
	})
}

func gatewayMap(in map[string]*string, member string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, v := range in {
		if v == nil || *v == "" {
			return nil, gatewayNullValue(member)
		}
		out[k] = *v
	}
	return out, nil
}

func gatewayNullValue(member string) *awswire.Error {
	return BadRequest("Invalid null or empty value in %s", member)
}

// gatewayPatchOK reports whether UpdateGatewayResponse accepts op on path:
// /statusCode with replace, one parameter or template with add, replace
// or remove. Anything else is "Invalid patch path" (GR-10, GR-11, GR-15).
func gatewayPatchOK(o PatchOp) bool {
	switch {
	case o.Path == "/statusCode":
		return o.Op == "replace"
	case strings.HasPrefix(o.Path, "/responseParameters/") && len(o.Path) > len("/responseParameters/"),
		strings.HasPrefix(o.Path, "/responseTemplates/") && len(o.Path) > len("/responseTemplates/"):
		return o.Op == "add" || o.Op == "replace" || o.Op == "remove"
	}
	return false
}

// UpdateGatewayResponse applies patch operations to the gateway response
// of a type, starting from the effective one when it was never put: the
// result is put (B.9).
func (s *Service) UpdateGatewayResponse(sc awswire.Scope, apiID, responseType string, ops []PatchOp) (*GatewayResponse, error) {
	var v Validation
	v.PatchOps("updateGatewayResponseInput", ops)
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return nil, err
	}
	for _, o := range ops {
		if o.Path == "" {
			return nil, BadRequest("Invalid patch path null")
		}
		if !gatewayPatchOK(o) {
			return nil, BadRequest("Invalid patch path %s", o.Path)
		}
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*GatewayResponse, error) {
		cur := EffectiveGatewayResponse(&t.State().Config, responseType)
		g := *cur
		g.DefaultResponse = false
		g.ResponseParameters = maps.Clone(cur.ResponseParameters)
		g.ResponseTemplates = maps.Clone(cur.ResponseTemplates)
		if g.ResponseParameters == nil {
			g.ResponseParameters = map[string]string{}
		}
		if g.ResponseTemplates == nil {
			g.ResponseTemplates = map[string]string{}
		}
		for _, o := range ops {
			if err := patchGatewayResponse(&g, o); err != nil {
				return nil, err
			}
		}
		t.PutGatewayResponse(&g)
		return &g, nil
	})
}

func patchGatewayResponse(g *GatewayResponse, o PatchOp) error {
	if o.Path == "/statusCode" {
		if !StatusCodePattern.MatchString(o.Val()) {
			return BadRequest("Invalid status code specified: %s", nullIfEmpty(o.Val()))
		}
		g.StatusCode = o.Val()
		return nil
	}
	m, member := g.ResponseParameters, "responseParameters"
	key := PathKey(o.Path, "/responseParameters/")
	missing := notFound("Invalid parameter name specified")
	if strings.HasPrefix(o.Path, "/responseTemplates/") {
		m, member = g.ResponseTemplates, "responseTemplates"
		key = PathKey(o.Path, "/responseTemplates/")
		missing = notFound("Content-Type specified was not found")
	}
	_, exists := m[key]
	if o.Op == "remove" {
		if !exists {
			return missing
		}
		delete(m, key)
		return nil
	}
	// The value is checked before the name (GR-16, GR-17).
	if o.Value == nil || *o.Value == "" {
		return gatewayNullValue(member)
	}
	if o.Op == "replace" && !exists {
		return missing
	}
	m[key] = *o.Value
	return nil
}

// DeleteGatewayResponse removes the customisation of a type, which answers
// its default again.
func (s *Service) DeleteGatewayResponse(sc awswire.Scope, apiID, responseType string) error {
	var v Validation
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return err
	}
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		if _, ok := t.State().GatewayResponses.Get(responseType); !ok {
			return struct{}{}, notFound("Gateway response type not defined on api")
		}
		t.DeleteGatewayResponse(responseType)
		return struct{}{}, nil
	})
	return err
}
