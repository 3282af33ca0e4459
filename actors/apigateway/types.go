package apigateway

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/httpfront/wire"
)

// The types below are API Gateway's resources with the model's wire names:
// they are what the owners keep, what the store persists and what the
// handlers encode. Every value reachable from a published state is
// immutable: a mutation copies what it changes (see the clone helpers).

// EndpointConfiguration is where an API or domain is served.
type EndpointConfiguration struct {
	Types          []string `json:"types,omitempty"`
	IPAddressType  string   `json:"ipAddressType,omitempty"`
	VpcEndpointIDs []string `json:"vpcEndpointIds,omitempty"`
}

// API is the RestApi resource itself.
type API struct {
	ID                        string                 `json:"id"`
	Name                      string                 `json:"name"`
	Description               string                 `json:"description,omitempty"`
	CreatedDate               wire.Epoch             `json:"createdDate"`
	Version                   string                 `json:"version,omitempty"`
	Warnings                  []string               `json:"warnings,omitempty"`
	BinaryMediaTypes          []string               `json:"binaryMediaTypes,omitempty"`
	MinimumCompressionSize    *int64                 `json:"minimumCompressionSize,omitempty"`
	APIKeySource              string                 `json:"apiKeySource,omitempty"`
	EndpointConfiguration     *EndpointConfiguration `json:"endpointConfiguration,omitempty"`
	Policy                    string                 `json:"policy,omitempty"`
	Tags                      map[string]string      `json:"tags,omitempty"`
	DisableExecuteAPIEndpoint bool                   `json:"disableExecuteApiEndpoint"`
	RootResourceID            string                 `json:"rootResourceId,omitempty"`
}

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

// Model is a JSON Schema for payloads.
type Model struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Schema      string `json:"schema,omitempty"`
	ContentType string `json:"contentType,omitempty"`
}

// Authorizer is a Lambda (TOKEN, REQUEST) or Cognito authorizer. The spec's
// JWT type is stored as sent.
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
type GatewayResponse struct {
	ResponseType       string            `json:"responseType"`
	StatusCode         string            `json:"statusCode,omitempty"`
	ResponseParameters map[string]string `json:"responseParameters,omitempty"`
	ResponseTemplates  map[string]string `json:"responseTemplates,omitempty"`
	DefaultResponse    bool              `json:"defaultResponse"`
}

// MethodSnapshot summarises a method in a deployment's apiSummary.
type MethodSnapshot struct {
	AuthorizationType string `json:"authorizationType,omitempty"`
	APIKeyRequired    bool   `json:"apiKeyRequired"`
}

// Config is what a deployment freezes: everything execution reads. It is
// immutable, so a deployment shares it with the state it was taken from.
type Config struct {
	API              API                          `json:"api"`
	Resources        map[string]*Resource         `json:"resources"`
	Models           map[string]*Model            `json:"models,omitempty"`
	Authorizers      map[string]*Authorizer       `json:"authorizers,omitempty"`
	Validators       map[string]*RequestValidator `json:"requestValidators,omitempty"`
	GatewayResponses map[string]*GatewayResponse  `json:"gatewayResponses,omitempty"`
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

// RestAPI is one REST API as its owner last published it: the API, its
// live configuration, its deployments and stages.
type RestAPI struct {
	Config
	Deployments map[string]*Deployment
	Stages      map[string]*Stage
	// Seq orders APIs by creation.
	Seq uint64
	// Memo caches the GetRestApi body.
	Memo *actors.Memo
}

// ApiStage names a stage a usage plan covers, with per-method throttles.
type ApiStage struct {
	APIID    string                       `json:"apiId"`
	Stage    string                       `json:"stage"`
	Throttle map[string]*ThrottleSettings `json:"throttle,omitempty"`
}

// ThrottleSettings are a token bucket's rate (requests per second) and
// burst.
type ThrottleSettings struct {
	BurstLimit int64   `json:"burstLimit"`
	RateLimit  float64 `json:"rateLimit"`
}

// QuotaSettings are a usage plan's request quota per period.
type QuotaSettings struct {
	Limit  int64  `json:"limit"`
	Offset int64  `json:"offset"`
	Period string `json:"period"`
}

// APIKey is an API key.
type APIKey struct {
	ID              string            `json:"id"`
	Value           string            `json:"value,omitempty"`
	Name            string            `json:"name,omitempty"`
	CustomerID      string            `json:"customerId,omitempty"`
	Description     string            `json:"description,omitempty"`
	Enabled         bool              `json:"enabled"`
	CreatedDate     wire.Epoch        `json:"createdDate"`
	LastUpdatedDate wire.Epoch        `json:"lastUpdatedDate"`
	StageKeys       []string          `json:"stageKeys"`
	Tags            map[string]string `json:"tags,omitempty"`
}

// KeyState is an API key as its owner keeps and persists it.
type KeyState struct {
	Key  APIKey       `json:"key"`
	Seq  uint64       `json:"seq"`
	Memo *actors.Memo `json:"-"`
}

// UsagePlan is a usage plan.
type UsagePlan struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	APIStages   []ApiStage        `json:"apiStages"`
	Throttle    *ThrottleSettings `json:"throttle,omitempty"`
	Quota       *QuotaSettings    `json:"quota,omitempty"`
	ProductCode string            `json:"productCode,omitempty"`
	Tags        map[string]string `json:"tags,omitempty"`
}

// PlanState is a usage plan as its owner keeps and persists it, with the
// API keys linked to it in the order they were added.
type PlanState struct {
	Plan   UsagePlan `json:"plan"`
	KeyIDs []string  `json:"keyIds,omitempty"`
	Seq    uint64    `json:"seq"`
}

// DomainName is a custom domain name, inert metadata, with its base path
// mappings.
type DomainName struct {
	DomainName               string                 `json:"domainName"`
	DomainNameID             string                 `json:"domainNameId,omitempty"`
	DomainNameARN            string                 `json:"domainNameArn,omitempty"`
	CertificateName          string                 `json:"certificateName,omitempty"`
	CertificateARN           string                 `json:"certificateArn,omitempty"`
	CertificateUploadDate    *wire.Epoch            `json:"certificateUploadDate,omitempty"`
	RegionalDomainName       string                 `json:"regionalDomainName,omitempty"`
	RegionalHostedZoneID     string                 `json:"regionalHostedZoneId,omitempty"`
	RegionalCertificateName  string                 `json:"regionalCertificateName,omitempty"`
	RegionalCertificateARN   string                 `json:"regionalCertificateArn,omitempty"`
	DistributionDomainName   string                 `json:"distributionDomainName,omitempty"`
	DistributionHostedZoneID string                 `json:"distributionHostedZoneId,omitempty"`
	EndpointConfiguration    *EndpointConfiguration `json:"endpointConfiguration,omitempty"`
	DomainNameStatus         string                 `json:"domainNameStatus,omitempty"`
	SecurityPolicy           string                 `json:"securityPolicy,omitempty"`
	Tags                     map[string]string      `json:"tags,omitempty"`
}

// DomainState is a domain name as its owner keeps and persists it, with its
// base path mappings by base path ("(none)" for the empty one, as AWS
// names it).
type DomainState struct {
	Domain   DomainName                  `json:"domain"`
	Mappings map[string]*BasePathMapping `json:"mappings,omitempty"`
	Seq      uint64                      `json:"seq"`
}

// BasePathMapping maps a domain's base path to an API stage.
type BasePathMapping struct {
	BasePath  string `json:"basePath"`
	RestAPIID string `json:"restApiId"`
	Stage     string `json:"stage,omitempty"`
}

// VpcLink is a VPC link, AVAILABLE at once.
type VpcLink struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Description   string            `json:"description,omitempty"`
	TargetARNs    []string          `json:"targetArns"`
	Status        string            `json:"status"`
	StatusMessage string            `json:"statusMessage,omitempty"`
	Tags          map[string]string `json:"tags,omitempty"`
}

// LinkState is a VPC link as its owner keeps and persists it.
type LinkState struct {
	Link VpcLink `json:"link"`
	Seq  uint64  `json:"seq"`
}
