// Package oasrest converts between OpenAPI documents (OpenAPI 3.0 and
// Swagger 2.0, JSON or YAML, with API Gateway's x-amazon-apigateway-*
// extensions) and a neutral description of a REST API: its resources,
// methods, integrations, models, authorizers, validators and gateway
// responses. It is pure: no actors, no HTTP, no state. Parsing is
// kin-openapi's; this package only reads the parsed document and reports,
// in API Gateway's words, what it cannot import.
package oasrest
