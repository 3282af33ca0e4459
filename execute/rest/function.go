package rest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/execute"
)

// Function and FunctionReply are the data plane's contract with the
// functions service (execute.Function).
type (
	Function      = execute.Function
	FunctionReply = execute.FunctionReply
)

// lambdaTarget is a function integration's (or an authorizer's) URI,
// parsed once: arn:aws:apigateway:{region}:lambda:path/2015-03-31/functions/{function}/invocations.
type lambdaTarget struct {
	// service is the AWS service the URI names ("lambda", "s3", ...); ""
	// when it is no API Gateway service ARN.
	service string
	// region is the URI's region (where API Gateway sends the call).
	region string
	// function is what Lambda's Invoke takes (an ARN or a name, with its
	// qualifier), stage variables not substituted; "" when the URI is not
	// a Lambda invocation.
	function string
	// vars: function refers to stage variables.
	vars bool
}

// parseLambdaURI parses an integration or authorizer URI.
func parseLambdaURI(uri string) lambdaTarget {
	u := execute.ParseServiceURI(uri)
	return lambdaTarget{service: u.Service, region: u.Region, function: u.Function,
		vars: strings.Contains(u.Function, "${stageVariables.")}
}

// name is the function to invoke, the request's stage variables
// substituted.
func (t lambdaTarget) name(vars map[string]string) string {
	if t.vars {
		return execute.SubstituteStageVariables(t.function, vars)
	}
	return t.function
}

// invokeURI is the Lambda endpoint API Gateway's execution log names.
func (t lambdaTarget) invokeURI(fn string) string {
	return "https://lambda." + t.region + ".amazonaws.com/2015-03-31/functions/" + fn + "/invocations"
}

var (
	// errBadLambdaURI is a function integration whose Lambda URI names no
	// function's invocations.
	errBadLambdaURI = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException",
		log:       "Execution failed due to configuration error: Invalid Lambda function invocation URI"}
	// errLambdaMethod: Lambda's Invoke is a POST; with another integration
	// method the call reaches no operation and Lambda refuses it (403),
	// which API Gateway answers 500 (recorded L-03, G-01).
	errLambdaMethod = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true,
		log: "Execution failed due to configuration error: "}
	// errLambdaFunctionError is a function error under a proxy
	// integration: 502, the log line written before.
	errLambdaFunctionError = &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true, status: 502}
)

// errLambdaInvoke is a call the functions service could not make (no such
// function, the service failed): 500, the reason in the log.
func errLambdaInvoke(err error) *gatewayError {
	return &gatewayError{responseType: "DEFAULT_5XX", message: msgInternal, spaced: true,
		errorType: "InternalServerErrorException", afterIntegration: true,
		log: "Execution failed due to configuration error: " + err.Error()}
}

// errUnsupportedService answers an AWS integration of a service other
// than Lambda.
func errUnsupportedService(kind, service string) *gatewayError {
	if service == "" {
		service = "this URI"
	}
	return &gatewayError{responseType: "DEFAULT_5XX", spaced: true, errorType: "InternalServerErrorException",
		message: "Integration type " + kind + " is not emulated yet for " + service,
		log:     "Execution failed due to configuration error: integration type " + kind + " is not emulated yet for " + service}
}

// emptyPayload is what a function receives for an empty integration
// request body (Lambda reads no payload as {}).
var emptyPayload = []byte("{}")

// invoke calls f within timeout: the reply, whether the call timed out,
// and the error of a call that could not be made.
func (inv *invocation) invoke(f Function, name string, payload []byte, timeout time.Duration) (FunctionReply, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	reply, err := f.Invoke(ctx, inv.scope, name, payload, timeout)
	timedOut := ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, execute.ErrBackendTimeout)
	cancel()
	return reply, timedOut, err
}

// function runs a function integration (§2.7, §4): the proxy event or the
// mapped payload goes to the function; its answer is parsed as a proxy
// response, or is the integration response's body with the function
// error's message as the selection value.
func (inv *invocation) function(f Function, integ *integration) {
	t := integ.lambda
	if t.service != "lambda" {
		if inv.tr != nil {
			inv.traceStep(execute.StepIntegration, "error", integ.kind+": service "+t.service+" is not emulated")
		}
		inv.fail(errUnsupportedService(integ.kind, t.service))
		return
	}
	if t.function == "" {
		inv.traceStep(execute.StepIntegration, "error", "invalid Lambda function invocation URI")
		inv.fail(errBadLambdaURI)
		return
	}
	name := t.name(inv.vars)
	var payload, logged []byte
	if integ.proxy {
		inv.payload = inv.appendProxyEvent(inv.payload[:0], "")
		payload, logged = inv.payload, inv.payload
	} else {
		body, _, ok := inv.requestBody(integ)
		if !ok {
			return
		}
		payload, logged = body, body
		if len(payload) == 0 {
			payload = emptyPayload
		}
	}
	if inv.log != nil {
		uri := t.invokeURI(name)
		inv.trace("Endpoint request URI: " + uri)
		inv.trace("Endpoint request headers: {x-amzn-lambda-integration-tag=" + inv.req.RequestID +
			", x-amzn-apigateway-api-id=" + inv.req.APIID + ", Accept=application/json, User-Agent=AmazonAPIGateway_" +
			inv.req.APIID + ", X-Amzn-Trace-Id=" + inv.traceHeader() + "}")
		inv.trace("Endpoint request body after transformations: " + string(logged))
		inv.trace("Sending request to " + uri)
	}
	if integ.httpMethod != "POST" {
		if inv.log != nil {
			inv.trace("Lambda invocation failed with status: 403. Lambda request id: " + inv.lambdaRequestID())
		}
		if inv.tr != nil {
			inv.traceStep(execute.StepIntegration, "403", integ.kind+" lambda "+name+": the integration method is "+
				integ.httpMethod+", Lambda's Invoke takes POST")
		}
		inv.fail(errLambdaMethod)
		return
	}
	inv.integrationStart = inv.ex.now()
	reply, timedOut, err := inv.invoke(f, name, payload, integ.timeout)
	inv.integrationLatency = inv.ex.now().Sub(inv.integrationStart)
	if inv.tr != nil {
		inv.traceFunction(integ, name, reply, timedOut, err)
	}
	switch {
	case timedOut:
		inv.fail(errTimeout)
		return
	case err != nil:
		inv.ex.log.Info("function integration failed", "requestId", inv.req.RequestID, "function", name, "error", err)
		inv.fail(errLambdaInvoke(err))
		return
	}
	inv.integrationStatus = 200
	br := &inv.backendResp
	br.Status = 200
	br.Headers = append(br.Headers[:0], execute.Header{Name: "Content-Type", Value: "application/json"})
	if reply.Error != "" {
		br.Headers = append(br.Headers, execute.Header{Name: "X-Amz-Function-Error", Value: reply.Error})
	}
	br.Body = append(br.Body[:0], reply.Payload...)
	if inv.log != nil {
		inv.trace("Received response. Status: 200, Integration latency: " +
			strconv.FormatInt(inv.integrationLatency.Milliseconds(), 10) + " ms")
		inv.trace("Endpoint response headers: " + javaHeaders(br.Headers))
		inv.trace("Endpoint response body before transformations: " + string(br.Body))
	}
	if integ.proxy {
		inv.proxyFunctionResponse(reply)
		return
	}
	selection := ""
	if reply.Error != "" {
		selection = execute.FunctionErrorMessage(reply.Payload)
	}
	inv.respond(integ, selection)
}

// proxyFunctionResponse answers with a Lambda proxy answer (§4 "Response
// parsing"): a function error or an answer not in the format is 502.
func (inv *invocation) proxyFunctionResponse(reply FunctionReply) {
	if reply.Error != "" {
		if inv.log != nil {
			inv.trace("Lambda execution failed with status 200 due to customer function error: " +
				execute.FunctionErrorMessage(reply.Payload) + ". Lambda request id: " + inv.lambdaRequestID())
		}
		inv.traceStep(execute.StepIntegrationResponse, "function error", "a function error under a proxy integration: 502")
		inv.fail(errLambdaFunctionError)
		return
	}
	br := &inv.backendResp
	// The event is sent: its buffer takes the body.
	answer, headers, ok := parseProxyAnswer(reply.Payload, br.Headers[:0], inv.payload[:0])
	br.Headers, inv.payload = headers, answer.body
	if !ok {
		inv.traceStep(execute.StepIntegrationResponse, "malformed", "the function's answer is not a proxy response")
		inv.fail(errLambdaProxy)
		return
	}
	inv.traceStep(execute.StepIntegrationResponse, "passthrough", "the function's proxy response")
	resp := inv.resp
	resp.Reset()
	resp.Status = answer.status
	if _, ok := headers.Get("Content-Type"); !ok {
		resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"})
	}
	for _, h := range headers {
		if strings.EqualFold(h.Name, "Transfer-Encoding") {
			continue
		}
		resp.Headers = append(resp.Headers, execute.Header{Name: execute.Remapped(h.Name, true), Value: h.Value})
	}
	body := answer.body
	if answer.base64 && isBinary(inv.dep.binary, inv.accept()) {
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

// lambdaRequestID is the request id a Lambda call had, for the execution
// log only.
func (inv *invocation) lambdaRequestID() string {
	var b [36]byte
	return string(inv.ex.ids.Append(b[:0]))
}
