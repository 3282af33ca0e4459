package apigatewayv2

// ParameterConstraints says whether a route's request parameter is required.
type ParameterConstraints struct {
	Required bool `json:"required"`
}

// Route is one route of an API: a route key and where it goes.
type Route struct {
	APIGatewayManaged                bool                             `json:"apiGatewayManaged,omitempty"`
	APIKeyRequired                   bool                             `json:"apiKeyRequired"`
	AuthorizationScopes              []string                         `json:"authorizationScopes,omitempty"`
	AuthorizationType                string                           `json:"authorizationType"`
	AuthorizerID                     string                           `json:"authorizerId,omitempty"`
	ModelSelectionExpression         string                           `json:"modelSelectionExpression,omitempty"`
	OperationName                    string                           `json:"operationName,omitempty"`
	RequestModels                    map[string]string                `json:"requestModels,omitempty"`
	RequestParameters                map[string]*ParameterConstraints `json:"requestParameters,omitempty"`
	RouteID                          string                           `json:"routeId"`
	RouteKey                         string                           `json:"routeKey"`
	RouteResponseSelectionExpression string                           `json:"routeResponseSelectionExpression,omitempty"`
	Target                           string                           `json:"target,omitempty"`
}

// RouteResponse is a WebSocket route's response.
type RouteResponse struct {
	ModelSelectionExpression string                           `json:"modelSelectionExpression,omitempty"`
	ResponseModels           map[string]string                `json:"responseModels,omitempty"`
	ResponseParameters       map[string]*ParameterConstraints `json:"responseParameters,omitempty"`
	RouteResponseID          string                           `json:"routeResponseId"`
	RouteResponseKey         string                           `json:"routeResponseKey"`
}

// RouteInput is the body of CreateRoute and UpdateRoute: a nil member was
// not sent (UpdateRoute changes only what was sent).
type RouteInput struct {
	APIKeyRequired                   *bool                            `json:"apiKeyRequired"`
	AuthorizationScopes              []string                         `json:"authorizationScopes"`
	AuthorizationType                *string                          `json:"authorizationType"`
	AuthorizerID                     *string                          `json:"authorizerId"`
	ModelSelectionExpression         *string                          `json:"modelSelectionExpression"`
	OperationName                    *string                          `json:"operationName"`
	RequestModels                    map[string]string                `json:"requestModels"`
	RequestParameters                map[string]*ParameterConstraints `json:"requestParameters"`
	RouteKey                         *string                          `json:"routeKey"`
	RouteResponseSelectionExpression *string                          `json:"routeResponseSelectionExpression"`
	Target                           *string                          `json:"target"`
}

// RouteResponseInput is the body of CreateRouteResponse and
// UpdateRouteResponse; a nil member was not sent.
type RouteResponseInput struct {
	ModelSelectionExpression *string                          `json:"modelSelectionExpression"`
	ResponseModels           map[string]string                `json:"responseModels"`
	ResponseParameters       map[string]*ParameterConstraints `json:"responseParameters"`
	RouteResponseKey         *string                          `json:"routeResponseKey"`
}
