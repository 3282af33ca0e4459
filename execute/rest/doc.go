// Package rest executes requests against deployed REST (v1) APIs: it
// compiles a frozen deployment once (routes, templates, integrations) and
// runs API Gateway's pipeline over it. It reads only immutable snapshots
// and the lock-free buckets and quotas the owners publish (throttling and
// usage), and never enters an owner's mailbox; it knows no HTTP server (the front
// adapts requests and responses).
package rest
