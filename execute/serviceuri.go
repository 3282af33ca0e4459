package execute

import (
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// ServiceURI is an integration's or authorizer's URI as API Gateway reads
// it: arn:aws:apigateway:{region}:{service}:{action or path}.
type ServiceURI struct {
	// Service is the AWS service the URI names ("lambda", "s3", ...); ""
	// when it is no API Gateway service ARN.
	Service string
	// Region is the URI's region (where API Gateway sends the call).
	Region string
	// Function is what Lambda's Invoke takes (an ARN or a name, with its
	// qualifier) from
	// arn:aws:apigateway:{region}:lambda:path/2015-03-31/functions/{function}/invocations;
	// "" when the URI is not a Lambda invocation.
	Function string
}

const (
	lambdaPathPrefix = "path/2015-03-31/functions/"
	lambdaPathSuffix = "/invocations"
)

// ParseServiceURI reads an API Gateway service URI.
func ParseServiceURI(uri string) ServiceURI {
	arn, ok := awswire.ParseARN(uri)
	if !ok || arn.Service != "apigateway" {
		return ServiceURI{}
	}
	// An API Gateway service ARN names the service in its account field.
	u := ServiceURI{Service: arn.Account, Region: arn.Region}
	if u.Service != "lambda" {
		return u
	}
	fn, ok := strings.CutPrefix(arn.Resource, lambdaPathPrefix)
	if !ok {
		return u
	}
	if fn, ok = strings.CutSuffix(fn, lambdaPathSuffix); ok && fn != "" {
		u.Function = fn
	}
	return u
}

// LambdaFunction is what Lambda's Invoke takes from a v2 function URI: the
// function of a Lambda invocation URI, or a function's own ARN (HTTP APIs
// take them as integration URIs); ok is false for anything else.
func LambdaFunction(uri string) (string, bool) {
	if arn, ok := awswire.ParseARN(uri); ok && arn.Service == "lambda" {
		return uri, true
	}
	fn := ParseServiceURI(uri).Function
	return fn, fn != ""
}
