// Package apigateway owns the API Gateway REST (v1) resources: one owner
// actor per REST API (holding its resources, methods, integrations, models,
// authorizers, request validators, gateway responses, deployments and
// stages, and its tags), and one per API key, usage plan (with its keys),
// domain name (with its base path mappings) and VPC link. Writes are
// mutations run inside the owner; reads take the published state from a
// lock-free directory. Deployments freeze the configuration they were made
// from. The usage plans' owners also keep, per linked API key, the
// throttle package's buckets and quota that the data plane takes from
// (KeyLimits), and the REST APIs' owners re-size their stages' method
// throttling (StageBucket); usage counts live there, in memory only. It
// knows nothing of HTTP; its errors are the wire catalogue's.
package apigateway
