// Package httpapi runs requests against deployed HTTP APIs (API Gateway
// v2, protocol HTTP): stage selection ($default at the root, named stages
// under their prefix), route matching compiled once per deployment, the
// HTTP_PROXY and function-proxy integrations with parameter mapping, JWT
// and Lambda authorizers, CORS, throttling and metrics. Like execute/rest
// it reads only published snapshots and never enters an owner's mailbox.
package httpapi
