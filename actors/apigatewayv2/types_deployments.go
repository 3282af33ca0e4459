package apigatewayv2

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Deployment is a frozen configuration of an API.
type Deployment struct {
	AutoDeployed            bool            `json:"autoDeployed"`
	CreatedDate             awswire.ISOTime `json:"createdDate"`
	DeploymentID            string          `json:"deploymentId"`
	DeploymentStatus        string          `json:"deploymentStatus"`
	DeploymentStatusMessage string          `json:"deploymentStatusMessage,omitempty"`
	Description             string          `json:"description,omitempty"`
	// Frozen is the configuration at creation; persisted with the
	// deployment (DeploymentRecord), never sent.
	Frozen *Config `json:"-"`
	// Seq orders deployments by creation.
	Seq uint64 `json:"-"`
	// Exec holds what the data plane compiles from Frozen, once.
	Exec *actors.Lazy `json:"-"`
}

// DeploymentRecord is a deployment as it is persisted.
type DeploymentRecord struct {
	Deployment
	Frozen *Config `json:"frozen"`
	Seq    uint64  `json:"seq"`
}

// RouteSettings are a stage's per-route (or default) settings. Members a
// client did not set are absent (nil).
type RouteSettings struct {
	DataTraceEnabled       *bool    `json:"dataTraceEnabled,omitempty"`
	DetailedMetricsEnabled *bool    `json:"detailedMetricsEnabled,omitempty"`
	LoggingLevel           *string  `json:"loggingLevel,omitempty"`
	ThrottlingBurstLimit   *int32   `json:"throttlingBurstLimit,omitempty"`
	ThrottlingRateLimit    *float64 `json:"throttlingRateLimit,omitempty"`
}

// AccessLogSettings are a stage's access-log settings.
type AccessLogSettings struct {
	DestinationARN string `json:"destinationArn,omitempty"`
	Format         string `json:"format,omitempty"`
}

// Stage points a name at a deployment, with variables and route settings.
// routeSettings, stageVariables and tags are always on the wire ({} when
// empty, as AWS sends them); autoDeploy only when true.
type Stage struct {
	AccessLogSettings           *AccessLogSettings        `json:"accessLogSettings,omitempty"`
	APIGatewayManaged           bool                      `json:"apiGatewayManaged,omitempty"`
	AutoDeploy                  bool                      `json:"autoDeploy,omitempty"`
	ClientCertificateID         string                    `json:"clientCertificateId,omitempty"`
	CreatedDate                 awswire.ISOTime           `json:"createdDate"`
	DefaultRouteSettings        *RouteSettings            `json:"defaultRouteSettings,omitempty"`
	DeploymentID                string                    `json:"deploymentId,omitempty"`
	Description                 string                    `json:"description,omitempty"`
	LastDeploymentStatusMessage string                    `json:"lastDeploymentStatusMessage,omitempty"`
	LastUpdatedDate             awswire.ISOTime           `json:"lastUpdatedDate"`
	RouteSettings               map[string]*RouteSettings `json:"routeSettings"`
	StageName                   string                    `json:"stageName"`
	StageVariables              map[string]string         `json:"stageVariables"`
	Tags                        map[string]string         `json:"tags"`
}

// JWTConfiguration is a JWT authorizer's issuer and audiences.
type JWTConfiguration struct {
	Audience []string `json:"audience,omitempty"`
	Issuer   string   `json:"issuer,omitempty"`
}

// Authorizer is a REQUEST (Lambda) or JWT authorizer.
type Authorizer struct {
	AuthorizerCredentialsARN       string            `json:"authorizerCredentialsArn,omitempty"`
	AuthorizerID                   string            `json:"authorizerId"`
	AuthorizerPayloadFormatVersion string            `json:"authorizerPayloadFormatVersion,omitempty"`
	AuthorizerResultTTLInSeconds   *int32            `json:"authorizerResultTtlInSeconds,omitempty"`
	AuthorizerType                 string            `json:"authorizerType"`
	AuthorizerURI                  string            `json:"authorizerUri,omitempty"`
	EnableSimpleResponses          bool              `json:"enableSimpleResponses,omitempty"`
	IdentitySource                 []string          `json:"identitySource,omitempty"`
	IdentityValidationExpression   string            `json:"identityValidationExpression,omitempty"`
	JWTConfiguration               *JWTConfiguration `json:"jwtConfiguration,omitempty"`
	Name                           string            `json:"name"`
}

// CreateDeploymentInput is CreateDeployment's body.
type CreateDeploymentInput struct {
	Description *string `json:"description"`
	StageName   *string `json:"stageName"`
}

// UpdateDeploymentInput is UpdateDeployment's body.
type UpdateDeploymentInput struct {
	Description *string `json:"description"`
}

// StageInput is CreateStage's and UpdateStage's body; a nil member was not
// sent.
type StageInput struct {
	AccessLogSettings    *AccessLogSettings        `json:"accessLogSettings"`
	AutoDeploy           *bool                     `json:"autoDeploy"`
	ClientCertificateID  *string                   `json:"clientCertificateId"`
	DefaultRouteSettings *RouteSettings            `json:"defaultRouteSettings"`
	DeploymentID         *string                   `json:"deploymentId"`
	Description          *string                   `json:"description"`
	RouteSettings        map[string]*RouteSettings `json:"routeSettings"`
	StageName            *string                   `json:"stageName"`
	StageVariables       map[string]string         `json:"stageVariables"`
	Tags                 map[string]string         `json:"tags"`
}

// AuthorizerInput is CreateAuthorizer's and UpdateAuthorizer's body; a nil
// member was not sent.
type AuthorizerInput struct {
	AuthorizerCredentialsARN       *string           `json:"authorizerCredentialsArn"`
	AuthorizerPayloadFormatVersion *string           `json:"authorizerPayloadFormatVersion"`
	AuthorizerResultTTLInSeconds   *int32            `json:"authorizerResultTtlInSeconds"`
	AuthorizerType                 *string           `json:"authorizerType"`
	AuthorizerURI                  *string           `json:"authorizerUri"`
	EnableSimpleResponses          *bool             `json:"enableSimpleResponses"`
	IdentitySource                 []string          `json:"identitySource"`
	IdentityValidationExpression   *string           `json:"identityValidationExpression"`
	JWTConfiguration               *JWTConfiguration `json:"jwtConfiguration"`
	Name                           *string           `json:"name"`
}
