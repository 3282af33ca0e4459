// Package apigatewayv2 owns the API Gateway v2 resources (HTTP and
// WebSocket APIs): one owner actor per API, holding its routes, route
// responses, integrations, integration responses, authorizers, models,
// deployments and stages and its tags, and one per domain name (with its
// API mappings) and VPC link. Writes are mutations run inside the owner;
// reads take the published state from a lock-free directory. Deployments
// freeze the routes and integrations they were made from, and a stage with
// autoDeploy follows every change. It knows nothing of HTTP; its errors are
// the wire catalogue's.
package apigatewayv2
