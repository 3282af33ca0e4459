// Package httpevent owns the Lambda side of HTTP APIs (API Gateway v2,
// protocol HTTP) as pure functions for the HTTP API executor: AppendEvent
// writes the function-proxy event (payload format 2.0 or 1.0) of a Request
// the executor fills per request; ReadResponse reads the function's answer
// into an execute.Response (an error means the client gets 500
// InternalErrorBody); AppendAuthorizerEvent writes a Lambda (REQUEST)
// authorizer's event, ReadAuthorizerAnswer reads its answer (simple or an
// IAM policy, immutable so that it may be cached) and AuthorizerAnswer.Decide
// decides a route's ARN (RouteARN) as Allowed, Forbidden (403),
// Unauthorized (401) or Failed (500). Events are appended to the caller's
// buffer and answers walked in place, without maps, so that a pooled
// buffer makes the hot path allocation-free. The package knows no HTTP
// server and no actors: it imports only execute, awswire and the standard
// library; calling functions, caching answers and routing are the
// executor's. Each rule cites its AWS source: the HTTP API developer guide
// (http-api-develop-integrations-lambda, http-api-lambda-authorizer) and
// events recorded on AWS.
package httpevent
