package apigateway

// Resource is one path of an API, with its methods.
type Resource struct {
	ID       string             `json:"id"`
	ParentID string             `json:"parentId,omitempty"`
	PathPart string             `json:"pathPart,omitempty"`
	Path     string             `json:"path"`
	Methods  map[string]*Method `json:"resourceMethods,omitempty"`
}

// Method is one HTTP method of a resource, with its integration and
// responses.
type Method struct {
	HTTPMethod          string                     `json:"httpMethod"`
	AuthorizationType   string                     `json:"authorizationType"`
	AuthorizerID        string                     `json:"authorizerId,omitempty"`
	APIKeyRequired      bool                       `json:"apiKeyRequired"`
	RequestValidatorID  string                     `json:"requestValidatorId,omitempty"`
	OperationName       string                     `json:"operationName,omitempty"`
	RequestParameters   map[string]bool            `json:"requestParameters,omitempty"`
	RequestModels       map[string]string          `json:"requestModels,omitempty"`
	MethodResponses     map[string]*MethodResponse `json:"methodResponses,omitempty"`
	Integration         *Integration               `json:"methodIntegration,omitempty"`
	AuthorizationScopes []string                   `json:"authorizationScopes,omitempty"`
}

// MethodResponse is a method's declared response for one status code.
type MethodResponse struct {
	StatusCode         string            `json:"statusCode"`
	ResponseParameters map[string]bool   `json:"responseParameters,omitempty"`
	ResponseModels     map[string]string `json:"responseModels,omitempty"`
}

// TLSConfig is an integration's TLS settings.
type TLSConfig struct {
	InsecureSkipVerification bool `json:"insecureSkipVerification"`
}

// Integration is a method's backend. HTTPMethod travels as "httpMethod"
// (the model's integrationHttpMethod).
type Integration struct {
	Type                 string                          `json:"type"`
	HTTPMethod           string                          `json:"httpMethod,omitempty"`
	URI                  string                          `json:"uri,omitempty"`
	ConnectionType       string                          `json:"connectionType,omitempty"`
	ConnectionID         string                          `json:"connectionId,omitempty"`
	Credentials          string                          `json:"credentials,omitempty"`
	RequestParameters    map[string]string               `json:"requestParameters,omitempty"`
	RequestTemplates     map[string]string               `json:"requestTemplates,omitempty"`
	PassthroughBehavior  string                          `json:"passthroughBehavior,omitempty"`
	ContentHandling      string                          `json:"contentHandling,omitempty"`
	TimeoutInMillis      int64                           `json:"timeoutInMillis"`
	CacheNamespace       string                          `json:"cacheNamespace,omitempty"`
	CacheKeyParameters   []string                        `json:"cacheKeyParameters"`
	IntegrationResponses map[string]*IntegrationResponse `json:"integrationResponses,omitempty"`
	TLSConfig            *TLSConfig                      `json:"tlsConfig,omitempty"`
	ResponseTransferMode string                          `json:"responseTransferMode,omitempty"`
	IntegrationTarget    string                          `json:"integrationTarget,omitempty"`
}

// IntegrationResponse maps a backend answer to a method response.
type IntegrationResponse struct {
	StatusCode         string            `json:"statusCode"`
	SelectionPattern   string            `json:"selectionPattern,omitempty"`
	ResponseParameters map[string]string `json:"responseParameters,omitempty"`
	ResponseTemplates  map[string]string `json:"responseTemplates,omitempty"`
	ContentHandling    string            `json:"contentHandling,omitempty"`
}
