package apigateway

// Model is a JSON Schema for payloads. The schema is kept as the client
// sent it: AWS echoes it byte for byte.
type Model struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Schema      string `json:"schema,omitempty"`
	ContentType string `json:"contentType,omitempty"`
}

// Authorizer is a Lambda (TOKEN, REQUEST) or Cognito authorizer. The spec's
// JWT type is stored as sent. AuthorizerResultTTLInSeconds is absent unless
// the client set it (AWS does not echo its default of 300; see
// AuthorizerTTL).
type Authorizer struct {
	ID                           string   `json:"id"`
	Name                         string   `json:"name"`
	Type                         string   `json:"type"`
	ProviderARNs                 []string `json:"providerARNs,omitempty"`
	AuthType                     string   `json:"authType,omitempty"`
	AuthorizerURI                string   `json:"authorizerUri,omitempty"`
	AuthorizerCredentials        string   `json:"authorizerCredentials,omitempty"`
	IdentitySource               string   `json:"identitySource,omitempty"`
	IdentityValidationExpression string   `json:"identityValidationExpression,omitempty"`
	AuthorizerResultTTLInSeconds *int64   `json:"authorizerResultTtlInSeconds,omitempty"`
}

// RequestValidator says what of a request is validated.
type RequestValidator struct {
	ID                        string `json:"id"`
	Name                      string `json:"name,omitempty"`
	ValidateRequestBody       bool   `json:"validateRequestBody"`
	ValidateRequestParameters bool   `json:"validateRequestParameters"`
}

// GatewayResponse is the answer API Gateway gives for one response type.
// AWS always lists responseParameters and responseTemplates, as {} when
// empty; a response built by this package never has them nil.
type GatewayResponse struct {
	ResponseType       string            `json:"responseType"`
	StatusCode         string            `json:"statusCode,omitempty"`
	ResponseParameters map[string]string `json:"responseParameters,omitzero"`
	ResponseTemplates  map[string]string `json:"responseTemplates,omitzero"`
	DefaultResponse    bool              `json:"defaultResponse"`
}
