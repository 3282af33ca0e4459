package apigateway

import (
	"github.com/cloudemu/emulator/httpfront/wire"
)

// MethodSnapshot summarises a method in a deployment's apiSummary.
type MethodSnapshot struct {
	AuthorizationType string `json:"authorizationType,omitempty"`
	APIKeyRequired    bool   `json:"apiKeyRequired"`
}

// Deployment is a frozen configuration of an API.
type Deployment struct {
	ID          string                                `json:"id"`
	Description string                                `json:"description,omitempty"`
	CreatedDate wire.Epoch                            `json:"createdDate"`
	APISummary  map[string]map[string]*MethodSnapshot `json:"apiSummary,omitempty"`
	// Frozen is the configuration at creation; it never changes. It is
	// persisted with the deployment (DeploymentRecord), never sent.
	Frozen *Config `json:"-"`
}

// DeploymentRecord is a deployment as it is persisted.
type DeploymentRecord struct {
	Deployment
	Frozen *Config `json:"frozen"`
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

// CanarySettings are a stage's canary settings.
type CanarySettings struct {
	PercentTraffic         float64           `json:"percentTraffic,omitempty"`
	DeploymentID           string            `json:"deploymentId,omitempty"`
	StageVariableOverrides map[string]string `json:"stageVariableOverrides,omitempty"`
	UseStageCache          bool              `json:"useStageCache"`
}

// Stage points a name at a deployment, with variables.
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
	CreatedDate          wire.Epoch                `json:"createdDate"`
	LastUpdatedDate      wire.Epoch                `json:"lastUpdatedDate"`
}
