// Package apigatewayv2 serves the API Gateway v2 control plane (HTTP and
// WebSocket APIs): it decodes each request, checks it against the model's
// shapes, runs it against the owners in actors/apigatewayv2, and encodes
// the reply with the model's wire names (camelCase, ISO 8601 dates,
// nextToken pages). Each resource kind's handlers live in their own file
// and are listed in Handlers; operations not listed answer
// NotImplementedException.
package apigatewayv2http
