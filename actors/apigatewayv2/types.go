package apigatewayv2

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// The types below are API Gateway v2's resources with the model's wire
// names (camelCase): what the owners keep, what the store persists and
// what the handlers encode. Every value reachable from a published state
// is immutable: a mutation copies what it changes.

// Cors is an HTTP API's CORS configuration.
type Cors struct {
	AllowCredentials *bool    `json:"allowCredentials,omitempty"`
	AllowHeaders     []string `json:"allowHeaders,omitempty"`
	AllowMethods     []string `json:"allowMethods,omitempty"`
	AllowOrigins     []string `json:"allowOrigins,omitempty"`
	ExposeHeaders    []string `json:"exposeHeaders,omitempty"`
	MaxAge           *int64   `json:"maxAge,omitempty"`
}

// API is the Api resource itself.
type API struct {
	APIEndpoint               string            `json:"apiEndpoint,omitempty"`
	APIGatewayManaged         bool              `json:"apiGatewayManaged,omitempty"`
	APIID                     string            `json:"apiId"`
	APIKeySelectionExpression string            `json:"apiKeySelectionExpression,omitempty"`
	CorsConfiguration         *Cors             `json:"corsConfiguration,omitempty"`
	CreatedDate               awswire.ISOTime   `json:"createdDate"`
	Description               string            `json:"description,omitempty"`
	DisableSchemaValidation   bool              `json:"disableSchemaValidation,omitempty"`
	DisableExecuteAPIEndpoint bool              `json:"disableExecuteApiEndpoint"`
	ImportInfo                []string          `json:"importInfo,omitempty"`
	IPAddressType             string            `json:"ipAddressType,omitempty"`
	Name                      string            `json:"name"`
	ProtocolType              string            `json:"protocolType"`
	RouteSelectionExpression  string            `json:"routeSelectionExpression"`
	Tags                      map[string]string `json:"tags,omitempty"`
	Version                   string            `json:"version,omitempty"`
	Warnings                  []string          `json:"warnings,omitempty"`
}

// Config is what a deployment freezes: everything execution reads. It is
// immutable, so a deployment shares it with the state it was taken from.
type Config struct {
	API                  API                                      `json:"api"`
	Routes               pmap.Map[*Route]                         `json:"routes,omitzero"`
	RouteResponses       pmap.Map[pmap.Map[*RouteResponse]]       `json:"routeResponses,omitzero"`       // by route id, then response id
	Integrations         pmap.Map[*Integration]                   `json:"integrations,omitzero"`         // by id
	IntegrationResponses pmap.Map[pmap.Map[*IntegrationResponse]] `json:"integrationResponses,omitzero"` // by integration id, then response id
	Authorizers          pmap.Map[*Authorizer]                    `json:"authorizers,omitzero"`
	Models               pmap.Map[*Model]                         `json:"models,omitzero"` // by id
	// RouteIndex finds routes by key and path variables without a scan;
	// it is derived from Routes (the Tx keeps it, restores rebuild it).
	RouteIndex RouteIndex `json:"-"`
}

// HTTPAPI is one v2 API as its owner last published it: the API, its live
// configuration, its deployments and stages.
type HTTPAPI struct {
	Config
	Deployments pmap.Map[*Deployment]
	Stages      pmap.Map[*Stage]
	// Seq orders APIs, and Deployments, by creation.
	Seq uint64
	// Memo caches the GetApi body.
	Memo *actors.Memo
}
