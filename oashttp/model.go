package oashttp

// API is an HTTP API as an OpenAPI document describes it.
type API struct {
	Name                      string
	Description               string
	Version                   string
	CORS                      *CORS
	ImportExportVersion       string
	DisableExecuteAPIEndpoint *bool
	// Routes are in the document's order (paths sorted, then methods).
	Routes []Route
	// Integrations are distinct definitions: routes sharing one share it.
	Integrations []Integration
	Authorizers  []Authorizer
	// Warnings are what AWS warns about and ignores.
	Warnings []string
	// ServerURL is the first server's URL, variables substituted.
	ServerURL string
}

// CORS is x-amazon-apigateway-cors, spelled as AWS's corsConfiguration.
type CORS struct {
	AllowCredentials *bool    `json:"allowCredentials,omitempty"`
	AllowHeaders     []string `json:"allowHeaders,omitempty"`
	AllowMethods     []string `json:"allowMethods,omitempty"`
	AllowOrigins     []string `json:"allowOrigins,omitempty"`
	ExposeHeaders    []string `json:"exposeHeaders,omitempty"`
	MaxAge           *int64   `json:"maxAge,omitempty"`
}

// Integration is x-amazon-apigateway-integration.
type Integration struct {
	Type                 string                       `json:"type"`
	Subtype              string                       `json:"integrationSubtype,omitempty"`
	HTTPMethod           string                       `json:"httpMethod,omitempty"`
	URI                  string                       `json:"uri,omitempty"`
	PayloadFormatVersion string                       `json:"payloadFormatVersion,omitempty"`
	ConnectionType       string                       `json:"connectionType,omitempty"`
	ConnectionID         string                       `json:"connectionId,omitempty"`
	Credentials          string                       `json:"credentials,omitempty"`
	Description          string                       `json:"description,omitempty"`
	TimeoutInMillis      *int64                       `json:"timeoutInMillis,omitempty"`
	RequestParameters    map[string]string            `json:"requestParameters,omitempty"`
	ResponseParameters   map[string]map[string]string `json:"responseParameters,omitempty"`
	TLSConfig            *TLSConfig                   `json:"tlsConfig,omitempty"`
}

// TLSConfig is an integration's tlsConfig.
type TLSConfig struct {
	ServerNameToVerify string `json:"serverNameToVerify,omitempty"`
}

// Route is one path and method of the document.
type Route struct {
	Key string
	// Integration indexes API.Integrations; -1 when the route has none.
	Integration int
	// AuthorizationType is NONE, JWT, CUSTOM or AWS_IAM.
	AuthorizationType string
	// Authorizer names an entry of API.Authorizers (JWT and CUSTOM).
	Authorizer string
	Scopes     []string
	// OperationName is the operation's operationId.
	OperationName string
}

// Authorizer is a security scheme with x-amazon-apigateway-authorizer.
type Authorizer struct {
	Name string
	// Type is JWT or REQUEST.
	Type                  string
	URI                   string
	Credentials           string
	PayloadFormatVersion  string
	EnableSimpleResponses *bool
	IdentitySource        []string
	ResultTTLInSeconds    *int32
	Issuer                string
	Audience              []string
}
