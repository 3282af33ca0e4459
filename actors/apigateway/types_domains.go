package apigateway

import (
	"github.com/cloudemu/emulator/awswire"
)

// DomainName is a custom domain name, inert metadata, with its base path
// mappings.
type DomainName struct {
	DomainName                          string                   `json:"domainName"`
	DomainNameID                        string                   `json:"domainNameId,omitempty"`
	DomainNameARN                       string                   `json:"domainNameArn,omitempty"`
	CertificateName                     string                   `json:"certificateName,omitempty"`
	CertificateARN                      string                   `json:"certificateArn,omitempty"`
	CertificateUploadDate               *awswire.Epoch           `json:"certificateUploadDate,omitempty"`
	RegionalDomainName                  string                   `json:"regionalDomainName,omitempty"`
	RegionalHostedZoneID                string                   `json:"regionalHostedZoneId,omitempty"`
	RegionalCertificateName             string                   `json:"regionalCertificateName,omitempty"`
	RegionalCertificateARN              string                   `json:"regionalCertificateArn,omitempty"`
	DistributionDomainName              string                   `json:"distributionDomainName,omitempty"`
	DistributionHostedZoneID            string                   `json:"distributionHostedZoneId,omitempty"`
	EndpointConfiguration               *EndpointConfiguration   `json:"endpointConfiguration,omitempty"`
	DomainNameStatus                    string                   `json:"domainNameStatus,omitempty"`
	DomainNameStatusMessage             string                   `json:"domainNameStatusMessage,omitempty"`
	SecurityPolicy                      string                   `json:"securityPolicy,omitempty"`
	EndpointAccessMode                  string                   `json:"endpointAccessMode,omitempty"`
	MutualTLSAuthentication             *MutualTLSAuthentication `json:"mutualTlsAuthentication,omitempty"`
	OwnershipVerificationCertificateARN string                   `json:"ownershipVerificationCertificateArn,omitempty"`
	ManagementPolicy                    string                   `json:"managementPolicy,omitempty"`
	Policy                              string                   `json:"policy,omitempty"`
	RoutingMode                         string                   `json:"routingMode,omitempty"`
	Tags                                map[string]string        `json:"tags,omitempty"`
}

// MutualTLSAuthentication is a domain's truststore for mutual TLS.
type MutualTLSAuthentication struct {
	TruststoreURI      string   `json:"truststoreUri,omitempty"`
	TruststoreVersion  string   `json:"truststoreVersion,omitempty"`
	TruststoreWarnings []string `json:"truststoreWarnings,omitempty"`
}

// DomainState is a domain name as its owner keeps and persists it, with its
// base path mappings by base path ("(none)" for the empty one, as AWS
// names it).
type DomainState struct {
	Domain   DomainName                  `json:"domain"`
	Mappings map[string]*BasePathMapping `json:"mappings,omitempty"`
	Seq      uint64                      `json:"seq"`
}

// BasePathMapping maps a domain's base path to an API stage.
type BasePathMapping struct {
	BasePath  string `json:"basePath"`
	RestAPIID string `json:"restApiId"`
	Stage     string `json:"stage,omitempty"`
}

// VpcLink is a VPC link, AVAILABLE at once.
type VpcLink struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Description   string            `json:"description,omitempty"`
	TargetARNs    []string          `json:"targetArns"`
	Status        string            `json:"status"`
	StatusMessage string            `json:"statusMessage,omitempty"`
	Tags          map[string]string `json:"tags,omitempty"`
}

// LinkState is a VPC link as its owner keeps and persists it.
type LinkState struct {
	Link VpcLink `json:"link"`
	Seq  uint64  `json:"seq"`
}
