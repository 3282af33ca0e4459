package apigatewayv2

// TLSConfig is an integration's TLS settings.
type TLSConfig struct {
	ServerNameToVerify string `json:"serverNameToVerify,omitempty"`
}

// Integration is a route's backend.
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
}

// IntegrationResponse is a WebSocket integration's response.
type IntegrationResponse struct {
	ContentHandlingStrategy     string            `json:"contentHandlingStrategy,omitempty"`
	IntegrationResponseID       string            `json:"integrationResponseId"`
	IntegrationResponseKey      string            `json:"integrationResponseKey"`
	ResponseParameters          map[string]string `json:"responseParameters,omitempty"`
	ResponseTemplates           map[string]string `json:"responseTemplates,omitempty"`
	TemplateSelectionExpression string            `json:"templateSelectionExpression,omitempty"`
}

// Model is a JSON Schema for payloads (WebSocket APIs).
type Model struct {
	ContentType string `json:"contentType,omitempty"`
	Description string `json:"description,omitempty"`
	ModelID     string `json:"modelId"`
	Name        string `json:"name"`
	Schema      string `json:"schema,omitempty"`
}
