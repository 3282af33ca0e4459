package apigatewayv2http

import (
	"net/http"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func (h *handlers) domainNameOps() map[string]restjson.Handler {
	return map[string]restjson.Handler{
		"CreateDomainName": h.createDomainName,
		"GetDomainName":    h.getDomainName,
		"GetDomainNames":   h.getDomainNames,
		"UpdateDomainName": h.updateDomainName,
		"DeleteDomainName": h.deleteDomainName,
		"CreateApiMapping": h.createAPIMapping,
		"GetApiMapping":    h.getAPIMapping,
		"GetApiMappings":   h.getAPIMappings,
		"UpdateApiMapping": h.updateAPIMapping,
		"DeleteApiMapping": h.deleteAPIMapping,
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

// domainsConfigBody is a DomainNameConfiguration as a request carries it:
// the members AWS computes (apiGatewayDomainName, hostedZoneId, status,
// upload date) are ignored.
type domainsConfigBody struct {
	CertificateARN                      string `json:"certificateArn"`
	CertificateName                     string `json:"certificateName"`
	EndpointType                        string `json:"endpointType"`
	IPAddressType                       string `json:"ipAddressType"`
	SecurityPolicy                      string `json:"securityPolicy"`
	OwnershipVerificationCertificateARN string `json:"ownershipVerificationCertificateArn"`
}

type domainsMTLSBody struct {
	TruststoreURI     string `json:"truststoreUri"`
	TruststoreVersion string `json:"truststoreVersion"`
}

type domainsCreateBody struct {
	DomainName               string              `json:"domainName"`
	DomainNameConfigurations []domainsConfigBody `json:"domainNameConfigurations"`
	MutualTLSAuthentication  *domainsMTLSBody    `json:"mutualTlsAuthentication"`
	RoutingMode              string              `json:"routingMode"`
	Tags                     map[string]string   `json:"tags"`
}

type domainsUpdateBody struct {
	DomainNameConfigurations *[]domainsConfigBody `json:"domainNameConfigurations"`
	MutualTLSAuthentication  *domainsMTLSBody     `json:"mutualTlsAuthentication"`
	RoutingMode              *string              `json:"routingMode"`
}

func domainsConfigs(in []domainsConfigBody) []apigatewayv2.DomainNameConfiguration {
	out := make([]apigatewayv2.DomainNameConfiguration, len(in))
	for i, c := range in {
		out[i] = apigatewayv2.DomainNameConfiguration{
			CertificateARN:                      c.CertificateARN,
			CertificateName:                     c.CertificateName,
			EndpointType:                        c.EndpointType,
			IPAddressType:                       c.IPAddressType,
			SecurityPolicy:                      c.SecurityPolicy,
			OwnershipVerificationCertificateARN: c.OwnershipVerificationCertificateARN,
		}
	}
	return out
}

func domainsMTLS(in *domainsMTLSBody) *apigatewayv2.MutualTLSAuthentication {
	if in == nil {
		return nil
	}
	return &apigatewayv2.MutualTLSAuthentication{TruststoreURI: in.TruststoreURI, TruststoreVersion: in.TruststoreVersion}
}

// domainsView is a DomainName as every operation answers it: with "tags"
// even when there are none, as AWS does.
type domainsView struct {
	*apigatewayv2.DomainName
	Tags map[string]string `json:"tags"`
}

func domainView(st *apigatewayv2.DomainState) domainsView {
	t := st.Domain.Tags
	if t == nil {
		t = map[string]string{}
	}
	return domainsView{&st.Domain, t}
}

func (h *handlers) createDomainName(c *restjson.Call) error {
	var in domainsCreateBody
	if err := decode(c, &in); err != nil {
		return err
	}
	if in.DomainName == "" {
		return c.Missing("domainName")
	}
	st, err := h.svc.CreateDomainName(c.Scope, apigatewayv2.DomainName{
		DomainName:               in.DomainName,
		DomainNameConfigurations: domainsConfigs(in.DomainNameConfigurations),
		MutualTLSAuthentication:  domainsMTLS(in.MutualTLSAuthentication),
		RoutingMode:              in.RoutingMode,
		Tags:                     in.Tags,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, domainView(st))
}

func (h *handlers) getDomainName(c *restjson.Call) error {
	name, err := c.Label("domainName")
	if err != nil {
		return err
	}
	st, ok := h.svc.Domain(c.Scope, name)
	if !ok {
		return apigatewayv2.DomainNotFound()
	}
	return c.JSON(http.StatusOK, domainView(st))
}

func (h *handlers) getDomainNames(c *restjson.Call) error {
	p, err := readPage(c)
	if err != nil {
		return err
	}
	all := h.svc.Domains(c.Scope)
	out := make([]domainsView, len(all))
	for i, st := range all {
		out[i] = domainView(st)
	}
	items, next := paginate(out, p, func(d domainsView) string { return d.DomainName.DomainName })
	return list(c, items, next)
}

func (h *handlers) updateDomainName(c *restjson.Call) error {
	name, err := c.Label("domainName")
	if err != nil {
		return err
	}
	var in domainsUpdateBody
	if err := decode(c, &in); err != nil {
		return err
	}
	u := apigatewayv2.DomainUpdate{MutualTLS: domainsMTLS(in.MutualTLSAuthentication), RoutingMode: in.RoutingMode}
	if in.DomainNameConfigurations != nil {
		cs := domainsConfigs(*in.DomainNameConfigurations)
		u.Configurations = &cs
	}
	st, err := h.svc.UpdateDomainName(c.Scope, name, u)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, domainView(st))
}

func (h *handlers) deleteDomainName(c *restjson.Call) error {
	name, err := c.Label("domainName")
	if err != nil {
		return err
	}
	if err := h.svc.DeleteDomainName(c.Scope, name); err != nil {
		return err
	}
	return noContent(c)
}
