package rest

import (
	"errors"
	"strings"
	"time"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/vtl/gateway"
)

// Function runs function integrations (AWS, AWS_PROXY and the CLOUD
// names): the functions service provides it. Until one is plugged in,
// those types answer a plain 500 naming the type. Invoke MUST be safe for
// concurrent use and return within call.Timeout.
type Function interface {
	Invoke(call *FunctionCall, out *FunctionResult) error
}

// FunctionCall is one function invocation. Its slices alias the request:
// valid only during Invoke.
type FunctionCall struct {
	// URI is the integration URI (the function's invocation ARN), stage
	// variables substituted.
	URI string
	// Proxy: build the proxy event from the method request below; else
	// Body is the integration request body (the mapped payload).
	Proxy                      bool
	Method, Path, ResourcePath string
	PathParams                 []Param
	Query                      []execute.QueryParam
	Headers                    execute.Headers
	Body                       []byte
	StageVariables             map[string]string
	Context                    gateway.Context
	Timeout                    time.Duration
}

// FunctionResult is a function's answer. For a proxy integration it is the
// parsed proxy response; for a non-proxy one, Body is the payload and
// ErrorMessage the function error's message ("" on success), which the
// selection patterns read (recorded L-01).
type FunctionResult struct {
	Status          int
	Headers         execute.Headers
	Body            []byte
	IsBase64Encoded bool
	ErrorMessage    string
}

// Function errors, as the gateway answers them.
var (
	// ErrMalformedProxyResponse: the proxy answer is not in the proxy
	// response format, or the function failed (502).
	ErrMalformedProxyResponse = errors.New("rest: malformed function proxy response")
)

var errMalformed = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
	errorType: "InternalServerErrorException", afterIntegration: true,
	log: "Execution failed due to configuration error: Malformed Lambda proxy response"}

// function runs a function integration.
func (inv *invocation) function(f Function, integ *integration) {
	req := inv.req
	proxy := strings.HasSuffix(integ.kind, "_PROXY")
	call := &FunctionCall{URI: substituteStageVariables(integ.uri, inv.vars), Proxy: proxy, Method: req.Method,
		Path: req.Path, ResourcePath: inv.m.resourcePath, PathParams: inv.match.Params, Query: inv.queryParams(),
		Headers: req.Headers, Body: req.Body, StageVariables: inv.vars, Context: inv.gatewayContext(),
		Timeout: integ.timeout}
	if !proxy {
		body, _, ok := inv.requestBody(integ)
		if !ok {
			return
		}
		call.Body = body
	}
	var out FunctionResult
	inv.integrationStart = inv.ex.now()
	err := f.Invoke(call, &out)
	inv.integrationLatency = inv.ex.now().Sub(inv.integrationStart)
	switch {
	case err == nil:
	case errors.Is(err, execute.ErrBackendTimeout):
		inv.fail(errTimeout)
		return
	case errors.Is(err, ErrMalformedProxyResponse):
		e := *errMalformed
		inv.fail(&e)
		inv.resp.Status = 502
		inv.status = 502
		return
	default:
		inv.ex.log.Info("function integration failed", "requestId", req.RequestID, "uri", call.URI, "error", err)
		e := *errInternal
		e.afterIntegration = true
		inv.fail(&e)
		return
	}
	inv.integrationStatus = out.Status
	br := &inv.backendResp
	br.Status, br.Headers, br.Body = out.Status, append(br.Headers[:0], out.Headers...), append(br.Body[:0], out.Body...)
	if !proxy {
		inv.respond(integ, out.ErrorMessage)
		return
	}
	resp := inv.resp
	resp.Reset()
	resp.Status = out.Status
	if resp.Status == 0 {
		resp.Status = 200
	}
	if _, ok := out.Headers.Get("Content-Type"); !ok {
		resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"})
	}
	for _, h := range out.Headers {
		resp.Headers = append(resp.Headers, execute.Header{Name: execute.Remapped(h.Name, true), Value: h.Value})
	}
	body := out.Body
	if out.IsBase64Encoded && isBinary(inv.dep.binary, inv.accept()) {
		var ok bool
		if body, ok = base64Decode(body); !ok {
			inv.fail(errConvert)
			return
		}
	}
	resp.Body = append(resp.Body, body...)
	inv.status = resp.Status
	inv.enrich(true)
	inv.traceResponse()
	inv.trace("Successfully completed execution")
}
