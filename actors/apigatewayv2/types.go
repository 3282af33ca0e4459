package apigatewayv2

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
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
	API                  API                                        `json:"api"`
	Routes               map[string]*Route                          `json:"routes,omitempty"`
	RouteResponses       map[string]map[string]*RouteResponse       `json:"routeResponses,omitempty"`       // by route id, then response id
	Integrations         map[string]*Integration                    `json:"integrations,omitempty"`         // by id
	IntegrationResponses map[string]map[string]*IntegrationResponse `json:"integrationResponses,omitempty"` // by integration id, then response id
	Authorizers          map[string]*Authorizer                     `json:"authorizers,omitempty"`
	Models               map[string]*Model                          `json:"models,omitempty"` // by id
}

// HTTPAPI is one v2 API as its owner last published it: the API, its live
// configuration, its deployments and stages.
type HTTPAPI struct {
	Config
	Deployments map[string]*Deployment
	Stages      map[string]*Stage
	// Seq orders APIs, and Deployments, by creation.
	Seq uint64
	// Memo caches the GetApi body.
	Memo *actors.Memo
}
