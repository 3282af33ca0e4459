package apigateway

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
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
// Its collections are persistent maps: a change copies O(log n) of a
// collection, never all of it.
type Config struct {
	API              API                         `json:"api"`
	Resources        pmap.Map[*Resource]         `json:"resources"`
	Models           pmap.Map[*Model]            `json:"models,omitzero"`
	Authorizers      pmap.Map[*Authorizer]       `json:"authorizers,omitzero"`
	Validators       pmap.Map[*RequestValidator] `json:"requestValidators,omitzero"`
	GatewayResponses pmap.Map[*GatewayResponse]  `json:"gatewayResponses,omitzero"`
	// Children indexes the resources by place, childKey(parent, pathPart)
	// → id, so that siblings are found without a scan. It is derived from
	// Resources (the Tx keeps it; restores rebuild it).
	Children pmap.Map[string] `json:"-"`
}

// StateCache is what readers cache for one published state of a REST
// API: the GetRestApi body (the Memo) and the data plane's compiled form
// (Exec), in one allocation.
type StateCache struct {
	actors.Memo
	Exec actors.Lazy
}

// RestAPI is one REST API as its owner last published it: the API, its
// live configuration, its deployments and stages.
type RestAPI struct {
	Config
	Deployments pmap.Map[*Deployment]
	Stages      pmap.Map[*Stage]
	// Seq orders APIs by creation.
	Seq uint64
	// Memo caches the GetRestApi body, and what the data plane compiles
	// from the live configuration (TestInvokeMethod), once per published
	// state.
	Memo *StateCache
	// ResourcesMemo caches the GetResources body (without embed); a
	// mutation that leaves the resources alone keeps it.
	ResourcesMemo *actors.Memo
}
