package apigatewayhttp

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) domainNameOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateDomainName":      h.createDomainName,
		"GetDomainName":         h.getDomainName,
		"GetDomainNames":        h.getDomainNames,
		"UpdateDomainName":      h.updateDomainName,
		"DeleteDomainName":      h.deleteDomainName,
		"CreateBasePathMapping": h.createBasePathMapping,
		"GetBasePathMapping":    h.getBasePathMapping,
		"GetBasePathMappings":   h.getBasePathMappings,
		"UpdateBasePathMapping": h.updateBasePathMapping,
		"DeleteBasePathMapping": h.deleteBasePathMapping,
	}
}

func (h *handlers) vpcLinkOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateVpcLink": h.createVpcLink,
		"GetVpcLink":    h.getVpcLink,
		"GetVpcLinks":   h.getVpcLinks,
		"UpdateVpcLink": h.updateVpcLink,
		"DeleteVpcLink": h.deleteVpcLink,
	}
}

func (h *handlers) tagOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"TagResource":   h.tagResource,
		"UntagResource": h.untagResource,
		"GetTags":       h.getTags,
	}
}

// ---- domain names ----

type createDomainNameBody struct {
	DomainName              string                            `json:"domainName"`
	CertificateName         string                            `json:"certificateName"`
	CertificateBody         string                            `json:"certificateBody"`
	CertificatePrivateKey   string                            `json:"certificatePrivateKey"`
	CertificateChain        string                            `json:"certificateChain"`
	CertificateARN          string                            `json:"certificateArn"`
	RegionalCertificateName string                            `json:"regionalCertificateName"`
	RegionalCertificateARN  string                            `json:"regionalCertificateArn"`
	EndpointConfiguration   *apigateway.EndpointConfiguration `json:"endpointConfiguration"`
	Tags                    map[string]string                 `json:"tags"`
	SecurityPolicy          string                            `json:"securityPolicy"`
	EndpointAccessMode      string                            `json:"endpointAccessMode"`
	MutualTLSAuthentication *struct {
		TruststoreURI     string `json:"truststoreUri"`
		TruststoreVersion string `json:"truststoreVersion"`
	} `json:"mutualTlsAuthentication"`
	OwnershipVerificationCertificateARN string `json:"ownershipVerificationCertificateArn"`
	Policy                              string `json:"policy"`
	RoutingMode                         string `json:"routingMode"`
}

// domainWithTags is a DomainName as GetDomainName and UpdateDomainName
// answer it: with "tags" even when there are none.
type domainWithTags struct {
	*apigateway.DomainName
	Tags map[string]string `json:"tags"`
}

func domainView(st *apigateway.DomainState) domainWithTags {
	t := st.Domain.Tags
	if t == nil {
		t = map[string]string{}
	}
	return domainWithTags{&st.Domain, t}
}

func (h *handlers) createDomainName(c *restjson.Call) error {
	var in createDomainNameBody
	if err := decode(c, &in); err != nil {
		return err
	}
	// Model-level checks come first and are reported together.
	var v apigateway.Validation
	if ec := in.EndpointConfiguration; ec != nil {
		v.EnumList("createDomainNameInput.endpointConfiguration.types", ec.Types, "PRIVATE", "EDGE", "REGIONAL")
		if ec.IPAddressType != "" {
			v.Enum("createDomainNameInput.endpointConfiguration.ipAddressType", ec.IPAddressType, "ipv4", "dualstack")
		}
	}
	if in.SecurityPolicy != "" {
		v.Enum("createDomainNameInput.securityPolicy", in.SecurityPolicy, apigateway.SecurityPolicies...)
	}
	if in.EndpointAccessMode != "" {
		v.Enum("createDomainNameInput.endpointAccessMode", in.EndpointAccessMode, apigateway.EndpointAccessModes...)
	}
	if in.RoutingMode != "" {
		v.Enum("createDomainNameInput.routingMode", in.RoutingMode, apigateway.RoutingModes...)
	}
	if err := v.Err(); err != nil {
		return err
	}
	dn := apigateway.DomainName{
		DomainName:                          in.DomainName,
		CertificateName:                     in.CertificateName,
		CertificateARN:                      in.CertificateARN,
		RegionalCertificateName:             in.RegionalCertificateName,
		RegionalCertificateARN:              in.RegionalCertificateARN,
		EndpointConfiguration:               in.EndpointConfiguration,
		Tags:                                in.Tags,
		SecurityPolicy:                      in.SecurityPolicy,
		EndpointAccessMode:                  in.EndpointAccessMode,
		OwnershipVerificationCertificateARN: in.OwnershipVerificationCertificateARN,
		Policy:                              in.Policy,
		RoutingMode:                         in.RoutingMode,
	}
	if m := in.MutualTLSAuthentication; m != nil && m.TruststoreURI != "" {
		dn.MutualTLSAuthentication = &apigateway.MutualTLSAuthentication{
			TruststoreURI: m.TruststoreURI, TruststoreVersion: m.TruststoreVersion}
	}
	st, err := h.svc.CreateDomainName(c.Scope, dn)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, &st.Domain)
}

// domainLabels reads the domain_name label and the domainNameId query
// parameter (private domains).
func domainLabels(c *restjson.Call) (name, id string, err error) {
	name, err = label(c, "domain_name")
	if err != nil {
		return "", "", err
	}
	id, _ = c.Query("domainNameId")
	return name, id, nil
}

func (h *handlers) getDomainName(c *restjson.Call) error {
	name, id, err := domainLabels(c)
	if err != nil {
		return err
	}
	st, ok := h.svc.Domain(c.Scope, name, id)
	if !ok {
		return apigateway.DomainNotFound()
	}
	return c.JSON(http.StatusOK, domainView(st))
}

func (h *handlers) getDomainNames(c *restjson.Call) error {
	if owner, ok := c.Query("resourceOwner"); ok {
		var v apigateway.Validation
		v.Enum("resourceOwner", owner, "SELF", "OTHER_ACCOUNTS")
		if err := v.Err(); err != nil {
			return err
		}
		if owner == "OTHER_ACCOUNTS" {
			// Nothing is shared across accounts here.
			return list[*apigateway.DomainName](c, nil, "")
		}
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all := h.svc.Domains(c.Scope)
	out := make([]*apigateway.DomainName, len(all))
	for i, st := range all {
		out[i] = &st.Domain
	}
	items, pos := paginate(out, p, func(d *apigateway.DomainName) string { return d.DomainName })
	return list(c, items, pos)
}

func (h *handlers) updateDomainName(c *restjson.Call) error {
	name, id, err := domainLabels(c)
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	st, err := h.svc.UpdateDomainName(c.Scope, name, id, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, domainView(st))
}

func (h *handlers) deleteDomainName(c *restjson.Call) error {
	name, id, err := domainLabels(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteDomainName(c.Scope, name, id); err != nil {
		return err
	}
	return accepted(c)
}

// ---- base path mappings ----

type createBasePathMappingBody struct {
	BasePath  string `json:"basePath"`
	RestAPIID string `json:"restApiId"`
	Stage     string `json:"stage"`
}

func (h *handlers) createBasePathMapping(c *restjson.Call) error {
	name, id, err := domainLabels(c)
	if err != nil {
		return err
	}
	var in createBasePathMappingBody
	if err := decode(c, &in); err != nil {
		return err
	}
	m, err := h.svc.CreateBasePathMapping(c.Scope, name, id,
		apigateway.BasePathMapping{BasePath: in.BasePath, RestAPIID: in.RestAPIID, Stage: in.Stage})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, m)
}

// mappingLabels reads a mapping's domain and base path.
func mappingLabels(c *restjson.Call) (name, id, basePath string, err error) {
	name, id, err = domainLabels(c)
	if err != nil {
		return "", "", "", err
	}
	basePath, err = label(c, "base_path")
	return name, id, basePath, err
}

func (h *handlers) getBasePathMapping(c *restjson.Call) error {
	name, id, basePath, err := mappingLabels(c)
	if err != nil {
		return err
	}
	m, err := h.svc.BasePathMapping(c.Scope, name, id, basePath)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) getBasePathMappings(c *restjson.Call) error {
	name, id, err := domainLabels(c)
	if err != nil {
		return err
	}
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all, err := h.svc.BasePathMappings(c.Scope, name, id)
	if err != nil {
		return err
	}
	items, pos := paginate(all, p, func(m *apigateway.BasePathMapping) string { return m.BasePath })
	return list(c, items, pos)
}

func (h *handlers) updateBasePathMapping(c *restjson.Call) error {
	name, id, basePath, err := mappingLabels(c)
	if err != nil {
		return err
	}
	ops, err := readPatch(c)
	if err != nil {
		return err
	}
	m, err := h.svc.UpdateBasePathMapping(c.Scope, name, id, basePath, ops)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, m)
}

func (h *handlers) deleteBasePathMapping(c *restjson.Call) error {
	name, id, basePath, err := mappingLabels(c)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteBasePathMapping(c.Scope, name, id, basePath); err != nil {
		return err
	}
	return accepted(c)
}
