// Package apigateway serves the API Gateway REST (v1) control plane: it
// decodes each request, checks it against the model's shapes, runs it
// against the owners in actors/apigateway, and encodes the reply with the
// model's wire names ("item" lists, epoch-second dates, 201/202 statuses).
// Each resource kind's handlers live in their own file and are listed in
// Handlers; operations not listed answer NotImplementedException.
package apigatewayhttp
