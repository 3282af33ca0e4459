package rest

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
)

// gatewayError is a failure API Gateway answers with a gateway response
// (docs/apigateway-execution.md §3): its type picks the response, its message fills
// $context.error.message.
type gatewayError struct {
	responseType string
	message      string
	// errorType is the x-amzn-ErrorType header.
	errorType string
	// spaced: the built-in template's output has a space after the colon,
	// as AWS's answers from the integration stage and the validators do
	// ({"message": "Internal server error"}); 403s are compact.
	spaced bool
	// null: the message is JSON null (AUTHORIZER_CONFIGURATION_ERROR).
	null bool
	// capital: the built-in template's output names the member "Message"
	// (ACCESS_DENIED from a Lambda authorizer's policy, §2.3).
	capital bool
	// status, when set, is the answer's status whatever the gateway
	// response says (502 for a Lambda proxy failure, recorded L-04).
	status int
	// afterIntegration: the integration was called, so the answer carries
	// the trace header.
	afterIntegration bool
	// log is the execution-log line TestInvokeMethod shows, when AWS
	// writes one.
	log string
}

const (
	msgInternal = "Internal server error"
)

var (
	errMissingToken = &gatewayError{responseType: "MISSING_AUTHENTICATION_TOKEN", message: "Missing Authentication Token",
		errorType: "MissingAuthenticationTokenException"}
	errInvalidKey = &gatewayError{responseType: "INVALID_API_KEY", message: "Forbidden", errorType: "ForbiddenException"}
	errAuthorizer = &gatewayError{responseType: "AUTHORIZER_CONFIGURATION_ERROR", null: true, spaced: true,
		errorType: "AuthorizerConfigurationException",
		log:       "Execution failed due to configuration error: Authorizers are not emulated yet"}
	// errThrottled and errQuota are a usage plan's, a stage's or the
	// account's refusals (§3, §8).
	errThrottled = &gatewayError{responseType: "THROTTLED", message: "Too Many Requests",
		errorType: "TooManyRequestsException"}
	errQuota = &gatewayError{responseType: "QUOTA_EXCEEDED", message: "Limit Exceeded",
		errorType: "LimitExceededException"}
	errBadBody = &gatewayError{responseType: "BAD_REQUEST_BODY", message: "Invalid request body", spaced: true,
		errorType: "BadRequestException"}
	errUnsupportedMedia = &gatewayError{responseType: "UNSUPPORTED_MEDIA_TYPE", message: "Unsupported Media Type",
		spaced: true, errorType: "UnsupportedMediaTypeException"}
	// errInternal is a configuration the gateway cannot run (a restricted
	// header mapping, a template that fails, a MOCK without a status).
	errInternal = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException"}
	errBadEndpoint = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException",
		log:       "Execution failed due to configuration error: Invalid endpoint address"}
	errNoOutputMapping = &gatewayError{responseType: "API_CONFIGURATION_ERROR", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true}
	errTimeout = &gatewayError{responseType: "INTEGRATION_TIMEOUT", message: "Endpoint request timed out", spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true,
		log: "Execution failed due to a timeout error"}
	errUnreachable = &gatewayError{responseType: "INTEGRATION_FAILURE", message: "Network error communicating with endpoint",
		spaced: true, errorType: "InternalServerErrorException", afterIntegration: true,
		log: "Execution failed due to a network error communicating with the endpoint"}
	errConvert = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true,
		log: "Execution failed due to configuration error: Unable to transform the payload"}

	// Lambda authorizers' outcomes (§2.3): a missing or invalid identity,
	// or the function's "Unauthorized"; a policy that denies explicitly or
	// does not allow; a function that fails or answers what is not an
	// authorizer's output.
	errUnauthorized = &gatewayError{responseType: "UNAUTHORIZED", message: "Unauthorized",
		errorType: "UnauthorizedException"}
	errExplicitDeny = &gatewayError{responseType: "ACCESS_DENIED", capital: true, errorType: "AccessDeniedException",
		message: "User is not authorized to access this resource with an explicit deny"}
	errImplicitDeny = &gatewayError{responseType: "ACCESS_DENIED", capital: true, errorType: "AccessDeniedException",
		message: "User is not authorized to access this resource"}
	errAuthorizerFailed = &gatewayError{responseType: "AUTHORIZER_CONFIGURATION_ERROR", null: true, spaced: true,
		errorType: "AuthorizerConfigurationException"}

	// errLambdaProxy is a Lambda proxy answer that is not in the proxy
	// response format, or a function error under a proxy integration
	// (recorded L-04): 502.
	errLambdaProxy = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true, status: 502,
		log: "Execution failed due to configuration error: Malformed Lambda proxy response"}
	// errMalformedEndpoint is an HTTP backend's answer that is not HTTP,
	// is cut short or is over the payload limit: 502, as a malformed
	// proxy answer.
	errMalformedEndpoint = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true, status: 502,
		log: "Execution failed due to configuration error: Malformed HTTP response from the endpoint"}
)

// errMissingParams is a validator's answer for missing parameters.
func errMissingParams(names []string) *gatewayError {
	return &gatewayError{responseType: "BAD_REQUEST_PARAMETERS",
		message:   "Missing required request parameters: [" + strings.Join(names, ", ") + "]",
		spaced:    true,
		errorType: "BadRequestException"}
}

// errUnsupportedIntegration answers an integration type this emulator does
// not run yet, plainly.
func errUnsupportedIntegration(kind string) *gatewayError {
	return &gatewayError{responseType: "DEFAULT_5XX", spaced: true, errorType: "InternalServerErrorException",
		message: "Integration type " + kind + " is not emulated yet",
		log:     "Execution failed due to configuration error: integration type " + kind + " is not emulated yet"}
}

// gatewayResponse is a response type as the deployment customised it (or
// the built-in default).
type gatewayResponse struct {
	status int
	params []paramMapping
	// templates are the response templates; nil when the only one is the
	// built-in {"message":$context.error.messageString}, which is written
	// without the template engine.
	templates   map[string]*template
	contentType string
}

const defaultGatewayTemplate = `{"message":$context.error.messageString}`

// compileGatewayResponses resolves every response type of cfg once.
func compileGatewayResponses(cfg *apigateway.Config) map[string]*gatewayResponse {
	out := make(map[string]*gatewayResponse, len(apigateway.GatewayResponseTypes))
	for _, t := range apigateway.GatewayResponseTypes {
		g := apigateway.EffectiveGatewayResponse(cfg, t)
		r := &gatewayResponse{contentType: "application/json"}
		r.status, _ = strconv.Atoi(g.StatusCode)
		if r.status == 0 {
			r.status = builtinStatus(t)
		}
		for _, target := range slices.Sorted(mapKeys(g.ResponseParameters)) {
			if p, ok := parseMapping(target, "gatewayresponse.", g.ResponseParameters[target]); ok {
				r.params = append(r.params, p)
			}
		}
		if !(len(g.ResponseTemplates) == 1 && g.ResponseTemplates["application/json"] == defaultGatewayTemplate) {
			r.templates = compileTemplates(g.ResponseTemplates)
			if len(r.templates) > 0 {
				r.contentType = firstKey(r.templates, "application/json")
			}
		}
		out[t] = r
	}
	return out
}

// builtinStatus is the status of a response type no configuration names:
// its documented default, 400 or 500 for the DEFAULT_ families.
func builtinStatus(t string) int {
	if n, _ := strconv.Atoi(apigateway.DefaultGatewayResponse(t).StatusCode); n != 0 {
		return n
	}
	if t == "DEFAULT_4XX" {
		return 400
	}
	return 500
}

var builtinGateway = compileGatewayResponses(&apigateway.Config{})

// appendMessageBody appends the built-in template's output.
func appendMessageBody(dst []byte, e *gatewayError) []byte {
	if e.capital {
		dst = append(dst, `{"Message":`...)
	} else {
		dst = append(dst, `{"message":`...)
	}
	if e.spaced {
		dst = append(dst, ' ')
	}
	if e.null {
		dst = append(dst, "null"...)
	} else {
		dst = awswire.AppendString(dst, e.message)
	}
	return append(dst, '}')
}

// fail answers the request with the gateway response for e.
func (inv *invocation) fail(e *gatewayError) {
	inv.err = e
	if e.log != "" {
		inv.trace(e.log)
	}
	responses := builtinGateway
	if inv.dep != nil {
		responses = inv.dep.gateway
	}
	g := responses[e.responseType]
	if g == nil {
		g = builtinGateway["DEFAULT_5XX"]
	}
	resp := inv.resp
	resp.Reset()
	resp.Status = g.status
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: g.contentType})
	resp.Headers = append(resp.Headers, execute.Header{Name: "x-amzn-ErrorType", Value: e.errorType})
	for _, p := range g.params {
		if p.where != "header" {
			continue
		}
		if v, ok := inv.sourceValue(p.src); ok {
			resp.Headers = resp.Headers.Set(p.name, v)
		}
	}
	if e.status != 0 {
		resp.Status = e.status
	}
	if g.templates == nil {
		resp.Body = appendMessageBody(resp.Body, e)
	} else {
		t := pickTemplate(g.templates, inv.accept())
		out, err := inv.render(t, nil)
		if err != nil {
			inv.ex.log.Warn("gateway response template failed", "requestId", inv.req.RequestID,
				"responseType", e.responseType, "error", err)
			resp.Body = appendMessageBody(resp.Body[:0], errInternal)
		} else {
			resp.Body = append(resp.Body, out...)
		}
	}
	inv.status = resp.Status
	inv.enrich(e.afterIntegration)
}
