package apigateway

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// The types below are API Gateway's resources with the model's wire names:
// they are what the owners keep, what the store persists and what the
// handlers encode. Every value reachable from a published state is
// immutable: a mutation copies what it changes (see the clone helpers).

// EndpointConfiguration is where an API or domain is served.
type EndpointConfiguration struct {
	Types          []string `json:"types,omitempty"`
	IPAddressType  string   `json:"ipAddressType,omitempty"`
	VpcEndpointIDs []string `json:"vpcEndpointIds,omitempty"`
}

// API is the RestApi resource itself.
type API struct {
	ID                        string                 `json:"id"`
	Name                      string                 `json:"name"`
	Description               string                 `json:"description,omitempty"`
	CreatedDate               awswire.Epoch          `json:"createdDate"`
	Version                   string                 `json:"version,omitempty"`
	Warnings                  []string               `json:"warnings,omitempty"`
	BinaryMediaTypes          []string               `json:"binaryMediaTypes,omitempty"`
	MinimumCompressionSize    *int64                 `json:"minimumCompressionSize,omitempty"`
	APIKeySource              string                 `json:"apiKeySource,omitempty"`
	EndpointConfiguration     *EndpointConfiguration `json:"endpointConfiguration,omitempty"`
	Policy                    string                 `json:"policy,omitempty"`
	Tags                      map[string]string      `json:"tags,omitempty"`
	DisableExecuteAPIEndpoint bool                   `json:"disableExecuteApiEndpoint"`
	RootResourceID            string                 `json:"rootResourceId,omitempty"`
}

// Config is what a deployment freezes: everything execution reads. It is
// immutable, so a deployment shares it with the state it was taken from.
type Config struct {
	API              API                          `json:"api"`
	Resources        map[string]*Resource         `json:"resources"`
	Models           map[string]*Model            `json:"models,omitempty"`
	Authorizers      map[string]*Authorizer       `json:"authorizers,omitempty"`
	Validators       map[string]*RequestValidator `json:"requestValidators,omitempty"`
	GatewayResponses map[string]*GatewayResponse  `json:"gatewayResponses,omitempty"`
}

// RestAPI is one REST API as its owner last published it: the API, its
// live configuration, its deployments and stages.
type RestAPI struct {
	Config
	Deployments map[string]*Deployment
	Stages      map[string]*Stage
	// Seq orders APIs by creation.
	Seq uint64
	// Memo caches the GetRestApi body.
	Memo *actors.Memo
	// ResourcesMemo caches the GetResources body (without embed); a
	// mutation that leaves the resources alone keeps it.
	ResourcesMemo *actors.Memo
}
