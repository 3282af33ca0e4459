// Package oashttp converts between an OpenAPI 3.0 document (JSON or YAML,
// with API Gateway's x-amazon-apigateway-* extensions) and a neutral
// description of an HTTP API: its routes, integrations, authorizers and
// CORS. It owns only the conversion: it knows nothing of owners, ids or
// HTTP, and it must never panic on a hostile document (cycles, depth,
// size): every failure is an error naming where the document went wrong.
package oashttp
