package rest

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/gateway"
)

type apiStage = apigateway.ApiStage

// requestTimeLayout is $context.requestTime's format (CLF).
const requestTimeLayout = "02/Jan/2006:15:04:05 -0700"

// gatewayContext is what the request knows, as $context fields.
func (inv *invocation) gatewayContext() gateway.Context {
	req := inv.req
	c := gateway.Context{
		AccountID:         inv.scope.Account,
		APIID:             req.APIID,
		DeploymentID:      inv.depID,
		DomainName:        execute.HostName(req.Host),
		ExtendedRequestID: inv.extendedRequestID(),
		HTTPMethod:        req.Method,
		Path:              inv.contextPath(),
		Protocol:          req.Protocol,
		RequestID:         req.RequestID,
		RequestTime:       req.Received.UTC().Format(requestTimeLayout),
		RequestTimeEpoch:  req.Received.UnixMilli(),
		Stage:             req.Stage,
		Identity: gateway.Identity{SourceIP: req.SourceIP, APIKey: inv.apiKey, APIKeyID: inv.apiKeyID,
			UserAgent: inv.userAgent()},
	}
	c.DomainPrefix, _, _ = strings.Cut(c.DomainName, ".")
	if inv.m != nil {
		c.ResourceID, c.ResourcePath = inv.m.resourceID, inv.m.resourcePath
		c.HTTPMethod = inv.m.httpMethod
		if c.HTTPMethod == "ANY" {
			c.HTTPMethod = req.Method
		}
	}
	if inv.auth != nil {
		c.Authorizer = inv.authorizerMap()
	}
	if e := inv.err; e != nil {
		c.Error = &gateway.ErrorInfo{Message: e.message, ResponseType: e.responseType}
		if e.responseType == "BAD_REQUEST_BODY" || e.responseType == "BAD_REQUEST_PARAMETERS" {
			c.Error.ValidationErrorString = e.message
		}
	}
	return c
}

func (inv *invocation) userAgent() string {
	ua, _ := inv.req.Headers.Get("User-Agent")
	return ua
}

// contextPath is $context.path: the stage and the path as the client sent
// them ("/dev//pets").
func (inv *invocation) contextPath() string {
	return "/" + inv.req.Stage + inv.req.Path
}

// contextObject returns $context for templates, made on first use and
// shared by the request and response templates (overrides carry over).
func (inv *invocation) contextObject() *contextObject {
	if inv.ctx == nil {
		inv.ctxObj = contextObject{inv: inv}
		inv.ctx = &inv.ctxObj
	}
	return inv.ctx
}

// render renders a mapping template over body ($input.body), building only
// the variables the template refers to.
func (inv *invocation) render(t *template, body []byte) (string, error) {
	if t.err != nil {
		return "", t.err
	}
	if t.static {
		return string(t.out), nil
	}
	vars := inv.renderVars
	if vars == nil {
		vars = make(map[string]vtl.Value, 4)
		inv.renderVars = vars
	}
	clear(vars)
	if t.input {
		vars["input"] = gateway.NewInputFrom(body, inv)
	}
	if t.context {
		vars["context"] = inv.contextObject()
	}
	if t.stage {
		if inv.stageMap == nil {
			inv.stageMap = gateway.Strings(inv.vars)
		}
		vars["stageVariables"] = inv.stageMap
	}
	vars["util"] = gateway.Util{}
	return t.t.Render(vars, vtl.DefaultLimits)
}

// InputParam implements gateway.ParamSource: a path parameter, a query
// parameter (its last value) or a header the method sees.
func (inv *invocation) InputParam(group, name string) (string, bool) {
	switch group {
	case "path":
		for _, p := range inv.match.Params {
			if p.Name == name {
				return p.Value, true
			}
		}
	case "querystring":
		for _, q := range inv.queryParams() {
			if q.Name == name {
				return q.Last(), true
			}
		}
	case "header":
		return inv.header(name)
	}
	return "", false
}

// InputParams implements gateway.ParamSource.
func (inv *invocation) InputParams(group string) map[string]string {
	switch group {
	case "path":
		m := make(map[string]string, len(inv.match.Params))
		for _, p := range inv.match.Params {
			m[p.Name] = p.Value
		}
		return m
	case "querystring":
		q := inv.queryParams()
		m := make(map[string]string, len(q))
		for _, p := range q {
			m[p.Name] = p.Last()
		}
		return m
	case "header":
		m := make(map[string]string, len(inv.req.Headers))
		for _, h := range inv.req.Headers {
			if !isHop(h.Name) {
				m[h.Name] = h.Value
			}
		}
		return m
	}
	return nil
}

// contextValue is a $context variable by name ("identity.sourceIp"), for
// parameter mappings and access logs, without building the map.
func (inv *invocation) contextValue(name string) (string, bool) {
	req := inv.req
	switch name {
	case "accountId":
		return inv.scope.Account, inv.scope.Account != ""
	case "apiId":
		return req.APIID, true
	case "deploymentId":
		return inv.depID, inv.depID != ""
	case "domainName":
		return execute.HostName(req.Host), req.Host != ""
	case "domainPrefix":
		p, _, _ := strings.Cut(execute.HostName(req.Host), ".")
		return p, p != ""
	case "extendedRequestId":
		return inv.extendedRequestID(), true
	case "requestId":
		return req.RequestID, true
	case "httpMethod":
		if inv.m != nil && inv.m.httpMethod != "ANY" {
			return inv.m.httpMethod, true
		}
		return req.Method, true
	case "path":
		return inv.contextPath(), true
	case "protocol":
		return req.Protocol, true
	case "requestTime":
		return req.Received.UTC().Format(requestTimeLayout), true
	case "requestTimeEpoch":
		return strconv.FormatInt(req.Received.UnixMilli(), 10), true
	case "resourceId":
		if inv.m == nil {
			return "", false
		}
		return inv.m.resourceID, true
	case "resourcePath":
		if inv.m == nil {
			return "", false
		}
		return inv.m.resourcePath, true
	case "stage":
		return req.Stage, true
	case "identity.sourceIp":
		return req.SourceIP, req.SourceIP != ""
	case "identity.userAgent":
		ua := inv.userAgent()
		return ua, ua != ""
	case "identity.apiKey":
		return inv.apiKey, inv.apiKey != ""
	case "identity.apiKeyId":
		return inv.apiKeyID, inv.apiKeyID != ""
	case "isCanaryRequest":
		return strconv.FormatBool(inv.isCanary), inv.canary
	case "status":
		return strconv.Itoa(inv.resp.Status), inv.resp.Status != 0
	case "responseLength":
		return strconv.Itoa(len(inv.resp.Body)), inv.resp.Status != 0
	case "responseLatency":
		return strconv.FormatInt(inv.ex.now().Sub(req.Received).Milliseconds(), 10), true
	case "integrationLatency", "integration.latency":
		if inv.integrationStart.IsZero() {
			return "", false
		}
		return strconv.FormatInt(inv.integrationLatency.Milliseconds(), 10), true
	case "integrationStatus", "integration.status", "integration.integrationStatus":
		if inv.integrationStatus == 0 {
			return "", false
		}
		return strconv.Itoa(inv.integrationStatus), true
	case "integrationErrorMessage", "integration.error":
		if inv.err == nil || !inv.err.afterIntegration {
			return "", false
		}
		return inv.err.message, true
	case "error.message", "error.messageString":
		if inv.err == nil {
			return "", false
		}
		if name == "error.messageString" {
			return string(appendJSONQuoted(nil, inv.err.message)), true
		}
		return inv.err.message, true
	case "error.responseType":
		if inv.err == nil {
			return "", false
		}
		return inv.err.responseType, true
	case "error.validationErrorString":
		if inv.err == nil || !strings.HasPrefix(inv.err.responseType, "BAD_REQUEST_") {
			return "", false
		}
		return inv.err.message, true
	case "xrayTraceId":
		if inv.traceID == "" {
			return "", false
		}
		return inv.traceID, true
	}
	if k, ok := strings.CutPrefix(name, "authorizer."); ok && inv.auth != nil {
		return inv.auth.value(k, inv.authLatency)
	}
	return "", false
}

// authorizerMap is $context.authorizer: the Lambda authorizer's
// principal, its call's latency and its context, as text.
func (inv *invocation) authorizerMap() *vtl.Map {
	a := inv.auth
	m := vtl.NewMap(2 + len(a.context))
	m.Put("principalId", a.principalID)
	m.Put("integrationLatency", strconv.FormatInt(inv.authLatency.Milliseconds(), 10))
	for _, c := range a.context {
		if c.Name != "principalId" && c.Name != "integrationLatency" {
			m.Put(c.Name, c.Value)
		}
	}
	return m
}

func appendJSONQuoted(dst []byte, s string) []byte {
	return append(append(append(dst, '"'), appendJSONText(nil, s)...), '"')
}

// sourceValue evaluates a mapping source against the request (and, in the
// integration response, the backend's answer).
func (inv *invocation) sourceValue(s source) (string, bool) {
	switch s.kind {
	case srcStatic:
		return s.name, true
	case srcStageVariable:
		v, ok := inv.vars[s.name]
		return v, ok
	case srcContext:
		return inv.contextValue(s.name)
	case srcRequest:
		switch s.where {
		case "path":
			for _, p := range inv.match.Params {
				if p.Name == s.name {
					return p.Value, true
				}
			}
			return "", false
		case "querystring":
			for _, q := range inv.queryParams() {
				if q.Name == s.name {
					return q.Last(), true
				}
			}
			return "", false
		case "multivaluequerystring":
			for _, q := range inv.queryParams() {
				if q.Name == s.name {
					return strings.Join(q.Values, ","), true
				}
			}
			return "", false
		case "header":
			return inv.header(s.name)
		case "multivalueheader":
			if isHop(s.name) {
				return "", false
			}
			vs := inv.req.Headers.Values(s.name)
			return strings.Join(vs, ","), len(vs) > 0
		}
	case srcRequestBody:
		return bodyValue(inv.req.Body, s.path)
	case srcResponse:
		switch s.where {
		case "header":
			return inv.backendResp.Headers.Get(s.name)
		case "multivalueheader":
			vs := inv.backendResp.Headers.Values(s.name)
			return strings.Join(vs, ","), len(vs) > 0
		}
	case srcResponseBody:
		return bodyValue(inv.backendResp.Body, s.path)
	}
	return "", false
}

func mapKeys[V any](m map[string]V) func(func(string) bool) { return maps.Keys(m) }

// firstKey returns prefer when m has it, else m's first key in order.
func firstKey[V any](m map[string]V, prefer string) string {
	if _, ok := m[prefer]; ok {
		return prefer
	}
	keys := slices.Sorted(maps.Keys(m))
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// pickTemplate chooses a response template for the request's first Accept
// type: that one, else application/json, else the first (§2.8).
func pickTemplate(ts map[string]*template, accept string) *template {
	if t, ok := ts[accept]; ok && accept != "" {
		return t
	}
	return ts[firstKey(ts, "application/json")]
}
