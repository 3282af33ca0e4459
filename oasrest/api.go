package oasrest

// API is a REST API as an OpenAPI document describes it. Names (of
// models, authorizers, validators) link its parts; the importer gives them
// ids.
type API struct {
	Name                      string
	Description               string
	Version                   string
	APIKeySource              string
	BinaryMediaTypes          []string
	MinimumCompressionSize    *int64
	EndpointTypes             []string
	VpcEndpointIDs            []string
	DisableExecuteAPIEndpoint bool
	// Policy is the resource policy's JSON text (x-amazon-apigateway-policy).
	Policy     string
	Models     []Model
	Validators []Validator
	// DefaultValidator names the validator of the methods that name none.
	DefaultValidator string
	GatewayResponses []GatewayResponse
	Authorizers      []Authorizer
	// Resources are listed by path, each path once, parents first.
	Resources []Resource
	// Warnings are what AWS warns about and imports without.
	Warnings []string
}

// ModelURLPrefix starts the URL a model's schema uses to name another model
// of the same API; RestAPIIDPlaceholder stands for the API's id, which the
// importer knows and this package does not.
const (
	RestAPIIDPlaceholder = "{restapi_id}"
	ModelURLPrefix       = "https://apigateway.amazonaws.com/restapis/" + RestAPIIDPlaceholder + "/models/"
)

// Model is a JSON schema of the API. Schema's references to other models
// are ModelURLPrefix + name.
type Model struct {
	Name        string
	Description string
	ContentType string
	Schema      string
}

// Validator is a request validator.
type Validator struct {
	Name                      string
	ValidateRequestBody       bool
	ValidateRequestParameters bool
}

// GatewayResponse is a customised gateway response.
type GatewayResponse struct {
	ResponseType       string
	StatusCode         string
	ResponseParameters map[string]string
	ResponseTemplates  map[string]string
}

// Authorizer is a Lambda (TOKEN, REQUEST) or Cognito authorizer, named by
// its security scheme.
type Authorizer struct {
	Name                         string
	Type                         string
	AuthType                     string
	AuthorizerURI                string
	AuthorizerCredentials        string
	IdentitySource               string
	IdentityValidationExpression string
	AuthorizerResultTTLInSeconds *int64
	ProviderARNs                 []string
}

// Resource is one path with its methods.
type Resource struct {
	Path    string
	Methods []Method
}

// Method is one operation of a path.
type Method struct {
	HTTPMethod          string
	OperationName       string
	AuthorizationType   string
	Authorizer          string // an Authorizer's name
	AuthorizationScopes []string
	APIKeyRequired      bool
	Validator           string // a Validator's name; "" for the default
	RequestParameters   map[string]bool
	RequestModels       map[string]string
	Responses           []MethodResponse
	Integration         *Integration
}

// MethodResponse is a declared response.
type MethodResponse struct {
	StatusCode         string
	ResponseParameters map[string]bool
	ResponseModels     map[string]string
}

// Integration is x-amazon-apigateway-integration. Type is upper case.
type Integration struct {
	Type                     string
	HTTPMethod               string
	URI                      string
	ConnectionType           string
	ConnectionID             string
	Credentials              string
	RequestParameters        map[string]string
	RequestTemplates         map[string]string
	PassthroughBehavior      string
	ContentHandling          string
	TimeoutInMillis          *int64
	CacheNamespace           string
	CacheKeyParameters       []string
	InsecureSkipVerification *bool
	Responses                []IntegrationResponse
}

// IntegrationResponse is one entry of the integration's responses; Pattern
// is nil for "default".
type IntegrationResponse struct {
	StatusCode         string
	SelectionPattern   *string
	ResponseParameters map[string]string
	ResponseTemplates  map[string]string
	ContentHandling    string
}
