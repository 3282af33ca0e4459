package apigatewayv2

// TLSConfig is an integration's TLS settings.
type TLSConfig struct {
	ServerNameToVerify string `json:"serverNameToVerify,omitempty"`
}

// Integration is a route's backend. IntegrationType is kept as the client
// sent it (the spec's CLOUD_PROXY and CLOUD included).
type Integration struct {
	APIGatewayManaged                      bool                         `json:"apiGatewayManaged,omitempty"`
	ConnectionID                           string                       `json:"connectionId,omitempty"`
	ConnectionType                         string                       `json:"connectionType,omitempty"`
	ContentHandlingStrategy                string                       `json:"contentHandlingStrategy,omitempty"`
	CredentialsARN                         string                       `json:"credentialsArn,omitempty"`
	Description                            string                       `json:"description,omitempty"`
	IntegrationID                          string                       `json:"integrationId"`
	IntegrationMethod                      string                       `json:"integrationMethod,omitempty"`
	IntegrationResponseSelectionExpression string                       `json:"integrationResponseSelectionExpression,omitempty"`
	IntegrationSubtype                     string                       `json:"integrationSubtype,omitempty"`
	IntegrationType                        string                       `json:"integrationType"`
	IntegrationURI                         string                       `json:"integrationUri,omitempty"`
	PassthroughBehavior                    string                       `json:"passthroughBehavior,omitempty"`
	PayloadFormatVersion                   string                       `json:"payloadFormatVersion,omitempty"`
	RequestParameters                      map[string]string            `json:"requestParameters,omitempty"`
	RequestTemplates                       map[string]string            `json:"requestTemplates,omitempty"`
	ResponseParameters                     map[string]map[string]string `json:"responseParameters,omitempty"`
	TemplateSelectionExpression            string                       `json:"templateSelectionExpression,omitempty"`
	TimeoutInMillis                        int64                        `json:"timeoutInMillis,omitempty"`
	TLSConfig                              *TLSConfig                   `json:"tlsConfig,omitempty"`
	// Seq orders integrations by creation (lists page in that order). It
	// is persisted with the record; the wire encoding leaves it out.
	Seq uint64 `json:"seq,omitempty"`
}

// IntegrationResponse is a WebSocket integration's response.
type IntegrationResponse struct {
	ContentHandlingStrategy     string            `json:"contentHandlingStrategy,omitempty"`
	IntegrationResponseID       string            `json:"integrationResponseId"`
	IntegrationResponseKey      string            `json:"integrationResponseKey"`
	ResponseParameters          map[string]string `json:"responseParameters,omitempty"`
	ResponseTemplates           map[string]string `json:"responseTemplates,omitempty"`
	TemplateSelectionExpression string            `json:"templateSelectionExpression,omitempty"`
	// Seq orders responses by creation; persisted, not sent.
	Seq uint64 `json:"seq,omitempty"`
}

// Model is a JSON Schema for payloads (WebSocket APIs).
type Model struct {
	ContentType string `json:"contentType,omitempty"`
	Description string `json:"description,omitempty"`
	ModelID     string `json:"modelId"`
	Name        string `json:"name"`
	Schema      string `json:"schema,omitempty"`
	// Seq orders models by creation; persisted, not sent.
	Seq uint64 `json:"seq,omitempty"`
}

// IntegrationInput is a CreateIntegration or UpdateIntegration request: a
// nil member was absent. In an update, a request parameter whose value is
// "" is removed, and so is a response-parameter status code whose mapping
// is empty (Terraform removes them so).
type IntegrationInput struct {
	ConnectionID                *string
	ConnectionType              *string
	ContentHandlingStrategy     *string
	CredentialsARN              *string
	Description                 *string
	IntegrationMethod           *string
	IntegrationSubtype          *string
	IntegrationType             *string
	IntegrationURI              *string
	PassthroughBehavior         *string
	PayloadFormatVersion        *string
	RequestParameters           map[string]string
	RequestTemplates            map[string]string
	ResponseParameters          map[string]map[string]string
	TemplateSelectionExpression *string
	TimeoutInMillis             *int64
	TLSConfig                   *TLSConfig
}

// IntegrationResponseInput is a CreateIntegrationResponse or
// UpdateIntegrationResponse request: a nil member was absent.
type IntegrationResponseInput struct {
	ContentHandlingStrategy     *string
	IntegrationResponseKey      *string
	ResponseParameters          map[string]string
	ResponseTemplates           map[string]string
	TemplateSelectionExpression *string
}

// ModelInput is a CreateModel or UpdateModel request: a nil member was
// absent.
type ModelInput struct {
	ContentType *string
	Description *string
	Name        *string
	Schema      *string
}
