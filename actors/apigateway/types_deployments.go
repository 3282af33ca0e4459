package apigateway

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// MethodSnapshot summarises a method in a deployment's apiSummary.
type MethodSnapshot struct {
	AuthorizationType string `json:"authorizationType,omitempty"`
	APIKeyRequired    bool   `json:"apiKeyRequired"`
}

// Deployment is a frozen configuration of an API. Its apiSummary is not
// kept: GetDeployment computes it from Frozen when asked (embed).
type Deployment struct {
	ID          string        `json:"id"`
	Description string        `json:"description,omitempty"`
	CreatedDate awswire.Epoch `json:"createdDate"`
	// Frozen is the configuration at creation; it never changes. It is
	// persisted with the deployment (DeploymentRecord), never sent.
	Frozen *Config `json:"-"`
	// Seq orders deployments by creation, which dates (milliseconds) do
	// not when two are made at once.
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

// MethodSetting is a stage's per-method setting.
type MethodSetting struct {
	MetricsEnabled                         bool    `json:"metricsEnabled"`
	LoggingLevel                           string  `json:"loggingLevel,omitempty"`
	DataTraceEnabled                       bool    `json:"dataTraceEnabled"`
	ThrottlingBurstLimit                   int64   `json:"throttlingBurstLimit"`
	ThrottlingRateLimit                    float64 `json:"throttlingRateLimit"`
	CachingEnabled                         bool    `json:"cachingEnabled"`
	CacheTTLInSeconds                      int64   `json:"cacheTtlInSeconds"`
	CacheDataEncrypted                     bool    `json:"cacheDataEncrypted"`
	RequireAuthorizationForCacheControl    bool    `json:"requireAuthorizationForCacheControl"`
	UnauthorizedCacheControlHeaderStrategy string  `json:"unauthorizedCacheControlHeaderStrategy,omitempty"`
}

// AccessLogSettings are a stage's access-log settings.
type AccessLogSettings struct {
	Format         string `json:"format,omitempty"`
	DestinationARN string `json:"destinationArn,omitempty"`
}

// CanarySettings are a stage's canary settings. percentTraffic is sent
// even when it is 0.0, as AWS does.
type CanarySettings struct {
	PercentTraffic         float64           `json:"percentTraffic"`
	DeploymentID           string            `json:"deploymentId,omitempty"`
	StageVariableOverrides map[string]string `json:"stageVariableOverrides,omitempty"`
	UseStageCache          bool              `json:"useStageCache"`
}

// Stage points a name at a deployment, with variables. MethodSettings is
// never nil, so that it is sent as {} when empty, as AWS does.
type Stage struct {
	DeploymentID         string                    `json:"deploymentId"`
	ClientCertificateID  string                    `json:"clientCertificateId,omitempty"`
	StageName            string                    `json:"stageName"`
	Description          string                    `json:"description,omitempty"`
	CacheClusterEnabled  bool                      `json:"cacheClusterEnabled"`
	CacheClusterSize     string                    `json:"cacheClusterSize,omitempty"`
	CacheClusterStatus   string                    `json:"cacheClusterStatus,omitempty"`
	MethodSettings       map[string]*MethodSetting `json:"methodSettings"`
	Variables            map[string]string         `json:"variables,omitempty"`
	DocumentationVersion string                    `json:"documentationVersion,omitempty"`
	AccessLogSettings    *AccessLogSettings        `json:"accessLogSettings,omitempty"`
	CanarySettings       *CanarySettings           `json:"canarySettings,omitempty"`
	TracingEnabled       bool                      `json:"tracingEnabled"`
	WebACLARN            string                    `json:"webAclArn,omitempty"`
	Tags                 map[string]string         `json:"tags,omitempty"`
	CreatedDate          awswire.Epoch             `json:"createdDate"`
	LastUpdatedDate      awswire.Epoch             `json:"lastUpdatedDate"`
}

// DeploymentCanaryInput is CreateDeployment's canarySettings.
type DeploymentCanaryInput struct {
	PercentTraffic         *float64          `json:"percentTraffic"`
	StageVariableOverrides map[string]string `json:"stageVariableOverrides"`
	UseStageCache          bool              `json:"useStageCache"`
}

// CreateDeploymentInput is the body of CreateDeployment. Pointers tell an
// absent member from an empty one, where AWS tells them apart.
type CreateDeploymentInput struct {
	StageName           *string                `json:"stageName"`
	StageDescription    string                 `json:"stageDescription"`
	Description         string                 `json:"description"`
	CacheClusterEnabled *bool                  `json:"cacheClusterEnabled"`
	CacheClusterSize    *string                `json:"cacheClusterSize"`
	Variables           map[string]string      `json:"variables"`
	CanarySettings      *DeploymentCanaryInput `json:"canarySettings"`
	TracingEnabled      *bool                  `json:"tracingEnabled"`
}

// StageCanaryInput is CreateStage's canarySettings.
type StageCanaryInput struct {
	PercentTraffic         *float64          `json:"percentTraffic"`
	DeploymentID           string            `json:"deploymentId"`
	StageVariableOverrides map[string]string `json:"stageVariableOverrides"`
	UseStageCache          bool              `json:"useStageCache"`
}

// CreateStageInput is the body of CreateStage.
type CreateStageInput struct {
	StageName            *string           `json:"stageName"`
	DeploymentID         *string           `json:"deploymentId"`
	Description          string            `json:"description"`
	CacheClusterEnabled  bool              `json:"cacheClusterEnabled"`
	CacheClusterSize     *string           `json:"cacheClusterSize"`
	Variables            map[string]string `json:"variables"`
	DocumentationVersion string            `json:"documentationVersion"`
	CanarySettings       *StageCanaryInput `json:"canarySettings"`
	TracingEnabled       bool              `json:"tracingEnabled"`
	Tags                 map[string]string `json:"tags"`
}
