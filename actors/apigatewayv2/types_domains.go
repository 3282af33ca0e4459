package apigatewayv2

import "github.com/cloudemu/emulator/awswire"

// DomainNameConfiguration is one endpoint configuration of a domain name.
type DomainNameConfiguration struct {
	APIGatewayDomainName                string           `json:"apiGatewayDomainName,omitempty"`
	CertificateARN                      string           `json:"certificateArn,omitempty"`
	CertificateName                     string           `json:"certificateName,omitempty"`
	CertificateUploadDate               *awswire.ISOTime `json:"certificateUploadDate,omitempty"`
	DomainNameStatus                    string           `json:"domainNameStatus,omitempty"`
	DomainNameStatusMessage             string           `json:"domainNameStatusMessage,omitempty"`
	EndpointType                        string           `json:"endpointType,omitempty"`
	HostedZoneID                        string           `json:"hostedZoneId,omitempty"`
	IPAddressType                       string           `json:"ipAddressType,omitempty"`
	SecurityPolicy                      string           `json:"securityPolicy,omitempty"`
	OwnershipVerificationCertificateARN string           `json:"ownershipVerificationCertificateArn,omitempty"`
}

// MutualTLSAuthentication is a domain's mutual TLS settings.
type MutualTLSAuthentication struct {
	TruststoreURI      string   `json:"truststoreUri,omitempty"`
	TruststoreVersion  string   `json:"truststoreVersion,omitempty"`
	TruststoreWarnings []string `json:"truststoreWarnings,omitempty"`
}

// DomainName is a custom domain name, inert metadata.
type DomainName struct {
	APIMappingSelectionExpression string                    `json:"apiMappingSelectionExpression,omitempty"`
	DomainName                    string                    `json:"domainName"`
	DomainNameARN                 string                    `json:"domainNameArn,omitempty"`
	DomainNameConfigurations      []DomainNameConfiguration `json:"domainNameConfigurations,omitempty"`
	MutualTLSAuthentication       *MutualTLSAuthentication  `json:"mutualTlsAuthentication,omitempty"`
	RoutingMode                   string                    `json:"routingMode,omitempty"`
	Tags                          map[string]string         `json:"tags,omitempty"`
}

// APIMapping maps a domain's path to an API stage. APIMappingKey is always
// sent: "" is the root mapping, and AWS shows it.
type APIMapping struct {
	APIID         string `json:"apiId"`
	APIMappingID  string `json:"apiMappingId"`
	APIMappingKey string `json:"apiMappingKey"`
	Stage         string `json:"stage"`
}

// DomainState is a domain name as its owner keeps and persists it, with
// its API mappings by id.
type DomainState struct {
	Domain   DomainName             `json:"domain"`
	Mappings map[string]*APIMapping `json:"mappings,omitempty"`
	Seq      uint64                 `json:"seq"`
}

// VpcLink is a VPC link, AVAILABLE at once. SecurityGroupIDs and SubnetIDs
// are never nil: lists require them, [] when none were given.
type VpcLink struct {
	CreatedDate          awswire.ISOTime   `json:"createdDate"`
	Name                 string            `json:"name"`
	SecurityGroupIDs     []string          `json:"securityGroupIds"`
	SubnetIDs            []string          `json:"subnetIds"`
	Tags                 map[string]string `json:"tags,omitempty"`
	VpcLinkID            string            `json:"vpcLinkId"`
	VpcLinkStatus        string            `json:"vpcLinkStatus,omitempty"`
	VpcLinkStatusMessage string            `json:"vpcLinkStatusMessage,omitempty"`
	VpcLinkVersion       string            `json:"vpcLinkVersion,omitempty"`
}

// LinkState is a VPC link as its owner keeps and persists it.
type LinkState struct {
	Link VpcLink `json:"link"`
	Seq  uint64  `json:"seq"`
}
