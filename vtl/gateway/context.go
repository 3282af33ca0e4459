package gateway

import (
	"math"

	"github.com/cloudemu/emulator/vtl"
)

// Context is what the data plane knows about a request; NewContext turns
// it into $context. Empty fields are left out of the map, so they render
// as nothing and compare equal to $null, as API Gateway's absent values
// do. Field names follow the $context variables of the API Gateway
// developer guide (mapping template reference; docs/apigateway-execution.md §4).
type Context struct {
	AccountID         string // $context.accountId
	APIID             string // $context.apiId
	DeploymentID      string // $context.deploymentId
	DomainName        string // $context.domainName
	DomainPrefix      string // $context.domainPrefix
	ExtendedRequestID string // $context.extendedRequestId
	HTTPMethod        string // $context.httpMethod
	Path              string // $context.path: with the stage, "/dev/pets"
	Protocol          string // $context.protocol, "HTTP/1.1"
	RequestID         string // $context.requestId
	RequestTime       string // $context.requestTime, "dd/MMM/yyyy:HH:mm:ss +0000"
	RequestTimeEpoch  int64  // $context.requestTimeEpoch, milliseconds
	ResourceID        string // $context.resourceId
	ResourcePath      string // $context.resourcePath, "/pets/{id}"
	Stage             string // $context.stage
	Identity          Identity
	// Authorizer is $context.authorizer: principalId, claims (a map) and a
	// Lambda authorizer's context keys. Nil when there is no authorizer.
	Authorizer *vtl.Map
	// Error is $context.error, for gateway responses. Nil otherwise.
	Error *ErrorInfo
}

// Identity is $context.identity.
type Identity struct {
	AccessKey                     string
	AccountID                     string
	APIKey                        string
	APIKeyID                      string
	Caller                        string
	CognitoAuthenticationProvider string
	CognitoAuthenticationType     string
	CognitoIdentityID             string
	CognitoIdentityPoolID         string
	PrincipalOrgID                string
	SourceIP                      string
	User                          string
	UserAgent                     string
	UserARN                       string
}

// ErrorInfo is $context.error in a gateway response template.
type ErrorInfo struct {
	Message               string // $context.error.message
	ResponseType          string // $context.error.responseType, e.g. "MISSING_AUTHENTICATION_TOKEN"
	ValidationErrorString string // $context.error.validationErrorString
}

// NewContext builds $context from c, with empty override maps:
// requestOverride.{header,path,querystring} and responseOverride.header.
// responseOverride.status is absent until a template sets it.
func NewContext(c Context) *vtl.Map {
	m := vtl.NewMap(24)
	put(m, "accountId", c.AccountID)
	put(m, "apiId", c.APIID)
	if c.Authorizer != nil {
		m.Put("authorizer", c.Authorizer)
	}
	put(m, "deploymentId", c.DeploymentID)
	put(m, "domainName", c.DomainName)
	put(m, "domainPrefix", c.DomainPrefix)
	if c.Error != nil {
		e := vtl.NewMap(4)
		e.Put("message", c.Error.Message)
		// "The quoted value of $context.error.message", so that the
		// default template {"message":$context.error.messageString} is
		// JSON.
		e.Put("messageString", vtl.JSON(c.Error.Message))
		e.Put("responseType", c.Error.ResponseType)
		e.Put("validationErrorString", c.Error.ValidationErrorString)
		m.Put("error", e)
	}
	put(m, "extendedRequestId", c.ExtendedRequestID)
	put(m, "httpMethod", c.HTTPMethod)
	id := c.Identity
	im := vtl.NewMap(14)
	put(im, "accessKey", id.AccessKey)
	put(im, "accountId", id.AccountID)
	put(im, "apiKey", id.APIKey)
	put(im, "apiKeyId", id.APIKeyID)
	put(im, "caller", id.Caller)
	put(im, "cognitoAuthenticationProvider", id.CognitoAuthenticationProvider)
	put(im, "cognitoAuthenticationType", id.CognitoAuthenticationType)
	put(im, "cognitoIdentityId", id.CognitoIdentityID)
	put(im, "cognitoIdentityPoolId", id.CognitoIdentityPoolID)
	put(im, "principalOrgId", id.PrincipalOrgID)
	put(im, "sourceIp", id.SourceIP)
	put(im, "user", id.User)
	put(im, "userAgent", id.UserAgent)
	put(im, "userArn", id.UserARN)
	m.Put("identity", im)
	put(m, "path", c.Path)
	put(m, "protocol", c.Protocol)
	put(m, "requestId", c.RequestID)
	req := vtl.NewMap(3)
	req.Put("header", vtl.NewMap(0))
	req.Put("path", vtl.NewMap(0))
	req.Put("querystring", vtl.NewMap(0))
	m.Put("requestOverride", req)
	put(m, "requestTime", c.RequestTime)
	if c.RequestTimeEpoch != 0 {
		m.Put("requestTimeEpoch", c.RequestTimeEpoch)
	}
	put(m, "resourceId", c.ResourceID)
	put(m, "resourcePath", c.ResourcePath)
	resp := vtl.NewMap(2)
	resp.Put("header", vtl.NewMap(0))
	m.Put("responseOverride", resp)
	put(m, "stage", c.Stage)
	return m
}

func put(m *vtl.Map, k, v string) {
	if v != "" {
		m.Put(k, v)
	}
}

// Overrides are what templates wrote into $context.requestOverride and
// $context.responseOverride. Empty groups are nil.
type Overrides struct {
	// Status is responseOverride.status when it is an integer in
	// [100, 599], else 0: API Gateway ignores other values (docs/apigateway-execution.md §2).
	Status          int
	ResponseHeaders map[string]string
	RequestHeaders  map[string]string
	RequestQuery    map[string]string
	RequestPath     map[string]string
}

// ReadOverrides reads the overrides from a context built by NewContext,
// after a render. Values are rendered to strings; null values are left
// out.
func ReadOverrides(ctx *vtl.Map) Overrides {
	var ov Overrides
	if resp, ok := mapAt(ctx, "responseOverride"); ok {
		if s, ok := resp.Get("status"); ok {
			ov.Status = status(s)
		}
		ov.ResponseHeaders = stringsAt(resp, "header")
	}
	if req, ok := mapAt(ctx, "requestOverride"); ok {
		ov.RequestHeaders = stringsAt(req, "header")
		ov.RequestQuery = stringsAt(req, "querystring")
		ov.RequestPath = stringsAt(req, "path")
	}
	return ov
}

func status(v vtl.Value) int {
	var n int64
	switch v := v.(type) {
	case int64:
		n = v
	case float64:
		if v != math.Trunc(v) {
			return 0
		}
		n = int64(v)
	default:
		return 0
	}
	if n < 100 || n > 599 {
		return 0
	}
	return int(n)
}

func mapAt(m *vtl.Map, k string) (*vtl.Map, bool) {
	if m == nil {
		return nil, false
	}
	v, _ := m.Get(k)
	sub, ok := v.(*vtl.Map)
	return sub, ok
}

func stringsAt(m *vtl.Map, k string) map[string]string {
	sub, ok := mapAt(m, k)
	if !ok || sub.Len() == 0 {
		return nil
	}
	out := make(map[string]string, sub.Len())
	sub.Range(func(k string, v vtl.Value) bool {
		if v != nil {
			out[k] = vtl.String(v)
		}
		return true
	})
	if len(out) == 0 {
		return nil
	}
	return out
}
